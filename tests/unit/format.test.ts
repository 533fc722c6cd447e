/** Display helpers of the extension pages (popup/format.ts): counts in words, rounded timings, local days. */
import { afterEach, describe, expect, it } from 'vitest';
import { changedWords, formatDay, formatDaySpan, formatMs, noMatchHeading, plural } from '../../popup/format.js';
import { parseQuery } from '../../src/query.js';

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

  it('marks only the words a spelling correction changed', () => {
    expect(changedWords('read json from a file', 'read jsan from a file')).toEqual([
      { text: 'read ', changed: false },
      { text: 'json', changed: true },
      { text: ' from a file', changed: false },
    ]);
    expect(changedWords('git reset head', 'git resett hed')).toEqual([
      { text: 'git ', changed: false },
      { text: 'reset', changed: true },
      { text: ' ', changed: false },
      { text: 'head', changed: true },
    ]);
    // Runs that do not line up (one word became two): the words the original lacks are marked.
    expect(changedWords('new kernel package', 'newkernel package')).toEqual([
      { text: 'new kernel', changed: true },
      { text: ' package', changed: false },
    ]);
    expect(changedWords('Bau regeln des Pakets', 'Bauregeln des Pakets')).toEqual([
      { text: 'Bau regeln', changed: true },
      { text: ' des Pakets', changed: false },
    ]);
    // Every run's text, in order, is the corrected query.
    expect(changedWords('新しいカーネルパッケージ', '新しいカーネルパッケ').map((r) => r.text).join('')).toBe('新しいカーネルパッケージ');
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

  it('the no-results heading quotes the words only and names the filters, never the operators as typed', () => {
    const now = new Date(2026, 5, 15, 12).getTime();
    const heading = (q: string) => noMatchHeading(parseQuery(q, now), q, now);
    expect(heading('xylophonequartz site:example.com')).toBe('Nothing you have read matches “xylophonequartz” on example.com.');
    const may1 = formatDay(new Date(2024, 4, 1).getTime(), now);
    expect(may1).toContain('2024');
    expect(heading('xylophonequartz site:example.com after:2024-05-01')).toBe(`Nothing you have read matches “xylophonequartz” on example.com, visited since ${may1}.`);
    // before: is exclusive: the last day named is the one before it.
    expect(heading('bread before:2024-05-09 after:2024-05-01')).toBe(`Nothing you have read matches “bread” visited ${formatDaySpan(new Date(2024, 4, 1).getTime(), new Date(2024, 4, 8).getTime(), now)}.`);
    // A range that ends before it starts: said so, not left to the reader.
    expect(heading('bread after:2024-05-10 before:2024-05-01')).toBe(
      `Nothing you have read matches “bread” visited since ${formatDay(new Date(2024, 4, 10).getTime(), now)} and before ${formatDay(new Date(2024, 4, 1).getTime(), now)} (no day is both).`,
    );
    expect(heading('bread after:2024-05-10 before:2024-05-10')).toContain('(no day is both)');
    expect(heading('bread before:2024-05-09')).toBe(`Nothing you have read matches “bread” visited before ${formatDay(new Date(2024, 4, 9).getTime(), now)}.`);
    expect(heading('"sour dough" -site:a.com -rye site:b.org site:c.org')).toBe('Nothing you have read matches “sour dough” on b.org or c.org, not on a.com, without “rye”.');
    expect(heading('site:example.com after:7d')).toBe(`Nothing you have read matches these filters: on example.com, visited since ${formatDay(new Date(2026, 5, 8).getTime(), now)}.`);
    // An operator the parser does not know is a word, and is quoted as one.
    expect(heading('foo:bar')).toBe('Nothing you have read matches “foo:bar”.');
    // A typo corrected and still nothing: both words were searched, and the heading names both (it named
    // only the typed words under a "Showing results for …" line, which showed no results).
    const corrected = (q: string, c: string) => noMatchHeading(parseQuery(q, now), q, now, parseQuery(c, now));
    expect(corrected('littr site:example.com', 'litter site:example.com')).toBe('Nothing you have read matches “littr” or “litter” on example.com.');
    expect(corrected('"unclosed quote', '"undosed quote')).toBe('Nothing you have read matches “unclosed quote” or “undosed quote”.');
    expect(corrected('Bread', 'bread')).toBe('Nothing you have read matches “Bread”.');
  });
});
