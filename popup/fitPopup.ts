/**
 * The toolbar popup's height when the browser zooms it (issue: at 200% its 600 CSS pixels were twice the
 * 600 screen pixels a popup can have, so the whole popup scrolled and the footer's links went out of view
 * with the results).
 *
 * Chrome sizes a popup to its document's height, up to a maximum in screen pixels (600, or less on a
 * short screen). Zoomed, that maximum is fewer CSS pixels than the popup's own 600, and it is not known
 * in CSS: `100vh` cannot cap the popup, because Chrome measures the document at the frame's current
 * height, so a popup capped at `100vh` never grows past the height it had (tests/e2e/reflow.test.ts).
 * What the page can see is the moment the frame stopped growing: the document is taller than the frame
 * after a layout. That frame height is the maximum, and the popup is capped there in pixels: its box and
 * footer stay in the frame and what is between them scrolls (`data-capped`: the filters too, which
 * left room for less than one result at 200%), and it still grows up to that maximum when more results
 * come. A new zoom level (Ctrl+plus in the popup) or frame size measures again.
 *
 * Firefox does not zoom popups (its default zoom leaves them at 100%), but a display scaled to 150% or
 * 200% has fewer CSS pixels below the toolbar than the popup's 600 (1920 × 1080 at 200%: 540 in all).
 * Firefox then lays the popup out at its full height and shows the part that fits on the screen: the
 * footer and the last results were below the screen's edge, and nothing scrolled to them
 * (tests/firefox/popup-zoom.test.ts). Firefox tells a page where it is on the screen (`mozInnerScreenY`):
 * the popup is capped at the room below its top, as at the frame's height in Chrome.
 */
/** How long the frame must keep its height, with the document taller, before it counts as at its maximum. */
const SETTLE_MS = 300;
/** The popup's own maximum height in CSS pixels (popup/styles.css `.popup`). */
const POPUP_MAX = 600;

/**
 * CSS pixels from the top of the page to the bottom of the screen's usable area, where the browser tells
 * where the page is on the screen (Firefox's `mozInnerScreenY`); undefined elsewhere, or when the popup's
 * full height fits.
 */
export function roomOnScreen(win: Pick<Window, 'screen'> & { mozInnerScreenY?: number } = window): number | undefined {
  const top = win.mozInnerScreenY;
  if (typeof top !== 'number' || !Number.isFinite(top)) return undefined;
  const s = win.screen as Screen & { availTop?: number };
  const room = Math.floor((s.availTop ?? 0) + s.availHeight - top);
  // A page not on the screen at all (no room, or a position not known yet) is left alone.
  return room >= 100 && room < POPUP_MAX ? room : undefined;
}

export function fitPopupToFrame(popup: HTMLElement): () => void {
  const html = document.documentElement;
  // Chrome grows the frame after a layout, and later on a loaded machine: the document is taller than the
  // frame both while the frame is still growing and once it is at its maximum. Capped while growing, the
  // popup would stay small (nothing taller to grow to: seen at 100% in CI). So the frame counts as at its
  // maximum only when it has kept its height, with the document still taller, for SETTLE_MS.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overflows = () => html.scrollHeight > innerHeight + 1; // a sub-pixel difference is not overflow
  /**
   * Firefox: the room below the popup's top on the screen caps it at once (the frame follows the
   * document there, so no frame stops growing). Kept across the frame's resizes, which the cap itself
   * causes; measured again with each (the popup's place is known once it is shown).
   */
  let byRoom = false;
  const fitScreen = (): boolean => {
    const room = roomOnScreen(window as Window & { mozInnerScreenY?: number });
    if (room === undefined) {
      if (byRoom) {
        byRoom = false;
        popup.style.removeProperty('--popup-room');
        delete popup.dataset.capped;
      }
      return false;
    }
    byRoom = true;
    popup.style.setProperty('--popup-room', `${room}px`);
    popup.dataset.capped = '';
    return true;
  };
  const fit = () => {
    if (fitScreen()) return;
    if (timer !== undefined || popup.dataset.capped !== undefined || !overflows()) return;
    const height = innerHeight;
    timer = setTimeout(() => {
      timer = undefined;
      if (innerHeight !== height) return fit();
      if (!overflows()) return;
      popup.style.setProperty('--popup-max-height', `${innerHeight}px`);
      popup.dataset.capped = '';
    }, SETTLE_MS);
  };
  // The frame changed (it grew or shrank with the content, the zoom changed, or popup.html opened as a
  // tab was resized): the cap may no longer be its maximum, so measure without it.
  const refit = () => {
    popup.style.removeProperty('--popup-max-height');
    delete popup.dataset.capped;
    fit();
  };
  const observer = new ResizeObserver(fit);
  observer.observe(popup);
  addEventListener('resize', refit);
  // Firefox places the popup on the screen after its first layout: its room is known from then on.
  const later = setTimeout(fit, SETTLE_MS);
  fit();
  return () => {
    clearTimeout(timer);
    clearTimeout(later);
    observer.disconnect();
    removeEventListener('resize', refit);
  };
}
