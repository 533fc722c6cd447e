/**
 * Renders the extension's Preact surfaces in Node (linkedom), for surface tests: a document with #app, the
 * globals Preact and the components reach for, and focus as a browser keeps it (an element removed from
 * the document no longer has focus: document.activeElement falls back to <body>).
 */
import { parseHTML } from 'linkedom';

export interface Dom {
  document: Document;
  window: Window;
  /** Lets pending promises, effects and timers run. */
  settle: (ms?: number) => Promise<void>;
}

export function installDom(): Dom {
  const { window, document } = parseHTML('<!doctype html><html><head></head><body><div id="app"></div></body></html>');
  const g = globalThis as Record<string, unknown>;
  const w = window as unknown as Record<string, unknown>;
  for (const k of ['window', 'document', 'HTMLElement', 'HTMLInputElement', 'HTMLButtonElement', 'HTMLDialogElement', 'Element', 'Node', 'Text', 'Event', 'CustomEvent', 'KeyboardEvent', 'MouseEvent', 'DocumentFragment']) {
    if (k === 'window') g.window = window;
    else if (k === 'document') g.document = document;
    else if (w[k] !== undefined) g[k] = w[k];
  }
  g.location = { protocol: 'chrome-extension:', pathname: '/options.html', search: '', hash: '' };
  // Focus, as a browser keeps it.
  let focused: Element | null = null;
  const HE = w.HTMLElement as { prototype: HTMLElement };
  HE.prototype.focus = function (this: HTMLElement) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the element focused is the one called on
    focused = this;
  };
  HE.prototype.blur = function (this: HTMLElement) {
    if (focused === this) focused = null;
  };
  Object.defineProperty(document, 'activeElement', {
    configurable: true,
    get: () => (focused && focused.isConnected ? focused : document.body),
  });
  // <dialog> as Chromium has it, enough for ConfirmDialog.
  const proto = (document.createElement('dialog') as unknown as { constructor: { prototype: Record<string, unknown> } }).constructor.prototype;
  proto.showModal = function (this: HTMLElement) {
    this.setAttribute('open', '');
  };
  proto.close = function (this: HTMLElement) {
    this.removeAttribute('open');
  };
  Object.defineProperty(proto, 'open', { configurable: true, get(this: HTMLElement) { return this.hasAttribute('open'); } });
  const settle = async (ms = 150) => {
    for (let i = 0; i < 4; i++) await new Promise((r) => setTimeout(r, ms / 4));
  };
  return { document, window: window as unknown as Window, settle };
}

/** Fires a DOM event the way the browser would for a user's action. */
export function fire(el: Element, type: string, init: Record<string, unknown> = {}): void {
  const E = (globalThis as unknown as { Event: typeof Event }).Event;
  const ev = new E(type, { bubbles: true, cancelable: true });
  Object.assign(ev, init);
  el.dispatchEvent(ev);
}

export function typeInto(el: HTMLInputElement, value: string): void {
  el.value = value;
  fire(el, 'input');
}

export function click(el: Element): void {
  (el as HTMLElement).focus();
  const E = (globalThis as unknown as { Event: typeof Event }).Event;
  const ev = new E('click', { bubbles: true, cancelable: true });
  Object.assign(ev, { button: 0 });
  el.dispatchEvent(ev);
}

export const byTestId = (doc: Document, id: string): HTMLElement | null => doc.querySelector(`[data-testid="${id}"]`);
