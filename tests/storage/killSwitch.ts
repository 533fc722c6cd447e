/**
 * "The worker is killed at any moment". A kill switch over fake-indexeddb: every request
 * (get, put, cursor step, ...) made on one connection is counted; at the k-th one the worker "dies":
 * every transaction of that connection still active aborts (the ones already committing commit, as in a
 * real stop), the k-th request and every later one throws, and no new transaction can be opened on it.
 * The dead engine object is then dropped and a fresh engine opened on a second connection to the same
 * database (what a worker restart sees).
 */
import 'fake-indexeddb/auto';
import { openDB, unwrap, wrap as idbWrap } from 'idb';
import { DB_VERSION, upgrade, type DB, type RereadDB } from '../../background/db.js';

interface Victim {
  raw: IDBDatabase;
  count: number;
  killAt: number;
  killed: boolean;
  live: Set<IDBTransaction>;
  onKill?: () => void;
  /** Kill at the first request this says yes to. */
  when?: (tx: IDBTransaction, method: string) => boolean;
}

const victims = new Map<IDBDatabase, Victim>();

function victimOfTx(tx: IDBTransaction | undefined | null): Victim | undefined {
  return tx ? victims.get(tx.db) : undefined;
}

function dead(): DOMException {
  return new DOMException('the worker was killed', 'AbortError');
}

function kill(v: Victim): void {
  if (v.killed) return;
  v.killed = true;
  for (const tx of v.live) {
    try {
      tx.abort();
    } catch {
      // committing or finished: it commits (a real stop may let it)
    }
  }
  v.live.clear();
  v.onKill?.();
}

function count(v: Victim | undefined, tx?: IDBTransaction, method = ''): void {
  if (!v) return;
  if (v.killed) throw dead();
  if (++v.count >= v.killAt || (tx && v.when?.(tx, method))) {
    kill(v);
    throw dead();
  }
}

let patched = false;
function patch(): void {
  if (patched) return;
  patched = true;
  const G = globalThis as unknown as Record<string, { prototype: Record<string, unknown> }>;
  const wrap = (proto: Record<string, unknown>, names: string[], txOf: (self: never) => IDBTransaction | undefined) => {
    for (const name of names) {
      const orig = proto[name] as ((...a: unknown[]) => unknown) | undefined;
      if (typeof orig !== 'function') continue;
      proto[name] = function (this: unknown, ...args: unknown[]) {
        const tx = txOf(this as never);
        count(victimOfTx(tx), tx, name);
        return orig.apply(this, args);
      };
    }
  };
  wrap(G.IDBObjectStore!.prototype, ['put', 'add', 'delete', 'get', 'getKey', 'getAll', 'getAllKeys', 'clear', 'openCursor', 'openKeyCursor', 'count'], (s: { transaction?: IDBTransaction }) => s.transaction);
  wrap(G.IDBIndex!.prototype, ['get', 'getKey', 'getAll', 'getAllKeys', 'openCursor', 'openKeyCursor', 'count'], (i: { objectStore?: { transaction?: IDBTransaction } }) => i.objectStore?.transaction);
  wrap(G.IDBCursor!.prototype, ['continue', 'advance', 'continuePrimaryKey', 'update', 'delete'], (c: { _request?: { transaction?: IDBTransaction }; request?: { transaction?: IDBTransaction } }) => c._request?.transaction ?? c.request?.transaction);
  const dbProto = G.IDBDatabase!.prototype;
  const origTx = dbProto.transaction as (...a: unknown[]) => IDBTransaction;
  dbProto.transaction = function (this: IDBDatabase, ...args: unknown[]) {
    const v = victims.get(this);
    if (v?.killed) throw new DOMException('the worker was killed', 'InvalidStateError');
    const tx = origTx.apply(this, args);
    if (v) {
      // idb's done promise of a transaction the kill aborts may have no listener (a dead engine's read):
      // marked handled here, its awaiters still see the rejection.
      (idbWrap(tx) as unknown as { done: Promise<void> }).done.catch(() => undefined);
      v.live.add(tx);
      const done = () => v.live.delete(tx);
      tx.addEventListener('complete', done);
      tx.addEventListener('abort', done);
      tx.addEventListener('error', done);
    }
    return tx;
  };
}

export interface Connection {
  db: DB;
  /** Requests made so far on this connection. */
  readonly requests: number;
  readonly killed: boolean;
  /** Kill at the k-th request from now on (Infinity: never). */
  armAt(k: number): void;
  /** Kill at the first request `pred` says yes to (its transaction, the method called). */
  armWhen(pred: ((tx: IDBTransaction, method: string) => boolean) | undefined): void;
  killNow(): void;
  onKill(f: () => void): void;
}

/** A connection to `name` (created with the schema if new) whose requests are counted and can be killed. */
export async function killableConnection(name: string): Promise<Connection> {
  patch();
  const db = await openDB<RereadDB>(name, DB_VERSION, { upgrade: (d, oldVersion, _v, tx) => upgrade(d, oldVersion, tx) });
  const raw = unwrap(db) as IDBDatabase;
  const v: Victim = { raw, count: 0, killAt: Infinity, killed: false, live: new Set() };
  victims.set(raw, v);
  return {
    db,
    get requests() {
      return v.count;
    },
    get killed() {
      return v.killed;
    },
    armAt(k) {
      v.killAt = k;
    },
    armWhen(pred) {
      v.when = pred;
    },
    killNow() {
      kill(v);
    },
    onKill(f) {
      v.onKill = f;
    },
  };
}

/** A plain second connection (the restarted worker's). */
export function reopen(name: string): Promise<DB> {
  return openDB<RereadDB>(name, DB_VERSION, { upgrade: (d, oldVersion, _v, tx) => upgrade(d, oldVersion, tx) });
}
