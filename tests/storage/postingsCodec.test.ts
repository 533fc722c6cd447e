/**
 * A database whose posting blocks were written in the varint codec (every database before the packed
 * codec, src/postings.ts) keeps working: searches read its blocks, merges append to them and sweeps
 * remove from them (those become packed), and the index equals one built from scratch in the packed
 * codec, verifyIndex clean, with old and new blocks side by side.
 */
import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE, blockFromValue, blockValue, decodeBlock, encodeVarintBlock } from '../../src/postings.js';
import type { DB } from '../../background/db.js';
import type { Engine } from '../../background/engine.js';
import { deletePages, writePage } from '../../background/pageStore.js';
import { verifyIndex } from '../../background/verify.js';
import { chunkNames, engineOn, freshDb, logicalIndex, pageInput, postingStructureProblems, settle } from './helpers.js';

const WORDS = ['river', 'stone', 'bread', 'yeast', 'commit', 'rebase', 'kitten', 'ocean'];
/** `n` sections, each with `common` (so its postings fill several blocks) and a few other words. */
const texts = (seed: number, n: number) => Array.from({ length: n }, (_, i) => `common ${WORDS[(i * 3 + seed) % 8]} ${WORDS[(i * 5 + seed * 7) % 8]} ${WORDS[(i + seed) % 8]} ${i % 11 === 0 ? 'rare rare' : ''}`);
const QUERIES = ['common', 'river stone', 'rare', 'kitten ocean bread', 'yeast'];

/** Rewrites every stored block in the varint codec, as a database written before the packed codec holds them. */
async function toVarint(db: DB): Promise<number> {
  const tx = db.transaction('postings', 'readwrite');
  const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
  await Promise.all(keys.map((k, i) => tx.store.put(blockValue(encodeVarintBlock(decodeBlock(blockFromValue(k[1], values[i]!)), k[1])), k)));
  await tx.done;
  return keys.length;
}

async function codecs(db: DB): Promise<{ varint: number; packed: number }> {
  const values = await db.getAll('postings');
  const packed = values.filter((v) => v[0] === 0).length;
  return { varint: values.length - packed, packed };
}

/** Each query's postings by term, chunk ids named by page and position, as the lexical reader gives them. */
async function namedPostings(engine: Engine, db: DB): Promise<Record<string, string[]>> {
  const names = await chunkNames(db);
  const terms = [...new Set(QUERIES.flatMap((q) => q.split(' ')))];
  const lists = await engine.lexical.postings(terms);
  return Object.fromEntries(terms.map((t) => [t, Array.from(lists.get(t)!.ids, (id, i) => `${names.get(id)} tf=${lists.get(t)!.tfs[i]} len=${lists.get(t)!.lens[i]}`)]));
}

async function searched(engine: Engine): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of QUERIES) out.push((await engine.search({ q, limit: 200 })).results.map((r) => `${r.url} ${r.score.toFixed(9)}`));
  return out;
}

describe('a database of varint blocks', () => {
  it('is read, appended to, swept and verified like a packed one', { timeout: 120_000 }, async () => {
    const url = (i: number) => `https://old.example/${i}`;
    const db = await freshDb();
    for (let i = 0; i < 4; i++) await writePage(db, pageInput(url(i), `page ${i}`, texts(i, 300), 1, 'model-a'), {});
    await settle(engineOn(db));
    const blocks = await toVarint(db);
    expect(await codecs(db)).toEqual({ varint: blocks, packed: 0 });
    expect((await db.getAll('postings')).some((v) => decodeBlock(blockFromValue(0, v)).length === BLOCK_SIZE)).toBe(true);

    // The same pages in a fresh database, packed.
    const fresh = await freshDb();
    for (let i = 0; i < 4; i++) await writePage(fresh, pageInput(url(i), `page ${i}`, texts(i, 300), 1, 'model-a'), {});
    await settle(engineOn(fresh));
    expect((await codecs(fresh)).varint).toBe(0);
    expect(await logicalIndex(db)).toEqual(await logicalIndex(fresh));
    expect(await namedPostings(engineOn(db), db)).toEqual(await namedPostings(engineOn(fresh), fresh));
    expect(await searched(engineOn(db))).toEqual(await searched(engineOn(fresh)));
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);

    // New pages merged onto the old tails, a page forgotten and swept out of old full blocks.
    for (let i = 4; i < 6; i++) await writePage(db, pageInput(url(i), `page ${i}`, texts(i, 120), 1, 'model-a'), {});
    await deletePages(db, [url(3)]);
    const engine = engineOn(db);
    await settle(engine);
    const mixed = await codecs(db);
    expect(mixed.varint).toBeGreaterThan(0); // blocks nothing touched stay as they were
    expect(mixed.packed).toBeGreaterThan(0);

    const scratch = await freshDb();
    for (const i of [0, 1, 2]) await writePage(scratch, pageInput(url(i), `page ${i}`, texts(i, 300), 1, 'model-a'), {});
    for (let i = 4; i < 6; i++) await writePage(scratch, pageInput(url(i), `page ${i}`, texts(i, 120), 1, 'model-a'), {});
    await settle(engineOn(scratch));
    expect(await logicalIndex(db)).toEqual(await logicalIndex(scratch));
    expect(await postingStructureProblems(db, BLOCK_SIZE)).toEqual([]);
    expect(await namedPostings(engine, db)).toEqual(await namedPostings(engineOn(scratch), scratch));
    expect(await searched(engineOn(db))).toEqual(await searched(engineOn(scratch)));
    expect((await verifyIndex(engine)).problems).toEqual([]);
    db.close();
    fresh.close();
    scratch.close();
  });
});
