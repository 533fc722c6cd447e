/**
 * verifyIndex: recomputes what the index should be from the pages' sections (terms and frequencies,
 * section lengths, N, total length) and compares it with what is stored — the main index's blocks (via
 * the term dictionary), the pending segments and, while a schema-2 database migrates, the legacy blocks,
 * less the ids forgotten by tombstones. It also checks the block structure, the dictionary, the pages'
 * section records, the vectors and the embedding queue against the pages, and the page table's
 * snapshot against the pages store (verifySnapshot.ts). Postings of ids no page owns (and no tombstone
 * covers) are reported as orphans.
 *
 * `repair` rebuilds everything derived from the sections: dictionary and blocks from scratch (segments
 * and tombstones applied), section lengths, statistics; vectors and queue entries of sections that are
 * gone are dropped, and a page whose sections cannot be read is forgotten (nothing of it can be shown);
 * a wrong page table snapshot is dropped and written again.
 * It holds the whole index in memory: for repairs and tests, not for a million sections.
 */
import { appendToBlock, BLOCK_SIZE, blockFromValue, blockValue, decodeBlock, decodeLegacyBlock, decodeSegment, type PostingEntry } from '../src/postings.js';
import type { VerifyReport } from '../src/protocol.js';
import { TOKENIZER } from '../src/indexing.js';
import { isPageKind } from '../src/pageKind.js';
import { hasLegacy, LEGACY_STORES, MIGRATION_KEY, type DB, type PageRecord, type SectionsRecord, type StatsRecord, type StoreName, type StoredSection, type TermIdsRecord } from './db.js';
import { DeadSet } from './delta.js';
import type { Engine } from './engine.js';
import { MERGE_KEY, SWEEP_KEY, TERM_IDS_KEY } from './indexMaintenance.js';
import { unpackTexts } from './legacy.js';
import { readStats, sectionPostings } from './pageStore.js';
import { COLUMNS_KEY, deletePage, LOG_RANGE, putPage, SNAPSHOT_KEY } from './pageLog.js';
import { checkPageSnapshot, rewritePageSnapshot } from './verifySnapshot.js';
import { forgetAllSections, packSections, unpackSections } from './sections.js';

const MAX_PROBLEMS = 50;

interface Expected {
  /** term -> chunk id -> tf */
  postings: Map<string, Map<number, number>>;
  /** Pages whose sections were read, with their recomputed lengths. */
  pages: Map<string, { page: PageRecord; sections: StoredSection[]; lens: number[]; blocks?: { b: Uint8Array; cv: string } }>;
  /** Pages whose sections cannot be read: their postings cannot be checked. */
  unreadable: Set<string>;
}

export async function verifyIndex(engine: Engine, repair = false): Promise<VerifyReport> {
  return engine.exclusive(async () => {
    const db = await engine.db();
    const problems: string[] = [];
    const report = (p: string) => {
      if (problems.length < MAX_PROBLEMS) problems.push(p);
      else if (problems.length === MAX_PROBLEMS) problems.push('… more problems not listed');
    };
    const legacy = hasLegacy(db);
    const stores: StoreName[] = ['pages', 'sections', 'terms', 'postings', 'segments', 'tombstones', 'meta', 'vectors', 'embedQueue'];
    const tx = db.transaction(legacy ? [...stores, ...LEGACY_STORES] : stores);
    const all = <S extends StoreName>(s: S) => Promise.all([tx.objectStore(s).getAllKeys(), tx.objectStore(s).getAll()]);
    const meta = tx.objectStore('meta');
    const snapshotRead = Promise.all([meta.get(SNAPSHOT_KEY), meta.get(COLUMNS_KEY), meta.getAllKeys(LOG_RANGE())]);
    const [pages, sectionRecords, [termKeys, termIds], [postingKeys, postingValues], [segKeys, segments], [deadKeys, tombstones], stats, vectors, queue, chunks, texts, [oldKeys, oldPostings], [snapshot, snapshotColumns, logKeys]] = await Promise.all([
      tx.objectStore('pages').getAll(),
      tx.objectStore('sections').getAll(),
      all('terms'),
      all('postings'),
      all('segments'),
      all('tombstones'),
      tx.objectStore('meta').get('stats') as Promise<StatsRecord | undefined>,
      tx.objectStore('vectors').getAll(),
      tx.objectStore('embedQueue').getAll(),
      legacy ? tx.objectStore('chunks').getAll() : [],
      legacy ? tx.objectStore('texts').getAll() : [],
      legacy ? all('postingsV2') : [[], []],
      snapshotRead,
    ]);
    await tx.done;

    // Pages and their ids.
    const owner = new Map<number, PageRecord>();
    let maxId = 0;
    for (const p of pages) {
      for (const id of p.chunkIds) {
        if (owner.has(id)) report(`chunk ${id} listed by ${owner.get(id)!.url} and ${p.url}`);
        owner.set(id, p);
        maxId = Math.max(maxId, id);
      }
      if (p.lens && p.lens.length !== p.chunkIds.length) report(`page ${p.url} has ${p.lens.length} section lengths for ${p.chunkIds.length} sections`);
    }
    const dead = new DeadSet(tombstones.map((t, i) => ({ seq: deadKeys[i]!, first: t.first, end: t.end })));
    for (const id of owner.keys()) if (dead.has(id)) report(`chunk ${id} of ${owner.get(id)!.url} is live but forgotten by a tombstone`);
    for (const s of segments) maxId = Math.max(maxId, s.end - 1);
    for (const t of tombstones) maxId = Math.max(maxId, t.end - 1);
    // Page kinds (src/pageKind.ts): a title-only entry is one section of URL words, a PDF says how many pages it read.
    for (const p of pages) {
      if (p.kind !== undefined && !isPageKind(p.kind)) report(`page ${p.url} has unknown kind ${String(p.kind)}`);
      if (p.kind === 'title' && p.chunkIds.length !== 1) report(`title-only page ${p.url} has ${p.chunkIds.length} sections`);
      if (p.fetchSkipped && p.kind !== 'title') report(`page ${p.url} is marked as left title-only but is ${p.kind ?? 'read'}`);
      if (p.pdf && (p.kind !== 'pdf' || !(p.pdf.read >= 1 && p.pdf.read <= p.pdf.pages))) report(`page ${p.url} has malformed PDF facts`);
    }
    if (stats && stats.nextChunkId <= maxId) report(`next chunk id ${stats.nextChunkId} not above ${maxId}`);

    // Sections: the record of each page (or, while migrating, its legacy chunk and text records).
    const pageByUrl = new Map(pages.map((p) => [p.url, p]));
    const recordByUrl = new Map(sectionRecords.map((r) => [r.url, r]));
    for (const r of sectionRecords) if (!pageByUrl.has(r.url)) report(`sections record of ${r.url} has no page`);
    const chunkById = new Map(chunks.map((c) => [c.id, c]));
    for (const c of chunks) if (owner.get(c.id)?.url !== c.url) report(`orphan chunk record ${c.id} (${c.url})`);
    const textByUrl = new Map(texts.map((t) => [t.url, t]));
    for (const t of texts) if (!pageByUrl.has(t.url) || pageByUrl.get(t.url)!.lens) report(`text record of ${t.url} has no legacy page`);

    const expected: Expected = { postings: new Map(), pages: new Map(), unreadable: new Set() };
    let N = 0;
    let totalLength = 0;
    for (const p of pages) {
      let sections: StoredSection[] | null = null;
      const rec = recordByUrl.get(p.url);
      if (!p.chunkIds.length) sections = [];
      else if (rec) {
        try {
          sections = await unpackSections(rec, p);
        } catch (e) {
          report(`sections record of ${p.url} cannot be read (${e instanceof Error ? e.message : String(e)})`);
        }
      } else if (!p.lens && legacy) {
        let textOf = new Map<number, string>();
        const tr = textByUrl.get(p.url);
        if (tr) {
          try {
            const t = await unpackTexts(tr.z);
            textOf = new Map(tr.ids.map((id, i) => [id, t[i] ?? '']));
          } catch {
            report(`text record of ${p.url} does not decompress`);
          }
        }
        sections = p.chunkIds.map((id, i) => {
          const c = chunkById.get(id);
          const text = c?.text ?? textOf.get(id);
          if (!c || text === undefined) report(`chunk ${id} (${p.url}) has no ${c ? 'text' : 'record'}`);
          return { id, url: p.url, ord: i, headingPath: c?.headingPath ?? [], section: c?.section ?? '', anchor: c?.anchor ?? {}, ...(c?.parts ? { parts: c.parts } : {}), text: text ?? '' };
        });
      } else report(`page ${p.url} has no sections record`);
      if (!sections) {
        expected.unreadable.add(p.url);
        continue;
      }
      const lens: number[] = [];
      sections.forEach((s, i) => {
        const sp = sectionPostings(p.title, s, TOKENIZER);
        lens.push(sp.len);
        const storedLen = p.lens ? p.lens[i] : chunkById.get(s.id)?.len;
        if (storedLen !== sp.len) report(`chunk ${s.id} (${p.url}) length ${storedLen ?? 'missing'}, recomputed ${sp.len}`);
        for (const [t, tf] of sp.tfs) {
          let m = expected.postings.get(t);
          if (!m) expected.postings.set(t, (m = new Map()));
          m.set(s.id, tf);
        }
      });
      const tr = !rec && !p.lens ? textByUrl.get(p.url) : undefined;
      expected.pages.set(p.url, { page: p, sections, lens, ...(tr?.b ? { blocks: { b: tr.b, cv: tr.cv ?? '' } } : {}) });
      N += sections.length;
      totalLength += lens.reduce((a, b) => a + b, 0);
    }
    if (!expected.unreadable.size) {
      if ((stats?.N ?? 0) !== N) report(`stored N ${stats?.N ?? 0}, recomputed ${N}`);
      if ((stats?.totalLength ?? 0) !== totalLength) report(`stored total length ${stats?.totalLength ?? 0}, recomputed ${totalLength}`);
    }

    // The dictionary.
    const termOf = new Map<number, string>();
    termKeys.forEach((t, i) => {
      const id = termIds[i]!;
      if (termOf.has(id)) report(`term id ${id} names both ${termOf.get(id)} and ${t}`);
      termOf.set(id, t);
    });

    // What is stored, as term -> id -> tf: the main index (structure checked), legacy blocks, segments.
    const stored = new Map<string, Map<number, number>>();
    const add = (t: string, id: number, tf: number) => {
      let m = stored.get(t);
      if (!m) stored.set(t, (m = new Map()));
      const had = m.get(id);
      if (had !== undefined && had !== tf) report(`posting ${t} -> ${id} stored twice with tf ${had} and ${tf}`);
      m.set(id, tf);
    };
    const seenMain = new Map<number, Set<number>>();
    let lastTerm = -1;
    let lastId = -1;
    postingKeys.forEach(([termId, first], b) => {
      if (termId !== lastTerm) lastId = -1;
      lastTerm = termId;
      const term = termOf.get(termId);
      const label = `block ${term ?? `#${termId}`}/${first}`;
      let entries: PostingEntry[];
      try {
        entries = decodeBlock(blockFromValue(first, postingValues[b]!));
      } catch {
        report(`${label} is malformed`);
        return;
      }
      const next = postingKeys[b + 1];
      const nextKey = next && next[0] === termId ? next[1] : Infinity;
      let s = seenMain.get(termId);
      if (!s) seenMain.set(termId, (s = new Set()));
      for (const e of entries) {
        if (e.id < first) report(`${label} holds smaller id ${e.id}`);
        // Merges and sweeps find a term's blocks by key: ids must ascend, each block's below the next key.
        if (e.id <= lastId || e.id >= nextKey) report(`posting ${term ?? `#${termId}`} -> ${e.id} out of order`);
        lastId = e.id;
        if (s.has(e.id)) report(`posting ${term ?? `#${termId}`} -> ${e.id} duplicated`);
        s.add(e.id);
        if (term === undefined) {
          if (!dead.has(e.id)) report(`orphan posting: term id ${termId} is not in the dictionary (chunk ${e.id})`);
        } else add(term, e.id, e.tf);
      }
    });
    oldKeys.forEach(([term, first], b) => {
      const r = oldPostings[b]!;
      if (!(Number.isInteger(r.n) && r.n >= 1 && r.n <= BLOCK_SIZE && r.n * 3 <= (r.d?.length ?? 0))) {
        report(`legacy block ${term}/${first} is malformed`);
        return;
      }
      for (const e of decodeLegacyBlock({ first, n: r.n, data: r.d })) {
        add(term, e.id, e.tf);
        const p = owner.get(e.id);
        if (p && !dead.has(e.id)) {
          const len = p.lens ? p.lens[p.chunkIds.indexOf(e.id)] : chunkById.get(e.id)?.len;
          if (len !== e.len) report(`legacy posting ${term} -> ${e.id}: len ${e.len}, expected ${len}`);
        }
      }
    });
    segments.forEach((seg, i) => {
      try {
        decodeSegment(seg, seg.first, (t, list) => {
          for (const e of list) {
            if (e.id < seg.first || e.id >= seg.end) report(`segment ${segKeys[i]} holds id ${e.id} outside ${seg.first}..${seg.end - 1}`);
            add(t, e.id, e.tf);
          }
        });
      } catch {
        report(`segment ${segKeys[i]} is malformed`);
      }
    });

    for (const [t, m] of stored) {
      const want = expected.postings.get(t);
      for (const [id, tf] of m) {
        if (dead.has(id)) continue;
        const p = owner.get(id);
        if (!p) report(`orphan posting ${t} -> ${id}: no page holds section ${id}`);
        else if (expected.unreadable.has(p.url)) continue;
        else if (!want?.has(id)) report(`posting ${t} -> ${id} has no section with that term`);
        else if (want.get(id) !== tf) report(`posting ${t} -> ${id}: tf ${tf}, expected ${want.get(id)}`);
      }
    }
    for (const [t, want] of expected.postings) {
      const m = stored.get(t);
      let found = 0;
      for (const id of want.keys()) if (m?.has(id)) found++;
      if (found !== want.size) report(`term ${t}: df ${found}, expected ${want.size}`);
    }

    // Vectors and the queue.
    let vectorCount = 0;
    const vecSeen = new Set<string>();
    for (const b of vectors) {
      for (const id of b.ids) {
        if (dead.has(id)) continue; // swept later
        if (!b.m.includes('\u0000')) vectorCount++; // coarse blocks (vectorStore.coarseModel) repeat the ids
        if (!owner.has(id)) report(`vector ${b.m}/${id} has no section`);
        const key = `${b.m}/${id}`;
        if (vecSeen.has(key)) report(`vector ${key} duplicated`);
        vecSeen.add(key);
      }
    }
    for (const q of queue) {
      if (!owner.has(q.id)) report(`queued chunk ${q.id} does not exist`);
      if (vecSeen.has(`${q.model}/${q.id}`)) report(`chunk ${q.id} is queued and already embedded`);
    }

    // The page table's snapshot: what a worker loads instead of reading every page.
    const snapshotWrong = checkPageSnapshot(snapshot, snapshotColumns, logKeys, pages, report);

    if (repair && problems.length) await rebuild(engine, db, expected, stats, maxId, vectors, queue);
    if (repair && snapshotWrong) await rewritePageSnapshot(engine, db);
    return { ok: problems.length === 0, problems, checked: { chunks: owner.size, terms: expected.postings.size, vectors: vectorCount } };
  });
}

async function rebuild(
  engine: Engine,
  db: DB,
  expected: Expected,
  oldStats: StatsRecord | undefined,
  maxId: number,
  vectors: { m: string; f: number; dim: number; ids: Uint32Array; codes: Int8Array; scales: Float32Array }[],
  queue: { id: number; model: string }[],
): Promise<void> {
  // Section records for pages read from legacy records, compressed before the transaction opens.
  const packed = new Map<string, Uint8Array>();
  for (const { page, sections } of expected.pages.values()) if (!page.lens && sections.length) packed.set(page.url, await packSections(sections));
  const legacy = hasLegacy(db);
  const stores: StoreName[] = ['pages', 'sections', 'terms', 'postings', 'segments', 'tombstones', 'meta', 'vectors', 'embedQueue'];
  const tx = db.transaction(legacy ? [...stores, ...LEGACY_STORES] : stores, 'readwrite');
  const puts: Promise<unknown>[] = [];
  for (const s of ['terms', 'postings', 'segments', 'tombstones'] as const) puts.push(tx.objectStore(s).clear());
  if (legacy) for (const s of LEGACY_STORES) puts.push(tx.objectStore(s).clear());
  for (const k of [MERGE_KEY, SWEEP_KEY, MIGRATION_KEY]) puts.push(tx.objectStore('meta').delete(k));
  const stats = await readStats(tx);
  const counter = ((await tx.objectStore('meta').get(TERM_IDS_KEY)) as TermIdsRecord | undefined) ?? { next: 1 };
  // The dictionary and the blocks, from scratch.
  for (const [term, m] of expected.postings) {
    const id = counter.next++;
    puts.push(tx.objectStore('terms').put(id, term));
    const entries = [...m].map(([cid, tf]) => ({ id: cid, tf, len: 0 })).sort((a, b) => a.id - b.id);
    for (const b of appendToBlock(undefined, entries)) puts.push(tx.objectStore('postings').put(blockValue(b), [id, b.first]));
  }
  // Pages: lengths as recomputed; sections records for legacy pages; unreadable pages forgotten.
  let N = 0;
  let totalLength = 0;
  const live = new Set<number>();
  for (const { page, lens, blocks } of expected.pages.values()) {
    const z = packed.get(page.url);
    if (z) puts.push(tx.objectStore('sections').put({ url: page.url, z, ...blocks } satisfies SectionsRecord));
    if (z || page.lens?.join() !== lens.join()) puts.push(putPage(tx, { ...page, lens }));
    for (const id of page.chunkIds) live.add(id);
    N += lens.length;
    totalLength += lens.reduce((a, b) => a + b, 0);
  }
  for (const url of expected.unreadable) {
    puts.push(deletePage(tx, url), tx.objectStore('sections').delete(url));
    console.warn(`reread: repair forgot ${url}: its sections cannot be read`);
  }
  for (const r of await tx.objectStore('sections').getAllKeys()) if (!expected.pages.has(r)) puts.push(tx.objectStore('sections').delete(r));
  // The queue loses sections that are gone and sections already embedded for the model they wait for.
  const embedded = new Set(vectors.flatMap((b) => [...b.ids].map((id) => `${b.m}/${id}`)));
  for (const q of queue) if (!live.has(q.id) || embedded.has(`${q.model}/${q.id}`)) puts.push(tx.objectStore('embedQueue').delete(q.id));
  // Vectors of sections that are gone; their blocks are rewritten without them.
  for (const b of vectors) {
    const keep = [...b.ids].map((id, i) => ({ id, i })).filter((e) => live.has(e.id));
    if (keep.length === b.ids.length) continue;
    if (!keep.length) puts.push(tx.objectStore('vectors').delete([b.m, b.f]));
    else {
      const codes = new Int8Array(keep.length * b.dim);
      keep.forEach((e, j) => codes.set(b.codes.subarray(e.i * b.dim, (e.i + 1) * b.dim), j * b.dim));
      puts.push(tx.objectStore('vectors').put({ ...b, ids: Uint32Array.from(keep.map((e) => e.id)), codes, scales: Float32Array.from(keep.map((e) => b.scales[e.i]!)) }));
    }
  }
  puts.push(tx.objectStore('meta').put(counter, TERM_IDS_KEY));
  puts.push(tx.objectStore('meta').put({ N, totalLength, nextChunkId: Math.max(maxId + 1, oldStats?.nextChunkId ?? 1), nextSeq: stats.nextSeq } satisfies StatsRecord, 'stats'));
  await Promise.all(puts);
  await tx.done;
  forgetAllSections(db);
  engine.resetReaders();
}
