/**
 * The extension's index in memory, built by the product's own code, and a `SearchSource` over it so
 * that `search()` (src/search.ts) runs exactly as in the worker:
 * - terms per section: `indexedTerms` (src/indexing.ts: tokenizer options, field weighting);
 * - postings: `groupPostings` (background/pageStore.ts), appended into blocks by `appendToBlock` and read
 *   back by `decodeBlocks` (src/postings.ts) with each section's length from the norms, as the worker's
 *   posting store, merges and reader do;
 * - filters: the worker's `PageTable` (background/pageTable.ts) over the same page records;
 * - dense lane: `indexedText` embedded by the bundled model (lib/dense.ts), int8 vectors in the product's
 *   `DenseIndex`, searched with `searchAsync`, with the model's calibration from src/models.ts.
 * Nothing here decides what is indexed or how it is ranked.
 */
import type { CorpusStats, PostingList } from '../../../src/bm25.js';
import type { DenseCalibration } from '../../../src/hybrid.js';
import { indexedText, indexSection, TOKENIZER } from '../../../src/indexing.js';
import { lexiconOf, TermDictionary } from '../../../src/spelling.js';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths.js';
import { modelInfo } from '../../../src/models.js';
import { appendToBlock, BLOCK_SIZE, decodeBlocks, type EncodedBlock } from '../../../src/postings.js';
import type { SearchSource, SectionView } from '../../../src/search.js';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/settings.js';
import { siteOf } from '../../../src/url.js';
import { groupPostings } from '../../../background/pageStore.js';
import { PageTable } from '../../../background/pageTable.js';
import type { DB, PageRecord } from '../../../background/db.js';
import type { CapturedPage } from './capture.js';
import { buildDenseIndex, embedAll, type DenseModel } from './dense.js';
import type { DenseIndex } from '../../../src/vectors.js';

/** Pages are "visited" a minute apart from this instant, in file order (dates only matter to filters). */
const FIRST_VISIT = Date.UTC(2026, 0, 1);

export interface StoredSection extends SectionView {
  /** What the dense lane embeds for it. */
  embedText: string;
}

export class MemoryIndex {
  readonly pageRecords: PageRecord[] = [];
  readonly sections = new Map<number, StoredSection>();
  private readonly blocks = new Map<string, EncodedBlock[]>();
  private readonly decoded = new Map<string, PostingList>();
  readonly stats: CorpusStats = { N: 0, totalLength: 0 };
  /** Section lengths by id (the norms: blocks hold no lengths, the reader fills them in). */
  private readonly lens: number[] = [];
  /** The pages skipped for too little text. */
  skipped = 0;

  constructor(pages: readonly CapturedPage[]) {
    let nextId = 1;
    pages.forEach((p, i) => {
      if (!p.stored) {
        this.skipped++;
        return;
      }
      const { title, chunks } = p.stored;
      const ids = chunks.map(() => nextId++);
      const docs = chunks.map((c, k) => ({ id: ids[k]!, doc: indexSection(title, c, TOKENIZER) }));
      for (const [term, entries] of groupPostings(docs.map((d) => ({ id: d.id, ...d.doc })))) {
        const list = this.blocks.get(term) ?? [];
        const last = list[list.length - 1];
        const out = appendToBlock(last && last.n < BLOCK_SIZE ? last : undefined, entries);
        if (last && last.n < BLOCK_SIZE) list.pop();
        list.push(...out);
        this.blocks.set(term, list);
      }
      for (const d of docs) {
        this.stats.N++;
        this.stats.totalLength += d.doc.len;
        this.lens[d.id] = d.doc.len;
      }
      chunks.forEach((c, k) => {
        this.sections.set(ids[k]!, { id: ids[k]!, url: p.url, headingPath: c.headingPath, section: c.section, anchor: c.anchor, ...(c.parts ? { parts: c.parts } : {}), text: c.text, embedText: indexedText(title, c.text) });
      });
      const at = FIRST_VISIT + i * 60_000;
      this.pageRecords.push({ url: p.url, site: siteOf(p.url), title, lang: p.lang, firstVisit: at, lastVisit: at, visitCount: 1, hash: String(i), chunkIds: ids, words: chunks.reduce((n, c) => n + c.words, 0) });
    });
  }

  postings(term: string): PostingList {
    let list = this.decoded.get(term);
    if (!list) {
      list = decodeBlocks(this.blocks.get(term) ?? [], (id) => this.lens[id] ?? 0);
      this.decoded.set(term, list);
    }
    return list;
  }

  get terms(): number {
    return this.blocks.size;
  }

  /** The typo dictionary, as the worker reads it from the posting keys (background/lexicalIndex.ts). */
  dictionary(): TermDictionary {
    if (!this.dict) {
      this.dict = new TermDictionary();
      for (const t of this.blocks.keys()) this.dict.add(t);
    }
    return this.dict;
  }
  private dict: TermDictionary | null = null;
}

/** The dense lane's data: the section vectors and the query vectors (by query text). */
export interface DenseData {
  model: DenseModel;
  index: DenseIndex;
  queries: Map<string, Float32Array | null>;
}

export async function buildDense(idx: MemoryIndex, model: DenseModel, label: string, queryTexts: readonly string[]): Promise<DenseData> {
  const ids = [...idx.sections.keys()];
  const vectors = await embedAll(model, ids.map((id) => idx.sections.get(id)!.embedText), 'passage', label);
  // buildDenseIndex indexes by position: position = id - 1 (ids are 1..N in order).
  ids.forEach((id, i) => {
    if (id !== i + 1) throw new Error('section ids must be 1..N');
  });
  const index = buildDenseIndex([null, ...vectors], model.embedder.dim);
  const unique = [...new Set(queryTexts)];
  const qv = await embedAll(model, unique, 'query', `${label}-queries`);
  return { model, index, queries: new Map(unique.map((t, i) => [t, qv[i]!])) };
}

export type Lane = 'lexical' | 'dense' | 'hybrid';

export interface SourceOptions {
  lane: Lane;
  settings?: Settings;
  /** What-if: a calibration used instead of the model's (labelled as such in the report). */
  calibration?: DenseCalibration;
}

/**
 * A SearchSource over the memory index. `lane` picks what runs: `hybrid` is the shipped configuration
 * (both lanes, the model's calibration); `lexical` has no dense lane (as with "search by meaning" off);
 * `dense` has an empty lexical lane and the dense lane at full weight with no floor (its own ranking,
 * through the same presentation).
 */
export function memorySource(idx: MemoryIndex, dense: DenseData | null, opts: SourceOptions): SearchSource {
  const settings = opts.settings ?? DEFAULT_SETTINGS;
  const db = { getAll: async () => idx.pageRecords } as unknown as DB;
  const table = new PageTable(async () => db, { snapshot: false });
  const modelCal = modelInfo(settings.model)?.calibration;
  if (!modelCal) throw new Error(`no calibration for ${settings.model}`);
  const calibration: DenseCalibration =
    opts.lane === 'dense'
      ? { weights: { identifier: { lexical: 0, dense: 1 }, phrase: { lexical: 0, dense: 1 }, natural: { lexical: 0, dense: 1 } }, floor: -1 }
      : (opts.calibration ?? modelCal);
  const runDense = opts.lane !== 'lexical' && dense;
  return {
    settings: runDense ? settings : { ...settings, denseEnabled: false },
    pages: () => table.all(),
    allowedChunks: (parsed, excludeUrl) => table.allowedChunks(parsed, excludeUrl),
    corpusStats: async () => ({ ...idx.stats }),
    postings: async (terms) => new Map(terms.map((t) => [t, opts.lane === 'dense' ? decodeBlocks([]) : idx.postings(t)])),
    sections: async (ids): Promise<SectionView[]> =>
      ids.flatMap((id) => {
        const s = idx.sections.get(id);
        return s ? [{ id: s.id, url: s.url, headingPath: s.headingPath, section: s.section, anchor: s.anchor, ...(s.parts ? { parts: s.parts } : {}), text: s.text }] : [];
      }),
    similarTerms: async (term, maxEdits) => idx.dictionary().near(term, maxEdits),
    unspacedTerms: async () => idx.dictionary().unspaced,
    lexicon: async () => bundledLexicon(),
    dense: runDense
      ? async (text, k, allowed) => {
          if (!text.trim()) return null;
          let q = dense.queries.get(text);
          if (q === undefined) {
            q = (await dense.model.embedder.embed([text], 'query'))[0] ?? null;
            dense.queries.set(text, q);
          }
          if (!q || dense.index.size === 0) return null;
          return { hits: await dense.index.searchAsync(q, { k, allowed }), calibration };
        }
      : null,
  };
}

let lexicon: ReadonlySet<string> | null = null;

/** The bundled model's words, as the worker reads them (background/lexicon.ts). */
function bundledLexicon(): ReadonlySet<string> | null {
  lexicon ??= lexiconOf(JSON.parse(fs.readFileSync(path.join(ROOT, 'models/reread/glove-100d/tokenizer.json'), 'utf8')));
  return lexicon;
}
