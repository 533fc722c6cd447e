/**
 * the worker's own message listener and validators (background/main.ts), with the engine and
 * the browser faked: what reaches the router, and what the validators let through.
 */
import { describe, expect, it, vi } from 'vitest';

type Listener = (...args: never[]) => unknown;
const listeners: Record<string, Listener[]> = {};
const ev = (name: string) => ({ addListener: (l: Listener) => (listeners[name] ??= []).push(l), removeListener: () => undefined });
const opened: string[] = [];

vi.mock('webextension-polyfill', () => ({
  default: {
    runtime: {
      id: 'abc',
      getURL: (p: string) => `chrome-extension://abc/${p}`,
      getPlatformInfo: async () => ({}),
      getManifest: () => ({ action: {} }),
      onMessage: ev('message'),
      onInstalled: ev('installed'),
      onStartup: ev('startup'),
      onConnect: ev('connect'),
    },
    storage: { local: { get: async () => ({}), set: async () => undefined }, session: { get: async () => ({}), set: async () => undefined }, onChanged: ev('storage') },
    tabs: {
      query: async () => [],
      create: async (p: { url: string }) => (opened.push(p.url), { id: 3 }),
      update: async (_id: number, p: { url: string }) => (opened.push(p.url), { id: 3 }),
      onRemoved: ev('tabRemoved'),
      onUpdated: ev('tabUpdated'),
    },
    windows: { update: async () => ({}) },
    alarms: { create: async () => undefined, clear: async () => true, onAlarm: ev('alarm') },
    history: undefined,
    permissions: { onAdded: ev('permAdded'), onRemoved: ev('permRemoved'), contains: async () => false },
  },
}));

const engineStub = () => {
  const e: Record<string, unknown> = {
    maintenance: { schedule: () => undefined, keepAlive: undefined, run: async () => undefined },
    forget: { ready: async () => undefined, pending: async () => [] },
    pages: { norms: async () => undefined, get: async () => undefined, isHidden: () => false },
    delta: { ready: async () => undefined },
    lexical: { corpusStats: async () => ({ N: 0 }) },
    recut: { pending: async () => false, run: async () => undefined },
    settings: async () => ({ paused: false, excludedSites: [] }),
    search: async () => ({ results: [] }),
  };
  return e;
};
vi.mock('../../background/engine.js', () => ({ Engine: vi.fn(function (this: object) { Object.assign(this, engineStub()); }) }));
vi.mock('../../background/dense.js', () => ({ DenseService: vi.fn(function (this: object) { Object.assign(this, { init: async () => undefined, resumeBacklog: async () => undefined }); }) }));
vi.mock('../../background/embedding/host.js', () => ({ embedderHost: {} }));
vi.mock('../../background/reader/host.js', () => ({ pageReader: {} }));
vi.mock('../../background/dayone/dayOne.js', () => ({ DayOne: vi.fn(function (this: object) { Object.assign(this, { register: () => undefined, resumeJobs: async () => undefined }); }) }));
vi.mock('../../background/outbox.js', async (orig) => ({ ...(await orig<object>()), openOutboxToContentScripts: () => undefined, drainOutbox: async () => undefined, pruneHellos: async () => undefined }));
vi.mock('../../background/maintenance.js', () => ({ registerMaintenance: () => undefined, runRetention: async () => 0, forgetUrls: async () => 0 }));
vi.mock('../../background/indexVersion.js', () => ({ ensureIndexVersion: async () => undefined }));

await import('../../background/main.js');
const onMessage = listeners.message![0] as (m: unknown, s: unknown) => Promise<unknown>;
const popup = { id: 'abc', url: 'chrome-extension://abc/popup.html' };

describe('the worker answers every message with an envelope', () => {
  it('a type that String() cannot convert (plain JSON: {"toString": 1}) is answered unknown-type, not a thrown listener', async () => {
    // The router itself answers these (tests/unit/router.test.ts "unconvertible types"); the listener
    // around it names the type in its boot trace first, with String(type), which throws for them.
    const reply = await onMessage({ type: { toString: 1 } }, popup).catch((e: unknown) => ({ thrown: String(e) }));
    expect(reply).toEqual({ ok: false, error: { code: 'unknown-type', message: expect.any(String) } });
  });
});

describe('open', () => {
  it('an address longer than the cap is opened whole or refused, never cut to another address', async () => {
    // A result's link is its stored page's address, which the capture takes from the browser at any length.
    const long = 'https://example.com/app?state=' + 'a'.repeat(4100) + '&page=2';
    const reply = (await onMessage({ type: 'open', payload: { url: long, newTab: true } }, popup)) as { ok: boolean };
    await new Promise((r) => setTimeout(r, 10));
    const what = opened.map((u) => (u === long ? 'the whole address' : `the address cut to ${u.length} of ${long.length} characters`));
    expect(what).toEqual(reply.ok ? ['the whole address'] : []);
  });
});
