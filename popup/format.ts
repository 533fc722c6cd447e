/** Small display helpers. */
import type { ParsedQuery } from '../src/query.js';
import { siteLabel } from '../src/url.js';

export function relativeTime(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d === 1) return 'yesterday';
  if (d < 30) return `${d} days ago`;
  return new Date(ms).toLocaleDateString();
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** The browser's own favicon service (Chrome's `favicon` permission); never a web service. */
export function faviconUrl(pageUrl: string): string | null {
  if (typeof chrome === 'undefined' || !chrome.runtime?.getURL || location.protocol !== 'chrome-extension:') return null;
  const u = new URL(chrome.runtime.getURL('/_favicon/'));
  u.searchParams.set('pageUrl', pageUrl);
  u.searchParams.set('size', '16');
  return u.toString();
}

/** "1 page", "1,204 pages": counts in words, grouped the user's way. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** A search's time for people: "12 ms", "under 1 ms", never "0.19999999972060323 ms". */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1) return 'under 1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A local calendar day: "3 Jan", with the year when it is not this year ("3 Jan 2025"). */
export function formatDay(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const sameYear = d.getFullYear() === new Date(now).getFullYear();
  return d.toLocaleDateString(undefined, sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' });
}

/** "3 Jan – 9 Feb", or one day when both fall on the same local day. */
export function formatDaySpan(first: number, last: number, now = Date.now()): string {
  const a = formatDay(first, now);
  const b = formatDay(last, now);
  return a === b ? a : `${a} – ${b}`;
}

/**
 * The corrected query cut into runs, the words the correction changed marked: "Showing results for read
 * **json** from a file" shows what changed. A spelling correction replaces words in place (src/search.ts
 * `correctedText`), so the runs line up word for word; when they do not (a compound cut in two, "**Bau
 * regeln** des Pakets"), the words the original does not have are marked.
 */
export function changedWords(query: string, original: string): { text: string; changed: boolean }[] {
  const a = query.split(/(\s+)/);
  const b = original.split(/(\s+)/);
  const aligned = a.length === b.length;
  const had = new Set(b.map((w) => w.toLowerCase()));
  const wordChanged = (i: number) => a[i] !== undefined && a[i]!.trim() !== '' && (aligned ? a[i]!.toLowerCase() !== b[i]!.toLowerCase() : !had.has(a[i]!.toLowerCase()));
  const runs: { text: string; changed: boolean }[] = [];
  a.forEach((text, i) => {
    // Space between two changed words belongs to them ("Bau regeln" is one marked run).
    const changed = text.trim() !== '' ? wordChanged(i) : !aligned && wordChanged(i - 1) && wordChanged(i + 1);
    const last = runs[runs.length - 1];
    if (last && last.changed === changed) last.text += text;
    else if (text) runs.push({ text, changed });
  });
  return runs;
}

/** “a”, “a” or “b”, “a”, “b” or “c”. */
function orList(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/**
 * A parsed query's filters in words: "on example.com", "not on a.com", "without “draft”", "visited
 * since 1 May 2024" (`after:` keeps the day it names), "visited before 9 May" (`before:` does not),
 * "visited 1 May – 8 May" for both.
 */
export function filtersInWords(q: ParsedQuery, now = Date.now()): string[] {
  const out: string[] = [];
  if (q.sites.length) out.push(`on ${orList(q.sites.map(siteLabel))}`);
  if (q.excludeSites.length) out.push(`not on ${orList(q.excludeSites.map(siteLabel))}`);
  const without = [...q.excludeWords, ...q.excludePhrases];
  if (without.length) out.push(`without ${orList(without.map((w) => `“${w}”`))}`);
  if (q.after !== undefined && q.before !== undefined && q.before > q.after) out.push(`visited ${formatDaySpan(q.after, q.before - 1, now)}`);
  else if (q.after !== undefined && q.before !== undefined) {
    // From a later day than the one before: "visited since 10 Dec, visited before 1 Dec" left the reader
    // to work out why nothing could match.
    out.push(`visited since ${formatDay(q.after, now)} and before ${formatDay(q.before, now)} (no day is both)`);
  } else {
    if (q.after !== undefined) out.push(`visited since ${formatDay(q.after, now)}`);
    if (q.before !== undefined) out.push(`visited before ${formatDay(q.before, now)}`);
  }
  return out;
}

/**
 * The no-results heading: the words quoted, the filters named ("Nothing you have read matches
 * “xylophonequartz” on example.com, visited since 1 May."), never the operators as typed. `typed` is
 * quoted whole only when the parser found neither words nor filters in it. `corrected`: the query as the
 * spelling correction searched it, when it did.
 */
export function noMatchHeading(q: ParsedQuery, typed: string, now = Date.now(), corrected?: ParsedQuery): string {
  const words = q.text.trim();
  const filters = filtersInWords(q, now).join(', ');
  // A typo corrected and still nothing: both were searched, and both are named ("“dictionnary” or
  // “dictionary”"), not a "Showing results for" line above an empty list.
  const also = corrected?.text.trim();
  const alt = also && also.toLowerCase() !== words.toLowerCase() ? ` or “${also}”` : '';
  if (words) return `Nothing you have read matches “${words}”${alt}${filters ? ` ${filters}` : ''}.`;
  if (filters) return `Nothing you have read matches these filters: ${filters}.`;
  return `Nothing you have read matches “${typed.trim()}”.`;
}
