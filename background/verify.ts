/**
 * verifyIndex: recomputes what the index should be from the chunks (document frequencies, lengths,
 * N, total length, postings) and compares it with what is stored; checks pages against chunks and
 * vectors and the embedding queue against chunks, and every chunk's text (v2: the page's compressed text
 * record) against its page. `repair` rebuilds the derived stores from the chunks.
 */
import { decodeBlock, appendToBlock, BLOCK_SIZE, type PostingEntry } from '../src/postings.js';
import type { VerifyReport } from '../src/protocol.js';
import type { ChunkRecord, PageRecord, QueueRecord, StatsRecord, VectorBlockRecord } from './db.js';
import type { Engine } from './engine.js';
import { indexSection, TOKENIZER } from '../src/indexing.js';
import { isPageKind } from '../src/pageKind.js';
import { unpackTexts } from './sectionTexts.js';

const MAX_PROBLEMS = 50;

export async function verifyIndex(engine: Engine, repair = false): Promise<VerifyReport> {
  return engine.exclusive(async () => {
    const db = await engine.db();
    const problems: string[] = [];
    const report = (p: string) => {
      if (problems.length < MAX_PROBLEMS) problems.push(p);
      else if (problems.length === MAX_PROBLEMS) problems.push('… more problems not listed');
    };
    const tx = db.transaction(['pages', 'chunks', 'texts', 'postings', 'meta', 'vectors', 'embedQueue']);
    const [pages, chunks, textRecords, postings, stats, vectors, queue] = await Promise.all([
      tx.objectStore('pages').getAll(),
      tx.objectStore('chunks').getAll(),
      tx.objectStore('texts').getAll(),
      tx.objectStore('postings').getAll(),
      tx.objectStore('meta').get('stats') as Promise<StatsRecord | undefined>,
      tx.objectStore('vectors').getAll(),
      tx.objectStore('embedQueue').getAll(),
    ]);
    await tx.done;

    const pageByUrl = new Map<string, PageRecord>(pages.map((p) => [p.url, p]));
    const chunkById = new Map<number, ChunkRecord>(chunks.map((c) => [c.id, c]));
    const owned = new Set<number>();
    for (const p of pages) {
      for (const id of p.chunkIds) {
        const c = chunkById.get(id);
        if (!c) report(`page ${p.url} lists missing chunk ${id}`);
        else if (c.url !== p.url) report(`chunk ${id} belongs to ${c.url}, listed by ${p.url}`);
        if (owned.has(id)) report(`chunk ${id} listed twice`);
        owned.add(id);
      }
    }
    // Page kinds (src/pageKind.ts): a title-only entry is one section of URL words, a PDF says how many pages it read.
    for (const p of pages) {
      if (p.kind !== undefined && !isPageKind(p.kind)) report(`page ${p.url} has unknown kind ${String(p.kind)}`);
      if (p.kind === 'title' && p.chunkIds.length !== 1) report(`title-only page ${p.url} has ${p.chunkIds.length} sections`);
      if (p.fetchSkipped && p.kind !== 'title') report(`page ${p.url} is marked as left title-only but is ${p.kind ?? 'read'}`);
      if (p.pdf && (p.kind !== 'pdf' || !(p.pdf.read >= 1 && p.pdf.read <= p.pdf.pages))) report(`page ${p.url} has malformed PDF facts`);
    }
    const orphans = chunks.filter((c) => !owned.has(c.id));
    for (const c of orphans) report(`orphan chunk ${c.id} (${c.url})`);

    // Chunk text: inline in v1 records (not migrated yet), else in the page's compressed text record.
    const textById = new Map<number, string>();
    const orphanTexts: string[] = [];
    for (const r of textRecords) {
      const p = pageByUrl.get(r.url);
      if (!p) {
        report(`text record of ${r.url} has no page`);
        orphanTexts.push(r.url);
        continue;
      }
      // It may list more chunks than the page (a repair dropped a lost one); a page's chunk missing from it is reported below.
      let texts: string[];
      try {
        texts = await unpackTexts(r.z);
      } catch {
        report(`text record of ${r.url} does not decompress`);
        continue;
      }
      if (texts.length !== r.ids.length) report(`text record of ${r.url} holds ${texts.length} texts for ${r.ids.length} chunks`);
      r.ids.forEach((id, i) => textById.set(id, texts[i] ?? ''));
    }
    const textOf = (c: ChunkRecord): string => {
      const t = c.text ?? textById.get(c.id);
      if (t === undefined) report(`chunk ${c.id} (${c.url}) has no text`);
      return t ?? '';
    };

    // What the postings should be.
    const expected = new Map<string, Map<number, { tf: number; len: number }>>();
    let N = 0;
    let totalLength = 0;
    let maxId = 0;
    const lens = new Map<number, number>();
    for (const c of chunks) {
      if (!owned.has(c.id)) continue;
      const doc = indexSection(pageByUrl.get(c.url)?.title ?? '', { text: textOf(c), headingPath: c.headingPath }, TOKENIZER);
      if (doc.len !== c.len) report(`chunk ${c.id} length ${c.len}, recomputed ${doc.len}`);
      lens.set(c.id, doc.len);
      N++;
      totalLength += doc.len;
      maxId = Math.max(maxId, c.id);
      for (const [t, tf] of doc.tfs) {
        let m = expected.get(t);
        if (!m) expected.set(t, (m = new Map()));
        m.set(c.id, { tf, len: doc.len });
      }
    }
    if ((stats?.N ?? 0) !== N) report(`stored N ${stats?.N ?? 0}, recomputed ${N}`);
    if ((stats?.totalLength ?? 0) !== totalLength) report(`stored total length ${stats?.totalLength ?? 0}, recomputed ${totalLength}`);
    if (stats && stats.nextChunkId <= maxId) report(`next chunk id ${stats.nextChunkId} not above ${maxId}`);

    const seen = new Map<string, Set<number>>();
    let lastId = -1; // the previous entry of the same term: getAll returns blocks in key order
    for (let b = 0; b < postings.length; b++) {
      const block = postings[b]!;
      if (b === 0 || postings[b - 1]!.t !== block.t) lastId = -1;
      // Every entry takes at least 3 bytes; a header that says otherwise would make decoding allocate
      // whatever `n` claims (or read garbage), so such a block is reported, not decoded.
      if (!(Number.isInteger(block.n) && block.n >= 1 && block.n <= BLOCK_SIZE && block.n * 3 <= (block.d?.length ?? 0))) {
        report(`block ${block.t}/${block.f} is malformed (n ${block.n}, ${block.d?.length ?? 0} bytes)`);
        continue;
      }
      const entries = decodeBlock({ first: block.f, n: block.n, data: block.d });
      const next = postings[b + 1];
      const nextKey = next && next.t === block.t ? next.f : Infinity;
      const want = expected.get(block.t);
      let s = seen.get(block.t);
      if (!s) seen.set(block.t, (s = new Set()));
      for (const e of entries) {
        if (e.id < block.f) report(`block ${block.t}/${block.f} holds smaller id ${e.id}`);
        // Deletes find a chunk's block by key (greatest first <= id): ids must ascend, each block's
        // below the next block's key.
        if (e.id <= lastId || e.id >= nextKey) report(`posting ${block.t} -> ${e.id} out of order`);
        lastId = e.id;
        const w = want?.get(e.id);
        if (!w) report(`posting ${block.t} -> ${e.id} has no chunk with that term`);
        else if (w.tf !== e.tf || w.len !== e.len) report(`posting ${block.t} -> ${e.id}: tf ${e.tf}/len ${e.len}, expected ${w.tf}/${w.len}`);
        if (s.has(e.id)) report(`posting ${block.t} -> ${e.id} duplicated`);
        s.add(e.id);
      }
    }
    for (const [t, m] of expected) {
      const s = seen.get(t);
      if (!s || s.size !== m.size) report(`term ${t}: df ${s?.size ?? 0}, expected ${m.size}`);
    }

    let vectorCount = 0;
    const vecSeen = new Set<string>();
    for (const b of vectors) {
      for (const id of b.ids) {
        if (!b.m.includes('\u0000')) vectorCount++; // coarse blocks (vectorStore.coarseModel) repeat the ids
        if (!owned.has(id)) report(`vector ${b.m}/${id} has no chunk`);
        const key = `${b.m}/${id}`;
        if (vecSeen.has(key)) report(`vector ${key} duplicated`);
        vecSeen.add(key);
      }
    }
    for (const q of queue) {
      if (!owned.has(q.id)) report(`queued chunk ${q.id} does not exist`);
      if (vecSeen.has(`${q.model}/${q.id}`)) report(`chunk ${q.id} is queued and already embedded`);
    }

    if (repair && problems.length) await rebuild(engine, chunks.filter((c) => owned.has(c.id)), orphans, orphanTexts, pageByUrl, expected, N, totalLength, Math.max(maxId + 1, stats?.nextChunkId ?? 1), vectors, owned, lens, queue);
    return { ok: problems.length === 0, problems, checked: { chunks: chunks.length, terms: expected.size, vectors: vectorCount } };
  });
}

async function rebuild(
  engine: Engine,
  live: ChunkRecord[],
  orphans: ChunkRecord[],
  orphanTexts: string[],
  pageByUrl: Map<string, PageRecord>,
  expected: Map<string, Map<number, { tf: number; len: number }>>,
  N: number,
  totalLength: number,
  nextChunkId: number,
  vectors: VectorBlockRecord[],
  owned: Set<number>,
  lens: Map<number, number>,
  queue: QueueRecord[],
): Promise<void> {
  const db = await engine.db();
  const tx = db.transaction(['pages', 'chunks', 'texts', 'postings', 'meta', 'vectors', 'embedQueue'], 'readwrite');
  await tx.objectStore('postings').clear();
  const puts: Promise<unknown>[] = [];
  for (const [term, m] of expected) {
    const entries: PostingEntry[] = [...m].map(([id, v]) => ({ id, tf: v.tf, len: v.len })).sort((a, b) => a.id - b.id);
    for (const b of appendToBlock(undefined, entries)) puts.push(tx.objectStore('postings').put({ t: term, f: b.first, n: b.n, d: b.data }));
  }
  for (const c of orphans) puts.push(tx.objectStore('chunks').delete(c.id));
  for (const url of orphanTexts) puts.push(tx.objectStore('texts').delete(url));
  for (const c of live) {
    const len = lens.get(c.id);
    // The record as it is now, not as it was read: the v1 -> v2 text migration may have moved its text
    // out since (putting `c` back would bring the v1 text back and the migration would count it undone).
    if (len !== undefined && len !== c.len)
      puts.push(
        tx
          .objectStore('chunks')
          .get(c.id)
          .then((cur) => (cur ? tx.objectStore('chunks').put({ ...cur, len }) : undefined)),
      );
  }
  const liveIds = new Set(live.map((c) => c.id));
  for (const p of pageByUrl.values()) {
    const ids = p.chunkIds.filter((id) => liveIds.has(id));
    if (ids.length !== p.chunkIds.length) puts.push(tx.objectStore('pages').put({ ...p, chunkIds: ids }));
  }
  // The queue loses chunks that are gone and chunks already embedded for the model they wait for.
  const embedded = new Set(vectors.flatMap((b) => [...b.ids].map((id) => `${b.m}/${id}`)));
  for (const q of queue) {
    if (!liveIds.has(q.id) || embedded.has(`${q.model}/${q.id}`)) puts.push(tx.objectStore('embedQueue').delete(q.id));
  }
  // Vectors of missing chunks go; their blocks are rewritten without them.
  for (const b of vectors) {
    const keep = [...b.ids].map((id, i) => ({ id, i })).filter((e) => owned.has(e.id));
    if (keep.length === b.ids.length) continue;
    if (!keep.length) puts.push(tx.objectStore('vectors').delete([b.m, b.f]));
    else {
      const codes = new Int8Array(keep.length * b.dim);
      keep.forEach((e, j) => codes.set(b.codes.subarray(e.i * b.dim, (e.i + 1) * b.dim), j * b.dim));
      puts.push(tx.objectStore('vectors').put({ ...b, ids: Uint32Array.from(keep.map((e) => e.id)), codes, scales: Float32Array.from(keep.map((e) => b.scales[e.i]!)) }));
    }
  }
  puts.push(tx.objectStore('meta').put({ N, totalLength, nextChunkId } satisfies StatsRecord, 'stats'));
  await Promise.all(puts);
  await tx.done;
  engine.lexical.invalidate('all');
  engine.pages.reset();
  engine.dense?.onChunksRemoved([]);
}
