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
 * first, one window at a time; `cursor` moves back to the oldest visit time of what was read.
 */
export interface ImportWindow {
  from: number;
  cursor: number;
}

/**
 * The next cursor after reading a window whose visit times are `times` (when the read returned `limit`
 * items, more may share the oldest time: the next window starts at it again, inclusive, and entries
 * already stored are skipped by URL). Null when the window was the last one.
 */
export function nextCursor(w: ImportWindow, times: readonly number[], limit: number): number | null {
  if (times.length < limit) return null;
  const oldest = Math.min(...times);
  // Every item had the same time as the cursor's last window: step past it, or the import never ends
  // (what else that millisecond holds was read whole first: `crowdedMillisecond`).
  const next = oldest + 1 >= w.cursor ? w.cursor - 1 : oldest + 1;
  return next <= w.from ? null : next;
}

/**
 * The millisecond [cursor - 1, cursor) when a full window read nothing older than it, else null. More
 * entries than one read returns can share a millisecond (a history imported from another browser, a
 * sync), and the browser answers the same first `limit` of them however often it is asked: the window
 * cannot move back inside it, and stepping past it (nextCursor) left the rest out. That millisecond is
 * read whole, with a larger limit, before the cursor steps past it.
 */
export function crowdedMillisecond(w: ImportWindow, times: readonly number[], limit: number): { startTime: number; endTime: number } | null {
  if (times.length < limit || Math.min(...times) + 1 < w.cursor) return null;
  return { startTime: Math.max(w.from, w.cursor - 1), endTime: w.cursor };
}
