/**
 * The engines people would pick instead, each used the way its documentation shows, on the same texts.
 * Each keeps its own tokenizer and scoring; the notes say how they differ from Reread's.
 */
import MiniSearch from 'minisearch';
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import FlexSearch from 'flexsearch';
import type { Doc } from '../corpus.js';

export interface Peer {
  name: string;
  /** How its tokens and scores differ from Reread's (so agreement figures read right). */
  note: string;
  build(docs: readonly Doc[]): Promise<void>;
  /** Ids of the best k, best first. */
  search(q: string, k: number): number[] | Promise<number[]>;
}

export function miniSearch(): Peer {
  let ms: MiniSearch<{ id: number; text: string }> | null = null;
  return {
    name: 'MiniSearch 7.2',
    note: 'splits on spaces and punctuation (os.path.join -> os, path, join; no whole token, no camelCase parts); BM25+ (k=1.2, b=0.7, d=0.5); OR query; returns every match sorted',
    async build(docs) {
      ms = new MiniSearch({ fields: ['text'], idField: 'id' });
      ms.addAll(docs.map((d) => ({ id: d.id, text: d.text })));
    },
    search(q, k) {
      return ms!.search(q).slice(0, k).map((r) => r.id as number);
    },
  };
}

export function orama(): Peer {
  let db: AnyOrama | null = null;
  return {
    name: 'Orama 3.1',
    note: 'splits on non-alphanumerics (dotted and snake_case identifiers split, no whole token), diacritics folded; BM25 (k=1.2, b=0.75, d=0.5); threshold 1 (any term matches)',
    async build(docs) {
      db = create({ schema: { text: 'string' } as const });
      await insertMultiple(db, docs.map((d) => ({ id: String(d.id), text: d.text })), 1000);
    },
    async search(q, k) {
      const r = await oramaSearch(db!, { term: q, limit: k, threshold: 1 });
      return r.hits.map((h) => Number(h.id));
    },
  };
}

export function flexSearch(): Peer {
  let index: InstanceType<typeof FlexSearch.Index> | null = null;
  return {
    name: 'FlexSearch 0.8',
    note: 'default encoder (lower-case, strict whole-word tokens split on non-word characters); scores by term position ("resolution"), not BM25; suggest: true so a document need not hold every term',
    async build(docs) {
      index = new FlexSearch.Index({ tokenize: 'strict' });
      for (const d of docs) index.add(d.id, d.text);
    },
    search(q, k) {
      return (index!.search(q, { limit: k, suggest: true }) as number[]).slice(0, k);
    },
  };
}
