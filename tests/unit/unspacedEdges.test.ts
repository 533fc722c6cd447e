/**
 * A remembered span of a script without spaces cuts page words at its edges (「れでパッケージをビル」 of
 * 「これでパッケージをビルドする」): the segmenter cuts the query differently from the page, so the
 * word-by-word exact sequence fails. With `unspacedEdges` a section holding the query's characters
 * verbatim counts as holding the sequence, and a Latin piece glued to the span's edge (`nges` of
 * `.changesファイル`) does not count against the coverage. Queries without such words are unaffected.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/memorySource.js';
import { lexicalSearch, search, verbatimSpan } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';

const pages = [
  { url: 'https://ja.test/build', title: 'ビルド', blocks: [h(1, 'ビルド', 'build'), p('これでパッケージをビルドする準備ができました。')] },
  { url: 'https://ja.test/other', title: '作業', blocks: [h(1, '作業', 'work'), p('パッケージをビルする。パッケージでビル。ビルでパッケージを作る。パッケージをビルへ。')] },
  { url: 'https://ja.test/changes', title: 'アップロード', blocks: [h(1, 'アップロード', 'upload'), p('dpkg-genchanges は .changes ファイルの生成を行います。')] },
  { url: 'https://ja.test/files', title: 'ファイル', blocks: [h(1, 'ファイル', 'files'), p('ファイルの一覧です。ファイルの名前。ファイルのファイル。')] },
];

describe('verbatimSpan', () => {
  it('folds, lower-cases and drops spaces and punctuation', () => {
    expect(verbatimSpan('.changes ファイルの生成')).toBe('changesファイルの生成');
    expect(verbatimSpan('Ｄｅｂｉａｎ パッケージ、作成')).toBe('debianパッケージ作成');
    expect(verbatimSpan('これで\nパッケージを')).toBe('これでパッケージを');
  });
});

describe('search: a Japanese span whose edges cut words', () => {
  it('the section holding the characters verbatim ranks first (「れ」 is the end of 「これ」, 「ビル」 the start of 「ビルド」)', async () => {
    const on = await search(source(pages), { q: 'れでパッケージをビル' });
    expect(on.results[0]!.url).toBe('https://ja.test/build');
    const off = await search(source(pages), { q: 'れでパッケージをビル' }, { lexical: { unspacedEdges: false } });
    expect(off.results[0]!.url).not.toBe('https://ja.test/build');
  });

  it('a Latin piece glued to the span (`nges` of `.changes`) does not count against the coverage', async () => {
    const on = await search(source(pages), { q: 'ngesファイルの生' });
    expect(on.results[0]!.url).toBe('https://ja.test/changes');
    const off = await search(source(pages), { q: 'ngesファイルの生' }, { lexical: { unspacedEdges: false } });
    expect(off.results[0]?.url).not.toBe('https://ja.test/changes');
  });

  it('a Latin word typed apart from the span is not an edge piece', async () => {
    // `zzq` stands alone (a space): an unknown word that counts against the coverage as before.
    const a = await search(source(pages), { q: 'zzq ファイルの生' });
    const b = await search(source(pages), { q: 'zzq ファイルの生' }, { lexical: { unspacedEdges: false } });
    expect(a.results.map((r) => r.url)).toEqual(b.results.map((r) => r.url));
  });
});

describe('search: the section holding the span verbatim, beyond proximity\'s candidates', () => {
  // Forty sections repeat the span's words (particles and the cut fragments) more densely than the one
  // that holds the span: BM25F ranks them all above it, so it is not among the 30 candidates.
  const decoys = Array.from({ length: 40 }, (_, i) => ({
    url: `https://ja.test/decoy${i}`,
    title: `作業${i}`,
    blocks: [h(1, `作業${i}`, `work${i}`), p('パッケージをビル。ビルでパッケージ。パッケージをビルへ。ビルをパッケージで。れでビル。')],
  }));
  const target = { url: 'https://ja.test/build', title: 'ビルド', blocks: [h(1, 'ビルド', 'build'), p('準備の章です。長い説明が続きます。' + '説明の文章です。'.repeat(30) + 'これでパッケージをビルドする準備ができました。')] };
  it('is read and ranks first with verbatimReach, and is not without it', async () => {
    const src = source([...decoys, target]);
    const on = await search(src, { q: 'れでパッケージをビル' });
    expect(on.results[0]!.url).toBe(target.url);
    const off = await search(src, { q: 'れでパッケージをビル' }, { lexical: { verbatimReach: 0 } });
    expect(off.results[0]!.url).not.toBe(target.url);
  });
});

describe('queries without words of scripts without spaces are unaffected', () => {
  const LATIN = ['the', 'of', 'package', 'packages', 'build', 'changes', 'file', 'files', 'debian', 'rules', 'control', 'nges', 'upload', 'source', 'café', 'über'];
  const CJK = ['パッケージ', 'ビルド', 'ファイル', 'の', 'を', 'これ', '生成', '软件包'];
  it('same hits, order and scores with and without unspacedEdges (random mixed-script sections, Latin queries)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...LATIN, ...CJK), { minLength: 5, maxLength: 60 }), { minLength: 2, maxLength: 12 }),
        fc.array(fc.array(fc.constantFrom(...LATIN), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (texts, queries, glue) => {
          const src = new MemorySource();
          texts.forEach((t, i) => {
            const text = t.join(glue ? '' : ' ');
            src.addPage({ url: `https://r.test/${i}`, title: t[0]!, chunks: [{ headingPath: [t[0]!], section: t[0]!, anchor: {}, text }] });
          });
          for (const words of queries) {
            const q = words.join(' ');
            const on = (await lexicalSearch(src, q, 30)).map((x) => [x.id, x.score]);
            const off = (await lexicalSearch(src, q, 30, { lexical: { unspacedEdges: false } })).map((x) => [x.id, x.score]);
            expect(on).toEqual(off);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
