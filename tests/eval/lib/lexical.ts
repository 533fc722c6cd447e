/**
 * The lexical lane in memory: the extension's tokenizer and `bm25Search` over posting lists built
 * from the tokenized items (what the IndexedDB index holds, minus the storage).
 */
import { bm25Search, type Bm25Params, type CorpusStats, type LexicalHit, type PostingList, type QueryTerm } from '../../../src/bm25.js';
import { queryTerms, tokenize, type TokenizerOptions } from '../../../src/tokenizer.js';

export interface LexicalItem {
  /** The text the extension indexes for it (title + '\n' + chunk text). */
  text: string;
  /** Title and heading words, repeated `fieldBoost - 1` extra times when a field boost is tried. */
  fields: string;
}

export interface LexicalOptions {
  tokenizer: TokenizerOptions;
  /** BM25F-style boost by repetition: the field terms count this many times in tf and length. */
  fieldBoost: number;
}

const EMPTY: PostingList = { ids: new Uint32Array(0), tfs: new Uint32Array(0), lens: new Uint32Array(0) };

export class MemoryIndex {
  readonly stats: CorpusStats;
  private readonly postings = new Map<string, PostingList>();

  constructor(items: readonly LexicalItem[], readonly options: LexicalOptions) {
    const acc = new Map<string, { ids: number[]; tfs: number[]; lens: number[] }>();
    let totalLength = 0;
    items.forEach((item, id) => {
      const terms = tokenize(item.text, options.tokenizer);
      if (options.fieldBoost > 1) {
        const extra = tokenize(item.fields, options.tokenizer);
        for (let r = 1; r < options.fieldBoost; r++) terms.push(...extra);
      }
      totalLength += terms.length;
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let p = acc.get(t);
        if (!p) acc.set(t, (p = { ids: [], tfs: [], lens: [] }));
        p.ids.push(id);
        p.tfs.push(n);
        p.lens.push(terms.length);
      }
    });
    for (const [t, p] of acc) this.postings.set(t, { ids: Uint32Array.from(p.ids), tfs: Uint32Array.from(p.tfs), lens: Uint32Array.from(p.lens) });
    this.stats = { N: items.length, totalLength };
  }

  search(text: string, k: number, params: Bm25Params): LexicalHit[] {
    const query: QueryTerm[] = queryTerms(text, this.options.tokenizer).map((term) => ({ term, postings: this.postings.get(term) ?? EMPTY }));
    return bm25Search(query, this.stats, { k, params });
  }
}
