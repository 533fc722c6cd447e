import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressedQuery, addressNote, clipQuery, exclusionsOnlyMessage, formatQuery, isEmptyQuery, isoDate, onlyExclusions, parseDateOperand, parseQuery, withoutFilters } from '../../src/query.js';
import { validateSearch } from '../../src/validate.js';
import { hostileText } from './arbitraries.js';

const DAY = 86_400_000;
// A fixed local "now": mid-afternoon, mid-month, far from any DST change in either hemisphere.
const NOW = new Date(2024, 5, 15, 14, 30).getTime();
const TODAY = new Date(2024, 5, 15).getTime();

describe('parseQuery: words and phrases', () => {
  it('keeps free words as text', () => {
    const q = parseQuery('git undo commit', NOW);
    expect(q).toEqual({ text: 'git undo commit', phrases: [], excludeWords: [], excludePhrases: [], sites: [], excludeSites: [] });
  });

  it('quoted phrases are phrases and text', () => {
    const q = parseQuery('undo "last  commit" git', NOW);
    expect(q.phrases).toEqual(['last commit']);
    expect(q.text).toBe('undo last commit git');
  });

  it('an unclosed quote runs to the end', () => {
    expect(parseQuery('a "b c', NOW).phrases).toEqual(['b c']);
  });

  it('-word and -"phrase" exclude', () => {
    const q = parseQuery('python -java -"stack overflow" -', NOW);
    expect(q.text).toBe('python');
    expect(q.excludeWords).toEqual(['java']);
    expect(q.excludePhrases).toEqual(['stack overflow']);
  });

  it('--option is a word (an option name), not an exclusion', () => {
    const q = parseQuery('git grep --only-matching -v', NOW);
    expect(q.text).toBe('git grep --only-matching');
    expect(q.excludeWords).toEqual(['v']);
  });

  it('a minus excludes a word, not an arrow: `-> None` in a signature', () => {
    const q = parseQuery('copy_file(dirty: bool = False) -> None -draft', NOW);
    expect(q.text).toBe('copy_file(dirty: bool = False) -> None');
    expect(q.excludeWords).toEqual(['draft']);
  });

  it('unknown operators are words', () => {
    const q = parseQuery('foo:bar http://example.com/x lang:rust', NOW);
    expect(q.text).toBe('foo:bar http://example.com/x lang:rust');
    expect(q.sites).toEqual([]);
  });

  it('empty phrases and lone dashes vanish', () => {
    expect(parseQuery('"" - "   "', NOW).text).toBe('');
  });
});

describe('parseQuery: site operators', () => {
  it('site: and -site:, normalised', () => {
    const q = parseQuery('undo site:https://www.GitHub.com/foo/bar -site:gist.github.com SITE:docs.python.org', NOW);
    expect(q.sites).toEqual(['github.com', 'docs.python.org']);
    expect(q.excludeSites).toEqual(['gist.github.com']);
    expect(q.text).toBe('undo');
  });

  it('site:"quoted"', () => {
    expect(parseQuery('site:"example.org"', NOW).sites).toEqual(['example.org']);
  });

  it('an empty site operand is dropped, not searched', () => {
    const q = parseQuery('site: x site:https://', NOW);
    expect(q.sites).toEqual([]);
    expect(q.text).toBe('x');
  });
});

describe('parseQuery: dates', () => {
  it('after:/before: with ISO dates (local midnight)', () => {
    const q = parseQuery('after:2024-01-31 before:2024-02-10', NOW);
    expect(q.after).toBe(new Date(2024, 0, 31).getTime());
    expect(q.before).toBe(new Date(2024, 1, 10).getTime());
    expect(q.text).toBe('');
  });

  it('ISO months and years', () => {
    expect(parseDateOperand('2023-07', NOW)).toBe(new Date(2023, 6, 1).getTime());
    expect(parseDateOperand('2023', NOW)).toBe(new Date(2023, 0, 1).getTime());
    expect(parseDateOperand('2023-7-4', NOW)).toBe(new Date(2023, 6, 4).getTime());
  });

  it('refuses impossible dates (they become words)', () => {
    expect(parseDateOperand('2024-13-01', NOW)).toBeUndefined();
    expect(parseDateOperand('2024-02-30', NOW)).toBeUndefined();
    expect(parseDateOperand('2023-02-29', NOW)).toBeUndefined();
    expect(parseDateOperand('2024-02-29', NOW)).toBe(new Date(2024, 1, 29).getTime());
    expect(parseDateOperand('2024-00', NOW)).toBeUndefined();
    const q = parseQuery('after:2024-02-30 x', NOW);
    expect(q.after).toBeUndefined();
    expect(q.text).toBe('after:2024-02-30 x');
    // Searched as words, and named so the search box can say the day was not read.
    expect(q.unreadDates).toEqual(['after:2024-02-30']);
    expect(parseQuery('x -before:"next tuesday" after:7d', NOW).unreadDates).toEqual(['-before:"next tuesday"']);
    expect(parseQuery('after:7d before:2024-01-01 x', NOW).unreadDates).toBeUndefined();
  });

  it('years below 100 are those years, not 19xx', () => {
    expect(new Date(parseDateOperand('0099', NOW)!).getFullYear()).toBe(99);
  });

  it('relative forms', () => {
    expect(parseQuery('after:today', NOW).after).toBe(TODAY);
    expect(parseQuery('after:yesterday', NOW).after).toBe(TODAY - DAY);
    expect(parseQuery('after:7d', NOW).after).toBe(TODAY - 7 * DAY);
    expect(parseQuery('after:2w', NOW).after).toBe(TODAY - 14 * DAY);
    expect(parseQuery('after:3m', NOW).after).toBe(TODAY - 90 * DAY);
    expect(parseQuery('after:1y', NOW).after).toBe(TODAY - 365 * DAY);
    expect(parseQuery('after:last-week', NOW).after).toBe(TODAY - 7 * DAY);
    expect(parseQuery('after:last week', NOW).after).toBe(TODAY - 7 * DAY);
    expect(parseQuery('after:"last week"', NOW).after).toBe(TODAY - 7 * DAY);
    expect(parseQuery('After:Last   Month', NOW).after).toBe(TODAY - 30 * DAY);
    const q = parseQuery('rust after:last week async', NOW);
    expect(q.text).toBe('rust async');
  });

  it('before: means before the start of the day it names, relative or ISO alike', () => {
    expect(parseQuery('before:today', NOW).before).toBe(TODAY);
    expect(parseQuery('before:yesterday', NOW).before).toBe(TODAY - DAY);
    expect(parseQuery('before:7d', NOW).before).toBe(TODAY - 7 * DAY);
    const d = new Date(NOW);
    const iso = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    expect(parseQuery(`before:${iso}`, NOW).before).toBe(parseQuery('before:today', NOW).before);
    expect(parseQuery(`after:${iso}`, NOW).after).toBe(parseQuery('after:today', NOW).after);
  });

  it('counts relative days on the calendar, across a daylight-saving change', () => {
    const tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      // Clocks went forward on 2024-03-10: seven days before noon on 2024-03-12 is local midnight of 2024-03-05.
      const noon = new Date(2024, 2, 12, 12).getTime();
      expect(parseQuery('after:7d', noon).after).toBe(new Date(2024, 2, 5).getTime());
      expect(new Date(parseQuery('after:7d', noon).after!).getHours()).toBe(0);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('several bounds intersect', () => {
    const q = parseQuery('after:2024-01-01 after:2024-03-01 before:2024-06-01 before:2024-05-01', NOW);
    expect(q.after).toBe(new Date(2024, 2, 1).getTime());
    expect(q.before).toBe(new Date(2024, 4, 1).getTime());
  });

  it('negated bounds are the opposite bound', () => {
    expect(parseQuery('-after:2024-03-01', NOW)).toMatchObject({ text: '', before: new Date(2024, 2, 1).getTime() });
    expect(parseQuery('-before:2024-03-01', NOW)).toMatchObject({ text: '', after: new Date(2024, 2, 1).getTime() });
    const q = parseQuery('-before:today', NOW);
    expect(q.after).toBe(parseQuery('before:today', NOW).before);
    expect(q.text).toBe('');
  });

  it('garbage operands are words', () => {
    const q = parseQuery('after:someday before:', NOW);
    expect(q.after).toBeUndefined();
    expect(q.before).toBeUndefined();
    // A bare operator (half typed) is neither an unread day nor a word, as a bare `site:` is not.
    expect(q.text).toBe('after:someday');
    expect(q.unreadDates).toEqual(['after:someday']);
    expect(parseQuery('after: before: -after:', NOW).text).toBe('');
  });

  it('leading blanks of a long paste do not count against the length limit', () => {
    expect(parseQuery(`${' '.repeat(1999)}commit amend`, NOW).text).toBe('commit amend');
  });
});

describe('formatQuery, isEmptyQuery, isoDate', () => {
  it('round-trips a query with every operator', () => {
    const q = parseQuery('undo "last commit" -java -"stack overflow" site:github.com -site:gist.github.com after:2024-01-02 before:2024-03-04', NOW);
    expect(parseQuery(formatQuery(q), NOW)).toEqual(q);
  });

  it('isoDate is local', () => {
    expect(isoDate(new Date(2024, 0, 5, 23, 59).getTime())).toBe('2024-01-05');
  });

  it('isEmptyQuery', () => {
    expect(isEmptyQuery(parseQuery('  ', NOW))).toBe(true);
    expect(isEmptyQuery(parseQuery('-java', NOW))).toBe(true);
    expect(isEmptyQuery(parseQuery('site:x.com', NOW))).toBe(false);
    expect(isEmptyQuery(parseQuery('after:today', NOW))).toBe(false);
    expect(isEmptyQuery(parseQuery('x', NOW))).toBe(false);
  });
});

describe('withoutFilters: "search without filters"', () => {
  it('removes every filter operator, negated, quoted and half typed ones too, and keeps the words as typed', () => {
    // A bare `-site:` was left behind, and `-after:`/`-before:` stayed whole.
    expect(withoutFilters('litter -site:')).toBe('litter');
    expect(withoutFilters('litter -site:example.com site:a.org')).toBe('litter');
    expect(withoutFilters('-site:"a b" litter -after:7d -before:2024-01-01 box')).toBe('litter box');
    expect(withoutFilters('litter after:"last week" before:last month')).toBe('litter');
    expect(withoutFilters('SITE:a.com Litter AFTER:today')).toBe('Litter');
    // A day it cannot read is still a filter the person typed.
    expect(withoutFilters('litter after:2024-02-30')).toBe('litter');
    // Words, phrases and excluded words stay, spelled as typed; other colons are words.
    expect(withoutFilters('"litter  box" -dog -"wet food" site:x.com http://a.b/c foo:bar --only-matching')).toBe('"litter  box" -dog -"wet food" http://a.b/c foo:bar --only-matching');
    expect(withoutFilters('site: after: -before:')).toBe('');
  });
});

describe('parseQuery (property)', { timeout: 30_000 }, () => {
  /** A whitespace-separated word of `text` that the parser should have consumed as an operator. */
  function recognisedOperator(word: string): boolean {
    const m = /^-?([a-zA-Z]+):(.*)$/s.exec(word);
    if (!m) return false;
    const op = m[1]!.toLowerCase();
    if (op === 'site') return true;
    if (op === 'after' || op === 'before') return parseDateOperand(m[2]!, NOW) !== undefined;
    return false;
  }

  const operatorish = fc.constantFrom(
    'site:', '-site:', 'SITE:', 'after:', 'before:', '-after:', '-before:', 'after:today', 'before:2024-01-01', 'after:last', ' week',
    '7d', '2w', '3m', '2024-02-30', 'yesterday', ' ', '  ', '-', '--', ':', 'foo:', 'http://', 'www.', 'x.com', 'é', '\u3000', '\n', '\t',
  );
  const inputArb = fc.array(fc.oneof(operatorish, hostileText(8)), { maxLength: 25 }).map((xs) => xs.join(''));

  it('never throws; operands are clean; text holds no recognised operator (input without quotes)', () => {
    fc.assert(
      fc.property(inputArb.map((s) => s.replace(/"/g, '')), (input) => {
        const q = parseQuery(input, NOW);
        for (const w of q.text.split(/\s+/).filter(Boolean)) expect(recognisedOperator(w), `${JSON.stringify(w)} in ${JSON.stringify(q.text)}`).toBe(false);
        for (const s of [...q.sites, ...q.excludeSites]) {
          expect(s.length).toBeGreaterThan(0);
          expect(s).toBe(s.toLowerCase());
          expect(s).not.toMatch(/^(https?:\/\/|www\.)|\//);
        }
        for (const t of [q.after, q.before]) if (t !== undefined) expect(Number.isFinite(t)).toBe(true);
        expect(q.text).toBe(q.text.trim());
        expect(parseQuery(input, NOW)).toEqual(q);
      }),
      { numRuns: 3000 },
    );
  });

  it('withoutFilters leaves a query the parser reads with no filter and with the same words, phrases and exclusions', () => {
    fc.assert(
      fc.property(fc.oneof(inputArb, inputArb.map((s) => s.replace(/ /g, ' "'))), (input) => {
        const q = parseQuery(input, NOW);
        const bare = parseQuery(withoutFilters(input), NOW);
        expect(bare.sites).toEqual([]);
        expect(bare.excludeSites).toEqual([]);
        expect(bare.after).toBeUndefined();
        expect(bare.before).toBeUndefined();
        expect(bare.unreadDates).toBeUndefined();
        expect(withoutFilters(withoutFilters(input))).toBe(withoutFilters(input));
        // An unread day, or a bare `after:`, was searched as a word; without filters it is gone, word and all.
        if (!q.unreadDates && !/(after|before):(\s|$)/i.test(input)) expect(bare).toEqual({ ...q, sites: [], excludeSites: [], after: undefined, before: undefined });
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on anything, quotes included, and is idempotent on its own text for phrase-free input', () => {
    fc.assert(
      fc.property(fc.oneof(inputArb, hostileText(300), fc.string({ unit: 'binary', maxLength: 300 })), (input) => {
        const q = parseQuery(input, NOW);
        for (const p of [...q.phrases, ...q.excludePhrases]) expect(p.trim()).toBe(p);
        if (!q.phrases.length) {
          const again = parseQuery(q.text, NOW);
          expect(again.text).toBe(q.text);
          expect(again.sites).toEqual([]);
          expect(again.after).toBeUndefined();
          expect(again.before).toBeUndefined();
        }
        formatQuery(q);
      }),
      { numRuns: 3000 },
    );
    // Non-string input from an untyped caller.
    expect(parseQuery(undefined as unknown as string, NOW).text).toBe('');
    expect(parseQuery('x'.repeat(100_000), NOW).text.length).toBe(2000);
  });
});

describe('clipQuery: a long paste or selection is cut where a word ends', () => {
  // A word cut in half is a word no page has: the spelling correction then "corrected" it and the page
  // said "Showing results for … indirect" about a word nobody typed.
  const sentence = 'if a tuple contains any mutable object either directly or indirectly, it cannot be used as a key. ';

  it('never ends inside a word', () => {
    const long = sentence.repeat(30);
    for (const max of [500, 501, 517, 2000]) {
      const cut = clipQuery(long, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.length).toBeGreaterThan(max - 20);
      expect(long.startsWith(cut)).toBe(true);
      expect(long.slice(cut.length)).toMatch(/^[\s]/);
    }
    expect(clipQuery('short words', 500)).toBe('short words');
    // Exactly at a word's end: kept whole.
    expect(clipQuery('abc def ghi', 7)).toBe('abc def');
    expect(clipQuery('abc def ghi', 8)).toBe('abc def');
  });

  it('cuts one long token or unspaced text at the limit, never inside a surrogate pair', () => {
    expect(clipQuery('x'.repeat(3000), 2000)).toBe('x'.repeat(2000));
    expect(clipQuery('東京'.repeat(600), 500)).toBe('東京'.repeat(250));
    const emoji = '🐍'.repeat(300); // two code units each
    const cut = clipQuery('a' + emoji, 500);
    expect(cut.length).toBe(499);
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });

  it('is what the parser and the search request see', () => {
    const long = sentence.repeat(30);
    const words = parseQuery(long, NOW).text.split(' ');
    expect(long).toContain(` ${words[words.length - 1]} `);
    const q = validateSearch({ q: long }).q;
    expect(q.length).toBeLessThanOrEqual(2000);
    expect(long.slice(q.length)).toMatch(/^\s/);
  });
});

describe('onlyExclusions and its message: a query that only leaves pages out', () => {
  it('names the exclusions of a query with nothing to find pages by', () => {
    expect(onlyExclusions(parseQuery('-python', NOW))).toEqual(['-python']);
    expect(onlyExclusions(parseQuery('-python -"stack overflow" -site:www.Example.com', NOW))).toEqual(['-python', '-"stack overflow"', '-site:example.com']);
    // A word, a phrase, a site or a day finds pages: the exclusions then narrow them.
    for (const q of ['tutorial -python', '"exact words" -python', 'site:a.com -python', 'after:7d -python', '-after:7d -python', ' ', 'python', '--only-matching', '->']) {
      expect(onlyExclusions(parseQuery(q, NOW)), q).toBeNull();
    }
  });

  it('says to add a word, and that the exclusions only leave pages out', () => {
    expect(exclusionsOnlyMessage(['-python'])).toBe('Add a word to search for; -python only leaves pages out.');
    expect(exclusionsOnlyMessage(['-python', '-site:a.com'])).toBe('Add a word to search for; -python and -site:a.com only leave pages out.');
    expect(exclusionsOnlyMessage(['-a', '-b', '-c'])).toBe('Add a word to search for; -a, -b and -c only leave pages out.');
    expect(exclusionsOnlyMessage(['-a', '-b', '-c', '-d', '-e'])).toBe('Add a word to search for; -a, -b, -c and 2 more only leave pages out.');
  });
});

describe('a query of an address (addressedQuery, addressNote)', () => {
  it('searches a lone address, with any filters beside it, as its page name on its site', () => {
    expect(addressedQuery('https://docs.python.org/3/library/json.html')).toEqual({
      q: 'json site:docs.python.org',
      address: { url: 'https://docs.python.org/3/library/json.html', site: 'docs.python.org', words: ['json'], query: 'json site:docs.python.org' },
    });
    expect(addressedQuery('  https://a.test/cats-and-dogs after:7d ')?.q).toBe('cats and dogs site:a.test after:7d');
    expect(addressedQuery('-site:b.test https://a.test/')?.q).toBe('-site:b.test site:a.test');
    // Words beside it, or the address quoted: searched as typed.
    for (const q of ['cats https://a.test/dogs', '"https://a.test/dogs"', 'site:a.test', 'https://a.test/x -https://a.test/y cats', 'a.test/dogs']) expect(addressedQuery(q), q).toBeNull();
  });

  it('says what the address was searched as, and what became of its page', () => {
    const json = { site: 'docs.python.org', words: ['json'] };
    expect(addressNote(json, 'first')).toBe('Searching docs.python.org for “json”, the page at this address first.');
    expect(addressNote(json, 'unsaved')).toBe('Searching docs.python.org for “json”; Reread has not saved the page at this address.');
    expect(addressNote(json, 'left-out')).toBe('Searching docs.python.org for “json”.');
    expect(addressNote({ site: 'example.org', words: [] }, 'first')).toBe('Pages you read on example.org, the page at this address first.');
    expect(addressNote({ site: 'example.org', words: [] }, 'unsaved')).toBe('Pages you read on example.org, most recent first; Reread has not saved the page at this address.');
    expect(addressNote({ site: 'local-files', words: ['paper'] }, 'unsaved')).toBe('Searching Local files for “paper”; Reread has not saved the page at this address.');
  });
});
