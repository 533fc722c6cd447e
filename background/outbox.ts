/**
 * The background's side of the capture outbox (see src/outbox.ts): the hello registry (nonce -> the
 * sender's page URL) in a small database of its own, so recording a hello never waits behind a backlog
 * of page writes in the main one; and the drain that files captures left in session or local storage.
 */
import browser from 'webextension-polyfill';
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { OUTBOX_MAX_AGE_MS, HELLO_GRACE_MS, isOutboxEntry, isOutboxKey, judgeEntry, sightingKey, vouchByNavigation, type OutboxEntry } from '../src/outbox.js';
import { hashHex } from '../src/hash.js';
import { capturedPageUrl, normalizeStoredUrl, siteMatches, siteOf } from '../src/url.js';
import { ProtocolError, type ForgetScope } from '../src/protocol.js';
import { validateCapture } from '../src/validate.js';
import type { Engine } from './engine.js';

export const OUTBOX_DB = 'reread-outbox';

interface HelloRecord {
  nonce: string;
  url: string;
  at: number;
}

/** A top-frame navigation the browser reported (src/outbox.ts, `Sighting`). */
interface SightingRecord {
  id?: number;
  url: string;
  at: number;
}

interface OutboxDB extends DBSchema {
  hellos: { key: string; value: HelloRecord; indexes: { at: number } };
  sightings: { key: number; value: SightingRecord; indexes: { at: number } };
}

let dbPromise: Promise<IDBPDatabase<OutboxDB>> | null = null;

function helloDb(): Promise<IDBPDatabase<OutboxDB>> {
  dbPromise ??= openDB<OutboxDB>(OUTBOX_DB, 2, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) db.createObjectStore('hellos', { keyPath: 'nonce' }).createIndex('at', 'at');
      if (oldVersion < 2) db.createObjectStore('sightings', { keyPath: 'id', autoIncrement: true }).createIndex('at', 'at');
    },
    terminated() {
      dbPromise = null;
    },
  }).catch((e: unknown) => {
    dbPromise = null;
    throw e;
  });
  return dbPromise;
}

/** Records a content script's nonce with its page URL (the sender's, as the browser reported it). */
export async function registerHello(nonce: string, pageUrl: string, now = Date.now()): Promise<void> {
  const db = await helloDb();
  const tx = db.transaction('hellos', 'readwrite');
  const existing = await tx.store.get(nonce);
  // Nonces are 128 random bits: one already taken by another page is an attempt to borrow it.
  if (existing && existing.url !== pageUrl) throw new ProtocolError('forbidden', 'nonce already in use');
  if (!existing) await tx.store.put({ nonce, url: pageUrl, at: now });
  await tx.done;
}

/**
 * Records a top-frame navigation the browser reported (webNavigation.onCommitted): what vouches for a
 * page whose hello never reached a running worker (src/outbox.ts, `vouchByNavigation`). The caller has
 * checked that the page may be captured.
 */
export async function recordSighting(pageUrl: string, now = Date.now()): Promise<void> {
  const url = sightingKey(pageUrl);
  if (url) await (await helloDb()).add('sightings', { url, at: now });
}

/** How many navigations to this page are recorded (for tests and the debug console). */
export async function sightingsFor(pageUrl: string): Promise<number> {
  const key = sightingKey(pageUrl);
  return (await (await helloDb()).getAll('sightings')).filter((s) => s.url === key).length;
}

/** How many hellos are recorded for this page URL (for tests and the debug console). */
export async function hellosFor(pageUrl: string): Promise<number> {
  const all = await (await helloDb()).getAll('hellos');
  return all.filter((h) => h.url === pageUrl).length;
}

/** Drops hellos too old to matter (session storage, and so every entry, is gone by then). */
export async function pruneHellos(now = Date.now()): Promise<void> {
  const db = await helloDb();
  for (const store of ['hellos', 'sightings'] as const) {
    const tx = db.transaction(store, 'readwrite');
    let cursor = await tx.store.index('at').openCursor(IDBKeyRange.upperBound(now - OUTBOX_MAX_AGE_MS));
    while (cursor) {
      await cursor.delete();
      cursor = await cursor.continue();
    }
    await tx.done;
  }
}

type AreaName = 'session' | 'local';

/**
 * The storage areas an outbox entry can be in: session storage (Chrome's content scripts, once opened
 * to them) and local storage (Firefox's content scripts, which have no session storage).
 */
function outboxAreas(): [AreaName, browser.Storage.StorageArea][] {
  const session = (browser.storage as { session?: browser.Storage.StorageArea }).session;
  return session ? [['session', session], ['local', browser.storage.local]] : [['local', browser.storage.local]];
}

/** Whether a change in this storage area can be an outbox entry (main.ts drains on such changes). */
export function isOutboxArea(area: string): boolean {
  return area === 'session' || area === 'local';
}

interface Pending {
  name: AreaName;
  area: browser.Storage.StorageArea;
  key: string;
  value: unknown;
}

async function pendingEntries(): Promise<Pending[]> {
  const out: Pending[] = [];
  for (const [name, area] of outboxAreas()) {
    const all = await area.get(null);
    for (const [key, value] of Object.entries(all)) if (isOutboxKey(key)) out.push({ name, area, key, value });
  }
  return out;
}

export interface DrainResult {
  filed: number;
  refused: number;
  waiting: number;
}

/** Since this worker started (for tests and the debug console). */
export const outboxTotals = { filed: 0, refused: 0, vouched: 0 };

/** For entries whose hellos never came and whose grace is over: the recorded navigation that vouches for each. */
async function vouch(db: IDBPDatabase<OutboxDB>, due: OutboxEntry[]): Promise<Map<OutboxEntry, { id: number; url: string }>> {
  const out = new Map<OutboxEntry, { id: number; url: string }>();
  if (!due.length) return out;
  const sightings = await db.getAll('sightings');
  const vouched = vouchByNavigation(due, sightings, await db.getAll('hellos'));
  for (const [i, j] of vouched) out.set(due[i]!, { id: sightings[j]!.id!, url: sightings[j]!.url });
  return out;
}

async function drainOnce(engine: Engine, totals: DrainResult): Promise<void> {
  await pruneHellos().catch(() => undefined);
  const at = (v: unknown) => (isOutboxEntry(v) ? v.at : 0);
  const entries = (await pendingEntries()).sort((a, b) => at(a.value) - at(b.value));
  totals.waiting = 0;
  const db = await helloDb();
  const now = Date.now();
  const recorded = new Map<string, string>();
  for (const { value } of entries) {
    if (!isOutboxEntry(value)) continue;
    const hello = await db.get('hellos', value.nonce);
    if (hello) recorded.set(value.nonce, hello.url);
  }
  const vouchedFor = await vouch(db, entries.map((e) => e.value).filter((v): v is OutboxEntry => isOutboxEntry(v) && !recorded.has(v.nonce) && judgeEntry(v, null, now) === 'refuse' && now - v.at <= OUTBOX_MAX_AGE_MS));
  for (const { name, area, key, value } of entries) {
    let verdict: 'file' | 'wait' | 'refuse' = 'refuse';
    // The same key in both areas is two hand-overs.
    const failKey = `${name}:${key}`;
    try {
      if (isOutboxEntry(value)) {
        const sighting = vouchedFor.get(value);
        const pageUrl = recorded.get(value.nonce) ?? sighting?.url ?? null;
        verdict = judgeEntry(value, pageUrl, now);
        if (verdict === 'wait') {
          totals.waiting++;
          continue;
        }
        if (verdict === 'file') {
          const payload = validateCapture(value.payload).payload;
          // Vouched for by a navigation: that page may still not be captured (paused, excluded since).
          if (sighting && !(await engine.captureAllowed(sighting.url)).allowed) throw new ProtocolError('forbidden', 'not captured');
          // Purged meanwhile (its page, site or everything forgotten while this drain ran): not filed.
          // Asked under the write lock, so a forget that purged it and then deletes comes after, or wins.
          const still = async () => !!(await area.get(key))[key];
          // The hand-over's id (its area, key and time, hashed: nothing of the page's address is kept).
          const handOver = hashHex(`${failKey}\u0000${value.at}`);
          const res = await engine.capture(capturedPageUrl(pageUrl!, value.url), payload, Math.min(value.at, Date.now()), { stillWanted: still, handOver });
          if (res.outcome === 'skipped' && !(await still())) continue;
          // One navigation vouches for one page: used up once that page is filed.
          if (sighting) {
            await db.delete('sightings', sighting.id);
            outboxTotals.vouched++;
          }
        }
      }
    } catch (err) {
      // A malformed capture is refused for good. Anything else (above all: the worker being stopped,
      // which aborts its transactions while this code still runs) leaves the entry for the next drain;
      // one that keeps failing in this worker's life is given up on.
      const failures = (failed.get(failKey) ?? 0) + 1;
      failed.set(failKey, failures);
      if (!(err instanceof ProtocolError) && failures < MAX_FAILURES) {
        totals.waiting++;
        continue;
      }
      verdict = 'refuse';
      console.warn('reread: an outbox capture could not be filed', err);
    }
    const field = verdict === 'file' ? 'filed' : 'refused';
    totals[field]++;
    outboxTotals[field]++;
    // Removed only after the page's transaction committed: a worker stopped in between files it again
    // on its next start, where the page's transaction is found to have recorded it (pageStore.ts
    // handOverFiled), so the visit is not counted twice.
    await area.remove(key);
  }
}

/** Failed attempts per entry in this worker's life. */
const failed = new Map<string, number>();
const MAX_FAILURES = 3;

let draining: Promise<DrainResult> | null = null;
let again = false;
let retry: ReturnType<typeof setTimeout> | undefined;

/** Drains the outbox; calls made while a drain runs make it look again before it ends. */
export function drainOutbox(engine: Engine): Promise<DrainResult> {
  if (draining) {
    again = true;
    return draining;
  }
  const totals: DrainResult = { filed: 0, refused: 0, waiting: 0 };
  draining = (async () => {
    do {
      again = false;
      await drainOnce(engine, totals);
    } while (again);
    return totals;
  })().finally(() => {
    draining = null;
  });
  void draining.then((t) => {
    // Entries whose hello is not recorded yet: look again shortly (a restarted worker looks at start).
    if (t.waiting && retry === undefined) retry = setTimeout(() => ((retry = undefined), void drainOutbox(engine)), Math.min(2000, HELLO_GRACE_MS));
  }, () => undefined);
  return draining;
}

/** What a purge is asked about: a pending entry (its URLs) or a hello. */
export interface PurgeSubject {
  /** The page URLs concerned: the entry's claimed URL and the URL recorded for its nonce. */
  urls: string[];
  at: number;
}

/** A purge predicate for these sites (an unparseable URL counts as matching: it is dropped). */
export function sitesMatcher(sites: readonly string[]): (s: PurgeSubject) => boolean {
  return (s) =>
    s.urls.some((url) => {
      const site = siteOf(url);
      return !site || sites.some((p) => siteMatches(site, p));
    });
}

/** A purge predicate for these pages, compared as stored (no fragment); an unparseable URL matches. */
export function urlsMatcher(urls: readonly string[]): (s: PurgeSubject) => boolean {
  const set = new Set(urls.map((u) => normalizeStoredUrl(u) ?? u));
  return (s) =>
    s.urls.some((url) => {
      const stored = normalizeStoredUrl(url);
      return !stored || set.has(stored);
    });
}

/** A purge predicate for what a forget covers (a range by the time the entry was made). */
export function scopeMatcher(scope: ForgetScope): (s: PurgeSubject) => boolean {
  switch (scope.kind) {
    case 'all':
      return () => true;
    case 'page':
      return urlsMatcher([scope.url]);
    case 'site':
      return sitesMatcher([scope.site]);
    case 'range':
      return (e) => e.at >= scope.from && e.at < scope.to;
  }
}

/**
 * Forgets pending captures, hellos and recorded navigations that `hit` matches: a forgotten site, date range or everything
 * must neither come back nor leave a trace. An entry is judged by its claimed URL and by the URL its
 * nonce was recorded with (the one it would be filed under).
 */
export async function purgeOutbox(hit: (s: PurgeSubject) => boolean): Promise<void> {
  const db = await helloDb();
  const hellos = new Map((await db.getAll('hellos')).map((h) => [h.nonce, h]));
  const drop = (await pendingEntries()).filter(({ value: v }) => !isOutboxEntry(v) || hit({ urls: [v.url, ...(hellos.has(v.nonce) ? [hellos.get(v.nonce)!.url] : [])], at: v.at }));
  for (const [name, area] of outboxAreas()) {
    const keys = drop.filter((d) => d.name === name).map((d) => d.key);
    if (keys.length) await area.remove(keys);
  }
  for (const store of ['hellos', 'sightings'] as const) {
    const tx = db.transaction(store, 'readwrite');
    let cursor = await tx.store.openCursor();
    while (cursor) {
      if (hit({ urls: [cursor.value.url], at: cursor.value.at })) await cursor.delete();
      cursor = await cursor.continue();
    }
    await tx.done;
  }
}

/** Lets content scripts write to session storage (the outbox is the only thing kept there). */
export function openOutboxToContentScripts(): void {
  const session = (globalThis as { chrome?: { storage?: { session?: { setAccessLevel?: (o: { accessLevel: string }) => Promise<void> } } } }).chrome?.storage?.session;
  session?.setAccessLevel?.({ accessLevel: 'TRUSTED_AND_UNTRUSTED_CONTEXTS' }).catch(() => undefined);
}
