/**
 * Proximity's fast scan (`QueryMatcher.locate`: probes searched for in the text, words checked only
 * where a term may start) must rank exactly as the full scan (`scan`: every word tokenized). The lexical
 * lane runs over random sections mixing ASCII, accented and other-script words, compounds and
 * punctuation, once as shipped and once with `locate` replaced by `scan`: the same hits, in the same
 * order, with the same scores.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryMatcher } from '../../src/matcher.js';
import { MemorySource } from '../../src/memorySource.js';
import { lexicalSearch } from '../../src/search.js';

const VOCAB = [
  'the', 'a', 'of', 'in', 'how', 'do', 'path', 'paths', 'os.path.join', 'join', 'joined', 'at', 'most', 'post', 'posts', 'server',
  'HTTPServer', 'getElementById', 'element', 'elements', 'ERR_5041', 'err', 'query', 'queries', 'parse', 'parsing', 'file', 'ﬁle',
  'naïve', 'naive', 'café', 'Straße', 'strasse', 'ΟΔΟΣ', 'οδός', 'Ünïcode', 'unicode', 'under_score', 'score', 'scores', 'x-y', 'a::b',
  'reactor', 'cools', 'turbine', 'blades', 'slowly', 'config', 'core.autocrlf', 'autocrlf', 'git-read-tree', 'git-ls-tree', 'tree', 'read',
  'Zugriff', 'über', 'où', 'été', '—', '“quoted”', '…', '¶', '(', ')', ',', '.', ';', 'os', 'is', 'it',
];

/** Japanese and Chinese words (joined without spaces, mostly), with Latin words and punctuation among them. */
const CJK_VOCAB = [
  'パーティション', 'を', '分割', 'する', 'には', 'ディスク', 'の', '全体', 'インストール', 'システム', 'と', 'は', 'で', 'カーネル', '新しい',
  'パッケージ', '管理', '設定', 'ファイル', '編集', 'して', 'ください', '软件包', '管理', '系统', '安装', '我们', '公园', '、', '。', '（', '）', '，',
  'Debian', 'apt', 'GRUB', ' ', '\n',
];
const isCjk = (w: string) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(w);

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function corpus(seed: number, vocab = VOCAB): { src: MemorySource; queries: string[] } {
  const r = rng(seed);
  const pick = () => vocab[Math.floor(r() * vocab.length)]!;
  // Words of unspaced scripts are mostly written side by side, as such text is.
  const words = (n: number) => Array.from({ length: n }, pick).reduce((text, w, i) => (i === 0 ? w : text + (isCjk(w) && r() < 0.8 ? '' : ' ') + w), '');
  const src = new MemorySource();
  for (let p = 0; p < 40; p++) {
    const title = words(1 + Math.floor(r() * 4));
    const chunks = Array.from({ length: 1 + Math.floor(r() * 4) }, () => {
      const heading = words(1 + Math.floor(r() * 3));
      return { headingPath: [title, heading], section: heading, anchor: {}, text: `${title} > ${heading}\n${words(20 + Math.floor(r() * 200))}` };
    });
    src.addPage({ url: `https://r.test/${seed}/${p}`, title, chunks: chunks.map((c, i) => ({ ...c, anchor: { id: `s${i}` } })) });
  }
  const queries = Array.from({ length: 60 }, () => words(2 + Math.floor(r() * 4)));
  return { src, queries };
}

describe('proximity: the fast scan ranks as the full scan', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives the same hits, order and scores on random mixed-script sections', async () => {
    let compared = 0;
    let moved = 0;
    for (const seed of [1, 2, 3]) {
      const { src, queries } = corpus(seed);
      const fast: string[] = [];
      for (const q of queries) fast.push(JSON.stringify((await lexicalSearch(src, q, 90)).map((h) => [h.id, h.score.toFixed(9)])));
      const spy = vi.spyOn(QueryMatcher.prototype, 'locate').mockImplementation(function (this: QueryMatcher, text: string) {
        return this.scan(text);
      });
      const full: string[] = [];
      for (const q of queries) full.push(JSON.stringify((await lexicalSearch(src, q, 90)).map((h) => [h.id, h.score.toFixed(9)])));
      expect(spy).toHaveBeenCalled();
      spy.mockRestore();
      // Proximity did something: without it, some rankings differ (the comparison is not vacuous).
      for (let i = 0; i < queries.length; i++) {
        const plain = JSON.stringify((await lexicalSearch(src, queries[i]!, 90, { lexical: { proximity: { ordered: 0.5, unordered: 0, window: 8, sequenceMinWords: 3, heading: 1, candidates: 0 } } })).map((h) => [h.id, h.score.toFixed(9)]));
        if (plain !== full[i]) moved++;
      }
      expect(fast).toEqual(full);
      compared += queries.length;
    }
    expect(compared).toBe(180);
    expect(moved).toBeGreaterThan(60);
  }, 60_000);

  it('gives the same hits, order and scores on random Japanese and Chinese sections', async () => {
    let moved = 0;
    for (const seed of [4, 5, 6]) {
      const { src, queries } = corpus(seed, CJK_VOCAB);
      const run = async (q: string, candidates = 30) => JSON.stringify((await lexicalSearch(src, q, 90, { lexical: { proximity: { ordered: 0.5, unordered: 0, window: 8, sequenceMinWords: 3, heading: 1, candidates } } })).map((h) => [h.id, h.score.toFixed(9)]));
      const fast: string[] = [];
      for (const q of queries) fast.push(await run(q));
      const spy = vi.spyOn(QueryMatcher.prototype, 'locate').mockImplementation(function (this: QueryMatcher, text: string) {
        return this.scan(text);
      });
      const full: string[] = [];
      for (const q of queries) full.push(await run(q));
      expect(spy).toHaveBeenCalled();
      spy.mockRestore();
      for (let i = 0; i < queries.length; i++) if ((await run(queries[i]!, 0)) !== full[i]) moved++;
      expect(fast).toEqual(full);
    }
    expect(moved).toBeGreaterThan(60);
  }, 60_000);
});
