/** Display helpers of the extension pages (popup/format.ts): counts in words, rounded timings, local days. */
import { afterEach, describe, expect, it } from 'vitest';
import { formatDay, formatDaySpan, formatMs, plural } from '../../popup/format.js';

const TZ = process.env.TZ;
afterEach(() => {
  process.env.TZ = TZ;
});

describe('format', () => {
  it('says "1 page", never "1 pages", and groups thousands', () => {
    expect(plural(1, 'page')).toBe('1 page');
    expect(plural(0, 'page')).toBe('0 pages');
    expect(plural(1204, 'page')).toBe(`${(1204).toLocaleString()} pages`);
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
  });

  it('rounds timings for people', () => {
    expect(formatMs(0.19999999972060323)).toBe('under 1 ms');
    expect(formatMs(12.46)).toBe('12 ms');
    expect(formatMs(1530)).toBe('1.5 s');
    expect(formatMs(Number.NaN)).toBe('under 1 ms');
  });

  it('names local days, with the year only when it is not this one', () => {
    process.env.TZ = 'Pacific/Auckland';
    const now = new Date(2026, 5, 1).getTime();
    const jan3 = new Date(2026, 0, 3, 0, 30).getTime(); // 2 Jan in UTC
    expect(formatDay(jan3, now)).toBe(new Date(2026, 0, 3).toLocaleDateString(undefined, { day: 'numeric', month: 'short' }));
    expect(formatDay(new Date(2025, 11, 31).getTime(), now)).toContain('2025');
    expect(formatDaySpan(jan3, new Date(2026, 0, 3, 23).getTime(), now)).toBe(formatDay(jan3, now));
    expect(formatDaySpan(jan3, new Date(2026, 1, 9).getTime(), now)).toContain(' – ');
  });
});
