/**
 * Query words of scripts without spaces cut again against the index's terms (src/recut.ts), and what
 * search() makes of them: a remembered Japanese span cut mid-word finds its page.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { recutRun, UnspacedTerms } from '../../src/recut.js';
import { search } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';
import { TermDictionary } from '../../src/spelling.js';

const terms = (...ts: string[]) => {
  const d = new UnspacedTerms();
  for (const t of ts) d.add(t);
  return d;
};

describe('UnspacedTerms', () => {
  it('holds terms of scripts without spaces only, and not runs of text', () => {
    const d = terms('カーネル', 'kernel', '内核', 'パッケージ', 'あ'.repeat(25), 'ไทย');
    expect(d.has('カーネル')).toBe(true);
    expect(d.has('内核')).toBe(true);
    expect(d.has('ไทย')).toBe(true);
    expect(d.has('kernel')).toBe(false);
    expect(d.has('あ'.repeat(25))).toBe(false);
    expect(d.size).toBe(4);
  });

  it('finds the terms containing a fragment, fewest extra characters first, then by term', () => {
    const d = terms('パッケージ', 'パッケージ管理', 'ソースパッケージ', 'パッケ', 'ケージ', 'システム');
    expect(d.containing('パッケ', 10).map((c) => c.term)).toEqual(['パッケージ', 'パッケージ管理', 'ソースパッケージ']);
    expect(d.containing('パッケ', 10)[0]).toEqual({ term: 'パッケージ', extra: 2 });
    expect(d.containing('パッケ', 1)).toHaveLength(1);
    expect(d.containing('ネコ', 10)).toEqual([]);
    // A character no term holds: nothing, without reading any bucket.
    expect(d.containing('パッ猫', 10)).toEqual([]);
  });

  it('the typo dictionary keeps the unspaced terms beside the spellable ones', () => {
    const dict = new TermDictionary();
    for (const t of ['argparse', 'カーネル', '内核', '3.11']) dict.add(t);
    expect(dict.unspaced.has('カーネル')).toBe(true);
    expect(dict.unspaced.has('内核')).toBe(true);
    expect(dict.unspaced.has('argparse')).toBe(false);
    expect(dict.near('argprase', 1).map((c) => c.term)).toEqual(['argparse']);
  });
});

describe('recutRun', () => {
  it('takes the longest known term at each place and leaves fragments between', () => {
    const d = terms('カーネル', 'カー', 'パッケージ', 'システム');
    expect(recutRun('カーネルパッケ', d)).toEqual([
      { text: 'カーネル', known: true },
      { text: 'パッケ', known: false },
    ]);
    expect(recutRun('ティングシステム', d)).toEqual([
      { text: 'ティング', known: false },
      { text: 'システム', known: true },
    ]);
    expect(recutRun('ネコ', d)).toEqual([{ text: 'ネコ', known: false }]);
    expect(recutRun('', d)).toEqual([]);
  });

  it('never takes a single character as a term (particles join the fragment)', () => {
    const d = terms('は', 'の', 'ユーザ');
    expect(recutRun('はユーザの', d)).toEqual([
      { text: 'は', known: false },
      { text: 'ユーザ', known: true },
      { text: 'の', known: false },
    ]);
  });

  it('pieces always spell the run, known pieces are terms of 2+ characters, fragments never touch (any text)', () => {
    const vocab = ['カーネル', 'パッケージ', '内核', '软件包', '𠮷野', 'ab', 'システム'];
    const d = terms(...vocab);
    const piece = fc.oneof(fc.constantFrom(...vocab, 'の', 'は', '\ud800', '\udc00', '😀', '𠮷', 'a', ' ', '\u0000', 'ー'), fc.string({ unit: 'binary', maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const run = parts.join('');
        const out = recutRun(run, d);
        expect(out.map((p) => p.text).join('')).toBe(run);
        for (const p of out) {
          expect(p.text.length).toBeGreaterThan(0);
          if (p.known) {
            expect(d.has(p.text)).toBe(true);
            expect([...p.text].length).toBeGreaterThanOrEqual(2);
          }
        }
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.known || out[i]!.known).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts a huge run in linear time (at most 24 look-ups a character) without splitting surrogate pairs', () => {
    // 𠮷 (U+20BB7) is a Han character beyond the BMP: a surrogate pair.
    const d = terms('カーネル', '𠮷野');
    const run = 'カーネル𠮷野😀の𠮷'.repeat(20_000);
    const out = recutRun(run, d);
    expect(out.map((p) => p.text).join('')).toBe(run);
    expect(out.filter((p) => p.known)).toHaveLength(40_000);
    expect(out.every((p) => !/[\ud800-\udbff]$/.test(p.text))).toBe(true);
  });
});


describe('search: a remembered span of Japanese cut mid-word', () => {
  const pages = [
    { url: 'https://ja.test/kernel', title: 'カーネル', blocks: [h(1, 'カーネル', 'kernel'), p('新しいカーネルパッケージをインストールするには、次のコマンドを使います。古いカーネルは残ります。')] },
    { url: 'https://ja.test/news', title: 'お知らせ', blocks: [h(1, 'お知らせ', 'news'), p('新しいリリースが出ました。新しい機能と新しい翻訳があります。新しい文書もあります。')] },
    { url: 'https://ja.test/install', title: 'インストール', blocks: [h(1, 'インストール', 'install'), p('どのパッケージをインストールするかはユーザが選択します。システムの設定も選べます。')] },
    { url: 'https://ja.test/users', title: 'ユーザ', blocks: [h(1, 'ユーザ', 'users'), p('ユーザが選ぶかは自由です。ユーザが使うかは場合によります。ユーザがいます。')] },
  ];

  it('a katakana run cut at its end: the known part and the completed fragment find the page', async () => {
    const res = await search(source(pages), { q: '新しいカーネルパッケ' });
    expect(res.results[0]!.url).toBe('https://ja.test/kernel');
    expect(res.corrected).toEqual({ query: '新しいカーネルパッケージ', original: '新しいカーネルパッケ' });
    expect(res.results[0]!.whyMatched).toEqual(['新しい', 'カーネル', 'パッケージ']);
  });

  it('lists what the query is about under "matched", not its particles and endings', async () => {
    const res = await search(source(pages), { q: 'どのパッケージをインストールするかはユーザが選択します' });
    expect(res.results[0]!.url).toBe('https://ja.test/install');
    const why = res.results[0]!.whyMatched;
    expect(why).toEqual(expect.arrayContaining(['パッケージ', 'インストール', 'ユーザ']));
    for (const particle of ['を', 'が', 'する', 'かは', 'ます']) expect(why).not.toContain(particle);
    // A query of particles alone still says what matched.
    const only = await search(source(pages), { q: 'ユーザがいます', exact: true });
    expect(only.results.find((r) => r.url === 'https://ja.test/users')?.whyMatched.length).toBeGreaterThan(0);
  });

  it('a word cut at its start (「トール」 of 「インストール」)', async () => {
    const res = await search(source(pages), { q: 'トールするかはユーザが選' });
    expect(res.results[0]!.url).toBe('https://ja.test/install');
    expect(res.corrected?.query).toBe('インストールするかはユーザが選');
  });

  it('"search instead for" (exact) searches the words as typed: no re-cut', async () => {
    const res = await search(source(pages), { q: '新しいカーネルパッケ', exact: true });
    expect(res.corrected).toBeUndefined();
    expect(res.results[0]?.whyMatched ?? []).not.toContain('パッケージ');
  });

  it('without the re-cut the cut words find nothing and another page comes first (the test would catch it off)', async () => {
    const res = await search(source(pages), { q: '新しいカーネルパッケ' }, { lexical: { recut: false } });
    expect(res.results[0]?.url).not.toBe('https://ja.test/kernel');
    expect(res.corrected).toBeUndefined();
  });

  it('a run one index term holds whole stands for that term, not for the pieces it cuts into', async () => {
    // Firefox's segmenter keeps a span cut at both ends as one unknown word (「ァイルシステムツリー」) and
    // keeps the page's compound whole; the run was cut into a known term inside it and fragments that
    // stood for shorter terms elsewhere (ァイル → ファイル), none of them the section's. Node's segmenter
    // does the same with 「ルチプロセッシン」 of 「マルチプロセッシング」: cut, it is マルチ + プロ + プロセッシング.
    const more = [
      { url: 'https://ja.test/multi', title: '並列処理', blocks: [h(1, '並列処理', 'parallel'), p('マルチプロセッシングで処理を分けると速くなります。')] },
      { url: 'https://ja.test/pro', title: '違い', blocks: [h(1, '違い', 'diff'), p('マルチとプロの違いを説明します。マルチとプロは別です。')] },
      { url: 'https://ja.test/proc', title: '速さ', blocks: [h(1, '速さ', 'speed'), p('プロセッシングを速くする方法です。プロセッシングは大事です。')] },
    ];
    const res = await search(source([...pages, ...more]), { q: 'ルチプロセッシン' });
    expect(res.results[0]?.url).toBe('https://ja.test/multi');
    expect(res.corrected?.query).toBe('マルチプロセッシング');
  });

  it('a word at the edge that the cut left whole by chance joins the run (「ログ」 of 「プログラム」)', async () => {
    // 「ログラムから使用でき」 is cut ログ|ラム|から|使用|でき: ログ (log) is a word of its own, so only ラム was
    // re-cut, to the nearest term holding it (コラム); the section holds プログラム, read as neither.
    const more = [
      { url: 'https://ja.test/vars', title: '変数', blocks: [h(1, '変数', 'vars'), p('すべてのプログラムから使用できる変数があります。')] },
      { url: 'https://ja.test/logs', title: 'ログ', blocks: [h(1, 'ログ', 'logs'), p('ログから使用できる情報です。ログを使用できます。')] },
      { url: 'https://ja.test/column', title: 'コラム', blocks: [h(1, 'コラム', 'column'), p('このコラムは使用できる表の列です。')] },
    ];
    const res = await search(source([...pages, ...more]), { q: 'ログラムから使用でき' });
    expect(res.results[0]?.url).toBe('https://ja.test/vars');
    expect(res.corrected?.query).toBe('プログラムから使用でき');
    // A known edge word that no term holds together with the run stays a word (「新しい」 of 新しいカーネルパッケ).
    expect((await search(source([...pages, ...more]), { q: '新しいカーネルパッケ' })).corrected?.query).toBe('新しいカーネルパッケージ');
  });

  it('mixed scripts: a Latin word beside the cut run', async () => {
    const src = source([...pages, { url: 'https://ja.test/debian', title: 'Debian', blocks: [h(1, 'Debian'), p('Debianのカーネルパッケージは毎週更新されます。')] }]);
    const res = await search(src, { q: 'Debian カーネルパッケ' });
    expect(res.results[0]!.url).toBe('https://ja.test/debian');
  });

  it('costs nothing when every word is known: the term list is not asked for', async () => {
    const src = source(pages);
    const spy = vi.spyOn(src, 'unspacedTerms');
    await search(src, { q: '新しいカーネル' });
    await search(src, { q: 'kernel package' });
    expect(spy).not.toHaveBeenCalled();
    await search(src, { q: 'カーネルパッケ' });
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('looks up at most 16 fragments of a query (a hostile one of many unknown words reads few lists)', async () => {
    const src = source(pages);
    const spy = vi.spyOn(UnspacedTerms.prototype, 'containing');
    // 200 unknown words, each a fragment of カーネル: every one would be looked up.
    const q = Array.from({ length: 200 }, () => 'ネル').join(' ');
    const res = await search(src, { q });
    expect(res.results[0]?.url).toBe('https://ja.test/kernel');
    expect(spy).toHaveBeenCalledTimes(16);
    spy.mockRestore();
  });

  it('garbage and hostile queries in unspaced scripts end gracefully', async () => {
    const src = source(pages);
    for (const q of ['猫猫猫猫猫猫猫猫', 'ー'.repeat(5000), '\ud800カーネ\udc00ル', 'の'.repeat(2000), '😀カーネル😀パッケ']) {
      const res = await search(src, { q });
      expect(Array.isArray(res.results)).toBe(true);
    }
  });
});
