/**
 * The `rr` omnibox keyword: suggestions as you type (the same query syntax as the popup), Enter on the
 * typed text opens the results page, Enter on a suggestion opens that page at its section.
 */
import browser from 'webextension-polyfill';
import type { SnippetSegment } from '../src/snippet.js';
import type { Engine } from './engine.js';
import { openUrl, searchPageUrl, type Disposition } from './tabs.js';

export const MAX_SUGGESTIONS = 6;

/** Omnibox descriptions are XML in Chrome: escape everything page-derived. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

export function describe(title: string, section: string, snippet: readonly SnippetSegment[], markup: boolean): string {
  const head = clip(section && section !== title ? `${title} › ${section}` : title, 90);
  if (!markup) return `${head} — ${clip(snippet.map((s) => s.text).join(''), 120)}`;
  let text = '';
  let used = 0;
  for (const seg of snippet) {
    if (used > 120) break;
    const piece = clip(seg.text, 120 - used + 1);
    used += piece.length;
    text += seg.match ? `<match>${xmlEscape(piece)}</match>` : xmlEscape(piece);
  }
  return `${xmlEscape(head)} <dim>—</dim> <dim>${text}</dim>`;
}

/** Firefox shows descriptions as plain text; Chrome parses them as XML. */
const supportsMarkup = () => !browser.runtime.getURL('').startsWith('moz-extension:');

let latest = 0;

export function registerOmnibox(engine: Engine): void {
  if (!browser.omnibox) return;
  browser.omnibox.setDefaultSuggestion({ description: 'Search what you have read with Reread' });
  browser.omnibox.onInputChanged.addListener((text, suggest) => {
    const ticket = ++latest;
    void engine
      .search({ q: text, limit: MAX_SUGGESTIONS, box: 'omnibox' })
      .then((res) => {
        if (ticket !== latest) return; // a newer keystroke is already being answered
        const markup = supportsMarkup();
        suggest(
          res.results.slice(0, MAX_SUGGESTIONS).map((r) => ({
            content: r.href,
            description: describe(r.title, r.section, r.snippet, markup),
          })),
        );
      })
      .catch(() => {
        if (ticket === latest) suggest([]); // a superseded search's error clears nothing
      });
  });
  browser.omnibox.onInputEntered.addListener((text, disposition) => {
    const d = disposition as Disposition;
    // Our suggestions are result links: web pages, or local PDFs (file://) when file access is allowed.
    const isOurSuggestion = /^(?:https?|file):\/\//i.test(text.trim()) && !/\s/.test(text.trim());
    void openUrl(isOurSuggestion ? text.trim() : searchPageUrl({ q: text }), d);
  });
}
