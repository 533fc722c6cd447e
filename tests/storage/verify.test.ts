import { beforeAll, describe, expect, it } from 'vitest';
import { bm25Search } from '../../src/bm25.js';
import { blockFromValue, blockValue, decodeBlock, encodeBlock } from '../../src/postings.js';
import type { DB } from '../../background/db.js';
import { writePage } from '../../background/pageStore.js';
import { verifyIndex } from '../../background/verify.js';
import { storeVectors } from '../../background/vectorStore.js';
import { chunkNames, cloneDb, engineOn, freshDb, logicalIndex, pageInput, readAll, settle } from './helpers.js';

const WORDS = 'river stone bread yeast commit rebase kitten litter ocean garden'.split(' ');
const text = (seed: number, n = 30) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * (seed % 3 + 1)) % WORDS.length]).join(' ');

/**
 * Ten pages, 600 chunks containing `river` (so its postings span two blocks), merged into the main
 * index but for the last page (a pending segment), some vectors and a queue.
 */
async function build(): Promise<DB> {
  const db = await freshDb();
  for (let p = 0; p < 10; p++) {
    const texts = Array.from({ length: p === 0 ? 600 : 3 }, (_, i) => `${text(p + i)} river`);
    await writePage(db, pageInput(`https://site${p % 3}.example/p${p}`, `Page ${p}`, texts, 1_700_000_000_000 + p, 'm'), {});
    if (p === 8) await settle(engineOn(db));
  }
  const queued = (await db.getAll('embedQueue')).slice(0, 40);
  const entries = queued.map((q) => ({ id: q.id, codes: Int8Array.from([q.id % 100, 1, -1, 2]), scale: 0.01 }));
  await storeVectors(db, 'm', 4, entries, queued.map((q) => q.id));
  return db;
}

let fixture: DB;
beforeAll(async () => {
  fixture = await build();
});
const populated = () => cloneDb(fixture);

async function results(db: DB): Promise<string[]> {
  const engine = engineOn(db);
  const names = await chunkNames(db);
  const out: string[] = [];
  for (const q of [['river'], ['bread', 'yeast'], ['kitten', 'garden', 'page']]) {
    const [postings, stats] = await Promise.all([engine.lexical.postings(q), engine.lexical.corpusStats()]);
    const hits = bm25Search(q.map((term) => ({ term, postings: postings.get(term)! })), stats, { k: 10_000 });
    out.push(...hits.map((h) => `${q.join('+')} ${names.get(h.id)} ${h.score.toFixed(12)}`));
  }
  return out.sort();
}

/** Corrupts, checks verify reports it, repairs, checks verify is clean and search is as before. */
async function corruptAndRepair(corrupt: (db: DB) => Promise<void>, expectProblem: RegExp, lostChunk?: (db: DB) => Promise<string>) {
  const db = await populated();
  const engine = engineOn(db);
  expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
  let before = await results(db);
  const logical = await logicalIndex(db);
  if (lostChunk) {
    const name = await lostChunk(db);
    before = before.filter((r) => r.split(' ')[1] !== name);
  }
  await corrupt(db);
  const report = await verifyIndex(engineOn(db));
  expect(report.ok).toBe(false);
  expect(report.problems.some((p) => expectProblem.test(p)), report.problems.join('\n')).toBe(true);
  const repaired = await verifyIndex(engine, true);
  expect(repaired.ok).toBe(false); // the report is of what was found
  expect((await verifyIndex(engine)).problems).toEqual([]);
  const after = await results(db);
  if (!lostChunk) expect(after).toEqual(before);
  else {
    // Scores move a little (N and the average length changed); the documents found do not.
    const docs = (rs: string[]) => rs.map((r) => r.split(' ').slice(0, 2).join(' '));
    expect(docs(after)).toEqual(docs(before));
  }
  return { db, logical };
}

/** The main index's blocks of a term: keys and decoded blocks. */
async function blocksOf(db: DB, term: string) {
  const id = (await db.get('terms', term))!;
  const range = IDBKeyRange.bound([id, 0], [id, Infinity]);
  const [keys, values] = await Promise.all([db.getAllKeys('postings', range), db.getAll('postings', range)]);
  return keys.map((k, i) => ({ key: k, id, block: blockFromValue(k[1], values[i]!) }));
}

describe('verifyIndex', { timeout: 30_000 }, () => {
  it('reports ok on a healthy index and counts what it checked', async () => {
    const db = await populated();
    const report = await verifyIndex(engineOn(db));
    expect(report.ok).toBe(true);
    expect(report.checked.chunks).toBe(600 + 27);
    expect(report.checked.vectors).toBe(40);
    expect(report.checked.terms).toBeGreaterThan(10);
  });

  it('finds and repairs a wrong term frequency in a posting block', async () => {
    await corruptAndRepair(async (db) => {
      const [b] = await blocksOf(db, 'river');
      const entries = decodeBlock(b!.block);
      entries[3]!.tf += 1;
      await db.put('postings', blockValue(encodeBlock(entries, b!.block.first)), b!.key);
    }, /posting river -> \d+: tf/);
  });

  it('finds and repairs a lost posting block', async () => {
    const { db, logical } = await corruptAndRepair(async (db) => {
      const blocks = await blocksOf(db, 'river');
      expect(blocks.length).toBeGreaterThanOrEqual(2);
      await db.delete('postings', blocks[1]!.key);
    }, /term river: df \d+, expected 627/);
    expect(await logicalIndex(db)).toEqual(logical);
  });

  it('finds and repairs a block with a garbled header without throwing', async () => {
    await corruptAndRepair(async (db) => {
      const [b] = await blocksOf(db, 'river');
      const value = blockValue(b!.block);
      value[0] = 0xff; // a count far beyond what the bytes hold
      await db.put('postings', value, b!.key);
    }, /block river\/\d+ is malformed/);
  });

  it('finds and repairs blocks whose ids overlap', async () => {
    await corruptAndRepair(async (db) => {
      const blocks = await blocksOf(db, 'river');
      const a = decodeBlock(blocks[0]!.block);
      const b = decodeBlock(blocks[1]!.block);
      // Move the second block's first entry to the end of the first block (which drops its own first).
      await db.put('postings', blockValue(encodeBlock([...a.slice(1), b[0]!], blocks[0]!.block.first)), blocks[0]!.key);
      await db.put('postings', blockValue(encodeBlock(b.slice(1), blocks[1]!.block.first)), blocks[1]!.key);
    }, /out of order/);
  });

  it('finds and repairs wrong statistics', async () => {
    await corruptAndRepair(async (db) => {
      const s = (await db.get('meta', 'stats')) as { N: number; totalLength: number; nextChunkId: number };
      await db.put('meta', { N: s.N + 3, totalLength: s.totalLength - 1, nextChunkId: 2 }, 'stats');
    }, /stored N/);
  });

  it('finds and repairs wrong section lengths and a stale queue', async () => {
    const { db } = await corruptAndRepair(async (db) => {
      const [page] = await db.getAll('pages');
      await db.put('pages', { ...page!, lens: page!.lens!.map((l) => l + 1) });
      await db.put('embedQueue', { id: 888_888, model: 'm' });
      const [vec] = await db.getAll('vectors');
      await db.put('embedQueue', { id: vec!.ids[0]!, model: 'm' });
    }, /length \d+, recomputed/);
    const all = await readAll(db);
    expect(all.queue.some((q) => q.id === 888_888)).toBe(false);
  });

  it('finds and repairs a malformed segment, a tombstone over a live page, and a dictionary id named twice', async () => {
    for (const [corrupt, problem] of [
      [async (db: DB) => {
        const [key] = await db.getAllKeys('segments');
        const seg = (await db.get('segments', key!))!;
        await db.put('segments', { ...seg, d: seg.d.subarray(0, 5) }, key!);
      }, /segment \d+ is malformed/],
      [async (db: DB) => {
        const [page] = await db.getAll('pages');
        await db.put('tombstones', { first: page!.chunkIds[0]!, end: page!.chunkIds[0]! + 1, at: 1 }, 999);
      }, /is live but forgotten by a tombstone/],
      [async (db: DB) => {
        await db.put('terms', (await db.get('terms', 'river'))!, 'riverbis');
      }, /term id \d+ names both/],
    ] as const) {
      const db = await populated();
      expect((await readAll(db)).segments.length).toBe(1);
      await corrupt(db);
      const report = await verifyIndex(engineOn(db));
      expect(report.problems.some((p) => problem.test(p)), report.problems.join('\n')).toBe(true);
      await verifyIndex(engineOn(db), true);
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
    }
  });

  it('a page whose sections cannot be read is reported, and forgotten by repair (nothing of it can be shown)', async () => {
    const db = await populated();
    const [page] = await db.getAll('pages');
    await db.put('sections', { url: page!.url, z: Uint8Array.from([9, 9, 9]) });
    expect((await verifyIndex(engineOn(db))).problems.some((p) => p.startsWith(`sections record of ${page!.url} cannot be read`))).toBe(true);
    await verifyIndex(engineOn(db), true);
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
    expect(await db.get('pages', page!.url)).toBeUndefined();
  });

  it('reports vectors and queue entries without chunks', async () => {
    const db = await populated();
    await db.put('vectors', { m: 'm', f: 900_000, dim: 4, ids: Uint32Array.from([900_000]), codes: new Int8Array(4), scales: Float32Array.from([1]) });
    const report = await verifyIndex(engineOn(db));
    expect(report.problems).toContain('vector m/900000 has no section');
    await verifyIndex(engineOn(db), true);
    expect((await verifyIndex(engineOn(db))).ok).toBe(true);
  });
});
