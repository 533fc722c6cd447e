/**
 * Forgetting as an undoable mark (background/forget.ts): what is marked vanishes from search, counts,
 * site lists and exports at once; undo restores the same results; the purge after the window leaves no
 * trace; a worker stopped inside the window (a new Engine on the same database) neither loses the mark
 * nor brings the pages back, and purges them once the window is over; a marked page visited again is
 * kept as a new visit; a range takes a page when any of its visits is in it.
 */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import { dayRange } from '../../src/forget.js';
import { exportJsonl } from './transferText.js';
import { MARKS_KEY } from '../../background/forget.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb, readAll } from './helpers.js';

const blocks = (topic: string, unique: string): Block[] => [
  { kind: 'heading', text: `About ${topic}`, level: 1, id: 'about' },
  { kind: 'text', text: `${topic} is the subject of this page and every paragraph mentions ${topic} again so that it is found later ${unique}` },
];

const T0 = new Date(2026, 0, 10, 12).getTime();
const DAY = 86_400_000;
/**
 * When a forget is marked: the wall clock. The worker's purge timer runs on the wall clock (250 ms after a
 * window that ended, background/forget.ts schedule), so a mark dated in January 2026 was purged by it while
 * a test under load was still between marking and undoing ("That forget can no longer be undone", CI).
 */
const marked = () => Date.now();

async function populated() {
  const db = await freshDb();
  const engine = engineOn(db);
  const pages = [
    ['https://docs.python.org/3/os.html', 'python', 'pyunique', T0],
    ['https://www.python.org/about', 'python', 'aboutunique', T0 + DAY],
    ['https://rust-lang.org/learn', 'rust', 'rustunique', T0 + 2 * DAY],
    ['https://example.com/bread', 'bread', 'breadunique', T0 + 3 * DAY],
  ] as const;
  for (const [url, topic, unique, at] of pages) await engine.capture(url, { title: `${topic} page`, lang: 'en', blocks: blocks(topic, unique) }, at);
  return { db, engine };
}

const hrefs = async (engine: ReturnType<typeof engineOn>, q: string) => (await engine.search({ q })).results.map((r) => r.href);

describe('forget marks', { timeout: 30_000 }, () => {
  it('hide at once, undo restores exactly the same results', async () => {
    const { engine } = await populated();
    const queries = ['python', 'page', 'pyunique', 'site:python.org page'];
    const before = await Promise.all(queries.map((q) => hrefs(engine, q)));
    const statsBefore = await engine.stats();
    const preview = await engine.forget.preview({ kind: 'site', site: 'python.org' });
    expect(preview).toMatchObject({ pages: 2, sites: 2, firstVisit: T0, lastVisit: T0 + DAY });
    const mark = await engine.forget.mark({ kind: 'site', site: 'python.org' }, marked());
    expect(mark.pages).toBe(2);
    expect(await hrefs(engine, 'pyunique')).toEqual([]);
    expect((await hrefs(engine, 'page')).some((h) => h.includes('python'))).toBe(false);
    expect((await engine.stats()).pages).toBe(2);
    expect((await engine.siteCounts()).map((s) => s.site)).toEqual(expect.not.arrayContaining(['docs.python.org', 'python.org']));
    expect((await exportJsonl(engine, false)).pages).toBe(2);
    // Counting again does not count the marked pages twice.
    expect((await engine.forget.preview({ kind: 'all' })).pages).toBe(2);
    expect((await engine.forget.undo(mark.id)).urls).toHaveLength(2);
    expect(await Promise.all(queries.map((q) => hrefs(engine, q)))).toEqual(before);
    expect(await engine.stats()).toEqual(statsBefore);
    await expect(engine.forget.undo(mark.id)).rejects.toThrow(/no longer be undone/);
  });

  it('purge after the window leaves no trace; the index stays consistent', async () => {
    const { db, engine } = await populated();
    const mark = await engine.forget.mark({ kind: 'site', site: 'python.org' }, marked());
    expect(await engine.forget.purgeDue(mark.undoUntil - 1)).toBe(0);
    expect(await engine.forget.purgeDue(mark.undoUntil)).toBe(2);
    const dump = JSON.stringify(await readAll(db), (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v));
    expect(dump).not.toContain('python.org');
    expect(await db.get('meta', MARKS_KEY)).toEqual([]);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    await expect(engine.forget.undo(mark.id)).rejects.toThrow();
  });

  it('a worker stopped inside the window keeps the mark, can still undo, and purges after it', async () => {
    const { db, engine } = await populated();
    const now = Date.now();
    const mark = await engine.forget.mark({ kind: 'all' }, now);
    // The worker stops: a new engine over the same database, nothing in memory.
    const restarted = engineOn(db);
    expect(await hrefs(restarted, 'page')).toEqual([]);
    expect((await restarted.stats()).pages).toBe(0);
    expect((await restarted.forget.pending(now)).map((p) => p.id)).toEqual([mark.id]);
    expect((await restarted.forget.undo(mark.id)).urls).toHaveLength(4);
    expect((await hrefs(restarted, 'pyunique')).length).toBe(1);
    // Marked again, stopped again, started after the window: purged, never shown again.
    const again = await restarted.forget.mark({ kind: 'site', site: 'rust-lang.org' }, now);
    const late = engineOn(db);
    expect(await hrefs(late, 'rustunique')).toEqual([]);
    expect(await late.forget.purgeDue(again.undoUntil + 1)).toBe(1);
    const fresh = engineOn(db);
    expect(await hrefs(fresh, 'rustunique')).toEqual([]);
    expect((await fresh.stats()).pages).toBe(3);
  });

  it('forget everything purges with one clear, and ids keep counting', async () => {
    const { db, engine } = await populated();
    const mark = await engine.forget.mark({ kind: 'all' }, marked());
    expect(await engine.forget.purgeDue(mark.undoUntil)).toBe(4);
    const all = await readAll(db);
    expect([all.pages.length, all.sections.length, all.postings.length, all.segments.length, all.terms.length]).toEqual([0, 0, 0, 0, 0]);
    expect(all.stats!.nextChunkId).toBeGreaterThan(1);
  });

  it('a marked page visited again is kept as a new visit; the rest of the mark is not touched', async () => {
    const { engine } = await populated();
    const now = marked();
    const mark = await engine.forget.mark({ kind: 'site', site: 'python.org' }, now);
    await engine.capture('https://www.python.org/about', { title: 'python page', lang: 'en', blocks: blocks('python', 'aboutunique newvisitword') }, now + 5);
    expect((await hrefs(engine, 'newvisitword')).length).toBe(1);
    const page = await engine.pages.get('https://www.python.org/about');
    expect(page?.firstVisit).toBe(now + 5); // the old visits were forgotten
    expect(await hrefs(engine, 'pyunique')).toEqual([]);
    expect(await engine.forget.purgeDue(mark.undoUntil)).toBe(1);
    expect((await hrefs(engine, 'newvisitword')).length).toBe(1);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
  });

  it('a capture made before the mark and stored after it (it waited for the lock, or came through the outbox) is not kept', async () => {
    const { engine } = await populated();
    const now = marked();
    const mark = await engine.forget.mark({ kind: 'page', url: 'https://www.python.org/about' }, now);
    expect(mark.pages).toBe(1);
    const res = await engine.capture('https://www.python.org/about', { title: 'python page', lang: 'en', blocks: blocks('python', 'aboutunique staleword') }, now - 5);
    expect(res.outcome).toBe('skipped');
    expect(await hrefs(engine, 'staleword')).toEqual([]);
    // The mark is as it was: undo restores the page as it was stored, with no trace of the late capture.
    expect(await hrefs(engine, 'aboutunique')).toEqual([]);
    expect((await engine.forget.undo(mark.id)).urls).toEqual(['https://www.python.org/about']);
    expect((await hrefs(engine, 'aboutunique')).map((h) => h.split('#')[0])).toEqual(['https://www.python.org/about']);
    expect(await hrefs(engine, 'staleword')).toEqual([]);
  });

  it('a page of a forgotten site not stored yet: its capture made before the mark is not kept, one made after it is, and none is refused once the forget is undone', async () => {
    const { engine } = await populated();
    const now = marked();
    const mark = await engine.forget.mark({ kind: 'site', site: 'python.org' }, now);
    const fresh = 'https://docs.python.org/3/fresh.html';
    // Read before the forget (a first capture that waited for the lock), stored after it: not kept.
    expect((await engine.capture(fresh, { title: 'python page', lang: 'en', blocks: blocks('python', 'freshword') }, now - 5)).outcome).toBe('skipped');
    expect(await hrefs(engine, 'freshword')).toEqual([]);
    // Another site's page read at the same moment is kept.
    expect((await engine.capture('https://example.org/tea', { title: 'tea page', lang: 'en', blocks: blocks('tea', 'teaword') }, now - 5)).outcome).not.toBe('skipped');
    expect((await hrefs(engine, 'teaword')).length).toBe(1);
    // A visit after the forget is a new one: kept.
    expect((await engine.capture(fresh, { title: 'python page', lang: 'en', blocks: blocks('python', 'laterword') }, now + 5)).outcome).not.toBe('skipped');
    expect((await hrefs(engine, 'laterword')).length).toBe(1);
    // Undone: a capture of that earlier moment is no longer refused.
    await engine.forget.undo(mark.id);
    expect((await engine.capture(fresh, { title: 'python page', lang: 'en', blocks: blocks('python', 'againword') }, now - 5)).outcome).not.toBe('skipped');
  });

  it('a wider forget covers a page an earlier one hides: undoing the earlier one leaves the page forgotten', async () => {
    const { engine } = await populated();
    const now = marked();
    const one = await engine.forget.mark({ kind: 'page', url: 'https://www.python.org/about' }, now);
    const site = await engine.forget.mark({ kind: 'site', site: 'python.org' }, now + 1);
    expect(site.pages).toBe(1); // the page already forgotten is not counted again
    expect((await engine.forget.undo(one.id)).urls).toEqual([]);
    expect(await hrefs(engine, 'aboutunique')).toEqual([]);
    expect(await engine.forget.purgeDue(site.undoUntil)).toBe(2);
    expect(await hrefs(engine, 'aboutunique')).toEqual([]);
    expect(await hrefs(engine, 'pyunique')).toEqual([]);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    // The other way round: the narrow forget's window ends first; undoing the wide one counts what is left.
    const again = await populated();
    const page = await again.engine.forget.mark({ kind: 'page', url: 'https://www.python.org/about' }, now);
    const wide = await again.engine.forget.mark({ kind: 'site', site: 'python.org' }, now + 60_000);
    expect(await again.engine.forget.purgeDue(page.undoUntil)).toBe(1);
    expect((await again.engine.forget.undo(wide.id)).urls).toEqual(['https://docs.python.org/3/os.html']);
  });

  it('a range of local days takes a page when any of its visits is in it', async () => {
    const { engine } = await populated();
    // bread: first visit T0+3d; visited again on T0+8d (recorded in its visit list).
    await engine.capture('https://example.com/bread', { title: 'bread page', lang: 'en', blocks: blocks('bread', 'breadunique') }, T0 + 8 * DAY);
    const iso = (t: number) => {
      const d = new Date(t);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    const r = dayRange(iso(T0 + 3 * DAY), iso(T0 + 3 * DAY)) as { from: number; to: number };
    expect(await engine.forget.preview({ kind: 'range', ...r })).toMatchObject({ pages: 1 });
    const mid = dayRange(iso(T0 + 5 * DAY), iso(T0 + 6 * DAY)) as { from: number; to: number };
    expect((await engine.forget.preview({ kind: 'range', ...mid })).pages).toBe(0);
    const both = dayRange(iso(T0), iso(T0 + DAY)) as { from: number; to: number };
    expect((await engine.forget.preview({ kind: 'range', ...both })).pages).toBe(2);
    const page = await engine.pages.get('https://example.com/bread');
    expect(page?.visits).toEqual([T0 + 3 * DAY, T0 + 8 * DAY]);
  });

  it('retention preview counts what retention then forgets', async () => {
    const { engine } = await populated();
    const now = T0 + 5 * DAY;
    await engine.updateSettings({ retentionDays: 3 });
    const preview = await engine.forget.previewRetention(3, 0, now);
    expect(preview.byAge).toBe(2);
    expect(await engine.forget.retention(now)).toBe(preview.byAge);
  });
});
