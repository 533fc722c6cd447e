import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { captureDocument } from '../../content/pageCapture.js';
import { colourAlpha, typesElsewhere, type InputLook } from '../../src/typedElsewhere.js';
import { parseDocument } from '../eval/lib/dom.js';

/** An ordinary visible text field: 200 x 20 px, black text, on the page. */
const field: InputLook = { disabled: false, readOnly: false, opaque: true, fontPx: 16, textAlpha: 1, shownWidth: 200, shownHeight: 20, offPage: false };

describe('inputs whose typing is drawn elsewhere (src/typedElsewhere.ts)', () => {
  // Each look as measured in Chromium 156 with the real library (see the module's header).
  it('catches the hidden inputs of CodeMirror 5, Ace, Monaco (textarea) and hand-made editors', () => {
    const cases: Record<string, Partial<InputLook>> = {
      // A 1,002 x 15 px textarea inside a 3 x 0 px box that hides its overflow.
      'CodeMirror 5.65': { fontPx: 13.33, shownWidth: 3, shownHeight: 0 },
      'Ace 1.45': { opaque: false, fontPx: 1, shownWidth: 3, shownHeight: 1 },
      'Monaco (textarea.inputarea)': { textAlpha: 0, shownWidth: 1, shownHeight: 1 },
      'a transparent textarea over a highlighted pre': { textAlpha: 0, shownWidth: 600, shownHeight: 120 },
      'an input moved off the page': { offPage: true },
    };
    for (const [name, look] of Object.entries(cases)) expect(typesElsewhere({ ...field, ...look }), name).toBe(true);
  });

  it('leaves visible fields, and read-only or disabled editors (CodeMirror 5 readOnly / "nocursor", Ace setReadOnly), alone', () => {
    expect(typesElsewhere(field)).toBe(false);
    expect(typesElsewhere({ ...field, shownWidth: 3, shownHeight: 0, disabled: true, readOnly: true })).toBe(false);
    expect(typesElsewhere({ ...field, shownWidth: 3, shownHeight: 0, readOnly: true })).toBe(false);
    expect(typesElsewhere({ ...field, opaque: false, fontPx: 1, readOnly: true })).toBe(false);
    // A small but readable field (a 3-character code box).
    expect(typesElsewhere({ ...field, shownWidth: 30, shownHeight: 18, fontPx: 12 })).toBe(false);
  });

  it('never calls an input one can neither type into nor change', () => {
    const look = fc.record({
      disabled: fc.boolean(),
      readOnly: fc.boolean(),
      opaque: fc.boolean(),
      fontPx: fc.double({ min: 0, max: 100, noNaN: true }),
      textAlpha: fc.double({ min: 0, max: 1, noNaN: true }),
      shownWidth: fc.double({ min: 0, max: 2000, noNaN: true }),
      shownHeight: fc.double({ min: 0, max: 2000, noNaN: true }),
      offPage: fc.boolean(),
    });
    fc.assert(fc.property(look, (l) => !(l.disabled || l.readOnly) || !typesElsewhere(l)));
  });

  it("reads a computed colour's alpha", () => {
    expect(colourAlpha('rgb(0, 0, 0)')).toBe(1);
    expect(colourAlpha('rgba(0, 0, 0, 0)')).toBe(0);
    expect(colourAlpha('rgba(10, 20, 30, 0.5)')).toBe(0.5);
    expect(colourAlpha('transparent')).toBe(0);
    expect(colourAlpha('color(srgb 0 0 0 / 0)')).toBe(0);
    expect(colourAlpha('rgb(0 0 0 / 40%)')).toBe(0.4);
  });
});

describe('CodeMirror 6 views in a fetched page (backfill: captureDocument, no layout)', () => {
  it('reads a read-only view (role=textbox, contenteditable=false) as the page\'s code and leaves an editable one out', async () => {
    const prose = 'This lesson explains how the sorting exercise works and what the answer prints for each line.';
    const view = (editable: boolean, text: string) =>
      `<div class="cm-editor"><div class="cm-scroller"><div class="cm-content" contenteditable="${editable}" role="textbox" aria-multiline="true"><div class="cm-line">${text}</div></div></div></div>`;
    const doc = parseDocument(`<!doctype html><html lang="en"><head><title>Sorting</title></head><body><main>
      <h1>Sorting</h1><p>${prose} ${prose}</p>${view(false, 'let cmsixreadonlycode = (line) =&gt; line.sort();')}
      ${view(true, 'let cmsixeditablecode = 1;')}<div role="textbox">ariatextboxvalue</div><p>${prose}</p></main></body></html>`);
    const text = (await captureDocument(doc, { live: false, fallbackTitle: 'example.com' }))!.payload.blocks.map((b) => b.text).join('\n');
    expect(text).toContain('cmsixreadonlycode');
    expect(text).not.toContain('cmsixeditablecode');
    // A textbox that does not say it is read-only is still never read.
    expect(text).not.toContain('ariatextboxvalue');
  });
});
