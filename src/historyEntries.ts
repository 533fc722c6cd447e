/**
 * History, titles first: turns browser history items into title-only entries (src/pageKind.ts), and
 * walks the history back in time in windows, so an import can stop anywhere and resume.
 */
import { normalizeUrl, siteMatches, siteOf } from './url.js';

export interface HistoryItemLike {
  url?: string;
  title?: string;
  lastVisitTime?: number;
  visitCount?: number;
}

export interface TitleEntry {
  url: string;
  site: string;
  title: string;
  /** The section text: the URL's words ("docs.python.org › library › asyncio-task.html"). */
  text: string;
  lastVisit: number;
  visitCount: number;
}

export const MAX_TITLE_CHARS = 500;
const MAX_URL_TEXT_CHARS = 400;

/** The words of a URL a person would search for: host, then the decoded path segments. */
export function urlText(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '';
  }
  const parts = [u.hostname.replace(/^www\./, '')];
  for (const seg of u.pathname.split('/')) {
    if (!seg) continue;
    let s = seg;
    try {
      s = decodeURIComponent(seg);
    } catch {
      // keep it encoded
    }
    s = s.replace(/[\s_+]+/g, ' ').trim();
    if (s) parts.push(s);
  }
  return parts.join(' › ').slice(0, MAX_URL_TEXT_CHARS);
}

/** A history item as a title-only entry, or null when it may not be stored (not http(s), excluded site). */
export function titleEntry(item: HistoryItemLike, excludedSites: readonly string[]): TitleEntry | null {
  const url = item.url ? normalizeUrl(item.url) : null;
  if (!url) return null;
  const site = siteOf(url);
  if (!site || excludedSites.some((p) => siteMatches(site, p))) return null;
  const title = (item.title ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
  const lastVisit = typeof item.lastVisitTime === 'number' && Number.isFinite(item.lastVisitTime) ? Math.round(item.lastVisitTime) : 0;
  if (!lastVisit) return null;
  return { url, site, title: title || site, text: urlText(url), lastVisit, visitCount: Math.max(1, Math.round(item.visitCount ?? 1)) };
}

/**
 * Where an import stands: entries visited in [from, cursor) are still to come. History is read newest
 * first, one window at a time, and `cursor` moves back over what was read whole.
 */
export interface ImportWindow {
  from: number;
  cursor: number;
}

/**
 * What one read of the window [start, cursor), answered with `lastVisits` (each address's last visit of
 * all, as the browser gives it), says about going on:
 * - `complete`: fewer than `limit` came, so every address visited in the window came. Store them; the
 *   cursor moves to `start` (null: nothing is left).
 * - `cut`: every address visited in [next, cursor) came, and more. Store them; the cursor moves to `next`.
 * - `whole`: the window is one millisecond that holds `limit` addresses or more: read it with a larger limit.
 * - `narrow`: the read tells nothing of where it stops: read a narrower window (`narrowed`).
 *
 * The browsers fill a read that is cut at `limit` differently. Chromium gives the addresses whose latest
 * visit inside the window is newest; Firefox those whose last visit of all is newest (an address visited
 * again since comes first, wherever in the window its visit was). Either way an address left out has its
 * last visit no later than the oldest last visit read (Chromium: its visit in the window is no later than
 * the oldest one read, which is no later than that). So the window down to just after that oldest last
 * visit was read whole, in both browsers. When the read is mostly addresses visited again since, that
 * time is at or near the cursor, and the window is narrowed instead: reading on from there moved back a
 * few entries a read, or not at all.
 */
export type ReadStep = { step: 'complete'; next: number | null } | { step: 'cut'; next: number } | { step: 'whole' } | { step: 'narrow' };

export function afterRead(w: ImportWindow, start: number, lastVisits: readonly (number | undefined)[], limit: number): ReadStep {
  if (lastVisits.length < limit) return { step: 'complete', next: start > w.from ? start : null };
  const inside = lastVisits.filter((t): t is number => typeof t === 'number' && Number.isFinite(t) && t < w.cursor);
  // Ordered by last visit (as Firefox orders), what was last visited inside the window comes last, and the
  // cut is at its oldest: worth it only when that is most of the read. Otherwise (Chromium's order) it is
  // spread over the window, and the cut reaches down to the window's oldest entries.
  const byLastVisit = lastVisits.every((t, i) => i === 0 || (lastVisits[i - 1] ?? -Infinity) >= (t ?? -Infinity));
  if (inside.length && (inside.length * 2 >= lastVisits.length || !byLastVisit)) {
    const next = Math.min(...inside) + 1;
    if (next < w.cursor) return { step: 'cut', next: Math.max(next, start) };
  }
  return w.cursor - start <= 1 ? { step: 'whole' } : { step: 'narrow' };
}

/**
 * The next, narrower start for a window whose read was inconclusive (`afterRead`'s `narrow`): half of it
 * at least, so that the reads of one window are few, or, when visit times inside the window of some of
 * what came are known (`times`, from the browser's visits of each address), just after the oldest of
 * them: in Chromium's order fewer than the limit were visited there, so the next read holds it whole.
 * Always later than `start` and before the cursor; a whole number when they are.
 */
export function narrowed(w: ImportWindow, start: number, times: readonly number[] = []): number {
  const inWindow = times.filter((t) => Number.isFinite(t) && t >= start && t < w.cursor);
  const oldest = inWindow.length ? Math.min(...inWindow) + 1 : -Infinity;
  // A whole millisecond: Firefox refuses a fraction of one as a search's start.
  return Math.min(w.cursor - 1, Math.max(Math.ceil(start + (w.cursor - start) / 2), oldest));
}
