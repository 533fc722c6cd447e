/**
 * What Chromium's IndexedDB counts against a quota, measured in the real browser: the extension's
 * worker, built without `unlimitedStorage`, with its quota lowered through CDP. Prints, for each step,
 * the usage Chromium reports (CDP Storage.getUsageAndQuota) and the LevelDB files on disk. The findings
 * are written down in background/storageBudget.ts.
 *
 *   npm run build && node --import tsx tests/bench/quotaProbe.ts [refusals|deletes|flush|engine ...]
 *
 * - refusals: distinct 16 KB records until a put is refused, then which transactions still commit.
 * - deletes:  the same fill, then deletes only: does usage fall, and when do puts commit again? Then
 *             closing and reopening the connection.
 * - flush:    64 records rewritten again and again (dead versions, as posting blocks are) until
 *             refused, then scratch databases made and deleted one after another.
 * - engine:   the engine's own records (pages captured as tests/e2e/quota.test.ts makes them), then one
 *             forced flush (storageBudget.flushIndexedDb): what the log turns into.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { launch, limitedStorageDist } from '../e2e/harness.js';

const QUOTA = Number(process.env.PROBE_QUOTA ?? 4 * 1024 * 1024);
const which = new Set(process.argv.slice(2).length ? process.argv.slice(2) : ['refusals', 'deletes', 'flush', 'engine']);

/** Installed in the worker: raw IndexedDB operations on a scratch database, each answering 'ok' or the error's name. */
const HELPERS = `(() => {
  const open = (name) => new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onupgradeneeded = () => r.result.createObjectStore('s'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const rnd = (n) => { const b = new Uint8Array(n); for (let o = 0; o < n; o += 65536) crypto.getRandomValues(b.subarray(o, Math.min(n, o + 65536))); return b; };
  let db;
  globalThis.probe = {
    async open(name = 'probe') { db = await open(name); return 'ok'; },
    close() { db.close(); db = undefined; return 'ok'; },
    /** ops: ['put', key, bytes] | ['del', key] | ['delRange', lo, hi] | ['clear'] */
    tx(ops) {
      return new Promise((res) => {
        const t = db.transaction('s', 'readwrite');
        const s = t.objectStore('s');
        for (const op of ops) {
          if (op[0] === 'put') s.put(rnd(op[2]), op[1]);
          else if (op[0] === 'del') s.delete(op[1]);
          else if (op[0] === 'delRange') s.delete(IDBKeyRange.bound(op[1], op[2]));
          else if (op[0] === 'clear') s.clear();
        }
        t.oncomplete = () => res('ok');
        t.onabort = () => res(t.error ? t.error.name : 'abort');
      });
    },
    count() { return new Promise((res) => { const r = db.transaction('s').objectStore('s').count(); r.onsuccess = () => res(r.result); }); },
    deleteDb(name) { return new Promise((res) => { const d = indexedDB.deleteDatabase(name); d.onsuccess = () => res('ok'); d.onerror = () => res(d.error ? d.error.name : 'error'); d.onblocked = () => res('blocked'); }); },
  };
  return 'ok';
})()`;

/** A page like tests/e2e/quota.test.ts's: 24 paragraphs of made-up words. */
function pageBlocks(i: number): { kind: 'text'; text: string }[] {
  let seed = i + 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const syl = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'si', 'pe', 'du', 'gra', 'bel', 'tor', 'fen', 'zu', 'mar'];
  const word = () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => syl[Math.floor(rand() * syl.length)]).join('');
  return Array.from({ length: 24 }, () => ({ kind: 'text' as const, text: Array.from({ length: 60 }, word).join(' ') + '.' }));
}

async function main(): Promise<void> {
  const dist = limitedStorageDist();
  const ext = await launch({ dist });
  const origin = `chrome-extension://${ext.extId}`;
  const tab = await ext.ctx.newPage();
  await tab.goto(ext.extensionUrl('options.html'));
  const cdp = await ext.ctx.newCDPSession(tab);
  const usage = async () => ((await cdp.send('Storage.getUsageAndQuota' as never, { origin } as never)) as { usage: number }).usage;
  const setQuota = (quotaSize: number) => cdp.send('Storage.overrideQuotaForOrigin' as never, { origin, quotaSize } as never);
  const files = () => {
    const sizes = { log: 0, ldb: 0, tables: 0, blob: 0 };
    const walk = (d: string, ours: boolean) => {
      for (const f of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, f.name);
        if (f.isDirectory()) walk(p, ours || f.name.includes(ext.extId));
        else if (ours && f.name.endsWith('.log')) sizes.log += statSync(p).size;
        else if (ours && f.name.endsWith('.ldb')) {
          sizes.ldb += statSync(p).size;
          sizes.tables++;
        }
        else if (ours && p.includes('.blob')) sizes.blob += statSync(p).size;
      }
    };
    walk(join(ext.profile, 'Default', 'IndexedDB'), false);
    return `log ${sizes.log} ldb ${sizes.ldb} (${sizes.tables} tables) blobs ${sizes.blob}`;
  };
  // The worker may be stopped when idle: the helpers (and the scratch database's connection) come back with it.
  const sw = <T>(code: string) => ext.evalSw<T>(`(async () => { if (!globalThis.probe) { ${HELPERS}; await probe.open(); } return ${code}; })()`);
  const say = async (what: string, result?: unknown) => console.log(what.padEnd(58), String(result ?? '').padEnd(20), `usage ${await usage()}`, files());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const putTiny = () => sw<string>(`probe.tx([['put', 'tiny', 1]])`);
  /** Writes `round(i)` transactions until one is refused (at most `max`). */
  const fillUntilRefused = async (label: string, round: (i: number) => unknown[][], max = 400) => {
    for (let i = 0; i < max; i++) {
      const r = await sw<string>(`probe.tx(${JSON.stringify(round(i))})`);
      if (i % 16 === 0 || r !== 'ok') await say(`${label} ${i}`, r);
      if (r !== 'ok') return;
    }
  };
  const reset = async () => {
    await setQuota(1024 * 1024 * 1024);
    await sw(`probe.tx([['clear']])`);
    await sw(`probe.deleteDb('scratch').then(() => 'ok')`);
    await sleep(6000); // the room Chromium caches expires
    await setQuota(QUOTA);
    await sleep(6000);
    await say(`quota ${QUOTA}`);
  };

  await sw(`'ok'`);
  await say('start');

  if (which.has('refusals')) {
    await reset();
    let key = 0;
    await fillUntilRefused('distinct 16 KB records, 8 a transaction: round', () => Array.from({ length: 8 }, () => ['put', key++, 16 * 1024]), 2000);
    await say('put 1 byte', await putTiny());
    await say('delete 1 record (delete only)', await sw(`probe.tx([['del', 0]])`));
    await say('delete 1 record + put 1 byte', await sw(`probe.tx([['del', 1], ['put', 'tiny', 1]])`));
    await say('overwrite a 16 KB record with 1 byte', await sw(`probe.tx([['put', 2, 1]])`));
    await say('delete 20 records by key range', await sw(`probe.tx([['delRange', 3, 22]])`));
    await say('open (create) a second database', await sw(`probe.open('scratch').then(() => (probe.close(), probe.open()))`));
  }

  if (which.has('deletes')) {
    await reset();
    let key = 0;
    await fillUntilRefused('distinct 16 KB records: round', () => Array.from({ length: 8 }, () => ['put', key++, 16 * 1024]), 2000);
    for (let k = 0; k < key - 16; k += 64) await sw(`probe.tx(${JSON.stringify(Array.from({ length: Math.min(64, key - 16 - k) }, (_, i) => ['del', k + i]))})`);
    await say('deleted all but 16 records (delete-only transactions)', await sw(`probe.count()`));
    for (const wait of [0, 2000, 5000, 10000, 20000]) {
      await sleep(wait);
      await say(`  +${wait} ms: put 1 byte`, await putTiny());
    }
    await sw(`probe.close()`);
    await sleep(5000);
    await say('closed our connection 5 s ago');
    await sw(`probe.open()`);
    await say('reopened: put 1 byte', await putTiny());
  }

  if (which.has('flush')) {
    await reset();
    await fillUntilRefused('64 records of 16 KB rewritten: round', (i) => Array.from({ length: 8 }, (_, j) => ['put', (i * 8 + j) % 64, 16 * 1024]));
    for (let cycle = 1; cycle <= 6; cycle++) {
      const r = await sw<string>(`probe.open('scratch').then(() => (probe.close(), probe.deleteDb('scratch'))).then(async (d) => (await probe.open(), d))`);
      await say(`scratch database made and deleted (${cycle})`, r);
      await sleep(1000);
      await say('  +1 s: put 1 byte', await putTiny());
    }
  }

  if (which.has('engine')) {
    await setQuota(1024 * 1024 * 1024);
    for (let i = 0; i < 4; i++) {
      await sw(`engine.capture('https://probe.example/${i}', { title: 'Reading ${i}', lang: 'en', blocks: ${JSON.stringify(pageBlocks(i))} })`);
      await say(`engine: page ${i} captured`);
    }
    await say('engine: forced flush (storageBudget.flushIndexedDb)', await sw(`engine.budget.flush ? engine.budget.flush().then(() => 'ok') : 'no flush set'`));
    await sleep(2000);
    await say('  +2 s');
  }

  await ext.close();
  rmSync(dist, { recursive: true, force: true });
}

await main();
