/**
 * Is this text input one whose typing the page draws somewhere else? Code editors take keystrokes in a
 * text input nobody sees and draw the text themselves, outside any form control or editable region:
 * measured with the real libraries in Chromium 156, CodeMirror 5.65 (a `textarea` 1,002 x 15 px inside a
 * 3 x 0 px `overflow: hidden` box; the lines drawn as `pre`s) and Ace 1.45 (`textarea.ace_text-input`,
 * opacity 0, font-size 1 px, 3 x 1 px; the lines drawn as `div`s) had what was typed into them stored as
 * the page's text. CodeMirror 6 types into a `contenteditable` (never read already); Monaco 0.58 draws its
 * lines under `aria-hidden="true"` (never read already, read-only ones too).
 *
 * The rule: a text input a person can type into (not disabled, not read-only: CodeMirror 5 with
 * `readOnly: "nocursor"` disables its textarea, `readOnly: true` and Ace's `setReadOnly(true)` make it
 * read-only, and their code is the page's) that the reader cannot see: fully transparent (itself or an
 * ancestor), its text transparent or at most 1 px, or what its clipping ancestors leave of it at most
 * 2 px wide or high, or entirely off the page. A visible input shows its own typing and is never read
 * anyway. The caller (content/extract.ts `typedElsewhereRegions`) then leaves out the editor around it.
 */

/** What the content script measures of a text input on the live page. */
export interface InputLook {
  disabled: boolean;
  readOnly: boolean;
  /** Whether it and every ancestor has an opacity above 0 (`checkVisibility({ opacityProperty: true })`). */
  opaque: boolean;
  /** Computed font size, px. */
  fontPx: number;
  /** Alpha of its computed text colour (`color`, and `-webkit-text-fill-color` when set), 0..1. */
  textAlpha: number;
  /** Width and height (px) of its box after clipping by `clip`, `clip-path: inset(50%)` and its ancestors' overflow. */
  shownWidth: number;
  shownHeight: number;
  /** The box lies wholly left of or above the page (`left: -9999px`): no scrolling reaches it. */
  offPage: boolean;
}

/** Boxes this small show no text a reader could read (Ace's is 3 x 1 px; CodeMirror 5's is cut to 3 x 0). */
export const UNSEEN_BOX_PX = 2;

/** Whether a person types into this input while seeing what they type drawn elsewhere (see the header). */
export function typesElsewhere(look: InputLook): boolean {
  if (look.disabled || look.readOnly) return false;
  return !look.opaque || look.textAlpha === 0 || look.fontPx <= 1 || look.shownWidth <= UNSEEN_BOX_PX || look.shownHeight <= UNSEEN_BOX_PX || look.offPage;
}

/** `<input type>`s a person types text into (the rest are buttons, boxes, pickers, files and hidden data). */
export const TYPED_INPUT_TYPES = new Set(['', 'text', 'search', 'url', 'email', 'tel', 'password', 'number']);

/** Alpha of a computed CSS colour (`rgb(…)`, `rgba(…, a)`, `transparent`, `color(srgb r g b / a)`). */
export function colourAlpha(css: string): number {
  const s = css.trim().toLowerCase();
  if (s === 'transparent') return 0;
  const slash = /\/\s*([\d.]+)(%?)\s*\)$/.exec(s);
  if (slash) return slash[2] ? Number(slash[1]) / 100 : Number(slash[1]);
  const rgba = /^rgba\(\s*[^,]+,[^,]+,[^,]+,\s*([\d.]+)(%?)\s*\)$/.exec(s);
  if (rgba) return rgba[2] ? Number(rgba[1]) / 100 : Number(rgba[1]);
  return 1;
}
