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

export async function searchAll(pages: readonly Pick<CapturedPage, 'url' | 'lang' | 'stored'>[], queries: readonly string[], now: number, limit: number): Promise<Shown0[][]> {
  const idx = new MemoryIndex(pages as CapturedPage[]);
  const src = memorySource(idx, null, { lane: 'lexical' });
  const out: Shown0[][] = [];
  for (const q of queries) {
    const res = await search(src, { q, limit }, { now });
    out.push(res.results.map((r) => ({ url: r.url, href: r.href })));
  }
  return out;
}
