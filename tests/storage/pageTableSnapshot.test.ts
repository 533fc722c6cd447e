/**
 * The page table's snapshot (background/pageLog.ts, issue 17): a worker that loads the table from the
 * snapshot and the pages logged since holds exactly what reading every page gives — pages, section
 * lengths (the norms), owners — after captures, re-captures, revisits, title-only entries, forgets,
 * merges and sweeps, with the snapshot written at any point in between (a stop anywhere); a snapshot
 * that disagrees with the store is detected and the full read takes over; a forgotten page leaves
 * nothing in the snapshot or the log. The snapshot is two records: the core (URLs, ids, lengths) makes
 * the norms and owners without building a page object, the columns make a page object when one is
 * asked for (owners, what a result's sections are read by, need only the core); a snapshot of the
 * first form (one record) still loads, and is written again. The store's page count (slow to count at
 * 50,000 pages) is checked after the load, not before it.
 */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import type { DB, PageRecord, StatsRecord } from '../../background/db.js';
import type { ParsedQuery } from '../../src/query.js';
import type { Engine } from '../../background/engine.js';
import { COLUMNS_KEY, encodeSnapshot, forEachSection, LOG_RANGE, loggedUrls, pageIds, putPage, SNAPSHOT_KEY, SNAPSHOT_VERSION, type SnapshotColumns, type SnapshotCore, type SnapshotV1 } from '../../background/pageLog.js';
import { PageTable, type PageMeta } from '../../background/pageTable.js';
import { markFetchSkipped, recordVisit, writeTitlePages } from '../../background/pageStore.js';
import { TOKENIZER } from '../../src/indexing.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb, settle } from './helpers.js';

const blocks = (topic: string, n: number, extra = ''): Block[] =>
  Array.from({ length: n }, (_, i) => [
    { kind: 'heading' as const, text: `${topic} part ${i}`, level: 2 as const },
    { kind: 'text' as const, text: `${topic} is what part ${i} of this page is about, ${'words '.repeat(3 + ((i * 7) % 11))}${extra} and more text about ${topic} so the section is long enough to keep` },
  ]).flat();

/** What reading every page record gives: the table as the full load builds it. */
async function expected(db: DB) {
  const all = await db.getAll('pages');
  const pages = new Map(all.map((p) => [p.url, { url: p.url, site: p.site, title: p.title, lastVisit: p.lastVisit, firstVisit: p.firstVisit, visitCount: p.visitCount, chunkIds: p.chunkIds, visits: p.visits, kind: p.kind, fetchSkipped: p.fetchSkipped }]));
  const norms = new Map<number, number>();
  const owner = new Map<number, string>();
  for (const p of all)
    p.chunkIds.forEach((id, i) => {
      norms.set(id, p.lens![i]!);
      owner.set(id, p.url);
    });
  return { pages, norms, owner };
}

/** The table a fresh worker's engine loads (the snapshot path when there is one), as plain values. */
async function loaded(engine: Engine, maxId: number) {
  engine.pages.reset();
  const all = await engine.pages.all();
  const pages = new Map([...all].map(([url, m]) => [url, { url: m.url, site: m.site, title: m.title, lastVisit: m.lastVisit, firstVisit: m.firstVisit, visitCount: m.visitCount, chunkIds: m.chunkIds, visits: m.visits, kind: m.kind, fetchSkipped: m.fetchSkipped }]));
  const normsTable = await engine.pages.norms();
  const owners = await engine.pages.owners();
  const norms = new Map<number, number>();
  const owner = new Map<number, string>();
  for (let id = 0; id <= maxId; id++) {
    if (normsTable.get(id)) norms.set(id, normsTable.get(id));
    const o = owners(id);
    if (o) owner.set(id, o.url);
  }
  return { pages, norms, owner, from: engine.pages.lastLoad?.from };
}

async function same(db: DB, engine: Engine): Promise<'snapshot' | 'full' | undefined> {
  const want = await expected(db);
  const maxId = Math.max(0, ...want.norms.keys()) + 5;
  const got = await loaded(engine, maxId);
  const sorted = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => a.localeCompare(b));
  expect(sorted(got.pages)).toEqual(sorted(want.pages));
  expect(got.norms).toEqual(want.norms);
  expect(got.owner).toEqual(want.owner);
  return got.from;
}

const T0 = 1_700_000_000_000;

describe('page table snapshot', () => {
  it('loads what the full read gives, with the snapshot written at every point of a history of writes', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    // Each step is one kind of write; after each, the table is loaded (a fresh worker) and compared,
    // then the snapshot is written (maintenance) on every other step, so loads see snapshots of every
    // age with logs of every length.
    const steps: (() => Promise<unknown>)[] = [
      ...Array.from({ length: 6 }, (_, i) => () => engine.capture(`https://a.example/${i}`, { title: `Page ${i}`, lang: 'en', blocks: blocks(`topic${i}`, 1 + (i % 3)) }, T0 + i * 1000)),
      () => engine.capture('https://a.example/2', { title: 'Page 2 again', lang: 'en', blocks: blocks('changed', 4, 'new words') }, T0 + 10_000), // re-capture, new content
      () => engine.capture('https://a.example/3', { title: 'Page 3', lang: 'en', blocks: blocks('topic3', 1) }, T0 + 11_000), // revisit, same content
      () => recordVisit(db, 'https://a.example/4', T0 + 12_000),
      () => writeTitlePages(db, [{ url: 'https://b.example/t', site: 'b.example', title: 'A title only', text: 'b example t', lastVisit: T0 + 13_000, visitCount: 2, hash: 'h1' }], TOKENIZER, null).then((r) => engine.applyWrite(r)),
      () => markFetchSkipped(db, 'https://b.example/t', 'no text', T0 + 14_000),
      () => settle(engine), // merges (and a snapshot)
      () => engine.deleteUrls(['https://a.example/1']),
      () => engine.capture('https://a.example/7', { title: 'Page 7', lang: 'en', blocks: blocks('topic7', 2) }, T0 + 15_000),
      () => settle(engine), // sweep
      () => engine.capture('https://a.example/1', { title: 'Page 1 back', lang: 'en', blocks: blocks('topic1', 2) }, T0 + 16_000),
    ];
    const froms: string[] = [];
    for (const [i, step] of steps.entries()) {
      await step();
      froms.push((await same(db, engine))!);
      if (i % 2 === 1) await engine.pages.writeSnapshot(db);
    }
    // The snapshot path was taken (a delete drops the snapshot: the full read until the next one).
    expect(froms.filter((f) => f === 'snapshot').length).toBeGreaterThanOrEqual(8);
    await settle(engine);
    expect(await same(db, engine)).toBe('snapshot');
    expect(engine.pages.lastLoad).toEqual({ from: 'snapshot', logged: 0, version: SNAPSHOT_VERSION });
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
  });

  it('maintenance writes the snapshot: missing, or once enough pages were written since', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://a.example/0', { title: 'Zero', lang: 'en', blocks: blocks('zero', 2) }, T0);
    expect(await db.get('meta', SNAPSHOT_KEY)).toBeUndefined();
    expect(await engine.pages.snapshotWanted(db)).toBe(true); // none yet
    await engine.maintenance.run();
    expect(await db.get('meta', SNAPSHOT_KEY)).toBeDefined();
    await engine.capture('https://a.example/1', { title: 'One', lang: 'en', blocks: blocks('one', 2) }, T0 + 1);
    expect(loggedUrls(await db.getAllKeys('meta', LOG_RANGE()))).toEqual(['https://a.example/1']);
    expect(await engine.pages.snapshotWanted(db)).toBe(false); // one logged page: cheaper to read at load
    expect(await engine.pages.snapshotWanted(db, true)).toBe(true);
    expect(await same(db, engine)).toBe('snapshot');
    expect(engine.pages.lastLoad?.logged).toBe(1);
  });

  it('a stop before the snapshot commits leaves the old snapshot and its log, which still load right', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 4; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i);
    await engine.pages.writeSnapshot(db);
    await engine.capture('https://a.example/9', { title: 'P9', lang: 'en', blocks: blocks('t9', 3) }, T0 + 9);
    // The maintenance transaction, cut off after its writes were issued (the worker stopped).
    const tx = db.transaction(['pages', 'meta'], 'readwrite');
    void tx.objectStore('meta').put({ v: 1, urls: [], sites: [], titles: [] }, SNAPSHOT_KEY).catch(() => undefined);
    void tx.objectStore('meta').delete(LOG_RANGE()).catch(() => undefined);
    tx.abort();
    await tx.done.catch(() => undefined);
    expect(await same(db, engine)).toBe('snapshot');
    expect(engine.pages.lastLoad?.logged).toBe(1);
  });

  it('a page written past the log is detected: the full read takes over, and maintenance writes the snapshot again', async () => {
    for (const bypass of ['new page', 'changed lengths', 'later visit', 'deleted page'] as const) {
      const db = await freshDb();
      const engine = engineOn(db);
      for (let i = 0; i < 3; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i * 1000);
      await engine.pages.writeSnapshot(db);
      const p = (await db.get('pages', 'https://a.example/1'))!;
      const stats = (await db.get('meta', 'stats')) as StatsRecord;
      // Written as an older build (or a bug) would: straight to the store with the statistics, no log entry.
      if (bypass === 'new page') {
        await db.put('pages', { ...p, url: 'https://a.example/x', chunkIds: [stats.nextChunkId], lens: [7] });
        await db.put('meta', { ...stats, N: stats.N + 1, totalLength: stats.totalLength + 7, nextChunkId: stats.nextChunkId + 1 }, 'stats');
      } else if (bypass === 'changed lengths') {
        await db.put('pages', { ...p, lens: p.lens!.map((l) => l + 1) });
        await db.put('meta', { ...stats, totalLength: stats.totalLength + p.lens!.length }, 'stats');
      } else if (bypass === 'later visit') await db.put('pages', { ...p, lastVisit: T0 + 99_000 });
      else {
        await db.delete('pages', p.url);
        await db.put('meta', { ...stats, N: stats.N - p.chunkIds.length, totalLength: stats.totalLength - p.lens!.reduce((a, b) => a + b, 0) }, 'stats');
      }
      engine.pages.reset();
      await engine.pages.all();
      expect(engine.pages.lastLoad?.from, bypass).toBe('full');
      expect(await engine.pages.snapshotWanted(db), bypass).toBe(true);
      await engine.pages.writeSnapshot(db);
      expect(await same(db, engine), bypass).toBe('snapshot');
    }
  });

  it('a write that commits while the table loads is in the loaded table', async () => {
    for (const snapshot of [true, false]) {
      const db = await freshDb();
      const engine = engineOn(db);
      for (let i = 0; i < 3; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i);
      if (snapshot) await engine.pages.writeSnapshot(db);
      engine.pages.reset();
      // The load's read transaction starts first; the capture and the delete commit while it runs.
      const load = engine.pages.all();
      await Promise.all([engine.capture('https://a.example/new', { title: 'New', lang: 'en', blocks: blocks('fresh', 3) }, T0 + 50), engine.deleteUrls(['https://a.example/0'])]);
      const table = await load;
      expect(table.has('https://a.example/new'), `snapshot ${snapshot}`).toBe(true);
      expect(table.has('https://a.example/0'), `snapshot ${snapshot}`).toBe(false);
      const want = await expected(db);
      const norms = await engine.pages.norms();
      for (const [id, len] of want.norms) expect(norms.get(id)).toBe(len);
    }
    // Deterministically: the load's read does not see a write that is reported to the table meanwhile.
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://a.example/0', { title: 'P0', lang: 'en', blocks: blocks('t0', 2) }, T0);
    await engine.capture('https://a.example/1', { title: 'P1', lang: 'en', blocks: blocks('t1', 2) }, T0 + 1);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const table = new PageTable(async () => {
      await gate;
      return db;
    });
    const load = table.all();
    const late = { ...(await db.get('pages', 'https://a.example/1'))!, url: 'https://a.example/late', chunkIds: [99], lens: [5] };
    table.put(late);
    table.remove('https://a.example/0');
    open();
    const got = await load;
    expect([...got.keys()].sort()).toEqual(['https://a.example/1', 'https://a.example/late']);
    expect((await table.norms()).get(99)).toBe(5);
  });

  it('forgetting a page leaves neither its URL nor its title in the snapshot or the log', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://secret.example/diary', { title: 'My diary', lang: 'en', blocks: blocks('diary', 2) }, T0);
    await engine.capture('https://a.example/kept', { title: 'Kept', lang: 'en', blocks: blocks('kept', 2) }, T0 + 1);
    await engine.pages.writeSnapshot(db);
    await engine.capture('https://secret.example/diary', { title: 'My diary', lang: 'en', blocks: blocks('diary', 3, 'more') }, T0 + 2);
    await engine.deleteSite('secret.example');
    await settle(engine);
    const metaDump = JSON.stringify(await db.getAll('meta')) + JSON.stringify(await db.getAllKeys('meta'));
    expect(metaDump).not.toContain('secret.example');
    expect(metaDump).not.toContain('My diary');
    expect(await same(db, engine)).toBe('snapshot');
  });

  it('the core alone gives the norms and owners; pages are built when asked for, filters need none built', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 6; i++) await engine.capture(`https://${i % 2 ? 'odd' : 'even'}.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 1 + (i % 3)) }, T0 + i * 1000);
    await engine.pages.writeSnapshot(db);
    const want = await expected(db);
    engine.pages.reset();
    const norms = await engine.pages.norms();
    expect(engine.pages.lastLoad?.from).toBe('snapshot');
    for (const [id, len] of want.norms) expect(norms.get(id)).toBe(len);
    expect(engine.pages.unbuiltPages).toBe(6); // no page object for the norms
    // Filters on the columns: the same ids as on a table read page by page, and still nothing built.
    const queries = [{ sites: ['odd.example'] }, { excludeSites: ['odd.example'] }, { after: T0 + 2500 }, { before: T0 + 2500, sites: ['even.example'] }];
    const full = new PageTable(() => Promise.resolve(db), { snapshot: false });
    for (const q of queries) {
      const parsed = { text: '', phrases: [], excludeWords: [], excludePhrases: [], sites: [], excludeSites: [], ...q } as unknown as ParsedQuery;
      const got = await engine.pages.allowedChunks(parsed, 'https://even.example/4');
      expect([...got!].sort(), JSON.stringify(q)).toEqual([...(await full.allowedChunks(parsed, 'https://even.example/4'))!].sort());
      expect(got!.size).toBeGreaterThan(0);
    }
    expect(engine.pages.unbuiltPages).toBe(6);
    // A result's owner builds its page alone.
    const owners = await engine.pages.owners();
    const id = want.pages.get('https://odd.example/3')!.chunkIds[0]!;
    expect(owners(id)).toEqual(expect.objectContaining({ url: 'https://odd.example/3', title: 'P3', site: 'odd.example' }));
    expect(engine.pages.unbuiltPages).toBe(5);
    // Writes to pages not built yet, then the whole table is what the full read gives.
    await engine.capture('https://even.example/2', { title: 'P2 changed', lang: 'en', blocks: blocks('changed', 2) }, T0 + 20_000);
    await engine.deleteUrls(['https://odd.example/5']);
    engine.pages.hide(['https://even.example/0']);
    const q = { text: '', phrases: [], excludeWords: [], excludePhrases: [], sites: ['even.example'], excludeSites: [] } as unknown as ParsedQuery;
    const allowed = await engine.pages.allowedChunks(q);
    expect([...allowed!].sort((a, b) => a - b)).toEqual([...(await db.getAll('pages')).filter((p) => p.site === 'even.example' && p.url !== 'https://even.example/0').flatMap((p) => p.chunkIds)].sort((a, b) => a - b));
    expect(await engine.pages.get('https://even.example/0')).toBeUndefined();
    engine.pages.unhide(['https://even.example/0']);
    const after = await expected(db);
    const all = await engine.pages.all();
    const fields = (m: PageMeta) => stripUndefined({ url: m.url, site: m.site, title: m.title, lastVisit: m.lastVisit, firstVisit: m.firstVisit, visitCount: m.visitCount, chunkIds: m.chunkIds, visits: m.visits, kind: m.kind, fetchSkipped: m.fetchSkipped });
    const sorted = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => a.localeCompare(b));
    expect(sorted(new Map([...all].map(([u, m]) => [u, fields(m)])))).toEqual(sorted(new Map([...after.pages].map(([u, m]) => [u, fields(m as PageMeta)]))));
    expect(engine.pages.unbuiltPages).toBe(0);
    const n2 = await engine.pages.norms();
    for (const [i, len] of after.norms) expect(n2.get(i)).toBe(len);
    for (const [i] of want.norms) if (!after.norms.has(i)) expect(n2.get(i)).toBe(0);
  });

  it('a snapshot of the first form (one record) loads what the full read gives, and maintenance writes it again', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 5; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 1 + (i % 3)) }, T0 + i * 1000);
    await writeTitlePages(db, [{ url: 'https://b.example/t', site: 'b.example', title: 'A title only', text: 'b example t', lastVisit: T0 + 13_000, visitCount: 2, hash: 'h1' }], TOKENIZER, null).then((r) => engine.applyWrite(r));
    await markFetchSkipped(db, 'https://b.example/t', 'no text', T0 + 14_000);
    await settle(engine);
    // As the build before this one left it: one record, every id listed, no columns record.
    const pages = await db.getAll('pages');
    const tx = db.transaction(['meta'], 'readwrite');
    await Promise.all([tx.objectStore('meta').delete(LOG_RANGE()), tx.objectStore('meta').put(snapshotV1(pages), SNAPSHOT_KEY)]);
    await tx.done;
    await engine.capture('https://a.example/9', { title: 'P9', lang: 'en', blocks: blocks('t9', 2) }, T0 + 30_000); // logged since
    expect(await same(db, engine)).toBe('snapshot');
    expect(engine.pages.lastLoad).toEqual({ from: 'snapshot', logged: 1, version: 1 });
    expect(await engine.pages.snapshotWanted(db)).toBe(true);
    await engine.maintenance.run();
    expect(((await db.get('meta', SNAPSHOT_KEY)) as { v: number }).v).toBe(SNAPSHOT_VERSION);
    expect(await same(db, engine)).toBe('snapshot');
    expect(engine.pages.lastLoad).toEqual({ from: 'snapshot', logged: 0, version: SNAPSHOT_VERSION });
    expect(await engine.pages.snapshotWanted(db, true)).toBe(false);
  });

  it('columns missing or of another snapshot: the pages are read from the store, and the snapshot is written again', async () => {
    for (const damage of ['missing', 'another snapshot'] as const) {
      const db = await freshDb();
      const engine = engineOn(db);
      for (let i = 0; i < 4; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i);
      await engine.pages.writeSnapshot(db);
      if (damage === 'missing') await db.delete('meta', COLUMNS_KEY);
      else await db.put('meta', encodeSnapshot(await db.getAll('pages'), 12345).columns, COLUMNS_KEY);
      const from = await same(db, engine);
      expect(from, damage).toBe(damage === 'missing' ? 'full' : 'snapshot');
      expect(await engine.pages.snapshotWanted(db), damage).toBe(true);
      await engine.pages.writeSnapshot(db);
      expect(await same(db, engine), damage).toBe('snapshot');
      expect(await engine.pages.snapshotWanted(db, true), damage).toBe(false);
    }
  });

  it('verifyIndex compares the snapshot with the store, page by page; repair writes a wrong one again', async () => {
    type Damage = 'title' | 'older visit' | 'forgotten page listed' | 'swapped sites' | 'columns of another snapshot' | 'unknown version' | 'columns without core';
    // The first four load as if right (the loader checks only totals): what a search would then get wrong.
    const silent: Damage[] = ['title', 'older visit', 'forgotten page listed', 'swapped sites'];
    const all: Damage[] = [...silent, 'columns of another snapshot', 'unknown version', 'columns without core'];
    for (const damage of all) {
      const db = await freshDb();
      const engine = engineOn(db);
      for (let i = 0; i < 4; i++) await engine.capture(`https://${i % 2 ? 'a' : 'b'}.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i * 86_400_000);
      await engine.pages.writeSnapshot(db);
      await engine.capture('https://a.example/9', { title: 'P9', lang: 'en', blocks: blocks('t9', 2) }, T0 + 9 * 86_400_000); // logged since
      expect((await verifyIndex(engine)).problems, damage).toEqual([]);
      const pages = await db.getAll('pages');
      const core = (await db.get('meta', SNAPSHOT_KEY)) as SnapshotCore;
      const columns = (await db.get('meta', COLUMNS_KEY)) as SnapshotColumns;
      const at = (url: string) => core.urls.indexOf(url);
      if (damage === 'title') columns.titles[at('https://a.example/1')] = 'Not the title';
      else if (damage === 'older visit') core.lastVisit[at('https://b.example/2')] = T0 - 30 * 86_400_000;
      else if (damage === 'swapped sites') {
        const [x, y] = [at('https://a.example/1'), at('https://b.example/2')];
        [columns.sites[x], columns.sites[y]] = [columns.sites[y]!, columns.sites[x]!];
      }
      else if (damage === 'forgotten page listed') {
        // A forgotten page's URL and title left behind (a page without sections: no total moves).
        const stale = { ...pages[0]!, url: 'https://gone.example/secret', title: 'A forgotten title', chunkIds: [], lens: [], lastVisit: T0 - 86_400_000 };
        const again = encodeSnapshot([...pages.filter((p) => core.urls.includes(p.url)), stale], core.gen);
        Object.assign(core, again.core);
        Object.assign(columns, again.columns);
      } else if (damage === 'columns of another snapshot') columns.gen = core.gen + 1;
      else if (damage === 'unknown version') (core as unknown as { v: number }).v = 99;
      if (damage === 'columns without core') await db.delete('meta', SNAPSHOT_KEY);
      else await Promise.all([db.put('meta', core, SNAPSHOT_KEY), db.put('meta', columns, COLUMNS_KEY)]);
      if (silent.includes(damage)) {
        engine.pages.reset();
        await engine.pages.all();
        expect(engine.pages.lastLoad?.from, damage).toBe('snapshot');
      }
      const report = await verifyIndex(engine);
      expect(report.ok, damage).toBe(false);
      expect(report.problems.every((p) => p.startsWith('page table snapshot: ')), report.problems.join('\n')).toBe(true);
      const repaired = await verifyIndex(engine, true);
      expect(repaired.problems, damage).toEqual(report.problems);
      expect((await verifyIndex(engine)).problems, damage).toEqual([]);
      // Written again from the store: a fresh worker loads it, and it is what reading every page gives.
      expect(await same(db, engine), damage).toBe('snapshot');
      expect(JSON.stringify(await db.getAll('meta'))).not.toContain('A forgotten title');
    }
  });

  it('verifyIndex names what differs', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 3; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i);
    await engine.pages.writeSnapshot(db);
    const core = (await db.get('meta', SNAPSHOT_KEY)) as SnapshotCore;
    const columns = (await db.get('meta', COLUMNS_KEY)) as SnapshotColumns;
    columns.titles[1] = 'x';
    columns.visitCount[1] = 99;
    core.lastVisit[0] = 1;
    await Promise.all([db.put('meta', core, SNAPSHOT_KEY), db.put('meta', columns, COLUMNS_KEY)]);
    // Written past the log (an older build, a bug): the snapshot's copy is then the wrong one.
    await db.put('pages', { ...(await db.get('pages', 'https://a.example/2'))!, firstVisit: T0 - 5 });
    expect((await verifyIndex(engine)).problems.sort()).toEqual([
      'page table snapshot: https://a.example/0: last visit differ from the store',
      'page table snapshot: https://a.example/1: title, visit count differ from the store',
      'page table snapshot: https://a.example/2: first visit differ from the store',
    ]);
  });

  it('a result reads its sections with the core alone: owners give URL and chunk ids before the columns are read', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 5; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 1 + (i % 3)) }, T0 + i * 1000);
    await engine.pages.writeSnapshot(db);
    await engine.capture('https://a.example/9', { title: 'P9', lang: 'en', blocks: blocks('t9', 2) }, T0 + 9000); // logged since
    const want = await expected(db);
    engine.pages.reset();
    // The columns' transaction starts only once the core is checked: it holds no answer for owners().
    let columnsDone = false;
    const realTransaction = db.transaction.bind(db);
    (db as { transaction: unknown }).transaction = ((...args: Parameters<DB['transaction']>) => {
      const tx = realTransaction(...args);
      if (args[0] === 'meta') void tx.done.then(() => (columnsDone = true));
      return tx;
    }) as DB['transaction'];
    const owners = await engine.pages.owners();
    expect(engine.pages.lastLoad?.from).toBe('snapshot');
    expect(columnsDone).toBe(false);
    for (const [id, url] of want.owner) {
      const o = owners(id);
      expect(o?.url).toBe(url);
      expect(o?.chunkIds).toEqual(want.pages.get(url)!.chunkIds);
    }
    // The snapshot's pages were not built for it (no title); the logged page was read whole.
    expect(owners(want.pages.get('https://a.example/1')!.chunkIds[0]!)).not.toHaveProperty('title');
    expect(engine.pages.unbuiltPages).toBe(5);
    (db as { transaction: unknown }).transaction = realTransaction;
    // A page wanted whole waits for the columns.
    expect((await engine.pages.get('https://a.example/1'))?.title).toBe('P1');
    expect(await same(db, engine)).toBe('snapshot');
  });

  it('a page without sections written or deleted past the log: found by the page count after the load, then every page is read until the snapshot is written again', async () => {
    for (const bypass of ['new page', 'deleted page'] as const) {
      const db = await freshDb();
      const engine = engineOn(db);
      for (let i = 0; i < 3; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i * 1000);
      const empty = { url: 'https://a.example/empty', site: 'a.example', title: 'Nothing', lang: 'en', firstVisit: T0, lastVisit: T0, visitCount: 1, hash: 'e', chunkIds: [], words: 0, lens: [] };
      if (bypass === 'deleted page') await db.put('pages', empty);
      await engine.pages.writeSnapshot(db);
      // Written as an older build would: no log entry; no section, no newer visit: the load's checks pass.
      if (bypass === 'new page') await db.put('pages', empty);
      else await db.delete('pages', empty.url);
      engine.pages.reset();
      await engine.pages.all();
      expect(engine.pages.lastLoad?.from, bypass).toBe('snapshot');
      await engine.pages.checkCount();
      expect(engine.pages.lastLoad?.from, bypass).toBe('snapshot'); // dropped, not read again yet
      expect(await engine.pages.snapshotWanted(db), bypass).toBe(true);
      expect(await same(db, engine), bypass).toBe('full');
      engine.pages.reset();
      expect(await same(db, engine), bypass).toBe('full'); // not the snapshot again until it is rewritten
      await engine.pages.writeSnapshot(db);
      expect(await same(db, engine), bypass).toBe('snapshot');
      await engine.pages.checkCount();
      expect(await same(db, engine), bypass).toBe('snapshot');
    }
  });

  it('the page count check is not fooled by captures and forgets that commit while it counts', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 4; i++) await engine.capture(`https://a.example/${i}`, { title: `P${i}`, lang: 'en', blocks: blocks(`t${i}`, 2) }, T0 + i * 1000);
    await engine.pages.writeSnapshot(db);
    for (let round = 0; round < 4; round++) {
      engine.pages.reset();
      await engine.pages.all();
      expect(engine.pages.lastLoad?.from).toBe('snapshot');
      await Promise.all([
        engine.pages.checkCount(),
        round % 2 ? engine.deleteUrls([`https://a.example/${round}`]) : engine.capture(`https://b.example/${round}`, { title: `B${round}`, lang: 'en', blocks: blocks(`b${round}`, 1) }, T0 + 50_000 + round),
      ]);
      await engine.pages.all();
      expect(await engine.pages.snapshotWanted(db), `round ${round}`).toBe(round % 2 === 1); // a delete drops the snapshot; a capture only logs
      await engine.pages.writeSnapshot(db);
    }
  });

  it('ids that are not one run and lengths past 16 bits survive the snapshot', async () => {
    const page = (url: string, chunkIds: number[], lens: number[]) => ({ url, site: 'a.example', title: url, lang: 'en', firstVisit: T0, lastVisit: T0, visitCount: 1, hash: url, chunkIds, words: 1, lens });
    const pages = [page('https://a.example/run', [10, 11, 12], [3, 4, 5]), page('https://a.example/odd', [20, 25, 21], [6, 7, 8]), page('https://a.example/empty', [], []), page('https://a.example/long', [30], [70_000]), page('https://a.example/odd2', [41, 40], [1, 2])];
    const { core } = encodeSnapshot(pages);
    expect(core.lens).toBeInstanceOf(Uint32Array);
    expect(pages.map((_, i) => pageIds(core, i))).toEqual(pages.map((p) => p.chunkIds));
    const seen: [number, number, number][] = [];
    forEachSection(core, (i, id, len) => seen.push([i, id, len]));
    expect(seen).toEqual(pages.flatMap((p, i) => p.chunkIds.map((id, k) => [i, id, p.lens[k]!] as [number, number, number])));
    expect(encodeSnapshot(pages.slice(0, 3)).core.lens).toBeInstanceOf(Uint16Array);
    // Through the store: written with the log as the product writes, loaded from the snapshot.
    const db = await freshDb();
    const tx = db.transaction(['pages', 'meta'], 'readwrite');
    for (const p of pages) await putPage(tx, p);
    await tx.objectStore('meta').put({ N: 9, totalLength: 70_036, nextChunkId: 42, nextSeq: 0 }, 'stats');
    await tx.done;
    const engine = engineOn(db);
    await engine.pages.writeSnapshot(db);
    expect(await same(db, engine)).toBe('snapshot');
  });
});

/** The first form of the snapshot (one record, every chunk id listed), as that build wrote it. */
function snapshotV1(pages: readonly PageRecord[]): SnapshotV1 {
  const n = pages.length;
  const ids = pages.flatMap((p) => p.chunkIds);
  const s: SnapshotV1 = { v: 1, urls: [], sites: [], titles: [], firstVisit: new Float64Array(n), lastVisit: new Float64Array(n), visitCount: new Float64Array(n), idEnd: new Uint32Array(n), ids: Uint32Array.from(ids), lens: Uint32Array.from(pages.flatMap((p) => p.lens!)), visitEnd: new Uint32Array(n), visits: Float64Array.from(pages.flatMap((p) => p.visits ?? [])), hasVisits: new Uint8Array(n), extra: [] };
  let at = 0;
  let v = 0;
  pages.forEach((p, i) => {
    s.urls.push(p.url);
    s.sites.push(p.site);
    s.titles.push(p.title);
    s.firstVisit[i] = p.firstVisit;
    s.lastVisit[i] = p.lastVisit;
    s.visitCount[i] = p.visitCount;
    at += p.chunkIds.length;
    s.idEnd[i] = at;
    if (p.visits) s.hasVisits[i] = 1;
    v += p.visits?.length ?? 0;
    s.visitEnd[i] = v;
    if (p.kind || p.fetchSkipped) s.extra.push({ i, ...(p.kind ? { kind: p.kind } : {}), ...(p.fetchSkipped ? { fetchSkipped: p.fetchSkipped } : {}) });
  });
  return s;
}

const stripUndefined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
