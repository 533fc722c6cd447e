/** Forgetting a site or everything leaves no trace in any store, and no stale answer in any cache. */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import { decodeBlock } from '../../src/postings.js';
import { storeVectors } from '../../background/vectorStore.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb, readAll } from './helpers.js';

const body = (topic: string) =>
  `${topic} is the subject of this page and every paragraph mentions ${topic} many times so that ${topic} is easy to find again later`;
const blocks = (topic: string, unique: string): Block[] => [
  { kind: 'heading', text: `About ${topic}`, level: 1, id: 'about' },
  { kind: 'text', text: `${body(topic)} ${unique}` },
  { kind: 'heading', text: 'More', level: 2 },
  { kind: 'text', text: `${body(topic)} shared words appear everywhere` },
];

async function populated() {
  const db = await freshDb();
  const engine = engineOn(db);
  const pages = [
    ['https://docs.python.org/3/library/os.html', 'python', 'pythonunique'],
    ['https://www.python.org/about', 'python', 'aboutunique'],
    ['https://rust-lang.org/learn', 'rust', 'rustunique'],
    ['https://example.com/bread', 'bread', 'breadunique'],
  ] as const;
  let now = 1_700_000_000_000;
  for (const [url, topic, unique] of pages) await engine.capture(url, { title: `${topic} page`, lang: 'en', blocks: blocks(topic, unique) }, (now += 1000));
  // Queue entries and vectors, as the dense lane would leave them.
  const chunks = await db.getAll('chunks');
  for (const c of chunks) await db.put('embedQueue', { id: c.id, model: 'm' });
  const half = chunks.filter((_, i) => i % 2 === 0).map((c) => c.id);
  await storeVectors(db, 'm', 3, half.map((id) => ({ id, codes: Int8Array.from([1, 0, -1]), scale: 0.5 })), half);
  // Warm every cache: posting lists, statistics, the page table.
  for (const q of ['python', 'rust', 'bread', 'pythonunique', 'shared words']) await engine.search({ q });
  return { db, engine };
}

describe('forgetting', { timeout: 30_000 }, () => {
  it('deleteSite removes the site and its subdomains from every store and cache', async () => {
    const { db, engine } = await populated();
    const before = await readAll(db);
    const gone = new Set(before.chunks.filter((c) => /python\.org/.test(c.url)).map((c) => c.id));
    expect(gone.size).toBeGreaterThan(0);

    expect(await engine.deleteSite('python.org')).toBe(2);

    const after = await readAll(db);
    expect(after.pages.map((p) => p.url).sort()).toEqual(['https://example.com/bread', 'https://rust-lang.org/learn']);
    expect(after.chunks.filter((c) => gone.has(c.id) || c.url.includes('python.org'))).toEqual([]);
    expect(after.texts.map((t) => t.url).sort()).toEqual(['https://example.com/bread', 'https://rust-lang.org/learn']);
    for (const b of after.postings) {
      for (const e of decodeBlock({ first: b.f, n: b.n, data: b.d })) expect(gone.has(e.id), `${b.t} -> ${e.id}`).toBe(false);
    }
    // Terms only the deleted pages had are gone entirely.
    for (const t of ['python', 'pythonunique', 'aboutunique']) expect(after.postings.some((p) => p.t === t)).toBe(false);
    expect(after.queue.filter((q) => gone.has(q.id))).toEqual([]);
    for (const v of after.vectors) for (const id of v.ids) expect(gone.has(id)).toBe(false);
    expect(after.stats!.N).toBe(after.chunks.length);
    // No JSON of any store mentions the site any more.
    expect(JSON.stringify({ ...after, postings: after.postings.map((p) => p.t) })).not.toMatch(/python/);

    for (const q of ['python', 'pythonunique', 'site:python.org shared']) expect((await engine.search({ q })).results).toEqual([]);
    expect((await engine.search({ q: 'rustunique' })).results.map((r) => r.url)).toEqual(['https://rust-lang.org/learn']);
    expect((await engine.siteCounts()).map((s) => s.site).sort()).toEqual(['example.com', 'rust-lang.org']);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('deleteAll empties every store but the settings, and every cache', async () => {
    const { db, engine } = await populated();
    await engine.updateSettings({ retentionDays: 30 });
    expect(await engine.deleteAll()).toBe(4);
    const after = await readAll(db);
    expect(after.pages).toEqual([]);
    expect(after.chunks).toEqual([]);
    expect(after.texts).toEqual([]);
    expect(after.postings).toEqual([]);
    expect(after.queue).toEqual([]);
    expect(after.vectors).toEqual([]);
    expect(after.metaKeys.filter((k) => k !== 'settings' && k !== 'stats')).toEqual([]);
    expect(after.stats?.N ?? 0).toBe(0);
    expect(after.stats?.totalLength ?? 0).toBe(0);
    for (const q of ['python', 'rust', 'shared words']) expect((await engine.search({ q })).results).toEqual([]);
    expect(await engine.stats()).toMatchObject({ pages: 0, chunks: 0, sites: 0 });
    expect((await engine.settings()).retentionDays).toBe(30);
    // And the engine keeps working.
    await engine.capture('https://example.com/new', { title: 'new page', lang: 'en', blocks: blocks('cheese', 'cheeseunique') });
    expect((await engine.search({ q: 'cheeseunique' })).results).toHaveLength(1);
    expect((await engine.search({ q: 'python' })).results).toEqual([]);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('deleteRange forgets pages by last visit', async () => {
    const { db, engine } = await populated();
    const pages = (await db.getAll('pages')).sort((a, b) => a.lastVisit - b.lastVisit);
    expect(await engine.deleteRange(pages[1]!.lastVisit, pages[3]!.lastVisit)).toBe(2);
    expect((await db.getAll('pages')).map((p) => p.url).sort()).toEqual([pages[0]!.url, pages[3]!.url].sort());
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });
});
