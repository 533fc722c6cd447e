/**
 * A Japanese question is mostly particles and endings (で, が, ば, です, か). They retrieve like any word
 * (a remembered span needs them), but in the BM25F score they weigh `kanaWeight` (0.5) of a content
 * word when the query has content words: a section dense in particles must not outrank the one that
 * holds the question's rarer content word.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { search } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';

const QUESTION = 'パッケージ作りで分からないことがあるとき、どこで質問すればいいですか';
// The answer holds パッケージ, 分 and 質問; the decoy holds パッケージ and more of the question's particles and endings.
const pages = [
  { url: 'https://ja.test/help', title: '相談', blocks: [h(1, '相談するには', 'helpme'), p('パッケージについて分からない点は、メーリングリストで質問してください。')] },
  {
    url: 'https://ja.test/update',
    title: '更新',
    blocks: [h(1, '更新', 'update'), p('パッケージの更新ですが、変更があるときは、確認すればいいです。')],
  },
  // Every third page is written in sentences with the particles; the others in notes without them.
  ...Array.from({ length: 12 }, (_, i) => ({
    url: `https://ja.test/filler${i}`,
    title: `章${i}`,
    blocks: [h(1, `章${i}`, `c${i}`), p(i % 3 === 0 ? `これは${i}番目の章です。パッケージを作るときは、ここで確認すればいいですか。` : `${i}番目の章。パッケージの作成について。`)],
  })),
];

describe('kanaWeight: particles weigh less than content words in a Japanese question', () => {
  it('the section with the question\'s content word ranks first, and does not with particles at full weight', async () => {
    const on = await search(source(pages), { q: QUESTION });
    expect(on.results[0]!.url).toBe('https://ja.test/help');
    const off = await search(source(pages), { q: QUESTION }, { lexical: { kanaWeight: 1 } });
    expect(off.results[0]!.url).toBe('https://ja.test/update');
  });

  it('a query of particles only keeps them at full weight (same hits and scores)', async () => {
    const a = await search(source(pages), { q: 'ですか' });
    const b = await search(source(pages), { q: 'ですか' }, { lexical: { kanaWeight: 1 } });
    expect(a.results.map((r) => [r.url, r.score])).toEqual(b.results.map((r) => [r.url, r.score]));
  });

  it('queries without kana are unaffected (random Latin and Han queries)', async () => {
    const WORDS = ['パッケージ', '質問', '更新', '相談', 'debian', 'package', '章', '作成'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }), async (ws) => {
        const q = ws.join(' ');
        const a = await search(source(pages), { q });
        const b = await search(source(pages), { q }, { lexical: { kanaWeight: 1 } });
        expect(a.results.map((r) => [r.url, r.score])).toEqual(b.results.map((r) => [r.url, r.score]));
      }),
      { numRuns: 25 },
    );
  }, 30_000);
});

describe('kanaAlone: a Japanese question whose other words no section holds', () => {
  const OFF_TOPIC = '明日の大阪の天気はどうですか';
  it('is answered by nothing, not by its particles and endings (and was, with kanaAlone on)', async () => {
    const off = await search(source(pages), { q: OFF_TOPIC });
    expect(off.results).toEqual([]);
    const on = await search(source(pages), { q: OFF_TOPIC }, { lexical: { kanaAlone: true } });
    expect(on.results.length).toBeGreaterThan(0);
  });

  it('is answered when one of its other words is in a section, and a query of particles only still is', async () => {
    expect((await search(source(pages), { q: '明日のパッケージの天気はどうですか' })).results.length).toBeGreaterThan(0);
    expect((await search(source(pages), { q: 'ですか' })).results.length).toBeGreaterThan(0);
  });
});

describe('kanaAlone: a section that holds only the particles and endings of a question', () => {
  // 天気 is in no page, 相談 in one (help); the filler pages hold the question's particles and endings (の, は, です, か).
  const Q = '明日の天気は相談できますか';
  it('is no result once another section holds one of its other words (and was, with kanaAlone on)', async () => {
    const res = await search(source(pages), { q: Q });
    expect(res.results.map((r) => r.url)).toEqual(['https://ja.test/help']);
    expect(res.results[0]!.whyMatched).toContain('相談');
    const on = await search(source(pages), { q: Q }, { lexical: { kanaAlone: true } });
    expect(on.results.length).toBeGreaterThan(1);
    expect(on.results.some((r) => r.whyMatched.every((w) => /^\p{Script=Hiragana}{1,2}$/u.test(w)))).toBe(true);
  });

  it('a query of particles only is still answered by them', async () => {
    expect((await search(source(pages), { q: 'ですか' })).results.length).toBeGreaterThan(1);
  });
});

describe('Chinese function words are treated as Japanese particles are', () => {
  const zh = [
    { url: 'https://zh.test/upgrade', title: '升级', blocks: [h(1, '自动升级', 'upgrade'), p('可以使用 unattended-upgrades 软件包让系统自动升级。这是什么时候的事？')] },
    { url: 'https://zh.test/donate', title: '捐赠', blocks: [h(1, '支持组织', 'donate'), p('你可以通过这些组织向项目捐款。')] },
    ...Array.from({ length: 8 }, (_, i) => ({ url: `https://zh.test/p${i}`, title: `章${i}`, blocks: [h(1, `章${i}`, `c${i}`), p(`这是第${i}章的内容，说明了软件包的安装。`)] })),
  ];
  it('a question whose other words are in no section is answered by nothing (的, 怎么, 样 matched)', async () => {
    expect((await search(source(zh), { q: '北京明天的天气怎么样' })).results).toEqual([]);
    expect((await search(source(zh), { q: '北京明天的天气怎么样' }, { lexical: { kanaAlone: true } })).results.length).toBeGreaterThan(0);
  });
  it('a section holding only a question\'s function words is no result', async () => {
    // 项目 and 捐款 are in one page (donate); 的 and 是 in every other.
    const q = '项目的捐款是什么';
    const res = await search(source(zh), { q });
    expect(res.results[0]!.url).toBe('https://zh.test/donate');
    expect(res.results.map((r) => r.url)).not.toContain('https://zh.test/p0');
    const on = await search(source(zh), { q }, { lexical: { kanaAlone: true } });
    expect(on.results.find((r) => r.url === 'https://zh.test/p0')?.whyMatched.sort()).toEqual(['是', '的']);
  });
  it('"matched" lists the question\'s content words, not its function words', async () => {
    const res = await search(source(zh), { q: '可以通过哪些组织捐款' });
    expect(res.results[0]!.url).toBe('https://zh.test/donate');
    expect(res.results[0]!.whyMatched).not.toContain('可以');
    expect(res.results[0]!.whyMatched).toContain('组织');
  });
});
