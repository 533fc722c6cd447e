import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOKENIZER } from '../../src/indexing.js';
import { QueryMatcher } from '../../src/matcher.js';
import { forgetWords } from '../../src/tokenizer.js';
import { maySequence, proximityScore } from '../../src/proximity.js';
import { queryWords } from '../../src/queryPlan.js';

const pieces = ['cat', '--path', ' --cats', 'x--path', '(--x-y', 'cats', 'Catalog', 'os.path.join', 'getElementById', 'ERR_5041', 'queries', 'query', 'parse', 'parsing', 'a::b', 'x-y', ' ', '  ', '. ', ', ', '.', '-', '::', ':', '\n', '(', ')', 'q', 'I', 'the', 'élan', 'naïve', 'Ünïcode', '—', '“', 'ﬁle', 'Straße', 'ΟΔΟΣ', "'", 'Σ', 'path', 'HTTPServer', 'most', 'xpath_join', 'os', 'under_score'];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((xs) => xs.join(''));
const query = fc.array(fc.constantFrom('cats', 'path', 'element', 'err', 'query', 'parse', 'the', 'a', 'x', 'I', 'join', 'q', 'at', 'os', 'server', 'file', 'naive', 'strasse', 'straße', 'οδος', 'score', 'unicode', '--path', '--cats', '--x-y'), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));

describe('QueryMatcher.locate', () => {
  it('finds the words scan finds, with the same distances between matches near each other (property)', () => {
    fc.assert(
      fc.property(text, query, fc.boolean(), (t, q, dashed) => {
        // A long option as search() asks for one the index holds (narrowOptions): the dashed term alone.
        const m = new QueryMatcher(queryWords(q, TOKENIZER).map((w) => (dashed && w.terms[0]!.startsWith('--') ? [w.terms[0]!] : w.terms)), TOKENIZER);
        const a = m.locate(t);
        const b = m.scan(t);
        expect([a.start, a.end, a.mask]).toEqual([b.start, b.end, b.mask]);
        for (let i = 1; i < a.pos.length; i++) if (a.start[i]! - a.end[i - 1]! <= 80) expect(a.pos[i]! - a.pos[i - 1]!).toBe(b.pos[i]! - b.pos[i - 1]!);
        // A short text (a heading) is counted exactly: headingMatch divides by its word count.
        if (t.length <= 80 && a.pos.length) expect([a.pos, a.words]).toEqual([b.pos, b.words]);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('QueryMatcher.locate on text with a script written without spaces', () => {
  // Japanese, Chinese and Thai words and sentences (a section of an installation guide, cut up), with
  // punctuation, Latin words, full-width forms, characters outside the BMP, long unpunctuated runs (a
  // batch the tokenizer cuts into windows) and long stretches between matches.
  const cjk = [
    'パーティション', 'を', '分割', 'する', 'には', 'ディスク', 'の', '全体', 'インストール', 'システム', 'と', 'は', 'で', 'か', 'ます',
    'パーティションを分割するには、ディスク全体を使います。', 'インストーラは新しいパーティションを作ります', '別のカーネルや別のインストール方法について読んでください',
    '软件包', '管理', '软件包管理系统', '我们今天去公园散步', '，', '。', '、', '「', '」', '（', '）', '：', 'ภาษาไทย', '𠀀', '𠀁𠀂',
    'Debian', 'apt-get', 'disk', 'GRUB', '16.1', 'ｶﾞｲﾄﾞ', '㍿', 'ﬁle', ' ', '  ', '\n', '. ', '-',
    '我们今天去公园散步然后吃饭图书馆学习中文电脑程序我们今天去公园散步然后吃饭图书馆学习中文电脑程序我们今天去公园散步然后吃饭图书馆学习',
  ];
  const text = fc.array(fc.constantFrom(...cjk), { maxLength: 120 }).map((xs) => xs.join(''));
  const query = fc
    .array(fc.constantFrom('パーティション', '分割', 'を', 'の', 'ディスク', 'インストール', 'システム', 'カーネル', '软件包', '管理', '公园', '散步', 'ไทย', 'debian', 'disk', 'grub', 'ファイル', 'パーティション分割', '软件包管理', 'ガイド', '𠀀'), { minLength: 1, maxLength: 4 })
    .map((ws) => ws.join(' '));
  it('finds the words scan finds, with the same distances between matches near each other (property)', () => {
    let near = 0;
    fc.assert(
      fc.property(text, query, fc.boolean(), fc.boolean(), (t, q, strict, cold) => {
        if (cold) forgetWords();
        const m = new QueryMatcher(queryWords(q, TOKENIZER).map((w) => w.terms), TOKENIZER, strict);
        const a = m.locate(t);
        const b = m.scan(t);
        expect([a.start, a.end, a.mask]).toEqual([b.start, b.end, b.mask]);
        for (let i = 1; i < a.pos.length; i++) {
          if (a.start[i]! - a.end[i - 1]! > 80) continue;
          expect(a.pos[i]! - a.pos[i - 1]!).toBe(b.pos[i]! - b.pos[i - 1]!);
          near++;
        }
        if (t.length <= 80 && a.pos.length) expect([a.pos, a.words]).toEqual([b.pos, b.words]);
      }),
      { numRuns: 2000 },
    );
    expect(near).toBeGreaterThan(300);
  });

  it('counts a heading’s words exactly (headingMatch divides by them)', () => {
    const m = new QueryMatcher(queryWords('パーティション 分割', TOKENIZER).map((w) => w.terms), TOKENIZER, true);
    for (const h of ['パーティションの分割', 'ディスクのパーティション分割（手動）', '6.3.4. パーティションを分割する', 'Debian のパーティション']) {
      const a = m.locate(h);
      expect(a.pos.length).toBeGreaterThan(0);
      expect(a).toEqual(m.scan(h));
    }
  });
});

describe('QueryMatcher.mayMatch', () => {
  it('is true whenever scan finds a query word (property), and false for text holding none', () => {
    fc.assert(
      fc.property(text, query, (t, q) => {
        const m = new QueryMatcher(queryWords(q, TOKENIZER).map((w) => w.terms), TOKENIZER);
        if (m.scan(t).pos.length) expect(m.mayMatch(t)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    const m = new QueryMatcher(queryWords('Catalog parsing', TOKENIZER).map((w) => w.terms), TOKENIZER);
    expect(m.mayMatch('THE CATALOGUE')).toBe(true);
    expect(m.mayMatch('Nothing to see here')).toBe(false);
    expect(new QueryMatcher([], TOKENIZER).mayMatch('anything')).toBe(false);
  });
});

describe('proximityScore without the sequence', () => {
  it('scores as with it, and says no sequence (property)', () => {
    fc.assert(
      fc.property(text, query, fc.integer({ min: 0, max: 15 }), (t, q, contentBits) => {
        const words = queryWords(q, TOKENIZER);
        const m = new QueryMatcher(words.map((w) => w.terms), TOKENIZER, true).locate(t);
        const pq = { words: words.length, content: words.map((_, i) => !!(contentBits & (1 << i)) || i === 0), weight: words.map((_, i) => 1 + i / 3), k1: 1.2 };
        const params = { ordered: 0.5, unordered: 0.25, window: 8, sequenceMinWords: 3, heading: 1, candidates: 30 };
        const full = proximityScore(m, pq, params);
        expect(proximityScore(m, pq, params, false)).toEqual({ score: full.score, sequence: false });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('maySequence: the exact sequence from a scan of the content words only', () => {
  const pq = (n: number, content: boolean[]) => ({ words: n, content, weight: Array.from({ length: n }, () => 1), k1: 1.5 });
  it('never rules out a text that holds the sequence, and scores the pairs as the full scan does (property)', () => {
    fc.assert(
      fc.property(text, query, fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), (t, q, commonFlags) => {
        const groups = queryWords(q, TOKENIZER).map((w) => w.terms);
        const content = groups.map((_, i) => !commonFlags[i]);
        const full = new QueryMatcher(groups, TOKENIZER, true);
        const body = new QueryMatcher(groups.map((g, i) => (content[i] ? g : [])), TOKENIZER, true);
        const params = { ordered: 0.5, unordered: 0, window: 8, sequenceMinWords: 3, heading: 1, candidates: 30 };
        const whole = proximityScore(full.locate(t), pq(groups.length, content), params);
        const part = body.locate(t);
        if (whole.sequence) expect(maySequence(part, pq(groups.length, content))).toBe(true);
        // The pairs are the content words': the same score from either scan.
        expect(proximityScore(part, pq(groups.length, content), params).score).toBeCloseTo(whole.score, 9);
      }),
      { numRuns: 3000 },
    );
  });

  it('rules out a text whose content words are not side by side', () => {
    const groups = queryWords('reactor cools the turbine', TOKENIZER).map((w) => w.terms);
    const content = [true, true, false, true];
    const body = new QueryMatcher(groups.map((g, i) => (content[i] ? g : [])), TOKENIZER, true);
    expect(maySequence(body.locate('the reactor cools the turbine'), pq(4, content))).toBe(true);
    expect(maySequence(body.locate('the reactor cools a big turbine'), pq(4, content))).toBe(false);
    expect(maySequence(body.locate('turbine, reactor cools'), pq(4, content))).toBe(false);
  });
});

describe('QueryMatcher: strict compounds and a typo’s candidates', () => {
  const text = 'to fill, and provides methods for signalling';
  it('reads a strict group as a compound: the whole, or every part in one word', () => {
    const m = new QueryMatcher([['fill'], ['provid', 'provide', 'proxy']], TOKENIZER, true);
    // "provides" is `provide` but not `proxy`: as a compound's parts it does not carry the word.
    expect(m.scan(text).mask).toEqual([1]);
  });
  it('reads a corrected word’s equally near candidates as alternatives', () => {
    const m = new QueryMatcher([['fill'], ['provid', 'provide', 'proxy']], TOKENIZER, true, (i) => i === 1);
    expect(m.scan(text).mask).toEqual([1, 2]);
    expect(m.locate(text).mask).toEqual([1, 2]);
  });
});
