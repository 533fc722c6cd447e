/**
 * Every query of a corpus through the product's lexical lane over the memory index (lib/memorySource.ts),
 * as `npm run eval` runs it, returning what each search shows. Free of Node's modules where it runs, so
 * that `eval:firefox` (tests/eval/firefox.ts) can run this very code in Firefox: the index is then built
 * and searched with Firefox's Intl.Segmenter, collator and regular expressions.
 */
import { search } from '../../../src/search.js';
import { MemoryIndex, memorySource } from './memorySource.js';
import type { CapturedPage } from './capture.js';

export interface Shown0 {
  url: string;
  href: string;
}

export interface SearchedAll {
  shown: Shown0[][];
  /** Building the index (tokenising every section), ms. */
  indexMs: number;
  /** Each search, ms (in query order). */
  searchMs: number[];
}

export async function searchAll(pages: readonly Pick<CapturedPage, 'url' | 'lang' | 'stored'>[], queries: readonly string[], now: number, limit: number): Promise<SearchedAll> {
  const t0 = performance.now();
  const idx = new MemoryIndex(pages as CapturedPage[]);
  const indexMs = performance.now() - t0;
  const src = memorySource(idx, null, { lane: 'lexical' });
  const shown: Shown0[][] = [];
  const searchMs: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const res = await search(src, { q, limit }, { now });
    searchMs.push(performance.now() - t);
    shown.push(res.results.map((r) => ({ url: r.url, href: r.href })));
  }
  return { shown, indexMs, searchMs };
}
