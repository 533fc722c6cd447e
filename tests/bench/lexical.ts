/**
 * Lexical benchmark in Node: build throughput and warm query latency of Reread's core, the plain floor
 * and the peers, on the synthetic corpus (10k, 100k sections) and the Python manual; top-10 agreement
 * with brute-force BM25.
 */
import { queryTerms as queryTermsWith, tokenize } from '../../src/tokenizer.js';
import { indexedText, indexSection, TOKENIZER, type IndexedSection } from '../../src/indexing.js';

/** Query terms as the engine makes them (background/engine.ts TOKENIZER). */
const queryTerms = (text: string) => queryTermsWith(text, TOKENIZER);
import { makeVocabulary, pagesToDocs, pythonDocs, sampleQueries, synthPages, type Doc, type Query } from './corpus.js';
import { agreement, bruteForce, intern, PlainIndex, TypedTopK, type Reference } from './lexical/plain.js';
import { RereadCore } from './lexical/rereadCore.js';
import { appendToBlockBefore, makeSnippetBefore } from './lexical/before.js';
import { bm25SearchBefore13, indexedTermsBefore13 } from './lexical/before13.js';
import { makeSnippet, TermMarker } from '../../src/snippet.js';
import { appendToBlock } from '../../src/postings.js';
import { bm25Search, DEFAULT_BM25 } from '../../src/bm25.js';
import { lexicalSearch } from '../../src/search.js';
import { DEFAULT_PROXIMITY } from '../../src/proximity.js';
import { flexSearch, miniSearch, orama, type Peer } from './lexical/peers.js';
import { dist, gc, heldBytes, mb, mean, ms, num, now, targetTable, type Dist, type Report, type Target } from './report.js';

export interface EngineRow {
  engine: string;
  corpus: string;
  chunks: number;
  buildMs: number;
  chunksPerSec: number;
  /** Bytes held by the built index (heap + array buffers after GC), where measured. */
  bytes: number | null;
  queries: number;
  latency: Dist;
  agreement: number;
  note?: string;
}

export interface CorpusResult {
  corpus: string;
  chunks: number;
  pages: number;
  avgTerms: number;
  queries: { n: number; peerN: number; kinds: Record<string, number>; examples: string[] };
  tokenizeMs: number;
  rows: EngineRow[];
  /** Reread vs floor on the same (large) query set. */
  rereadOverFloor: { median: number; p95: number };
  /** The lexical lane as search() runs it (k 90, proximity) over the floor at k 90. */
  laneOverFloor: { median: number; p95: number };
  rereadBreakdown: Record<string, number>;
  encoded: { bytes: number; blocks: number; entries: number; bytesPerEntry: number };
  /**
   * Snippets for one results page (up to 90 sections), src/snippet.ts before issue #9 and now, with
   * how many sections' snippets are identical when src highlights without stemming (as before) and how
   * many change with the engine's stemming (the words the index matched and the old code did not mark).
   */
  snippets: { before: Dist; after: Dist; sameUnstemmed: number; changedByStemming: number; sections: number; sectionsPerQuery: number };
}

export interface LexicalOptions {
  sizes: number[];
  python: boolean;
  peers: boolean;
  /** Queries for Reread and the floor (cheap), and for the peers (some take half a second each). */
  queries?: number;
}

const K = 10;
/** The lexical lane's depth for a results page of 30 (src/search.ts: limit * 3). */
const LANE_K = 90;

/** Times every variant on every query, interleaved in rotating order, `rounds` times (async variants awaited). */
async function interleave(variants: Record<string, (i: number) => unknown>, idx: readonly number[], rounds: number): Promise<Record<string, number[]>> {
  const names = Object.keys(variants);
  const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    gc();
    for (const i of idx) {
      for (let j = 0; j < names.length; j++) {
        const name = names[(i + r + j) % names.length]!;
        const t = now();
        const v = variants[name]!(i);
        if (v instanceof Promise) await v;
        out[name]!.push(now() - t);
      }
    }
  }
  return out;
}

function sameBlocks(a: RereadCore, b: RereadCore): boolean {
  if (a.blocks.size !== b.blocks.size) return false;
  for (const [term, xs] of a.blocks) {
    const ys = b.blocks.get(term);
    if (!ys || ys.length !== xs.length) return false;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = ys[i]!;
      if (x.first !== y.first || x.n !== y.n || x.data.length !== y.data.length || x.data.some((v, k) => v !== y.data[k])) return false;
    }
  }
  return true;
}

async function timeEachAsync<T>(qs: readonly T[], fn: (q: T) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (const q of qs) {
    const t = now();
    const r = fn(q);
    if (r instanceof Promise) await r;
    out.push(now() - t);
  }
  return out;
}

async function benchCorpus(report: Report, name: string, docs: Doc[], pages: number, opts: LexicalOptions): Promise<CorpusResult> {
  const N = docs.length;
  report.sub(`${name}: ${num(N)} chunks, ${num(pages)} pages`);

  // Tokenize with Reread's tokenizer: its fields for Reread's core (src/indexing.ts indexSection), the
  // same text flat (title, heading line and body, as a plain BM25 would index it) for the floor and
  // the brute-force reference. Each is charged its own tokenizing.
  let t = now();
  const fielded: IndexedSection[] = docs.map((d) => indexSection(d.title, { text: d.chunkText, headingPath: d.headingPath }, TOKENIZER));
  const tokenizeMs = now() - t;
  t = now();
  const tokens = docs.map((d) => tokenize(indexedText(d.title, d.chunkText), TOKENIZER));
  const flatTokenizeMs = now() - t;
  const avgTerms = mean(tokens.map((x) => x.length));

  // The floor (also the source of the bulk-built blocks below).
  t = now();
  const interned = intern(tokens);
  const floor = new PlainIndex();
  floor.build(interned);
  const floorBuildMs = now() - t + flatTokenizeMs;
  // The lane before issue #13: title and heading repeated 3 times into plain term frequencies, BM25.
  const before13 = new PlainIndex();
  before13.build(intern(docs.map((d) => indexedTermsBefore13(d.title, { text: d.chunkText, headingPath: d.headingPath }, TOKENIZER))));
  const before13Stats = before13.stats;

  // Reread's core. The engine writes page by page: src/postings.ts appendToBlock extends each term's
  // last block per page, a cost per page that does not grow with N. So the first pages are built in
  // one go into the identical blocks (RereadCore.bulkFrom), and the last pages are written page by
  // page, each with both src appendToBlock and the one before issue #9 from the same state (timed;
  // the src result is kept): that is the build rate reported.
  const pageRanges: [number, number][] = [];
  for (let s0 = 0; s0 < N; ) {
    let e = s0 + 1;
    while (e < N && docs[e]!.page === docs[s0]!.page) e++;
    pageRanges.push([s0, e]);
    s0 = e;
  }
  const batchOf = ([a, b]: [number, number]) => {
    const batch: { id: number; doc: IndexedSection }[] = [];
    for (let i = a; i < b; i++) batch.push({ id: docs[i]!.id, doc: fielded[i]! });
    return batch;
  };
  // Sanity check at small scale: bulk blocks equal page-by-page src writes.
  const head = pageRanges.slice(0, 40);
  const headDocs = head[head.length - 1]![1];
  const checkA = new RereadCore();
  for (const r of head) checkA.addPage(batchOf(r));
  const checkB = new RereadCore();
  checkB.bulkFrom(batchOf([0, headDocs]));
  const bulkIdentical = sameBlocks(checkA, checkB);
  // The tail written page by page: the last ~1,000 chunks (the rate per page does not depend on N).
  const tailChunks = 1000;
  let split = pageRanges.length;
  for (let c = 0; split > 1 && c < tailChunks; ) {
    split--;
    c += pageRanges[split]![1] - pageRanges[split]![0];
  }
  const core = new RereadCore();
  t = now();
  core.bulkFrom(batchOf([0, pageRanges[split]![0]]));
  const bulkMs = now() - t;
  let srcWriteMs = 0;
  let beforeWriteMs = 0;
  let identical = true;
  gc();
  for (const r of pageRanges.slice(split)) {
    const res = core.addPageCompare(batchOf(r), appendToBlock, appendToBlockBefore);
    srcWriteMs += res.msA;
    beforeWriteMs += res.msB;
    identical &&= res.identical;
  }
  const tailN = N - pageRanges[split]![0];
  // The corpus's token arrays (tens of millions of strings at 100k) are no longer needed: dropping them
  // keeps the benchmark's own heap from making every major GC during the timed queries expensive.
  tokens.length = 0;
  fielded.length = 0;
  gc();
  const tokPerChunk = tokenizeMs / N;
  const srcPerChunk = srcWriteMs / tailN;
  const beforePerChunk = beforeWriteMs / tailN;
  const coreBuildMs = srcPerChunk * N; // the whole corpus at the measured page-by-page rate
  const enc = core.encodedBytes();

  // Queries from the corpus's own words.
  const nQ = opts.queries ?? (N >= 50_000 ? 400 : 1000);
  const nPeer = N >= 50_000 ? 40 : 150;
  const qs: Query[] = sampleQueries(docs, nQ, 7 + N, (w) => floor.df(queryTerms(w)[0] ?? ''));
  const qterms = qs.map((q) => queryTerms(q.text));
  const kinds: Record<string, number> = {};
  for (const q of qs) for (const k of q.kind.split('+')) kinds[k] = (kinds[k] ?? 0) + 1;

  // Reference (brute force) for the queries agreement is measured on.
  const nRef = Math.min(nQ, N >= 50_000 ? 100 : 400);
  t = now();
  const refs: Reference[] = qterms.slice(0, nRef).map((terms) => bruteForce(interned, terms, K));
  const refMs = now() - t;

  // Reread's core (posting lists decoded and cached, as LexicalReader keeps them), the floor, and
  // variants, timed interleaved query by query (in rotating order) over several rounds, so that load
  // from other processes hits them alike. Query tokenization is included in every variant.
  const idx = qs.map((_, i) => i);
  const heap = new TypedTopK(K);
  const heap90 = new TypedTopK(LANE_K);
  const cached = (i: number) => queryTerms(qs[i]!.text).map((term) => ({ term, postings: core.postings(term) }));
  const qcached = idx.map(cached);
  // The lexical lane as search() runs it for a results page (src/search.ts lexicalSearch: the query's
  // words, BM25F at the lane's depth, proximity over the best candidates' text), over the same blocks,
  // with the section texts in memory (the worker's text cache when warm).
  const source = core.source(docs);
  const variants: Record<string, (i: number) => unknown> = {
    reread: (i) => core.search(queryTerms(qs[i]!.text), K).map((h) => h.id),
    floor: (i) => floor.search(queryTerms(qs[i]!.text), heap).map((h) => h.id),
    lane: (i) => lexicalSearch(source, qs[i]!.text, LANE_K),
    floor90: (i) => floor.search(queryTerms(qs[i]!.text), heap90).map((h) => h.id),
    laneNoProximity: (i) => lexicalSearch(source, qs[i]!.text, LANE_K, { lexical: { proximity: { ...DEFAULT_PROXIMITY, candidates: 0 } } }),
    laneBefore13: (i) => bm25SearchBefore13(queryTerms(qs[i]!.text).map((term) => ({ term, postings: before13.postingList(term) })), before13Stats, { k: LANE_K }),
    rereadDecode: (i) => core.search(queryTerms(qs[i]!.text), K, false).map((h) => h.id),
    rereadK90: (i) => core.search(queryTerms(qs[i]!.text), 90).map((h) => h.id),
    bm25Only: (i) => bm25Search(qcached[i]!, core.stats, { k: K }).map((h) => h.id),
    queryTokenize: (i) => queryTerms(qs[i]!.text).map(() => 0),
  };
  for (const i of idx) for (const f of Object.values(variants)) await f(i); // warm-up: JIT and the posting cache
  const rounds = N >= 50_000 ? 2 : 3;
  const lat = await interleave(variants, idx, rounds);
  const agree = (f: (i: number) => number[]) => mean(idx.slice(0, nRef).map((i) => agreement(f(i), refs[i]!, K)));
  const coreAgree = agree(variants.reread! as (i: number) => number[]);
  const floorAgree = agree(variants.floor! as (i: number) => number[]);
  const coreWarmQ = lat.reread!;
  const floorWarm = lat.floor!;
  const laneWarm = lat.lane!;
  const floor90Warm = lat.floor90!;
  const laneNoProx = lat.laneNoProximity!;
  const laneBefore = lat.laneBefore13!;
  const coreCold = lat.rereadDecode!;
  const coreK90 = lat.rereadK90!;
  const coreWarm = lat.bm25Only!;
  const tokQ = lat.queryTokenize!;

  // Snippets for a results page (what engine.present does per query: one TermMarker with the engine's
  // tokenizer options for the page): up to 90 sections, src makeSnippet vs the one before issue #9
  // (which was given the same stemmed terms), interleaved.
  const snipIdx = idx.slice(0, Math.min(100, idx.length));
  const snipDocs = snipIdx.map((i) => core.search(queryTerms(qs[i]!.text), 90).map((h) => docs[h.id - 1]!.text));
  const snipTerms = snipIdx.map((i) => new Set(queryTerms(qs[i]!.text)));
  // Outputs: without stemming src must give what the old code gave; with it, the sections that differ
  // are those where the index matched an inflected form the old code left unmarked.
  let sameUnstemmed = 0;
  let changedByStemming = 0;
  let sections = 0;
  for (let j = 0; j < Math.min(20, snipIdx.length); j++) {
    const unstemmed = new TermMarker(snipTerms[j]!, {});
    const stemmed = new TermMarker(snipTerms[j]!, TOKENIZER);
    for (const text of snipDocs[j]!) {
      const old = JSON.stringify(makeSnippetBefore(text, snipTerms[j]!));
      sections++;
      if (JSON.stringify(makeSnippet(text, unstemmed)) === old) sameUnstemmed++;
      if (JSON.stringify(makeSnippet(text, stemmed)) !== old) changedByStemming++;
    }
  }
  const snip = await interleave(
    {
      src: (j) => {
        const marker = new TermMarker(snipTerms[j]!, TOKENIZER);
        return snipDocs[j]!.map((text) => makeSnippet(text, marker));
      },
      before: (j) => snipDocs[j]!.map((text) => makeSnippetBefore(text, snipTerms[j]!)),
    },
    snipIdx.map((_, j) => j),
    1,
  );
  const snippets = { before: dist(snip.before!), after: dist(snip.src!), sameUnstemmed, changedByStemming, sections, sectionsPerQuery: mean(snipDocs.map((d) => d.length)) };

  const rows: EngineRow[] = [];
  const rereadBytes = enc.bytes; // encoded blocks (what IndexedDB stores), cache aside
  rows.push({
    engine: 'Reread core (warm cache)',
    corpus: name,
    chunks: N,
    buildMs: tokenizeMs + coreBuildMs,
    chunksPerSec: (N / (tokenizeMs + coreBuildMs)) * 1000,
    bytes: rereadBytes,
    queries: coreWarmQ.length,
    latency: dist(coreWarmQ),
    agreement: coreAgree,
    note: 'bytes = encoded posting blocks; build = tokenize + src appendToBlock page by page (rate of the last ~1,000 chunks)',
  });
  rows.push({
    engine: 'Reread core (decode blocks per query)',
    corpus: name,
    chunks: N,
    buildMs: NaN,
    chunksPerSec: NaN,
    bytes: null,
    queries: coreCold.length,
    latency: dist(coreCold),
    agreement: coreAgree,
    note: 'no posting cache: every query decodes its terms’ blocks (restart, IndexedDB read aside)',
  });
  rows.push({
    engine: 'Plain floor (Map + typed arrays)',
    corpus: name,
    chunks: N,
    buildMs: tokenizeMs + floorBuildMs,
    chunksPerSec: (N / (tokenizeMs + floorBuildMs)) * 1000,
    bytes: null,
    queries: floorWarm.length,
    latency: dist(floorWarm),
    agreement: floorAgree,
  });
  rows.push({
    engine: `Reread lexical lane, as search() runs it (warm, k ${LANE_K})`,
    corpus: name,
    chunks: N,
    buildMs: NaN,
    chunksPerSec: NaN,
    bytes: null,
    queries: laneWarm.length,
    latency: dist(laneWarm),
    agreement: NaN,
    note: `query words (common words, typos), BM25F at depth ${LANE_K}, proximity over the best ${DEFAULT_PROXIMITY.candidates} candidates' text`,
  });
  rows.push({
    engine: `Reread lexical lane before issue #13 (warm, k ${LANE_K})`,
    corpus: name,
    chunks: N,
    buildMs: NaN,
    chunksPerSec: NaN,
    bytes: null,
    queries: laneBefore.length,
    latency: dist(laneBefore),
    agreement: NaN,
    note: 'tests/bench/lexical/before13.ts: title and heading repeated 3 times, plain BM25, no query planning or proximity',
  });
  rows.push({
    engine: `Plain floor, k ${LANE_K}`,
    corpus: name,
    chunks: N,
    buildMs: NaN,
    chunksPerSec: NaN,
    bytes: null,
    queries: floor90Warm.length,
    latency: dist(floor90Warm),
    agreement: NaN,
  });

  // Peers, one at a time (each can hold gigabytes at 100k).
  if (opts.peers) {
    const peerIdx = idx.slice(0, nPeer);
    const sub = (xs: number[]) => dist(xs.slice(0, nPeer));
    for (const make of [miniSearch, orama, flexSearch] as (() => Peer)[]) {
      let peer: Peer | null = make();
      const before = heldBytes();
      t = now();
      await peer.build(docs);
      const buildMs = now() - t;
      const bytes = heldBytes() - before;
      const run = async (i: number) => {
        const r = peer!.search(qs[i]!.text, K);
        return r instanceof Promise ? await r : r;
      };
      for (const i of peerIdx.slice(0, 10)) await run(i); // warm-up (JIT, caches)
      const lat = await timeEachAsync(peerIdx, (i) => run(i));
      const agr: number[] = [];
      for (const i of peerIdx.slice(0, Math.min(nRef, peerIdx.length))) agr.push(agreement(await run(i), refs[i]!, K));
      rows.push({ engine: peer.name, corpus: name, chunks: N, buildMs, chunksPerSec: (N / buildMs) * 1000, bytes, queries: peerIdx.length, latency: dist(lat), agreement: mean(agr), note: peer.note });
      console.log(`  ${peer.name}: build ${ms(buildMs)} ms, median ${ms(dist(lat).median)} ms`);
      peer = null;
      gc();
    }
    // Same query subset (first round) for Reread and the floor, so the peer ratios are like for like.
    rows.push({ engine: `Reread core (warm), first ${nPeer} queries`, corpus: name, chunks: N, buildMs: NaN, chunksPerSec: NaN, bytes: null, queries: nPeer, latency: sub(coreWarmQ), agreement: NaN });
    rows.push({ engine: `Plain floor, first ${nPeer} queries`, corpus: name, chunks: N, buildMs: NaN, chunksPerSec: NaN, bytes: null, queries: nPeer, latency: sub(floorWarm), agreement: NaN });
  }

  const rw = dist(coreWarmQ);
  const fw = dist(floorWarm);
  const lw = dist(laneWarm);
  const fw90 = dist(floor90Warm);
  const result: CorpusResult = {
    corpus: name,
    chunks: N,
    pages,
    avgTerms,
    queries: { n: qs.length, peerN: Math.min(nPeer, qs.length), kinds, examples: qs.slice(0, 12).map((q) => q.text) },
    tokenizeMs,
    rows,
    rereadOverFloor: { median: rw.median / fw.median, p95: rw.p95 / fw.p95 },
    laneOverFloor: { median: lw.median / fw90.median, p95: lw.p95 / fw90.p95 },
    rereadBreakdown: {
      tokenizeMs,
      blockWriteMs: coreBuildMs,
      tailChunks: tailN,
      bulkBuildMs: bulkMs,
      bulkBlocksIdenticalOnHead: bulkIdentical ? 1 : 0,
      appendIdenticalOnTail: identical ? 1 : 0,
      blockWriteMsPerChunk: srcPerChunk,
      beforeBlockWriteMsPerChunk: beforePerChunk,
      blockWriteSpeedup: beforePerChunk / srcPerChunk,
      floorIndexMs: floorBuildMs,
      referenceMsPerQuery: refMs / nRef,
      queryTokenizeMedianMs: dist(tokQ).median,
      bm25OnlyMedianMs: dist(coreWarm).median,
      bm25OnlyP95Ms: dist(coreWarm).p95,
      k90MedianMs: dist(coreK90).median,
      k90P95Ms: dist(coreK90).p95,
      laneMedianMs: lw.median,
      laneP95Ms: lw.p95,
      laneNoProximityMedianMs: dist(laneNoProx).median,
      laneNoProximityP95Ms: dist(laneNoProx).p95,
      laneBefore13MedianMs: dist(laneBefore).median,
      laneBefore13P95Ms: dist(laneBefore).p95,
      floor90MedianMs: fw90.median,
      rounds,
    },
    encoded: { ...enc, bytesPerEntry: enc.bytes / enc.entries },
    snippets,
  };

  report.table(
    ['engine', 'build chunks/s', 'index size', 'queries', 'median ms', 'p95 ms', 'top-10 agreement'],
    rows.map((r) => [r.engine, Number.isFinite(r.chunksPerSec) ? num(r.chunksPerSec) : '', r.bytes === null ? '' : mb(r.bytes), r.queries, ms(r.latency.median), ms(r.latency.p95), Number.isFinite(r.agreement) ? r.agreement.toFixed(3) : '']),
  );
  report.text(
    `Reread core/floor at k ${K} (same ${qs.length} queries × ${rounds} rounds, interleaved): median ${result.rereadOverFloor.median.toFixed(2)}x, p95 ${result.rereadOverFloor.p95.toFixed(2)}x. ` +
      `Lexical lane as search() runs it / floor at k ${LANE_K}: median ${result.laneOverFloor.median.toFixed(2)}x, p95 ${result.laneOverFloor.p95.toFixed(2)}x (without proximity: median ${ms(dist(laneNoProx).median)} ms, with ${ms(lw.median)} ms; the lane before #13: ${ms(dist(laneBefore).median)} ms, ${(dist(laneBefore).median / fw90.median).toFixed(2)}x the floor). ` +
      `Build: tokenize ${ms(tokPerChunk)} ms/chunk; page-by-page block writes (last ${num(tailN)} chunks) src appendToBlock ${ms(srcPerChunk)} ms/chunk, before issue #9 ${ms(beforePerChunk)} ms/chunk (${(beforePerChunk / srcPerChunk).toFixed(1)}x faster now, identical blocks: ${identical}); floor index ${ms(floorBuildMs)} ms in all (bulk blocks = page-by-page blocks: ${bulkIdentical}). ` +
      `Postings ${num(enc.entries)} entries in ${num(enc.blocks)} blocks, ${mb(enc.bytes)} (${(enc.bytes / enc.entries).toFixed(2)} B/entry). ` +
      `bm25Search alone (terms pre-tokenized): median ${ms(dist(coreWarm).median)} ms, p95 ${ms(dist(coreWarm).p95)} ms; k=90 median ${ms(dist(coreK90).median)} ms. ` +
      `Snippets for a results page (${snippets.sectionsPerQuery.toFixed(0)} sections, as engine.present makes them): src makeSnippet median ${ms(snippets.after.median)} ms (p95 ${ms(snippets.after.p95)}), before issue #9 ${ms(snippets.before.median)} ms (p95 ${ms(snippets.before.p95)}); of ${snippets.sections} sections, ${snippets.sameUnstemmed} identical to before without stemming, ${snippets.changedByStemming} changed by the engine's stemming. ` +
      `Query tokenize median ${ms(dist(tokQ).median)} ms. Query mix: ${Object.entries(kinds).map(([k, v]) => `${k} ${v}`).join(', ')}; e.g. ${qs.slice(0, 6).map((q) => `“${q.text}”`).join(', ')}.\n`,
  );
  return result;
}

export async function runLexical(report: Report, opts: LexicalOptions): Promise<CorpusResult[]> {
  report.heading('Lexical (Node)');
  report.text(
    'Latency: warm (a full untimed pass first), query tokenization included for every engine, k = 10. ' +
      `Agreement: share of each top-10 that the brute-force BM25 reference (Lucene's formula with the product's parameters, k1 = ${DEFAULT_BM25.k1}, b = ${DEFAULT_BM25.b}) also ranks in its top 10, ties at the cut-off counted as agreeing. ` +
      `Reread indexes what the engine indexes (src/indexing.ts indexSection with the engine's tokenizer options ${JSON.stringify(TOKENIZER)}: body, heading and context fields, scored BM25F); the floor and the reference index the same text flat (title, heading line and body, plain BM25), so Reread's agreement measures BM25F against BM25; the peers index the same text with their own tokenizers (see notes), so their agreement also measures tokenization and formula differences.`,
  );
  const out: CorpusResult[] = [];
  const v = makeVocabulary(1);
  for (const size of opts.sizes) {
    const pages = synthPages(v, 1000 + size, size);
    const docs = pagesToDocs(pages);
    out.push(await benchCorpus(report, `synthetic ${num(size / 1000)}k`, docs, pages.length, opts));
    gc();
  }
  if (opts.python) {
    const { docs, pages } = await pythonDocs();
    out.push(await benchCorpus(report, 'Python manual', docs, pages, opts));
  }
  const peerNotes = [miniSearch(), orama(), flexSearch()].map((p) => `- ${p.name}: ${p.note}`);
  report.text('\nPeer notes:\n' + peerNotes.join('\n'));
  const targets: Target[] = out.flatMap((c) => {
    const r = c.rows[0]!.latency;
    const f = c.rows[2]!.latency;
    const lane = c.rows[3]!.latency;
    const before = c.rows[4]!.latency;
    const f90 = c.rows[5]!.latency;
    return [
      { what: `${c.corpus}: Reread warm query within 2x of the plain floor (median)`, target: '≤ 2.00x', measured: `${(r.median / f.median).toFixed(2)}x (${ms(r.median)} vs ${ms(f.median)} ms; p95 ${(r.p95 / f.p95).toFixed(2)}x)`, met: r.median <= 2 * f.median },
      { what: `${c.corpus}: the lexical lane as search() runs it (k 90, proximity) within 1.2x of the floor at k 90 (median)`, target: '≤ 1.20x', measured: `${(lane.median / f90.median).toFixed(2)}x (${ms(lane.median)} vs ${ms(f90.median)} ms; p95 ${(lane.p95 / f90.p95).toFixed(2)}x)`, met: lane.median <= 1.2 * f90.median },
      { what: `${c.corpus}: the lane before issue #13 (for comparison)`, target: '≤ 1.20x', measured: `${(before.median / f90.median).toFixed(2)}x (${ms(before.median)} ms; p95 ${(before.p95 / f90.p95).toFixed(2)}x)`, met: before.median <= 1.2 * f90.median },
    ];
  });
  targetTable(report, targets);
  (out as CorpusResult[] & { targets?: Target[] }).targets = targets;
  return out;
}
