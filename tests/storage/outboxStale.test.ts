/**
 * The capture outbox filed late or twice (each test failed before its fix):
 * - an entry filed after a newer capture of its page keeps the newer text;
 * - an entry filed, then the worker stopped before the entry was removed (the page's transaction and
 *   the storage removal cannot be one): the next start files it again. That is the same visit, not a
 *   second one (the page's visit count went from 1 to 2).
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
