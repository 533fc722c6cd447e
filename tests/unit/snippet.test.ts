import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { TOKENIZER } from '../../src/indexing.js';
import { bestSnippet, highlight, makeSnippet, TermMarker, type SnippetSegment } from '../../src/snippet.js';
import { QueryMatcher } from '../../src/matcher.js';
import { forEachWordSpan, forgetWords, queryTerms, tokenize, wordTerms, type TokenizerOptions } from '../../src/tokenizer.js';
import { queryWords } from '../../src/queryPlan.js';
import { hostileText } from './arbitraries.js';

/** A marker for raw terms, tokenizer without options (as the index would without stemming). */
const plain = (terms: Iterable<string>) => new TermMarker(new Set(terms), {});
/** A marker for a query typed by the user, with the extension's tokenizer options. */
const query = (text: string, tok: TokenizerOptions = TOKENIZER) => new TermMarker(new Set(queryTerms(text, tok)), tok);

const WORD = /(?:(?<![\p{L}\p{N}\p{M}_.\-])--(?=[\p{L}\p{N}]))?[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;
const join = (segs: SnippetSegment[]) => segs.map((s) => s.text).join('');
const marked = (segs: SnippetSegment[]) => segs.filter((s) => s.match).map((s) => s.text);

describe('highlight', { timeout: 30_000 }, () => {
  it('marks the words whose terms are searched, folded and compound', () => {
    const segs = highlight('Call getElementById, then see Café ERR_5041!', plain(['element', 'cafe', '5041']));
    expect(marked(segs)).toEqual(['getElementById', 'Café', 'ERR_5041']);
    expect(join(segs)).toBe('Call getElementById, then see Café ERR_5041!');
  });

  it('marks nothing without terms and handles empty text', () => {
    expect(highlight('some text', plain([]))).toEqual([{ text: 'some text', match: false }]);
    expect(highlight('', plain(['a']))).toEqual([]);
  });

  it('never loses text and marks exactly the matching words (property)', () => {
    const vocab = ['cat', 'Cat', 'CATS', 'café', 'os.path', 'getElementById', 'x_1', '漢字', 'naïve', ' ', ', ', '\n', '-', '.'];
    const textArb = fc.oneof(hostileText(120), fc.array(fc.constantFrom(...vocab), { maxLength: 30 }).map((xs) => xs.join('')));
    fc.assert(
      fc.property(textArb, fc.uniqueArray(fc.constantFrom('cat', 'cats', 'cafe', 'path', 'get', 'id', 'x_1', '漢字', 'naive', 'zzz'), { maxLength: 4 }), (text, termList) => {
        const terms = new Set<string>(termList);
        const segs = highlight(text, new TermMarker(terms, {}));
        expect(join(segs)).toBe(text);
        for (const s of segs) {
          expect(s.text.length).toBeGreaterThan(0);
          const words = [...s.text.matchAll(WORD)].map((m) => m[0]);
          const hit = (w: string) => tokenize(w).some((t) => terms.has(t));
          if (s.match) {
            expect(words).toEqual([s.text]);
            expect(hit(s.text)).toBe(true);
          } else {
            expect(words.filter(hit)).toEqual([]);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('makeSnippet', { timeout: 30_000 }, () => {
  it('returns the whole (whitespace-collapsed) text when short', () => {
    const segs = makeSnippet('  a  cat\n\nsat ', plain(['cat']));
    expect(join(segs)).toBe('a cat sat');
    expect(marked(segs)).toEqual(['cat']);
  });

  it('centres a long text on its matches, with ellipses', () => {
    const filler = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    const body = `${filler(100, 'before')} the zephyrine litter box ${filler(100, 'after')}`;
    const segs = makeSnippet(body, plain(['zephyrine']), 20);
    expect(segs[0]).toEqual({ text: '… ', match: false });
    expect(segs[segs.length - 1]).toEqual({ text: ' …', match: false });
    expect(marked(segs)).toEqual(['zephyrine']);
    const inner = join(segs.slice(1, -1));
    expect(body.includes(inner)).toBe(true);
    expect(inner.split(' ')).toHaveLength(20);
  });

  it('takes the window with the most matches, and the start when nothing matches', () => {
    const words = Array.from({ length: 200 }, (_, i) => (i === 20 || i === 150 || i === 155 || i === 158 ? 'match' : `w${i}`));
    const segs = makeSnippet(words.join(' '), plain(['match']), 20);
    expect(marked(segs)).toHaveLength(3);
    const none = makeSnippet(words.join(' '), plain(['absent']), 10);
    expect(none[0]!.text.startsWith('w0 ')).toBe(true);
    expect(none[none.length - 1]).toEqual({ text: ' …', match: false });
  });

  it('never throws and stays within the text (property)', () => {
    fc.assert(
      fc.property(hostileText(400), fc.uniqueArray(fc.constantFrom('a', 'cat', '漢', 'x'), { maxLength: 3 }), fc.integer({ min: 1, max: 50 }), (body, terms, max) => {
        const segs = makeSnippet(body, plain(terms), max);
        // Cut at whitespace: `… `; inside an unspaced run: `…` (stripping a prefix keeps a substring one).
        const inner = join(segs).replace(/^… ?/, '').replace(/ ?…$/, '');
        expect(body.replace(/\s+/g, ' ').trim().includes(inner)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('shows a match whenever the text has one (property)', () => {
    const words = fc.array(fc.oneof({ weight: 20, arbitrary: fc.constantFrom('lorem', 'ipsum', 'dolor', 'sit', 'amet') }, { weight: 1, arbitrary: fc.constant('needle') }), { minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(words, fc.integer({ min: 1, max: 40 }), (ws, max) => {
        const segs = makeSnippet(ws.join(' '), plain(['needle']), max);
        // As many matches as the best window of `max` words holds.
        let best = 0;
        for (let i = 0; i + Math.min(max, ws.length) <= ws.length; i++) best = Math.max(best, ws.slice(i, i + max).filter((w) => w === 'needle').length);
        expect(marked(segs)).toHaveLength(best);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('snippet windows in unspaced scripts', { timeout: 60_000 }, () => {
  const ja = query;
  /** Display width as the window's context counts it: CJK and full-width characters are 2. */
  const wide = (t: string) => [...t].reduce((n, c) => n + (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60]/u.test(c) ? 2 : 1), 0);
  const beforeFirstMark = (segs: SnippetSegment[]) => {
    const i = segs.findIndex((s) => s.match);
    return i < 0 ? null : join(segs.slice(0, i));
  };
  const LONG_JA =
    '新しいリリースでは新しい機能と新しい翻訳が加わります。リリースの予定はお知らせで伝えられ、文書もリリースごとに用意されます。' +
    '古いリリースの利用者も手順で移行できます。準備には数か月かかります。版が凍結されると変更は受け付けられず、不具合の修正だけが入ります。' +
    'システムをアップグレードする前にはバックアップを取ってください。';

  it('opens a Japanese window at the sentence holding the match, not at the paragraph start', () => {
    // A one-line "more" row.
    const segs = makeSnippet(LONG_JA, ja('アップグレード'), 36, 'row');
    expect(marked(segs)).toEqual(['アップグレード']);
    // Cut inside the run: an ellipsis without a space, then the sentence from its start.
    expect(beforeFirstMark(segs)).toBe('…システムを');
    expect(LONG_JA.includes(join(segs).slice(1))).toBe(true);
    // A result's own snippet, where the text ends soon after the match, takes more of what comes
    // before it, the match still within about a line (96 wide: 48 CJK characters).
    const passage = makeSnippet(LONG_JA, ja('アップグレード'));
    const before = beforeFirstMark(passage)!;
    expect(before.startsWith('…')).toBe(true);
    expect(before.endsWith('システムを')).toBe(true);
    expect(wide(before)).toBeGreaterThan(40);
    expect(wide(before)).toBeLessThanOrEqual(96 + 2);
  });

  it('gives a match mid-sentence some words of context, cut at word boundaries', () => {
    const body = `${'凍結された版では変更は受け付けられず不具合の修正だけが入りますがその間も'.repeat(3)}新しいカーネルパッケージが用意されることがあります`;
    const segs = makeSnippet(body, ja('カーネル'), 36, 'row');
    const before = beforeFirstMark(segs)!;
    expect(before.startsWith('…')).toBe(true);
    expect(wide(before)).toBeGreaterThanOrEqual(8); // some context…
    expect(wide(before)).toBeLessThanOrEqual(26); // …but the match near the start (12 CJK characters at most)
    // The window opens where the segmenter starts a word.
    const at = body.indexOf(join(segs).slice(1));
    const words: number[] = [];
    forEachWordSpan(body, (_w, s) => words.push(s));
    expect(at).toBeGreaterThan(0);
    expect(words).toContain(at);
  });

  it('does the same for Chinese and Thai', () => {
    const zh = `${'我们在这里讨论了很多关于系统配置的问题并且给出了详细的说明'.repeat(4)}请先备份数据然后升级内核版本`;
    const segsZh = makeSnippet(zh, ja('内核'), 36, 'row');
    expect(marked(segsZh)).toEqual(['内核']);
    expect(wide(beforeFirstMark(segsZh)!)).toBeLessThanOrEqual(26);
    const th = `${'ภาษาไทยเป็นภาษาที่เขียนติดกันโดยไม่มีการเว้นวรรคระหว่างคำ'.repeat(4)}กรุณาสำรองข้อมูลก่อนอัปเกรดระบบ`;
    const segsTh = makeSnippet(th, ja('ข้อมูล'), 36, 'row');
    expect(marked(segsTh)).toEqual(['ข้อมูล']);
    expect(beforeFirstMark(segsTh)!.length).toBeLessThanOrEqual(26);
  });

  it('keeps English as it was: about four words before the match, `… ` at whitespace', () => {
    const filler = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i % 10}`).join(' ');
    const segs = makeSnippet(`${filler(100, 'pre')} the zephyrine litter box ${filler(100, 'post')}`, plain(['zephyrine']), 20);
    expect(beforeFirstMark(segs)).toBe('… pre7 pre8 pre9 the ');
  });

  it('a passage keeps up to about a line before a late match, from a sentence start; a row keeps a few words', () => {
    const body = 'Return True if path refers to an existing directory entry that is a symbolic link. Always False if symbolic links are not supported by the Python runtime. Changed in version 3.6: Accepts a path-like object.';
    expect(beforeFirstMark(makeSnippet(body, query('python')))).toBe('… Always False if symbolic links are not supported by the ');
    // No sentence starts in reach: as much as the lead allows (e.g. does not end a sentence).
    const run = 'see the notes on links e.g. symbolic links and junctions which are followed when the path names one and are not supported by the Python runtime at all.';
    const passage = beforeFirstMark(makeSnippet(run, query('python')))!;
    expect(passage.length).toBeGreaterThan(60);
    expect(passage.length).toBeLessThanOrEqual(96 + 2);
    expect(beforeFirstMark(makeSnippet(body, query('python'), 36, 'row'))).toBe('… not supported by the ');
  });

  it('shows text whose first match is near its start from the start', () => {
    const segs = makeSnippet(LONG_JA, ja('リリース'));
    expect(segs[0]).toEqual({ text: '新しい', match: false });
    expect(segs[segs.length - 1]!.text).toBe('…');
  });

  // Words of several scripts, punctuation, spaces; the needle is put in somewhere.
  const VOCAB = ['新しい', 'リリース', 'では', 'の', 'を', '。', '、', '機能', '翻訳', '我们', '系统', 'ภาษา', 'ไทย', 'word', 'text', ' ', ' ', '\u3000', '「', '」', '😀', '𠀀', 'x\u0301', '(', '.', '-'];
  const flowing = fc.oneof(
    fc.array(fc.constantFrom(...VOCAB), { maxLength: 400 }).map((xs) => xs.join('')),
    // Prose with no whitespace at all, as Japanese and Chinese are written.
    fc.array(fc.constantFrom(...VOCAB.filter((w) => !/\s/.test(w))), { minLength: 30, maxLength: 300 }).map((xs) => xs.join('')),
  );
  const needleAt = (text: string, at: number, needle: string) => {
    let i = Math.floor(at * (text.length + 1));
    // Not between a surrogate pair, not before a combining mark.
    while (i > 0 && i < text.length && /[\udc00-\udfff\u0300-\u036f]/.test(text[i]!)) i--;
    return text.slice(0, i) + needle + text.slice(i);
  };
  /** Bounded: at most max·5/3 units (a unit of an unspaced script costs 3/5 of a word), each of at most 48 code units, the spaces between them, two ellipses. */
  const bound = (max: number) => Math.ceil((max * 5) / 3) * 49 + 4;
  const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

  it('always holds the match, near its start, never splits a surrogate pair, and is bounded (property)', () => {
    fc.assert(
      fc.property(flowing, fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('アップグレード', 'カーネル', '升级', ' needle '), fc.integer({ min: 4, max: 40 }), fc.constantFrom('row' as const, 'passage' as const), (text, at, needle, max, lead) => {
        const body = needleAt(text, at, needle);
        const q = ja(needle.trim());
        const segs = makeSnippet(body, q, max, lead);
        const out = join(segs);
        // The match is in the window, marked.
        expect(marked(segs).join('')).toContain(needle.trim());
        // Near the start: at most the lead (a row: 28 wide; a passage: 96), an ellipsis and its space,
        // and the rest of the unit the match starts in (a word glued to punctuation before it, as `「`
        // or `(`: 4 at most here).
        expect(wide(beforeFirstMark(segs)!)).toBeLessThanOrEqual((lead === 'row' ? 28 : 96) + 2 + 4 * 2);
        // A surrogate pair is never cut (the body has none alone).
        for (const s of segs) expect(LONE.test(s.text)).toBe(false);
        expect(out.length).toBeLessThanOrEqual(bound(max));
        // And it is the body's text.
        expect(body.replace(/\s+/g, ' ').includes(out.replace(/^… ?/, '').replace(/ ?…$/, ''))).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('holds the match in any text, long unspaced runs and astral characters included (property)', () => {
    // Runs without whitespace far longer than a unit, astral characters at odd and even offsets.
    const astral = fc.oneof(
      fc.string({ unit: fc.constantFrom('😀', '𝐀', 'a', '\u0301', '👩‍💻', 'ab'), minLength: 60, maxLength: 400 }),
      fc.string({ unit: fc.constantFrom('😀', '𠀀', '漢', 'a', '\u0301', '👩‍💻', 'の', 'ab'), minLength: 60, maxLength: 400 }),
    );
    const anyText = fc.oneof(hostileText(400), astral, fc.tuple(astral, hostileText(100), astral).map((xs) => xs.join('')));
    fc.assert(
      fc.property(anyText, fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 40 }), (text, at, max) => {
        const body = needleAt(text, at, ' zephyrine ');
        const segs = makeSnippet(body, plain(['zephyrine']), max);
        expect(marked(segs)).toContain('zephyrine');
        expect(join(segs).length).toBeLessThanOrEqual(bound(max));
        // A pair whole in the body is whole in the snippet (its edges included).
        const lones = (t: string) => (t.match(new RegExp(LONE.source, 'g')) ?? []).length;
        expect(lones(join(segs))).toBeLessThanOrEqual(lones(body));
        if (!lones(body)) for (const s of segs) expect(LONE.test(s.text)).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it('gives the snippet scan’s matches give, its matches found through the probes (locate) and its words segmented once (property)', () => {
    const piece = fc.constantFrom(
      'パーティション', 'を', '分割', 'する', 'には', 'ディスク', 'の', '全体', 'インストール', 'システム', 'と', 'は', 'で', 'か', 'ます', '新しい', 'リリース',
      '软件包', '管理', '系统', '我们今天去公园散步', 'ภาษาไทย', '𠀀', 'Debian', 'apt-get', 'GRUB', 'ｶﾞｲﾄﾞ', '（', '）', '，', '、', '。', ' ', '\n', LONG_JA,
    );
    const words = fc.array(fc.constantFrom('パーティション', '分割', 'を', 'の', 'ディスク', 'インストール', 'リリース', '新しい', '软件包', '管理', 'ไทย', 'debian', 'grub', 'ガイド'), { minLength: 1, maxLength: 4 });
    const snippets = (body: string, q: string[], max: number, lead: 'row' | 'passage') => {
      const ws = queryWords(q.join(' '), TOKENIZER);
      const sq = { matcher: new QueryMatcher(ws.map((w) => w.terms), TOKENIZER), weights: ws.map((_, i) => 1 + i / 3), marked: (1 << ws.length) - 1 - (ws.length > 2 ? 2 : 0), weak: ws.length > 1 ? 1 : 0 };
      return JSON.stringify(bestSnippet(body, sq, max, lead));
    };
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), words, fc.integer({ min: 4, max: 40 }), fc.boolean(), fc.boolean(), (xs, q, max, row, cold) => {
        const body = xs.join('');
        if (cold) forgetWords();
        const fast = snippets(body, q, max, row ? 'row' : 'passage');
        const spy = vi.spyOn(QueryMatcher.prototype, 'locate').mockImplementation(function (this: QueryMatcher, text: string) {
          return this.scan(text);
        });
        try {
          expect(fast).toBe(snippets(body, q, max, row ? 'row' : 'passage'));
        } finally {
          spy.mockRestore();
        }
      }),
      { numRuns: 800 },
    );
  });

  it('cuts an endless word by length, at code point boundaries', () => {
    const body = `a${'😀'.repeat(500)}x\u0301\u0301\u0301 zephyrine a${'𝐀'.repeat(500)} ${'𠀀'.repeat(500)}`;
    const segs = makeSnippet(body, plain(['zephyrine']), 10);
    expect(marked(segs)).toEqual(['zephyrine']);
    for (const s of segs) expect(LONE.test(s.text)).toBe(false);
    expect(join(segs).length).toBeLessThanOrEqual(bound(10));
  });
});

describe('highlighting marks what the index matched', { timeout: 30_000 }, () => {
  it('marks the inflected forms a stemmed query matched', () => {
    const segs = highlight('Two cats met a cat; the catalog lists ponies and a pony.', query('cats ponies'));
    expect(marked(segs)).toEqual(['cats', 'cat', 'ponies', 'pony']);
    expect(join(segs)).toBe('Two cats met a cat; the catalog lists ponies and a pony.');
  });

  it('marks identifiers whole when the index matched them whole or by a part', () => {
    const text = 'Call parseFiles() or os.path.join; ERR_FILE_NOT_FOUND, getElementsById and profile.';
    expect(marked(highlight(text, query('file element')))).toEqual(['parseFiles', 'ERR_FILE_NOT_FOUND', 'getElementsById']);
    expect(marked(highlight(text, query('os.path')))).toEqual(['os.path.join']);
    expect(marked(highlight(text, query('parseFiles')))).toEqual(['parseFiles', 'ERR_FILE_NOT_FOUND']);
  });

  it('marks the word an unspaced script was segmented into, not the whole run', () => {
    const segs = highlight('私は東京に住んでいます。', query('東京'));
    expect(marked(segs)).toEqual(['東京']);
    expect(join(segs)).toBe('私は東京に住んでいます。');
  });

  it('marks touching words of an unspaced script as one run, in highlights and snippets', () => {
    const text = 'Debian では新しいカーネルパッケージをインストールします。';
    const q = query('新しいカーネルパッケージ');
    // The segmenter cuts the query and the text into 新しい | カーネル | パッケージ: one mark, not three.
    for (const segs of [highlight(text, q), makeSnippet(text, q)]) {
      expect(marked(segs)).toEqual(['新しいカーネルパッケージ']);
      expect(join(segs)).toBe(text);
    }
    // Words with anything between them stay separate marks: a space, a particle that was not searched.
    expect(marked(highlight('new kernel', query('new kernel')))).toEqual(['new', 'kernel']);
    expect(marked(highlight('新しいのカーネル', q))).toEqual(['新しい', 'カーネル']);
  });

  it('never gives two marks in a row nor an empty segment (property)', () => {
    const cjk = fc.array(fc.constantFrom('新しい', 'カーネル', 'パッケージ', 'を', 'の', '東京', ' ', '。', 'cat'), { maxLength: 40 }).map((xs) => xs.join(''));
    const qArb = fc.array(fc.constantFrom('新しい', 'カーネル', 'パッケージ', '東京', 'cats'), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(''));
    fc.assert(
      fc.property(fc.oneof(cjk, textArb), qArb, fc.integer({ min: 1, max: 12 }), (text, q, max) => {
        for (const segs of [highlight(text, query(q)), makeSnippet(text, query(q), max)]) {
          segs.forEach((s, i) => {
            expect(s.text.length).toBeGreaterThan(0);
            if (i > 0) expect(s.match && segs[i - 1]!.match).toBe(false);
          });
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('marks the original characters of folded words (decomposed accents, ligatures, full-width)', () => {
    const text = 'Un cafe\u0301 et une ﬁle, ＡＢＣ.';
    expect(marked(highlight(text, query('café file abc')))).toEqual(['cafe\u0301', 'ﬁle', 'ＡＢＣ']);
  });

  it('centres the snippet on inflected matches', () => {
    const filler = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    const segs = makeSnippet(`${filler(100, 'before')} two ponies grazed ${filler(100, 'after')}`, query('pony'), 20);
    expect(marked(segs)).toEqual(['ponies']);
  });

  const vocab = ['cat', 'cats', 'Cats', 'catalog', 'pony', 'ponies', 'parseFiles', 'ERR_FILE', 'file', 'os.path', 'getElementById', '東京', '私は東京に', 'café', 'cafe\u0301', 'ﬁle', ' ', ', ', '. ', '\n', '-'];
  const textArb = fc.oneof(hostileText(120), fc.array(fc.constantFrom(...vocab), { maxLength: 30 }).map((xs) => xs.join('')));
  const queryArb = fc.array(fc.constantFrom('cats', 'pony', 'files', 'path', 'element', '東京', 'cafe', 'file', 'zzz'), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));

  it('marks something exactly when the index matched a query term, and only words that carry one (property)', () => {
    fc.assert(
      fc.property(textArb, queryArb, (text, q) => {
        const terms = new Set(queryTerms(q, TOKENIZER));
        const segs = highlight(text, query(q));
        expect(join(segs)).toBe(text);
        for (const s of segs) expect(s.text.length).toBeGreaterThan(0);
        const indexed = tokenize(text, TOKENIZER).some((t) => terms.has(t));
        expect(segs.some((s) => s.match)).toBe(indexed);
        for (const s of segs) if (s.match) expect(tokenize(s.text, TOKENIZER).some((t) => terms.has(t))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves no matching word unmarked in spaced text (property)', () => {
    const spaced = fc.array(fc.constantFrom(...vocab.filter((w) => !/[東京私]/.test(w))), { maxLength: 30 }).map((xs) => xs.join(''));
    fc.assert(
      fc.property(spaced, queryArb, (text, q) => {
        const terms = new Set(queryTerms(q, TOKENIZER));
        for (const s of highlight(text, query(q))) {
          if (!s.match) for (const m of s.text.matchAll(WORD)) expect(tokenize(m[0], TOKENIZER).some((t) => terms.has(t))).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('cuts words exactly as tokenize does, with extents inside the text (property)', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const terms: string[] = [];
        let prev = 0;
        forEachWordSpan(text, (word, start, end) => {
          expect(start).toBeGreaterThanOrEqual(prev);
          expect(end).toBeGreaterThan(start);
          expect(end).toBeLessThanOrEqual(text.length);
          prev = start;
          terms.push(...wordTerms(word, TOKENIZER));
        });
        expect(terms).toEqual(tokenize(text, TOKENIZER));
      }),
      { numRuns: 3000 },
    );
  });

  it('stays fast on hostile chunks of the chunker’s maximum size', () => {
    const max = 6000; // DEFAULT_CHUNKER_OPTIONS.maxChunkChars
    const fill = (unit: string) => unit.repeat(Math.ceil(max / unit.length)).slice(0, max);
    const bodies = ['日本 ', 'x\u0301 ', 'a.b-', 'aB', 'ภาษาไทย ', 'ﬁ…', '\ud800a', 'word ', 'cat'].map(fill);
    const marker = query('cats 日本 x a word ภาษา');
    const t = performance.now();
    // A results page holds ~90 sections; these are 9 hostile ones, 10 times over.
    for (let r = 0; r < 10; r++) for (const b of bodies) makeSnippet(b, marker);
    expect(performance.now() - t).toBeLessThan(5000);
  });
});

describe('weak words (Japanese particles) are highlighted only within a run', () => {
  const marks = (body: string, words: string[], weak: number) => {
    const matcher = new QueryMatcher(words.map((w) => queryTerms(w, TOKENIZER)), TOKENIZER);
    const all = (1 << words.length) - 1;
    return bestSnippet(body, { matcher, weights: words.map(() => 1), marked: all, weak }, 60).segments.filter((s) => s.match).map((s) => s.text);
  };
  const body = '新しいカーネルをインストールするには、ツールを使います。古いカーネルは残ります。';

  it('draws a particle touching a marked word as part of its run, and not a lone one', () => {
    // カーネル, を (weak), インストール
    expect(marks(body, ['カーネル', 'を', 'インストール'], 0b010)).toEqual(['カーネルをインストール', 'カーネル']);
    // The same without weak words: every を is marked.
    expect(marks(body, ['カーネル', 'を', 'インストール'], 0)).toEqual(['カーネルをインストール', 'を', 'カーネル']);
  });

  it('follows a run of several weak words on either side', () => {
    expect(marks(body, ['インストール', 'する', 'には'], 0b110)).toEqual(['インストールするには']);
    expect(marks('古いツールをするにはカーネル', ['する', 'には', 'カーネル'], 0b011)).toEqual(['するにはカーネル']);
  });

  it('never loses text, whatever is weak (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.integer({ min: 0, max: 7 }), (extra, weak) => {
        const text = body + extra;
        const matcher = new QueryMatcher(['カーネル', 'を', 'は'].map((w) => queryTerms(w, TOKENIZER)), TOKENIZER);
        const segs = bestSnippet(text, { matcher, weights: [1, 1, 1], marked: 7, weak }, 200).segments;
        expect(segs.map((s) => s.text).join('').replace(/…/g, '')).toBe(text.replace(/\s+/g, ' ').trim());
      }),
    );
  });
});

describe('where the passage is (focus): the words of a phrase in order, not the same words scattered', () => {
  const focusOf = (body: string, words: string[]) => {
    const matcher = new QueryMatcher(words.map((w) => queryTerms(w, TOKENIZER)), TOKENIZER);
    return bestSnippet(body, { matcher, weights: words.map(() => 1), marked: (1 << words.length) - 1 }).focus;
  };
  // Node's options merged into one section: each line shares most of the query's words.
  const shadow = '--experimental-shadow-realm: Added in: v18.13.0 Use this flag to enable ShadowRealm support.';
  const vm = '--experimental-vm-modules: Added in: v9.6.0 Enable experimental ES Module support in the node:vm module.';

  it('lands on the line that holds the phrase, though an earlier one holds its words too', () => {
    const body = `${shadow}\n${vm}\n--experimental-wasm-modules: Added in: v12.3.0 Enable experimental WebAssembly module support.`;
    expect(focusOf(body, ['enable', 'experimental', 'module', 'support'])).toBe(body.indexOf('Enable experimental ES'));
  });

  it('does not move for a lone pair of words in order (one pair says little)', () => {
    const body =
      'The install command ensures that the build commands have been run and then runs the subcommands install_lib, install_data and install_scripts.\n' +
      'install_data: This command installs all data files provided with the distribution.';
    // Python's 8.1 with its merged 8.1.1: "install_data: This command" is a pair, not a phrase.
    const focus = focusOf(body, ['installing', 'modules', 'install', 'command', 'family']);
    expect(focus).toBeGreaterThanOrEqual(0);
    expect(focus).toBeLessThan(body.indexOf('install_data: This'));
  });
});
