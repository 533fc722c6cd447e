/**
 * Reread's lexical core without IndexedDB: the same write algorithm as background/pageStore.ts
 * (a page's postings grouped by term and appended to each term's last block with src/postings.ts
 * appendToBlock), blocks kept in a Map standing in for the `postings` store, read back with
 * decodeBlocks into PostingList typed arrays, cached as background/lexicalIndex.ts caches them, then
 * scored by src/bm25.ts bm25Search.
 */
import { bm25Search, type CorpusStats, type LexicalHit, type PostingList } from '../../../src/bm25.js';
import { appendToBlock, BLOCK_SIZE, decodeBlocks, emptyList, encodeBlock, type EncodedBlock, type PostingEntry } from '../../../src/postings.js';
import type { IndexedSection } from '../../../src/indexing.js';
import type { SearchSource, PageView, SectionView } from '../../../src/search.js';
import { DEFAULT_SETTINGS } from '../../../src/settings.js';
import { groupPostings } from '../../../background/pageStore.js';

/** Sections as pageStore groups them: id, tf codes and length. */
const asPostings = (docs: readonly { id: number; doc: IndexedSection }[]) => docs.map((d) => ({ id: d.id, ...d.doc }));

const EMPTY = emptyList(0);

export type AppendFn = (last: EncodedBlock | undefined, entries: readonly PostingEntry[]) => EncodedBlock[];

export class RereadCore {
  /** term -> its blocks in key order (the `postings` store's [term, first] keys). */
  readonly blocks = new Map<string, EncodedBlock[]>();
  readonly stats: CorpusStats = { N: 0, totalLength: 0 };
  private readonly cache = new Map<string, PostingList>();
  /** Section lengths by id: the norms, which the decoder fills BM25's lengths from (as the page table does). */
  private readonly lens: number[] = [];
  private readonly lenOf = (id: number): number => this.lens[id] ?? 0;


  /** One page's chunks, as pageStore.writePage groups and appends them. */
  addPage(docs: readonly { id: number; doc: IndexedSection }[]): void {
    const byTerm = groupPostings(asPostings(docs));
    for (const d of docs) {
      this.stats.N += 1;
      this.stats.totalLength += d.doc.len;
      this.lens[d.id] = d.doc.len;
    }
    for (const [term, entries] of byTerm) {
      let list = this.blocks.get(term);
      if (!list) this.blocks.set(term, (list = []));
      const lastBlock = list[list.length - 1];
      const last = lastBlock && lastBlock.n < BLOCK_SIZE ? lastBlock : undefined;
      const out = appendToBlock(last, entries);
      if (last) list.pop(); // rewritten under the same key
      for (const b of out) list.push(b);
      this.cache.delete(term);
    }
  }

  /**
   * The blocks that writing these sections (ids ascending) page by page would leave, built in one go:
   * appending fills a term's last block to BLOCK_SIZE before starting the next, keyed by its first id,
   * so the blocks are the term's posting list cut every BLOCK_SIZE entries (checked against
   * page-by-page writes in the benchmark).
   */
  bulkFrom(docs: readonly { id: number; doc: IndexedSection }[]): void {
    const open = new Map<string, PostingEntry[]>();
    const flush = (term: string, entries: PostingEntry[]) => {
      let list = this.blocks.get(term);
      if (!list) this.blocks.set(term, (list = []));
      list.push(encodeBlock(entries));
    };
    for (const { id, doc } of docs) {
      this.stats.N++;
      this.stats.totalLength += doc.len;
      this.lens[id] = doc.len;
      for (const [term, tf] of doc.tfs) {
        let entries = open.get(term);
        if (!entries) open.set(term, (entries = []));
        entries.push({ id, tf, len: doc.len });
        if (entries.length === BLOCK_SIZE) {
          flush(term, entries);
          open.delete(term);
        }
      }
    }
    for (const [term, entries] of open) flush(term, entries); // each term's last, partial block
    this.cache.clear();
  }

  /**
   * Writes one page with two append functions from the same state, timing each; keeps the first's
   * blocks. Returns both times (grouping included in each) and whether their blocks were identical.
   */
  addPageCompare(docs: readonly { id: number; doc: IndexedSection }[], a: AppendFn, b: AppendFn): { msA: number; msB: number; identical: boolean } {
    const t0 = performance.now();
    const byTerm = this.group(docs);
    const tg = performance.now() - t0;
    const lasts: (EncodedBlock | undefined)[] = [];
    for (const term of byTerm.keys()) {
      const list = this.blocks.get(term);
      const lastBlock = list?.[list.length - 1];
      lasts.push(lastBlock && lastBlock.n < BLOCK_SIZE ? lastBlock : undefined);
    }
    const run = (f: AppendFn) => {
      const t = performance.now();
      const outs: EncodedBlock[][] = [];
      let i = 0;
      for (const entries of byTerm.values()) outs.push(f(lasts[i++], entries));
      return { ms: performance.now() - t, outs };
    };
    const ra = run(a);
    const rb = run(b);
    let identical = ra.outs.length === rb.outs.length;
    for (let i = 0; identical && i < ra.outs.length; i++) {
      const x = ra.outs[i]!;
      const y = rb.outs[i]!;
      if (x.length !== y.length) identical = false;
      for (let j = 0; identical && j < x.length; j++) {
        if (x[j]!.first !== y[j]!.first || x[j]!.n !== y[j]!.n || x[j]!.data.length !== y[j]!.data.length || x[j]!.data.some((v, k) => v !== y[j]!.data[k])) identical = false;
      }
    }
    let i = 0;
    for (const term of byTerm.keys()) {
      let list = this.blocks.get(term);
      if (!list) this.blocks.set(term, (list = []));
      if (lasts[i]) list.pop();
      for (const blk of ra.outs[i++]!) list.push(blk);
      this.cache.delete(term);
    }
    for (const d of docs) {
      this.stats.N += 1;
      this.stats.totalLength += d.doc.len;
      this.lens[d.id] = d.doc.len;
    }
    return { msA: tg + ra.ms, msB: tg + rb.ms, identical };
  }

  /** The product's own grouping (background/pageStore.ts), so the bench cannot drift from it. */
  private group(docs: readonly { id: number; doc: IndexedSection }[]): Map<string, PostingEntry[]> {
    return groupPostings(asPostings(docs));
  }

  /** Bytes of encoded posting data (what the `postings` store holds, keys and record overhead aside). */
  encodedBytes(): { bytes: number; blocks: number; entries: number } {
    let bytes = 0;
    let blocks = 0;
    let entries = 0;
    for (const list of this.blocks.values()) {
      for (const b of list) {
        bytes += b.data.byteLength;
        blocks++;
        entries += b.n;
      }
    }
    return { bytes, blocks, entries };
  }

  /** A term's posting list: from the cache (warm) or decoded from its blocks (as after a restart). */
  postings(term: string, useCache = true): PostingList {
    if (useCache) {
      const hit = this.cache.get(term);
      if (hit) return hit;
    }
    const blocks = this.blocks.get(term);
    const list = blocks ? decodeBlocks(blocks, this.lenOf) : EMPTY;
    if (useCache) this.cache.set(term, list);
    return list;
  }

  /** A SearchSource over these blocks (cached postings) and the documents' texts in memory. */
  source(docs: readonly { id: number; page: number; title: string; chunkText: string; headingPath: string[] }[]): SearchSource {
    const byId = new Map(docs.map((d) => [d.id, d]));
    const pages = new Map<string, PageView>();
    for (const d of docs) {
      const url = `https://bench.test/${d.page}`;
      const p = pages.get(url);
      if (p) (p.chunkIds as number[]).push(d.id);
      else pages.set(url, { url, site: 'bench.test', title: d.title, lastVisit: 0, visitCount: 1, chunkIds: [d.id] });
    }
    return {
      settings: { ...DEFAULT_SETTINGS, denseEnabled: false },
      pages: async () => pages,
      allowedChunks: async () => null,
      corpusStats: async () => this.stats,
      postings: async (terms) => new Map(terms.map((t) => [t, this.postings(t)])),
      sections: async (ids) =>
        ids.flatMap((id): SectionView[] => {
          const d = byId.get(id);
          return d ? [{ id, url: `https://bench.test/${d.page}`, headingPath: d.headingPath, section: d.headingPath[d.headingPath.length - 1] ?? '', anchor: {}, text: d.chunkText }] : [];
        }),
      dense: null,
    };
  }

  dropCache(): void {
    this.cache.clear();
  }

  search(terms: readonly string[], k: number, useCache = true): LexicalHit[] {
    return bm25Search(
      terms.map((term) => ({ term, postings: this.postings(term, useCache) })),
      this.stats,
      { k },
    );
  }
}
