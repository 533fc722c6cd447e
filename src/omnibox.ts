/**
 * The omnibox's suggestion text (background/omnibox.ts shows it): Chrome parses a description as XML,
 * with <match>, <dim> and <url>; Firefox shows it as plain text. Page text is escaped.
 */
import type { SnippetSegment } from './snippet.js';
import type { SearchResult } from './protocol.js';
import { sameTextName, sameTextWords } from './sameText.js';
import { displayLocation } from './url.js';
import { isAddress } from './query.js';
import { wellFormed } from './validate.js';

/** Omnibox descriptions are XML in Chrome: escape everything page-derived. */
export function xmlEscape(s: string): string {
  // XML's characters exclude lone surrogates as they exclude U+FFFE and U+FFFF.
  return wellFormed(s)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** `s` cut to `n` characters with an ellipsis; never inside a surrogate pair (an emoji cut in half was drawn as �). */
export function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = /[\ud800-\udbff]/.test(s[n - 2] ?? '') ? n - 2 : n - 1;
  return s.slice(0, end) + '…';
}

/** Bidi embeddings, overrides and isolates: a page's would reorder the rest of the one-line description. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

export function describe(title: string, section: string, snippet: readonly SnippetSegment[], markup: boolean): string {
  title = title.replace(BIDI_CONTROLS, '');
  section = section.replace(BIDI_CONTROLS, '');
  snippet = snippet.map((s) => ({ ...s, text: s.text.replace(BIDI_CONTROLS, '') }));
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

/**
 * A result as an address-bar suggestion: opens its section; says what the popup's card says, a passage an
 * earlier suggestion shows (src/sameText.ts) named instead of repeated.
 */
export function suggestion(r: Pick<SearchResult, 'href' | 'title' | 'section' | 'snippet' | 'sameAs'>, markup: boolean): { content: string; description: string } {
  const name = r.sameAs ? sameTextName(r, r.sameAs, displayLocation) : null;
  const snippet = name ? [{ text: sameTextWords(name), match: false }] : r.snippet;
  return { content: r.href, description: describe(r.title, r.section, snippet, markup) };
}

/**
 * What Enter in the omnibox does with `entered`. The browser hands the listener either the content of
 * the suggestion the user chose (a result's address) or the text as typed, and the two look alike when
 * the typed text is an address: `rr https://example.com/page` opened that address instead of searching.
 * Only an address offered as a suggestion for other typed text is opened. `typed` and `offered` are
 * null when the worker has stopped since they were seen (Chrome stops an idle one): then an address is
 * opened only if it is a page Reread has stored (`storedPage`), never arbitrary text.
 */
export function omniboxEnter(entered: string, seen: { typed: string; offered: ReadonlySet<string> } | null, storedPage: boolean): 'open' | 'search' {
  const t = entered.trim();
  if (!isAddress(t)) return 'search';
  if (seen) return t !== seen.typed.trim() && seen.offered.has(t) ? 'open' : 'search';
  return storedPage ? 'open' : 'search';
}
