/**
 * The capture outbox filed late or twice (each test failed before its fix):
 * - an entry filed after a newer capture of its page keeps the newer text;
 * - an entry filed, then the worker stopped before the entry was removed (the page's transaction and
 *   the storage removal cannot be one): the next start files it again. That is the same visit, not a
 *   second one (the page's visit count went from 1 to 2);
 * - one page view delivered twice: sent again after the worker stopped mid-answer, or handed to the
 *   outbox while it was in flight. Its id (CapturePayload.capture) counts it once (before: 2 visits,
 *   and a second visit date when the two deliveries were over a minute apart).
 */
import { describe, expect, it, vi } from 'vitest';

// browser.storage.session / local as plain maps (webextension-polyfill cannot load outside an extension).
const areas = vi.hoisted(() => {
  const make = () => {
    const m = new Map<string, unknown>();
    return {
      m,
      get: async (k: string | null) => (k === null ? Object.fromEntries(m) : m.has(k) ? { [k]: m.get(k) } : {}),
      set: async (o: Record<string, unknown>) => void Object.entries(o).forEach(([k, v]) => m.set(k, v)),
      remove: async (k: string | string[]) => void (Array.isArray(k) ? k : [k]).forEach((x) => m.delete(x)),
    };
  };
  return { session: make(), local: make() };
});
vi.mock('webextension-polyfill', () => ({ default: { storage: { session: areas.session, local: areas.local } } }));

import { drainOutbox, registerHello } from '../../background/outbox.js';
import { pageSections } from '../../background/sections.js';
import { engineOn, freshDb } from './helpers.js';

const page = (w: string) => ({ title: 'Release notes', lang: 'en', blocks: [{ kind: 'text' as const, text: `The ${w} release changes the parser and the cache, with enough words here to be a page worth keeping.` }] });

describe('an outbox entry filed after a later capture', () => {
  it('an entry handed over at a visit is filed after a later visit was captured: the later text stays', async () => {
    const url = 'https://a.example/notes';
    const db = await freshDb();
    const engine = engineOn(db);
    const now = Date.now();
    // Visit 1 (now - 20 s): the page said hello, and handed its capture over as it was left.
    const nonce = 'a'.repeat(32);
    await registerHello(nonce, url, now - 20_000);
    await areas.session.set({ [`outbox:${nonce}`]: { nonce, url, at: now - 10_000, payload: page('autumn') } });
    // Visit 2 (now), the page changed since: its capture reached the worker by message first.
    await engine.capture(url, page('winter'), now);
    // The drain then files visit 1's entry.
    const res = await drainOutbox(engine);
    expect(res.filed).toBe(1);
    const p = (await db.get('pages', url))!;
    const text = ((await pageSections(db, [p])).get(url) ?? []).map((s) => s.text).join('\n');
    expect(text).toContain('winter');
  });
});

describe('an outbox entry filed again after a worker stop', () => {
  it('is the visit already counted: the visit count and visit times stay as they were', async () => {
    const url = 'https://b.example/notes';
    const db = await freshDb();
    const engine = engineOn(db);
    const now = Date.now();
    const nonce = 'b'.repeat(32);
    const key = `outbox:${nonce}-x1`;
    await registerHello(nonce, url, now - 20_000);
    const entry = { nonce, url, at: now - 10_000, payload: page('spring') };
    await areas.session.set({ [key]: entry });
    expect((await drainOutbox(engine)).filed).toBe(1);
    const once = (await db.get('pages', url))!;
    expect(once.visitCount).toBe(1);
    // The worker was stopped after the page's transaction and before the entry's removal: the entry is
    // still there at the next start, which files it again.
    await areas.session.set({ [key]: entry });
    expect((await drainOutbox(engine)).filed).toBe(1);
    expect(areas.session.m.has(key)).toBe(false);
    const twice = (await db.get('pages', url))!;
    expect(twice.visitCount, 'one visit counted twice').toBe(1);
    expect([twice.firstVisit, twice.lastVisit, twice.visits]).toEqual([once.firstVisit, once.lastVisit, once.visits]);
    // The same page handed over again later (the same key, a new time: another visit) still counts.
    await areas.session.set({ [key]: { ...entry, at: now - 1000 } });
    expect((await drainOutbox(engine)).filed).toBe(1);
    expect((await db.get('pages', url))!.visitCount).toBe(2);
  });
});

describe('one page view delivered twice', () => {
  const view = (c: string) => c.repeat(32);

  it('sent again after the worker stopped mid-answer: one visit; its changed content is taken; another view counts', async () => {
    const url = 'https://c.example/notes';
    const db = await freshDb();
    const engine = engineOn(db);
    const t = Date.now() - 3_600_000;
    expect((await engine.capture(url, { ...page('summer'), capture: view('c') }, t)).outcome).toBe('new');
    // The worker committed the page and was stopped before it answered: the content script sends the
    // same capture again (content/main.ts send), to a new worker, 2 s later.
    expect((await engine.capture(url, { ...page('summer'), capture: view('c') }, t + 2_000)).outcome).toBe('revisit');
    let p = (await db.get('pages', url))!;
    expect(p.visitCount, 'one visit counted twice').toBe(1);
    expect(p.visits).toEqual([t]);
    // The same view re-read after its content changed (a large change, 3 minutes on): the text is taken,
    // the visit is the one already counted (before: a second visit, dated 3 minutes later).
    expect((await engine.capture(url, { ...page('autumn'), capture: view('c') }, t + 180_000)).outcome).toBe('changed');
    p = (await db.get('pages', url))!;
    expect(((await pageSections(db, [p])).get(url) ?? []).map((s) => s.text).join('\n')).toContain('autumn');
    expect([p.visitCount, p.firstVisit, p.lastVisit, p.visits]).toEqual([1, t, t, [t]]);
    // Another view (the page loaded again) is another visit; so is a capture without a view id (an
    // outbox entry written by an older content script).
    await engine.capture(url, { ...page('autumn'), capture: view('d') }, t + 600_000);
    await engine.capture(url, page('autumn'), t + 1_200_000);
    p = (await db.get('pages', url))!;
    expect([p.visitCount, p.visits]).toEqual([3, [t, t + 600_000, t + 1_200_000]]);
  });

  it('delivered by message and handed to the outbox while in flight: the outbox files the same visit', async () => {
    const url = 'https://d.example/notes';
    const db = await freshDb();
    const engine = engineOn(db);
    const now = Date.now();
    const nonce = 'd'.repeat(32);
    await registerHello(nonce, url, now - 200_000);
    // The capture reached the worker (slow: behind a long write) at now - 100 s; the tab was hidden
    // 70 s later, the answer still not in, and the page handed the capture over (content/main.ts `leaving`).
    await engine.capture(url, { ...page('spring'), capture: view('e') }, now - 100_000);
    await areas.session.set({ [`outbox:${nonce}-y1`]: { nonce, url, at: now - 30_000, payload: { ...page('spring'), capture: view('e') } } });
    expect((await drainOutbox(engine)).filed).toBe(1);
    const p = (await db.get('pages', url))!;
    expect(p.visitCount, 'one visit counted twice').toBe(1);
    expect(p.visits, 'a second visit date for one visit').toEqual([now - 100_000]);
  });

  it('a malformed view id is refused before anything is stored', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const url = 'https://e.example/notes';
    const nonce = 'e'.repeat(32);
    await registerHello(nonce, url, Date.now() - 10_000);
    await areas.session.set({ [`outbox:${nonce}-z1`]: { nonce, url, at: Date.now() - 5_000, payload: { ...page('spring'), capture: 'not-a-view' } } });
    expect((await drainOutbox(engine)).refused).toBe(1);
    expect(await db.get('pages', url)).toBeUndefined();
  });
});
