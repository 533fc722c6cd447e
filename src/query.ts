/**
 * The one query parser, shared by the popup, the results page and the omnibox.
 *
 *   free words  "exact phrase"  -word  -"phrase"  site:example.com  -site:example.com
 *   (`--option` is a word: an option's name, not an exclusion)
 *   after:2024-01-31  before:2024-02-01  after:today|yesterday|7d|2w|3m|1y|last-week|"last week"
 *
 * `-after:X` means `before:X` and `-before:X` means `after:X`. Unknown operators (`foo:bar`) and
 * operators with values they cannot use are plain words. Nothing a user types throws.
 *
 * An address pasted or typed as the query's only words (`https://docs.python.org/3/library/json.html`)
 * is searched as what was read there: `json site:docs.python.org` (addressedQuery), on every surface.
 */
import { siteFilter, siteLabel, siteOf } from './url.js';

export interface ParsedQuery {
  /** The free text that is scored (words and phrases, without operators). */
  text: string;
  /** Phrases that must appear in the chunk text (folded comparison). */
  phrases: string[];
  /** Words that must not appear. */
  excludeWords: string[];
  excludePhrases: string[];
  sites: string[];
  excludeSites: string[];
  /** Epoch milliseconds, inclusive lower bound on the last visit. */
  after?: number;
  /** Epoch milliseconds, exclusive upper bound on the last visit. */
  before?: number;
  /**
   * `after:`/`before:` operators whose day could not be read (`after:2024-02-30`, `before:someday`), as
   * typed: they are searched as words, as any unknown operator is, and the search box says so.
   */
  unreadDates?: string[];
}


/** Local midnight `days` calendar days before the day of `ms` (calendar arithmetic: DST days are 23 or 25 hours). */
function daysBefore(ms: number, days: number): number {
  const d = new Date(ms);
  // The day's date first, then its midnight: on a day whose midnight does not exist (DST starting at
  // 00:00) the local start is 01:00, and counting back from that kept 01:00 for the earlier day too.
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - days).getTime();
}

/**
 * Parses a date operand: ISO date (YYYY-MM-DD, also YYYY-MM, YYYY) or a relative form (today,
 * yesterday, 7d, 2w, 3m, 1y, last week/month/year). Either way it names a moment, the local start of a
 * day (or month, or year), and both bounds use it the same way, as Gmail and GitHub do: `after:X` keeps
 * visits from X on, `before:X` keeps visits before X (so `before:today` is up to yesterday, exactly as
 * `before:` with today's date).
 */
export function parseDateOperand(raw: string, now: number): number | undefined {
  const v = raw.trim().toLowerCase().replace(/[\s_]+/g, '-');
  if (!v) return undefined;
  const named: Record<string, number> = { today: 0, yesterday: 1, 'last-week': 7, 'last-month': 30, 'last-year': 365 };
  if (Object.prototype.hasOwnProperty.call(named, v)) return daysBefore(now, named[v]!);
  const rel = /^(\d{1,4})(d|w|m|y)$/.exec(v);
  if (rel) {
    const n = Number(rel[1]);
    return daysBefore(now, rel[2] === 'd' ? n : rel[2] === 'w' ? 7 * n : rel[2] === 'm' ? 30 * n : 365 * n);
  }
  const iso = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(v);
  if (iso) {
    const y = Number(iso[1]);
    const m = iso[2] ? Number(iso[2]) : undefined;
    const d = iso[3] ? Number(iso[3]) : undefined;
    if ((m !== undefined && (m < 1 || m > 12)) || (d !== undefined && (d < 1 || d > 31))) return undefined;
    // setFullYear, not the constructor: `new Date(99, 0)` is 1999. A day past the month's end
    // (2024-02-30) rolls into the next month; refuse it instead.
    const date = new Date(2000, 0, 1);
    date.setFullYear(y, (m ?? 1) - 1, d ?? 1);
    if (date.getMonth() !== (m ?? 1) - 1) return undefined;
    return date.getTime();
  }
  return undefined;
}

const SOFT_HYPHEN = /\u00ad/g;

/** The longest query searched, in characters: a longer paste or selection is cut (clipQuery). */
export const MAX_QUERY_CHARS = 2000;

/**
 * `text` cut to at most `max` characters where a word ends: a word cut in half ("indirec" from a long
 * selection's "indirectly") is a word no page has, and the spelling correction then answered with
 * "Showing results for … indirect" about a word the person never typed. Text without a space in its
 * second half (one long token, or unspaced CJK) is cut at `max`, never inside a surrogate pair.
 */
export function clipQuery(text: string, max: number = MAX_QUERY_CHARS): string {
  // Soft hyphens (copied from a hyphenated page) are no part of a word: the pages are stored without them.
  text = text.replace(SOFT_HYPHEN, '');
  if (text.length <= max) return text;
  // Leading blanks (a paste) do not count against the limit: 1,999 spaces left a query of nothing.
  text = text.trimStart();
  if (text.length <= max) return text;
  const space = text.slice(0, max + 1).search(/\s\S*$/);
  if (space >= max / 2) return text.slice(0, space).trimEnd();
  const end = /[\ud800-\udbff]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

// The operand may be empty so that a bare `site:` (half typed) is an operator with nothing to
// filter by, not the word "site"; the empty matches this allows between words are skipped.
const TOKEN = /(-?)(?:([a-zA-Z]+):)?(?:"([^"]*)"?|(\S*))/g;

export function parseQuery(input: string, now: number = Date.now()): ParsedQuery {
  const q: ParsedQuery = { text: '', phrases: [], excludeWords: [], excludePhrases: [], sites: [], excludeSites: [] };
  const words: string[] = [];
  const src = clipQuery(String(input ?? ''))
    .replace(/\b(after|before):last\s+(week|month|year)\b/gi, '$1:last-$2');
  for (const m of src.matchAll(TOKEN)) {
    const neg = m[1] === '-';
    const op = m[2]?.toLowerCase();
    const quoted = m[3];
    const bare = m[4];
    const value = quoted ?? bare ?? '';
    if (op === 'site') {
      const site = siteFilter(value);
      if (site) (neg ? q.excludeSites : q.sites).push(site);
      continue;
    }
    if (op === 'after' || op === 'before') {
      const t = parseDateOperand(value, now);
      if (t !== undefined) {
        // Negated, a bound turns into the opposite one: -after:X (not on or after X) is before:X.
        if ((op === 'after') !== neg) q.after = Math.max(q.after ?? -Infinity, t);
        else q.before = Math.min(q.before ?? Infinity, t);
        continue;
      }
      // A bare `after:` or `before:` (half typed) filters nothing, as a bare `site:`; not the word "after".
      if (!value.trim()) continue;
      (q.unreadDates ??= []).push(`${neg ? '-' : ''}${m[2]}:${quoted !== undefined ? `"${quoted}"` : value}`);
    }
    // Not an operator we know: the whole thing is text.
    const literal = op ? `${m[2]}:${value}` : value;
    if (quoted !== undefined && !op) {
      const phrase = quoted.trim().replace(/\s+/g, ' ');
      if (!phrase) continue;
      if (neg) q.excludePhrases.push(phrase);
      else {
        q.phrases.push(phrase);
        words.push(phrase);
      }
      continue;
    }
    // `--only-matching` is a command-line option's name, not "exclude -only-matching"; and a minus excludes
    // a word: `->` (a signature's arrow, `copy_file(dirty: bool = False) -> None`) excludes nothing.
    if (neg && literal.length > 0 && !op && !literal.startsWith('-') && /[\p{L}\p{N}]/u.test(literal)) {
      q.excludeWords.push(literal);
      continue;
    }
    if (literal === '-' || !literal) continue;
    words.push(neg ? `-${literal}` : literal);
  }
  q.text = words.join(' ');
  return q;
}

/** The operators that filter rather than search: a page's site and its visit dates. */
const FILTER_OPERATORS = new Set(['site', 'after', 'before']);

/**
 * The query as typed without its filters: every `site:`, `after:` and `before:` operator goes, negated
 * (`-site:a.com`), quoted (`site:"a b"`, `after:"last week"`), half typed (`-site:`) or with a day it
 * cannot read (`after:2024-02-30`) alike; the words, phrases and excluded words stay as typed. ("Search
 * without filters" once left `-site:` and `-after:7d` behind.) Tokens are cut as parseQuery cuts them.
 */
export function withoutFilters(input: string): string {
  const kept: string[] = [];
  const src = String(input ?? '')
    .replace(SOFT_HYPHEN, '')
    .replace(/\b(after|before):last\s+(week|month|year)\b/gi, '$1:last-$2');
  for (const m of src.matchAll(TOKEN)) {
    if (!m[0]) continue;
    if (m[2] && FILTER_OPERATORS.has(m[2].toLowerCase())) continue;
    kept.push(m[0]);
  }
  return kept.join(' ');
}

/** Renders a parsed query back to text (for syncing filter controls with the search box). */
export function formatQuery(q: ParsedQuery): string {
  const parts: string[] = [];
  const phraseSet = new Set(q.phrases);
  let rest = q.text;
  for (const p of phraseSet) rest = rest.replace(p, ' ');
  if (rest.trim()) parts.push(rest.trim().replace(/\s+/g, ' '));
  for (const p of q.phrases) parts.push(`"${p}"`);
  for (const w of q.excludeWords) parts.push(`-${w}`);
  for (const p of q.excludePhrases) parts.push(`-"${p}"`);
  for (const s of q.sites) parts.push(`site:${s}`);
  for (const s of q.excludeSites) parts.push(`-site:${s}`);
  if (q.after !== undefined) parts.push(`after:${isoDate(q.after)}`);
  if (q.before !== undefined) parts.push(`before:${isoDate(q.before)}`);
  return parts.join(' ');
}

export function isoDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/**
 * A query with exclusions and nothing to find pages by (`-python`, `-site:example.com -"draft"`): no
 * word, phrase, site or day. An exclusion only leaves pages out of what the rest of the query finds, so
 * such a query finds nothing, and the search box says why (exclusionsOnlyMessage) rather than "nothing
 * matches". Returns the exclusions as written (`-python`, `-"stack overflow"`, `-site:example.com`),
 * or null when the query has something to find by or no exclusion.
 */
export function onlyExclusions(q: ParsedQuery): string[] | null {
  if (q.text.trim() || q.phrases.length || q.sites.length || q.after !== undefined || q.before !== undefined) return null;
  const out = [...q.excludeWords.map((w) => `-${w}`), ...q.excludePhrases.map((p) => `-"${p}"`), ...q.excludeSites.map((s) => `-site:${s}`)];
  return out.length ? out : null;
}

/**
 * What the popup, the results page and the omnibox say for a query of exclusions alone: "Add a word to
 * search for; -python only leaves pages out." (not "removes": nothing is deleted).
 */
export function exclusionsOnlyMessage(exclusions: readonly string[]): string {
  const shown = exclusions.slice(0, 3);
  const more = exclusions.length - shown.length;
  const list = more > 0 ? `${shown.join(', ')} and ${more} more` : shown.length < 2 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  return `Add a word to search for; ${list} only ${exclusions.length > 1 ? 'leave' : 'leaves'} pages out.`;
}

/** What the search boxes say of date filters that name no day (`after:lastweekish`): searched as words. */
export function unreadDatesMessage(unread: readonly string[]): string {
  return `${unread.map((d) => `“${d}”`).join(', ')} ${unread.length > 1 ? 'name no day Reread can read; they were' : 'names no day Reread can read; it was'} searched as words. Write a day as 2024-05-01, 7d, 2w, 3m, today, yesterday or last week.`;
}

/** True when the query has anything that narrows or scores. */
export function isEmptyQuery(q: ParsedQuery): boolean {
  return !q.text.trim() && !q.sites.length && q.after === undefined && q.before === undefined;
}

/** A lone web or file address, as typed or as one of the omnibox's suggestions' content. */
export function isAddress(text: string): boolean {
  return /^(?:https?|file):\/\/\S+$/i.test(text.trim());
}

/** Path words that name no page ("index.html"), and parts of addresses that are no words. */
const ADDRESS_NOISE = new Set(['index', 'default', 'html', 'htm', 'shtml', 'xhtml', 'php', 'asp', 'aspx', 'jsp', 'cgi', 'pdf', 'www']);

/** An address as a search of what was read there (addressSearch). */
export interface AddressSearch {
  /** The address as typed. */
  url: string;
  /** Its site, as `site:` filters by it. */
  site: string;
  /** The words of its page name; none for a site's root (then its pages are listed, most recent first). */
  words: string[];
  /** The query it is searched as: the words and `site:`. */
  query: string;
}

/**
 * An address as a search of what was read there: its site as a filter, and the words of its last path
 * segment that has any (the page's name: "json" for /3/library/json.html, "how to undo a commit" for
 * /blog/2024/how-to-undo-a-commit/). `https://example.com/` is `site:example.com`: the pages read on that
 * site, most recent first. Null when `text` is no lone address.
 */
export function addressSearch(text: string): AddressSearch | null {
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
  words = [...new Set(words.slice(0, 8))];
  return { url: t, site, words, query: [...words, `site:${site}`].join(' ') };
}

/**
 * A query whose only words are one address (`https://a.com/cats.html`, also with filters:
 * `https://a.com/cats.html after:7d`), as the query it is searched as (`cats site:a.com after:7d`), and
 * the address. Every search box hands its text to the search as typed; the search (src/search.ts)
 * searches it this way and shows the page at the address first when it is stored. Null for any other
 * query (words beside the address, or the address quoted: searched as typed).
 */
export function addressedQuery(input: string, now: number = Date.now()): { q: string; address: AddressSearch } | null {
  const parsed = parseQuery(input, now);
  if (parsed.phrases.length || !isAddress(parsed.text)) return null;
  const address = addressSearch(parsed.text);
  if (!address) return null;
  const at = input.indexOf(parsed.text);
  if (at < 0) return null;
  return { q: `${input.slice(0, at)}${address.query}${input.slice(at + parsed.text.length)}`.trim(), address };
}

/**
 * What the search boxes (and the omnibox's first line) say a query of an address was searched as:
 * "Searching docs.python.org for “json”", with what became of the page at the address: first (`first`),
 * not stored (`unsaved`), or stored but left out by the query's other filters or a forget (`left-out`,
 * about which the other lines of the answer say why).
 */
export function addressNote(a: Pick<AddressSearch, 'site' | 'words'>, page: 'first' | 'unsaved' | 'left-out'): string {
  const site = siteLabel(a.site);
  const head = a.words.length ? `Searching ${site} for “${a.words.join(' ')}”` : `Pages you read on ${site}${page === 'first' ? '' : ', most recent first'}`;
  if (page === 'first') return `${head}, the page at this address first.`;
  if (page === 'unsaved') return `${head}; Reread has not saved the page at this address.`;
  return `${head}.`;
}
