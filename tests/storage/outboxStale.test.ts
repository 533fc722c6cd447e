/** An outbox entry filed after a newer capture of its page keeps the newer text (review, session 33; failed before its fix). */
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

describe('review 33c: outbox', () => {
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
