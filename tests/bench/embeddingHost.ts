/**
 * Where the embedding model runs on Chrome: the offscreen document (dist/chrome as built) against the
 * service worker itself (the same build with background.js swapped for the in-process bundle, which is
 * dist/firefox/background.js). Both are loaded in fresh profiles, one after the other, twice, and
 * measured the same way:
 *
 * - worker start-up: settings/get from an extension page right after the worker was stopped;
 * - bundled-model load: cold (in-process: in a freshly restarted worker; offscreen: with the document
 *   closed first, so creation + connection + load), and the load alone inside the document;
 * - embedding throughput: 40 batches of 16 real section texts through the host, as the queue sends them;
 * - first search answer after a worker stop with the dense lane on (a search message from a page);
 * - bytes: background.js, the offscreen chunk, the model and the ONNX runtime's WASM.
 *
 * `npm run build && node --import tsx tests/bench/embeddingHost.ts [--rounds=6]`; prints a markdown
 * table and writes bench/results/embedding-host.json.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, until } from '../e2e/harness.js';
import { launchSnapshot, type BenchExtension } from './chromium.js';
import { dist, ms, num, table, writeJson, type Dist } from './report.js';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 6);
const FIREFOX_BG = join(DIST, '../firefox/background.js');

interface Sample {
  startup: number[];
  loadCold: number[];
  loadInside: number[];
  chunksPerSec: number[];
  firstAnswer: number[];
}

const PAGES = 30;

/** 30 pages × 12 sections of generated text, captured through the engine (as the dense e2e test does). */
const CAPTURE = `(async () => {
  const words = 'alpha bravo charlie delta echo foxtrot river mountain forest ocean harbour village engine garden library market station kitten bread commit revert'.split(' ');
  for (let p = 0; p < ${PAGES}; p++) {
    const blocks = [];
    for (let s = 0; s < 12; s++) {
      blocks.push({ kind: 'heading', level: 2, text: 'Section ' + s + ' of page ' + p });
      let text = '';
      for (let w = 0; w < 80; w++) text += words[(p * 7 + s * 3 + w * 5) % words.length] + ' ';
      blocks.push({ kind: 'text', text });
    }
    await engine.capture('http://bench.test/page' + p, { title: 'Bench page ' + p, lang: 'en', blocks });
  }
})()`;

async function stop(ext: BenchExtension): Promise<void> {
  await ext.stopWorker();
  await until(async () => !(await ext.workerRunning()), 'worker stopped', 10_000, 50);
}

async function measure(offscreen: boolean, s: Sample): Promise<void> {
  const ext = await launchSnapshot(offscreen ? {} : { backgroundJs: FIREFOX_BG });
  try {
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    await page.getByTestId('stat-pages').waitFor({ timeout: 30_000 });
    const send = (q: string) =>
      page.evaluate(async (q) => {
        const t = performance.now();
        const r = await chrome.runtime.sendMessage({ type: 'search', payload: { q } });
        if (!r?.ok) throw new Error(JSON.stringify(r));
        return { ms: performance.now() - t, dense: r.data.lanesUsed.dense as boolean };
      }, q);

    // Start-up without any model work.
    for (let r = 0; r < rounds; r++) {
      await stop(ext);
      s.startup.push(await page.evaluate(async () => {
        const t = performance.now();
        await chrome.runtime.sendMessage({ type: 'settings/get', payload: {} });
        return performance.now() - t;
      }));
    }

    // A corpus, embedded.
    await ext.evalSw(CAPTURE);
    await until(async () => (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'embedded', 120_000, 250);

    // Cold model loads.
    for (let r = 0; r < Math.max(2, Math.ceil(rounds / 2)); r++) {
      if (offscreen) await ext.evalSw(`chrome.offscreen.closeDocument().catch(() => undefined)`);
      else await stop(ext);
      const t = await ext.evalSw<{ total: number; inside: number }>(`(async () => {
        const settings = await engine.settings();
        const model = await dense.activeModel();
        const t = performance.now();
        await dense.host.load(model, settings);
        const total = performance.now() - t;
        // The offscreen host reports the document's own load time; in-process, the two are the same.
        return { total, inside: globalThis.rereadLastLoad ? globalThis.rereadLastLoad.loadMs : total };
      })()`);
      s.loadCold.push(t.total);
      s.loadInside.push(t.inside);
    }

    // Throughput: what the queue does, 16 texts a request.
    const tput = await ext.evalSw<number>(`(async () => {
      const model = await dense.activeModel();
      const e = await dense.embedder(model);
      const chunks = [];
      for (const url of (await engine.pages.all()).keys()) for (const c of await globalThis.rereadDebug.pageChunks(url)) chunks.push(c.text);
      const batches = [];
      for (let i = 0; i < 40; i++) batches.push(Array.from({ length: 16 }, (_, j) => chunks[(i * 16 + j) % chunks.length]));
      await e.embed(batches[0], 'passage');
      const t = performance.now();
      for (const b of batches) await e.embed(b, 'passage');
      return (40 * 16) / ((performance.now() - t) / 1000);
    })()`);
    s.chunksPerSec.push(tput);

    // First answer after a stop, dense lane on (each query new to the worker's query cache).
    for (let r = 0; r < rounds; r++) {
      await stop(ext);
      const a = await send(`river harbour ${['kitten', 'bread', 'garden', 'ocean', 'forest', 'market', 'station', 'engine'][r % 8]}`);
      if (!a.dense) throw new Error('the dense lane did not answer');
      s.firstAnswer.push(a.ms);
    }
    await page.close();
  } finally {
    await ext.close();
  }
}

function du(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((a, f) => a + du(join(path, f)), 0);
}

async function main(): Promise<void> {
  if (!existsSync(FIREFOX_BG)) throw new Error('run `npm run build` first');
  const empty = (): Sample => ({ startup: [], loadCold: [], loadInside: [], chunksPerSec: [], firstAnswer: [] });
  const off = empty();
  const inproc = empty();
  // Alternate the two so background load on the machine hits both alike.
  for (let i = 0; i < 2; i++) {
    console.error(`pass ${i + 1}: offscreen document…`);
    await measure(true, off);
    console.error(`pass ${i + 1}: in the worker…`);
    await measure(false, inproc);
  }
  const offChunk = readdirSync(join(DIST, 'assets')).find((f) => /^offscreen-.*\.js$/.test(f));
  const sizes = {
    chromeBackground: du(join(DIST, 'background.js')),
    inProcessBackground: du(FIREFOX_BG),
    offscreenChunk: offChunk ? du(join(DIST, 'assets', offChunk)) : 0,
    model: du(join(DIST, 'models')),
    wasm: du(join(DIST, 'wasm')),
    extension: du(DIST),
  };
  const d = (x: number[]): Dist => dist(x);
  const row = (what: string, a: Dist, b: Dist, unit = 'ms') => [what, `${ms(a.median)} (p95 ${ms(a.p95)}, n=${a.n})`, `${ms(b.median)} (p95 ${ms(b.p95)}, n=${b.n})`, unit];
  const r = {
    offscreen: { startup: d(off.startup), loadCold: d(off.loadCold), loadInside: d(off.loadInside), chunksPerSec: d(off.chunksPerSec), firstAnswer: d(off.firstAnswer) },
    worker: { startup: d(inproc.startup), loadCold: d(inproc.loadCold), loadInside: d(inproc.loadInside), chunksPerSec: d(inproc.chunksPerSec), firstAnswer: d(inproc.firstAnswer) },
    sizes,
    raw: { offscreen: off, worker: inproc },
  };
  console.log(
    table(
      ['measure', 'offscreen document (dist/chrome)', 'in the service worker', 'unit'],
      [
        row('worker start-up (settings/get after a stop)', r.offscreen.startup, r.worker.startup),
        row('bundled model load, cold (offscreen: create + connect + load)', r.offscreen.loadCold, r.worker.loadCold),
        row('  of which the load itself', r.offscreen.loadInside, r.worker.loadInside),
        ['embedding throughput (16-text requests)', `${num(r.offscreen.chunksPerSec.median)} (n=${r.offscreen.chunksPerSec.n})`, `${num(r.worker.chunksPerSec.median)} (n=${r.worker.chunksPerSec.n})`, 'chunks/s'],
        row('first search answer after a worker stop, dense lane on', r.offscreen.firstAnswer, r.worker.firstAnswer),
        ['background.js', `${num(sizes.chromeBackground / 1024)} KB`, `${num(sizes.inProcessBackground / 1024)} KB`, ''],
      ],
    ),
  );
  console.log(
    `\nWhat the model adds to the extension: model files ${num(sizes.model / 1024)} KB, ONNX runtime WASM ${num(sizes.wasm / 1024)} KB, ` +
      `transformers.js + ONNX runtime JS ${num(sizes.offscreenChunk / 1024)} KB (offscreen chunk); the whole dist/chrome ${num(sizes.extension / 1024)} KB.`,
  );
  writeJson('embedding-host', r);
}

await main();
