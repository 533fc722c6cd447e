/**
 * What Chromium's IndexedDB counts against a quota, measured in the real browser (the extension's
 * worker, built without `unlimitedStorage`, quota lowered through CDP). Prints what each kind of
 * transaction does once usage is over the quota, and what brings usage back down. The findings are
 * written down in background/storageBudget.ts.
 *
 *   npm run build && node --import tsx tests/bench/quotaProbe.ts
 */
import { readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { launch, limitedStorageDist } from '../e2e/harness.js';

const QUOTA = Number(process.env.PROBE_QUOTA ?? 4 * 1024 * 1024);

/** Installed in the worker once: raw IndexedDB operations on a scratch database, each answering 'ok' or the error's name. */
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
    estimate() { return navigator.storage.estimate().then((e) => e.usage); },
  };
  return 'ok';
})()`;

async function main(): Promise<void> {
  const dist = limitedStorageDist();
  const ext = await launch({ dist });
  const origin = `chrome-extension://${ext.extId}`;
  const tab = await ext.ctx.newPage();
  await tab.goto(ext.extensionUrl('options.html'));
  const cdp = await ext.ctx.newCDPSession(tab);
  const usage = async () => ((await cdp.send('Storage.getUsageAndQuota' as never, { origin } as never)) as { usage: number }).usage;
  const setQuota = (quotaSize: number) => cdp.send('Storage.overrideQuotaForOrigin' as never, { origin, quotaSize } as never);
  const idbDir = () => {
    const root = join(ext.profile, 'Default', 'IndexedDB');
    const out: Record<string, number> = {};
    const walk = (d: string, rel: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        const st = statSync(p);
        if (st.isDirectory()) walk(p, join(rel, f));
        else if (rel.includes(ext.extId)) out[join(rel.replace(/^.*?indexeddb\./, ''), f)] = st.size;
      }
    };
    walk(root, '');
    return out;
  };
  const files = () => {
    const f = idbDir();
    const sum = (re: RegExp) => Object.entries(f).filter(([k]) => re.test(k)).reduce((n, [, v]) => n + v, 0);
    return `log ${sum(/\.log$/)} ldb ${sum(/\.ldb$/)} (${Object.keys(f).filter((k) => k.endsWith('.ldb')).length} tables) blobs ${sum(/blob/)}`;
  };
  // The worker may be stopped when idle: the helpers (and the scratch database's connection) come back with it.
  const sw = <T>(code: string) => ext.evalSw<T>(`(async () => { if (!globalThis.probe) { ${HELPERS}; await probe.open(); console.log('probe: worker restarted'); } return ${code}; })()`);
  const say = async (what: string, result?: unknown) => console.log(what.padEnd(60), result === undefined ? '' : String(result).padEnd(20), `usage ${await usage()}`, files());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  await sw(HELPERS);
  await sw(`probe.open()`);
  await say('start (quota not lowered yet)');
  await setQuota(QUOTA);
  console.log(`quota ${QUOTA}; waiting 8 s for it to be enforced`);
  await sleep(8000);
  const compactByScratch = async (label: string) => {
    const made = await sw<string>(`(async () => { try { await probe.open('compact-scratch'); probe.close(); return 'opened'; } catch (e) { return 'open failed: ' + e.name; } })()`);
    await say(`${label}: open a scratch database`, made);
    await say(`${label}: deleteDatabase(scratch)`, await sw(`probe.deleteDb('compact-scratch')`));
    await sw(`probe.open()`);
    for (const wait of [0, 1000, 2000, 4000]) {
      await sleep(wait);
      await say(`  +${wait} ms: put 1 byte`, await sw(`probe.tx([['put', 'tiny', 1]])`));
    }
  };

  // C. Dead bytes (64 keys of 16 KB rewritten again and again, as posting blocks are) until refused,
  // then scratch databases made and deleted one after another: does LevelDB compact?
  let refused = false;
  for (let round = 0; round < 400 && !refused; round++) {
    const ops = Array.from({ length: 8 }, (_, i) => ['put', (round * 8 + i) % 64, 16 * 1024]);
    const r = await sw<string>(`probe.tx(${JSON.stringify(ops)})`);
    refused = r !== 'ok';
    if (round % 16 === 0 || refused) await say(`rewrite round ${round}`, r);
  }
  for (let cycle = 1; cycle <= 6; cycle++) {
    const r = await sw<string>(`(async () => { try { await probe.open('compact-scratch-' + ${cycle}); probe.close(); } catch (e) { return 'open failed: ' + e.name; } const d = await probe.deleteDb('compact-scratch-' + ${cycle}); await probe.open(); return d; })()`);
    await say(`cycle ${cycle}: scratch made and deleted`, r);
    await sleep(1000);
    await say(`  +1 s: put 1 byte`, await sw(`probe.tx([['put', 'tiny', 1]])`));
  }
  await sleep(3000);
  await say(`  +3 s: put 1 byte`, await sw(`probe.tx([['put', 'tiny', 1]])`));

  await ext.close();
  rmSync(dist, { recursive: true, force: true });
}

await main();
