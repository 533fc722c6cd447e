/**
 * What "forget" means (src/forget.ts) and the shape check of a forget scope (src/validate.ts):
 * local calendar days inclusive at both ends, across DST changes and in zones away from UTC; a page is
 * in a range when any of its visits is; visits are capped and a reload is not a second visit.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { addVisit, dayRange, daysAgoStart, inScope, localDayStart, MAX_VISITS, nextLocalDay, visitedIn, visitInScope } from '../../src/forget.js';
import { ProtocolError } from '../../src/protocol.js';
import { validateForgetScope } from '../../src/validate.js';

const ORIGINAL_TZ = process.env.TZ;
afterEach(() => {
  process.env.TZ = ORIGINAL_TZ;
});

/** Wall-clock time in the current zone. */
const local = (y: number, mo: number, d: number, h = 0, mi = 0) => new Date(y, mo - 1, d, h, mi).getTime();

describe('local days', () => {
  it('a range is whole local days, both ends included, in a zone far from UTC', () => {
    process.env.TZ = 'Pacific/Auckland'; // UTC+13 in January
    const r = dayRange('2026-01-03', '2026-01-05');
    expect(r).toEqual({ from: local(2026, 1, 3), to: local(2026, 1, 6) });
    // The start of 3 Jan there is 2 Jan 11:00 UTC: a UTC-midnight reading would be 13 hours off.
    expect(new Date((r as { from: number }).from).toISOString()).toBe('2026-01-02T11:00:00.000Z');
  });

  it('the day the clocks go forward is 23 hours, and the day they go back 25, with nothing leaking across', () => {
    process.env.TZ = 'America/New_York';
    const spring = dayRange('2026-03-08', '2026-03-08') as { from: number; to: number };
    expect(spring.to - spring.from).toBe(23 * 3_600_000);
    const autumn = dayRange('2026-11-01', '2026-11-01') as { from: number; to: number };
    expect(autumn.to - autumn.from).toBe(25 * 3_600_000);
    const page = (t: number) => ({ site: 'a.example', firstVisit: t, lastVisit: t });
    expect(visitedIn(page(local(2026, 3, 7, 23, 59)), spring.from, spring.to)).toBe(false);
    expect(visitedIn(page(local(2026, 3, 8, 0, 0)), spring.from, spring.to)).toBe(true);
    expect(visitedIn(page(local(2026, 3, 8, 23, 59)), spring.from, spring.to)).toBe(true);
    expect(visitedIn(page(local(2026, 3, 9, 0, 0)), spring.from, spring.to)).toBe(false);
    expect(visitedIn(page(local(2026, 11, 1, 23, 30)), autumn.from, autumn.to)).toBe(true);
    expect(visitedIn(page(local(2026, 11, 2, 0, 0)), autumn.from, autumn.to)).toBe(false);
  });

  it('every day is 23 to 25 hours and days tile time without gaps, in several zones (property)', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kathmandu']) {
      process.env.TZ = tz;
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), (t) => {
          const d = new Date(t);
          const iso = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
          const r = dayRange(iso, iso) as { from: number; to: number };
          expect(t).toBeGreaterThanOrEqual(r.from);
          expect(t).toBeLessThan(r.to);
          expect(r.to - r.from).toBeGreaterThanOrEqual(23 * 3_600_000);
          expect(r.to - r.from).toBeLessThanOrEqual(25 * 3_600_000);
          expect(nextLocalDay(r.from)).toBe(r.to);
          // The validator accepts what the page sends.
          expect(validateForgetScope({ kind: 'range', ...r })).toEqual({ kind: 'range', ...r });
        }),
        { numRuns: 200 },
      );
    }
  });

  it('refuses empty, reversed and impossible ranges', () => {
    expect(dayRange('', '')).toHaveProperty('error');
    expect(dayRange('2026-01-03', '')).toHaveProperty('error');
    expect(dayRange('2026-01-05', '2026-01-03')).toHaveProperty('error');
    expect(dayRange('2026-02-31', '2026-03-01')).toHaveProperty('error');
    expect(localDayStart('yesterday')).toBeUndefined();
  });

  it('retention counts from the start of a local day', () => {
    process.env.TZ = 'Europe/Berlin';
    expect(daysAgoStart(3, local(2026, 3, 31, 15))).toBe(local(2026, 3, 28)); // across the 29 March change
  });
});

describe('visits', () => {
  it('a page is in a range when any of its visits is, not only its last', () => {
    process.env.TZ = 'UTC';
    const p = { url: 'https://a.example/', site: 'a.example', firstVisit: local(2026, 1, 1), lastVisit: local(2026, 2, 20), visits: [local(2026, 1, 1), local(2026, 1, 10, 12), local(2026, 2, 20)] };
    const jan10 = dayRange('2026-01-10', '2026-01-10') as { from: number; to: number };
    expect(visitedIn(p, jan10.from, jan10.to)).toBe(true);
    const jan11 = dayRange('2026-01-11', '2026-02-19') as { from: number; to: number };
    expect(visitedIn(p, jan11.from, jan11.to)).toBe(false);
    // Without a visit list, the first and the last visit are what is known.
    const { visits: _v, ...old } = p;
    expect(visitedIn(old, jan10.from, jan10.to)).toBe(false);
    expect(inScope(old, { kind: 'range', from: local(2026, 1, 1), to: local(2026, 1, 2) })).toBe(true);
  });

  it('keeps the most recent visits, ordered, and does not count a reload twice', () => {
    let v: number[] = [];
    for (let i = 0; i < MAX_VISITS + 20; i++) v = addVisit(v, 1_000_000 + i * 3_600_000);
    expect(v).toHaveLength(MAX_VISITS);
    expect(v[v.length - 1]).toBe(1_000_000 + (MAX_VISITS + 19) * 3_600_000);
    expect(addVisit(v, v[v.length - 1]! + 5_000)).toEqual(v);
    expect([...addVisit([5, 10_000_000], 200_000)]).toEqual([5, 200_000, 10_000_000]);
  });

  it('site scope matches subdomains; page scope that URL only; all matches everything', () => {
    const p = { url: 'https://docs.python.org/3/tutorial/', site: 'docs.python.org', firstVisit: 1, lastVisit: 2 };
    expect(inScope(p, { kind: 'site', site: 'python.org' })).toBe(true);
    expect(inScope(p, { kind: 'site', site: 'thon.org' })).toBe(false);
    expect(inScope(p, { kind: 'page', url: 'https://docs.python.org/3/tutorial/' })).toBe(true);
    expect(inScope(p, { kind: 'page', url: 'https://docs.python.org/3/tutorial/index.html' })).toBe(false);
    expect(inScope(p, { kind: 'page', url: 'https://docs.python.org/3/' })).toBe(false);
    expect(inScope(p, { kind: 'all' })).toBe(true);
  });

  it('a visit to a page not stored (an open tab, a late first capture) is in scope by its URL\'s site and its time', () => {
    const url = 'https://www.docs.python.org:443/3/new.html';
    expect(visitInScope(url, 5, { kind: 'site', site: 'python.org' })).toBe(true);
    expect(visitInScope(url, 5, { kind: 'site', site: 'rust-lang.org' })).toBe(false);
    expect(visitInScope(url, 5, { kind: 'all' })).toBe(true);
    expect(visitInScope(url, 5, { kind: 'page', url })).toBe(true);
    expect(visitInScope(url, 5, { kind: 'page', url: 'https://docs.python.org/3/other.html' })).toBe(false);
    expect(visitInScope(url, 5, { kind: 'range', from: 5, to: 6 })).toBe(true);
    expect(visitInScope(url, 6, { kind: 'range', from: 5, to: 6 })).toBe(false);
    expect(visitInScope('not a url', 5, { kind: 'site', site: 'python.org' })).toBe(false);
  });
});

describe('validateForgetScope', () => {
  const bad = (v: unknown) => expect(() => validateForgetScope(v)).toThrow(ProtocolError);
  it('accepts the four kinds and refuses anything else', () => {
    expect(validateForgetScope({ kind: 'all', extra: 1 })).toEqual({ kind: 'all' });
    // A page as stored: no fragment, no tracking parameters, user info dropped.
    expect(validateForgetScope({ kind: 'page', url: 'https://u:p@Example.com/a?utm_source=x&id=2#part' })).toEqual({ kind: 'page', url: 'https://example.com/a?id=2' });
    expect(validateForgetScope({ kind: 'page', url: 'file:///home/me/paper.pdf#page=3' })).toEqual({ kind: 'page', url: 'file:///home/me/paper.pdf' });
    bad({ kind: 'page' });
    bad({ kind: 'page', url: 'chrome://settings' });
    bad({ kind: 'page', url: 'not an address' });
    bad({ kind: 'page', url: ['https://example.com/'] });
    // Never cut to a length (a shortened address would name another page).
    bad({ kind: 'page', url: `https://example.com/${'a'.repeat(70_000)}` });
    expect(validateForgetScope({ kind: 'site', site: 'WWW.Example.com' })).toEqual({ kind: 'site', site: 'example.com' });
    bad({ kind: 'site', site: 'not a site' });
    bad({ kind: 'range' }); // the empty range that once forgot everything
    bad({ kind: 'range', from: 0, to: 1 });
    bad({ kind: 'range', from: Date.UTC(2026, 0, 2), to: Date.UTC(2026, 0, 1) });
    bad({ kind: 'range', from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 1, 5) });
    bad({ kind: 'range', from: Number.NaN, to: Date.UTC(2026, 0, 2) });
    bad({ kind: 'everything' });
    bad(null);
    bad('all');
  });
});
