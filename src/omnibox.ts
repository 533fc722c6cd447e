/**
 * The omnibox's suggestion text (background/omnibox.ts shows it): Chrome parses a description as XML,
 * with <match>, <dim> and <url>; Firefox shows it as plain text. Page text is escaped.
 */
import type { SnippetSegment } from './snippet.js';
import { siteOf } from './url.js';

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

/** `s` cut to `n` characters with an ellipsis; never inside a surrogate pair (an emoji cut in half was drawn as �). */
export function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = /[\ud800-\udbff]/.test(s[n - 2] ?? '') ? n - 2 : n - 1;
  return s.slice(0, end) + '…';
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

/** A lone web or file address, as typed or as one of our suggestions' content. */
export function isAddress(text: string): boolean {
  return /^(?:https?|file):\/\/\S+$/i.test(text.trim());
}

/** Path words that name no page ("index.html"), and parts of addresses that are no words. */
const ADDRESS_NOISE = new Set(['index', 'default', 'html', 'htm', 'shtml', 'xhtml', 'php', 'asp', 'aspx', 'jsp', 'cgi', 'pdf', 'www']);

/**
 * An address typed after the keyword, as a search of what was read there: its site as a filter, and the
 * words of its last path segment that has any (the page's name: "json" for /3/library/json.html,
 * "how to undo a commit" for /blog/2024/how-to-undo-a-commit/). `https://example.com/` is
 * `site:example.com`: the pages read on that site, most recent first. Null when `text` is no address.
 */
export function addressQuery(text: string): string | null {
  const t = text.trim();
  if (!isAddress(t)) return null;
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return null;
  }
  const site = siteOf(t);
  if (!site) return null;
  const segments = url.pathname.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  let words: string[] = [];
  for (let i = segments.length - 1; i >= 0 && !words.length; i--) {
    words = segments[i]!.split(/[^\p{L}\p{N}]+/u).filter((w) => w && !/^\d+$/.test(w) && !ADDRESS_NOISE.has(w.toLowerCase()));
  }
  return [...new Set(words.slice(0, 8)), `site:${site}`].join(' ');
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
