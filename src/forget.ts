/**
 * What "forget" means, as pure functions (no browser, no storage).
 *
 * Dates are local calendar days, inclusive at both ends: "3 Jan to 9 Feb" is every moment from the
 * start of 3 Jan to the end of 9 Feb where the user is. Days are built from their local fields
 * (`new Date(y, m, d)`), never from a UTC midnight, so a day on which the clocks change is 23 or 25
 * hours long and nothing leaks across its edges. A page is in a range when any of its visits is.
 */
import type { ForgetScope } from './protocol.js';
import { siteMatches, siteOf } from './url.js';

export const DAY_MS = 86_400_000;
/** Visit times kept per page (most recent); the first visit is kept apart, in `firstVisit`. */
export const MAX_VISITS = 50;
/** Captures closer than this to the last recorded visit are the same visit (reloads, SPA steps). */
export const VISIT_GAP_MS = 60_000;

/** The undo window of a forget. */
export const UNDO_MS = 15_000;

/** "2026-03-08" → the start of that local day in epoch ms, or undefined for anything else. */
export function localDayStart(iso: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const t = new Date(y, mo, d);
  // Reject 2026-02-31 and the like instead of rolling over.
  if (t.getFullYear() !== y || t.getMonth() !== mo || t.getDate() !== d) return undefined;
  return t.getTime();
}

/** The start of the local day after the one holding `t`. */
export function nextLocalDay(t: number): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
}

/** The start of the local day holding `t`. */
export function localDayOf(t: number): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/**
 * Two ISO dates from date inputs → the half-open span [from, to) covering both days whole, or a
 * reason it cannot be used. Both are required (an empty range is not "everything").
 */
export function dayRange(fromIso: string, toIso: string): { from: number; to: number } | { error: string } {
  if (!fromIso.trim() || !toIso.trim()) return { error: 'Choose both the first and the last day.' };
  const from = localDayStart(fromIso);
  const last = localDayStart(toIso);
  if (from === undefined || last === undefined) return { error: 'Those are not dates.' };
  if (last < from) return { error: 'The last day is before the first day.' };
  return { from, to: nextLocalDay(last) };
}

/** Local day `days` days before `now`'s day start: the retention cutoff ("not visited for N days"). */
export function daysAgoStart(days: number, now: number): number {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - days).getTime();
}

export interface VisitedPage {
  site: string;
  firstVisit: number;
  lastVisit: number;
  /** Recent visit times (optional: pages stored before visits were recorded have none). */
  visits?: readonly number[];
}

/** Every visit known for a page: the recorded ones plus the first and last. */
export function knownVisits(p: VisitedPage): number[] {
  const all = new Set<number>(p.visits ?? []);
  all.add(p.firstVisit);
  all.add(p.lastVisit);
  return [...all].sort((a, b) => a - b);
}

/** Was the page visited in [from, to)? */
export function visitedIn(p: VisitedPage, from: number, to: number): boolean {
  if (p.lastVisit < from || p.firstVisit >= to) return false;
  return knownVisits(p).some((v) => v >= from && v < to);
}

/** Is the page (its URL as stored, its site and visits) covered by the forget? */
export function inScope(p: VisitedPage & { url: string }, scope: ForgetScope): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'page':
      return p.url === scope.url;
    case 'site':
      return siteMatches(p.site, scope.site);
    case 'range':
      return visitedIn(p, scope.from, scope.to);
  }
}

/**
 * Is a visit to this URL at `at` covered by the forget, whether or not the page is stored yet? A tab
 * showing the page now, or a capture made at `at` that reaches the store only after the forget: its
 * site is the URL's and its only known visit is `at`.
 */
export function visitInScope(url: string, at: number, scope: ForgetScope): boolean {
  return inScope({ url, site: siteOf(url), firstVisit: at, lastVisit: at }, scope);
}

/** The visit list after a visit at `now`: capped, most recent kept, a reload within a minute not counted twice. */
export function addVisit(visits: readonly number[] | undefined, now: number): number[] {
  const list = [...(visits ?? [])];
  const last = list[list.length - 1];
  if (last !== undefined && Math.abs(now - last) < VISIT_GAP_MS) return list;
  list.push(now);
  list.sort((a, b) => a - b);
  return list.length > MAX_VISITS ? list.slice(list.length - MAX_VISITS) : list;
}
