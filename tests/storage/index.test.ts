/**
 * The incremental index (adds, replaces, revisits, deletes, with merges and sweeps cut short at any step
 * and the worker restarted in between) must equal an index built from scratch on the pages that
 * survive: same postings per term, same statistics, same search results.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Search } from '../../src/bm25.js';
import type { Block } from '../../src/chunker.js';
import { BLOCK_SIZE } from '../../src/postings.js';
import type { DB } from '../../background/db.js';
import type { Engine } from '../../background/engine.js';
import { deletePages, writePage } from '../../background/pageStore.js';
import { verifyIndex } from '../../background/verify.js';
import { chunkNames, engineOn, freshDb, logicalIndex, pageInput, postingStructureProblems, readAll, settle } from './helpers.js';

const VOCAB = ['river', 'stone', 'bread', 'yeast', 'commit', 'rebase', 'kitten', 'litter', 'ERR_5041', 'getElementById', 'café', 'async', 'await', 'python', 'rust', 'ocean', 'mountain', 'garden'];
const QUERIES = [...VOCAB.map((w) => [w]), ['river', 'stone'], ['bread', 'yeast', 'commit'], ['err_5041', 'getelementbyid', 'cafe']];

const section = fc.array(fc.constantFrom(...VOCAB), { minLength: 20, maxLength: 45 }).map((ws) => ws.join(' '));
const content = fc.record({ title: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }).map((t) => t.join(' ')), sections: fc.array(section, { minLength: 1, maxLength: 3 }) });
type Content = { title: string; sections: string[] };

function blocksOf(c: Content): Block[] {
  return c.sections.flatMap((text, i): Block[] => [
    { kind: 'heading', text: `Part ${i + 1}`, level: 2, id: `part-${i + 1}` },
    { kind: 'text', text },
  ]);
}

const URLS = ['https://a.example/1', 'https://a.example/2', 'https://www.b.example/x', 'https://docs.b.example/y', 'https://c.example/z'];
type Op =
  | { kind: 'put'; url: number; version: number }
  | { kind: 'delete'; url: number }
  | { kind: 'deleteSite'; site: string }
  | { kind: 'search'; q: number }
  /** Maintenance steps (merge, sweep), then maybe a worker restart: a new engine, nothing in memory. */
  | { kind: 'steps'; n: number; restart: boolean }
  /**
   * One maintenance step with something else between a merge step's read-ahead and its write: a
   * capture, a forget (and a purge of what it left, as near the quota), another step, or a worker stop.
   */
  | { kind: 'interleave'; what: 'put' | 'delete' | 'purge' | 'step' | 'stop'; url: number; version: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), url: fc.nat(URLS.length - 1), version: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), url: fc.nat(URLS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteSite' as const), site: fc.constantFrom('a.example', 'b.example', 'docs.b.example') }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('search' as const), q: fc.nat(QUERIES.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('steps' as const), n: fc.integer({ min: 1, max: 40 }), restart: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('interleave' as const), what: fc.constantFrom('put' as const, 'delete' as const, 'purge' as const, 'step' as const, 'stop' as const), url: fc.nat(URLS.length - 1), version: fc.nat(2) }) },
);

/** An engine whose maintenance takes tiny steps (a merge spans many), run by hand. */
function smallSteps(db: DB): Engine {
  const engine = engineOn(db);
  engine.maintenance.fixSteps({ terms: 3, blocks: 2 });
  return engine;
}

/** Lexical scores of every chunk for each query, chunk ids replaced by url#ord. */
async function lexicalResults(engine: Engine, db: DB): Promise<string[][]> {
  const names = await chunkNames(db);
  const out: string[][] = [];
  for (const terms of QUERIES) {
    const [postings, stats] = await Promise.all([engine.lexical.postings(terms), engine.lexical.corpusStats()]);
    const hits = bm25Search(terms.map((term) => ({ term, postings: postings.get(term)! })), stats, { k: 1_000_000 });
    out.push(hits.map((h) => `${names.get(h.id)} ${h.score.toFixed(12)} ${[...h.terms].sort().join(',')}`).sort());
  }
  return out;
}

async function searchedUrls(engine: Engine): Promise<string[][]> {
  const out: string[][] = [];
  for (const terms of QUERIES) out.push((await engine.search({ q: terms.join(' '), limit: 200 })).results.map((r) => r.url).sort());
  return out;
}

describe('incremental index equals a rebuild', () => {
  it('through the engine: captures, replaces, revisits, deletes, site deletes, with warm caches (property)', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(content, { minLength: 3, maxLength: 3 }), { minLength: URLS.length, maxLength: URLS.length }), fc.array(op, { minLength: 1, maxLength: 25 }), async (versions, ops) => {
        const db = await freshDb();
        let engine = smallSteps(db);
        const live = new Map<string, Content>();
        let now = 1_700_000_000_000;
        for (const o of ops) {
          now += 60_000;
          if (o.kind === 'put') {
            const c = versions[o.url]![o.version]!;
            const res = await engine.capture(URLS[o.url]!, { title: c.title, lang: 'en', blocks: blocksOf(c) }, now);
            const prev = live.get(URLS[o.url]!);
            expect(res.outcome).toBe(!prev ? 'new' : prev === c ? 'revisit' : 'changed');
            live.set(URLS[o.url]!, c);
          } else if (o.kind === 'delete') {
            expect(await engine.deleteUrls([URLS[o.url]!])).toBe(live.delete(URLS[o.url]!) ? 1 : 0);
          } else if (o.kind === 'deleteSite') {
            await engine.deleteSite(o.site);
            for (const u of [...live.keys()]) if (new URL(u).hostname.replace(/^www\./, '').endsWith(o.site)) live.delete(u);
          } else if (o.kind === 'interleave') {
            const old = engine;
            let reached!: () => void;
            const at = new Promise<void>((r) => (reached = r));
            old.maintenance.afterReadAhead = async () => {
              old.maintenance.afterReadAhead = null;
              reached();
              if (o.what === 'stop') return new Promise<void>(() => undefined); // never goes on: the worker is gone
              if (o.what === 'put') {
                const c = versions[o.url]![o.version]!;
                await old.capture(URLS[o.url]!, { title: c.title, lang: 'en', blocks: blocksOf(c) }, now);
                live.set(URLS[o.url]!, c);
              } else if (o.what === 'step') await old.maintenance.step(true);
              else {
                await old.deleteUrls([URLS[o.url]!]);
                live.delete(URLS[o.url]!);
                if (o.what === 'purge') await old.exclusive(() => old.maintenance.purgeDeadLocked());
              }
            };
            const step = old.maintenance.step(true);
            if (o.what === 'stop') {
              await Promise.race([at, step]);
              engine = smallSteps(db);
            } else await step;
            old.maintenance.afterReadAhead = null;
          } else if (o.kind === 'steps') {
            for (let i = 0; i < o.n && (await engine.maintenance.step(true)); i++);
            if (o.restart) engine = smallSteps(db);
          } else {
            // Warms the caches with every query's terms (and searches the one drawn).
            await engine.lexical.postings(QUERIES.flat());
            await engine.search({ q: QUERIES[o.q]!.join(' ') });
          }
        }
        const scratchDb = await freshDb();
        const scratch = engineOn(scratchDb);
        for (const [url, c] of live) await scratch.capture(url, { title: c.title, lang: 'en', blocks: blocksOf(c) });

        expect(await logicalIndex(db)).toEqual(await logicalIndex(scratchDb));
        expect(await postingStructureProblems(db, BLOCK_SIZE)).toEqual([]);
        expect(await lexicalResults(engine, db)).toEqual(await lexicalResults(scratch, scratchDb));
        expect(await searchedUrls(engine)).toEqual(await searchedUrls(scratch));
        // A cold engine over the same database answers like the warm one.
        expect(await searchedUrls(engineOn(db))).toEqual(await searchedUrls(engine));
        expect((await verifyIndex(engine)).problems).toEqual([]);
        // Settled (everything merged and swept): the same again, and nothing of a forgotten page is left.
        await settle(engine);
        await settle(scratch);
        expect(await logicalIndex(db)).toEqual(await logicalIndex(scratchDb));
        expect(await searchedUrls(engineOn(db))).toEqual(await searchedUrls(scratch));
        const all = await readAll(db);
        expect([all.segments, all.tombstones]).toEqual([[], []]);
        expect(all.terms.map((t) => t.term).sort()).toEqual((await readAll(scratchDb)).terms.map((t) => t.term).sort());
        const liveIds = new Set(all.pages.flatMap((p) => p.chunkIds));
        for (const b of all.postings) for (const e of b.entries) expect(liveIds.has(e.id), `${b.term} -> ${e.id}`).toBe(true);
        expect((await verifyIndex(engine)).problems).toEqual([]);
        db.close();
        scratchDb.close();
      }),
      { numRuns: 25 },
    );
  });

  it('through the page store: pages big enough to split posting blocks (property)', { timeout: 120_000 }, async () => {
    // Every chunk has `common`, so its postings run over several blocks of BLOCK_SIZE.
    const chunkText = fc.array(fc.constantFrom(...VOCAB.slice(0, 8)), { minLength: 1, maxLength: 6 }).map((ws) => `common ${ws.join(' ')}`);
    const page = fc.record({ n: fc.integer({ min: 60, max: 350 }), texts: fc.array(chunkText, { minLength: 5, maxLength: 5 }) });
    const bigOp = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), url: fc.nat(3), version: fc.nat(1) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), urls: fc.subarray([0, 1, 2, 3], { minLength: 1 }) }) },
    );
    const textsOf = (p: { n: number; texts: string[] }) => Array.from({ length: p.n }, (_, i) => p.texts[i % p.texts.length]! + (i % 7 === 0 ? ' rare' : ''));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(page, { minLength: 2, maxLength: 2 }), { minLength: 4, maxLength: 4 }), fc.array(bigOp, { minLength: 3, maxLength: 12 }), async (versions, ops) => {
        const db = await freshDb();
        const live = new Map<string, string[]>();
        const url = (i: number) => `https://big.example/${i}`;
        for (const o of ops) {
          if (o.kind === 'put') {
            const texts = textsOf(versions[o.url]![o.version]!);
            await writePage(db, pageInput(url(o.url), `page ${o.url}`, texts, 1, 'model-a'), {});
            live.set(url(o.url), texts);
          } else {
            await deletePages(db, o.urls.map(url));
            for (const u of o.urls) live.delete(url(u));
          }
          // Merged after every write, so pages land on blocks that fill and split.
          await settle(engineOn(db));
        }
        const scratchDb = await freshDb();
        for (const [u, texts] of live) await writePage(scratchDb, pageInput(u, `page ${u.slice(-1)}`, texts, 1, 'model-a'), {});
        await settle(engineOn(scratchDb));
        expect(await logicalIndex(db)).toEqual(await logicalIndex(scratchDb));
        expect(await postingStructureProblems(db, BLOCK_SIZE)).toEqual([]);
        const engine = engineOn(db);
        expect(await lexicalResults(engine, db)).toEqual(await lexicalResults(engineOn(scratchDb), scratchDb));
        expect((await verifyIndex(engine)).problems).toEqual([]);
        db.close();
        scratchDb.close();
      }),
      { numRuns: 6 },
    );
  });
});
