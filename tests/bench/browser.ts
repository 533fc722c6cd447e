/**
 * In Chromium with the real extension (dist/chrome, `npm run build` first), driven through
 * tests/e2e/harness.ts: bulk load through engine.capture in the worker, query latency in the worker
 * (warm, and with the posting cache dropped so postings come from IndexedDB), keystroke to results on
 * screen in search.html, the first answer after the worker was stopped, IndexedDB bytes, the worker's
 * heap; then the same with the dense lane on (the bundled model, run in Chrome's offscreen document:
 * the first answer after a worker stop is measured with the document kept, as an idle stop leaves it,
 * and with it closed too, as after its idle timeout). Also a probe of random IndexedDB
 * reads, the cost the dense prototype's "rescore from storage" step would pay.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright';
import { until } from '../e2e/harness.js';
import { launchSnapshot, type BenchExtension } from './chromium.js';
import { BulkIndex, finishLoad, writeBatch, writeVectors } from './bulkLoad.js';
import { startupProbe } from './startupProbe.js';
import { queryTerms } from '../../src/tokenizer.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { modelInfo } from '../../src/models.js';
import { indexSection, TOKENIZER } from '../../src/indexing.js';
import { parseRequest } from '../../src/search.js';
import { makeVocabulary, pagesToDocs, sampleQueries, synthPages, toPayload, type Query, type SynthPage } from './corpus.js';
import { dist, mb, mean, ms, num, now, targetTable, type Dist, type Report, type Target } from './report.js';

export interface BrowserOptions {
  chunks: number;
  /** Chunks (at the end of the corpus) that go through engine.capture. */
  captureChunks: number;
  quick: boolean;
}

export interface BrowserResult {
  chromium: string;
  pages: number;
  chunks: number;
  phases: Record<string, unknown>;
  targets: Target[];
}


/** The worker's JS heap after a full GC (the Performance domain is not available on worker targets). */
export async function workerHeap(ext: BenchExtension): Promise<{ usedBytes: number; totalBytes: number }> {
  const [, heap] = await ext.workerCdp<unknown>([{ method: 'HeapProfiler.collectGarbage' }, { method: 'Runtime.getHeapUsage' }]);
  const h = heap as { usedSize: number; totalSize: number };
  return { usedBytes: h.usedSize, totalBytes: h.totalSize };
}

export async function storageUsage(page: Page): Promise<number> {
  return page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
}

export function duBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split(/\s+/)[0]);
}

/** Loads pages through engine.capture inside the worker, in batches (each evalSw call must finish within 60 s). */
async function bulkLoad(ext: BenchExtension, pages: readonly SynthPage[], batch: number, log: (s: string) => void): Promise<{ wallMs: number; workerMs: number; perPageMs: number[] }> {
  const perPageMs: number[] = [];
  let workerMs = 0;
  const t0 = now();
  for (let i = 0; i < pages.length; i += batch) {
    const slice = pages.slice(i, i + batch).map((p) => ({ url: p.url, now: p.date, payload: toPayload(p) }));
    const r = await ext.evalSw<{ times: number[]; outcomes: string[] }>(
      `(async (pages) => { const times = []; const outcomes = []; for (const p of pages) { const t = performance.now(); const res = await engine.capture(p.url, p.payload, p.now); times.push(performance.now() - t); outcomes.push(res.outcome); } return { times, outcomes }; })(${JSON.stringify(slice)})`,
    );
    const bad = r.outcomes.filter((o) => o !== 'new');
    if (bad.length) throw new Error(`capture outcomes: ${bad.slice(0, 3).join(', ')}`);
    perPageMs.push(...r.times);
    workerMs += r.times.reduce((a, b) => a + b, 0);
    if ((i / batch) % 10 === 0) log(`  loaded ${i + slice.length}/${pages.length} pages (${ms(now() - t0)} ms)`);
  }
  return { wallMs: now() - t0, workerMs, perPageMs };
}

export interface WorkerTimings {
  /** engine.search, warm (every query ran once before). */
  total: Dist;
  /**
   * Its parts: the lexical lane alone (postings + BM25); the dense lane alone with the query's vector
   * dropped from the worker's query cache first (a round trip to the embedding host, on Chrome the
   * offscreen document, plus the scan), and again with it cached (the scan alone).
   */
  lexical: Dist;
  dense: Dist | null;
  denseScan: Dist | null;
  /** engine.search with the posting cache dropped first: postings read from IndexedDB. */
  coldPostings: Dist;
  results: number;
}

/**
 * In the worker, per query: engine.search warm, then its lexical lane alone (rereadDebug.lexicalLane:
 * postings + BM25, as search runs them) and its dense lane alone, then engine.search again with the
 * posting cache dropped. Interleaved per query, so background load hits all alike.
 */
async function workerQueries(ext: BenchExtension, qs: readonly Query[], coldEvery = 1): Promise<WorkerTimings> {
  // Query terms computed here with the same tokenizer the bundle uses (src/tokenizer.ts).
  const items = qs.map((q) => ({ q: q.text, terms: queryTerms(parseRequest({ q: q.text }).text, TOKENIZER) }));
  const r = await ext.evalSw<{ total: number[]; lexical: number[]; dense: number[]; denseScan: number[]; cold: number[]; results: number }>(`(async (items, coldEvery) => {
    const out = { total: [], lexical: [], dense: [], denseScan: [], cold: [], results: 0 };
    const settings = await engine.settings();
    for (const it of items) await engine.search({ q: it.q, limit: 30 });
    for (let i = 0; i < items.length; i++) {
      const { q, terms } = items[i];
      let t = performance.now();
      const res = await engine.search({ q, limit: 30 });
      out.total.push(performance.now() - t);
      out.results += res.results.length;
      t = performance.now();
      await globalThis.rereadDebug.lexicalSearch(q, 90);
      out.lexical.push(performance.now() - t);
      if (settings.denseEnabled && dense) {
        // engine.search just cached this query's vector (DenseService.queryCache, a private field).
        for (const key of [...dense.queryCache.keys()]) if (key.endsWith('\\u0000' + res.parsed.text)) dense.queryCache.delete(key);
        t = performance.now();
        await dense.search(res.parsed.text, 90, null);
        out.dense.push(performance.now() - t);
        t = performance.now();
        await dense.search(res.parsed.text, 90, null);
        out.denseScan.push(performance.now() - t);
      }
      if (i % coldEvery === 0) {
        engine.lexical.invalidate('all');
        t = performance.now();
        await engine.search({ q, limit: 30 });
        out.cold.push(performance.now() - t);
      }
    }
    return out;
  })(${JSON.stringify(items)}, ${coldEvery})`);
  return { total: dist(r.total), lexical: dist(r.lexical), dense: r.dense.length ? dist(r.dense) : null, denseScan: r.denseScan.length ? dist(r.denseScan) : null, coldPostings: dist(r.cold), results: r.results / qs.length };
}

export async function openSearch(ext: BenchExtension): Promise<Page> {
  const page = await ext.ctx.newPage();
  await page.goto(ext.extensionUrl('search.html'));
  await page.getByTestId('search-input').waitFor();
  return page;
}

/**
 * Waits until the page shows the answer for exactly `q`: the box holds `q` and nothing is being
 * searched (the page drops answers to anything but the latest input, and marks the screen stale on
 * every input, so a shown answer with no search pending is the answer to what is in the box).
 */
export async function settled(page: Page, q: string): Promise<void> {
  await page.waitForFunction(
    (want) =>
      ((document.querySelector('[data-testid="search-input"]') as HTMLInputElement | null)?.value ?? '').trim() === want &&
      !document.querySelector('[data-testid="searching"]') &&
      !!(document.querySelector('[data-testid="result"]') || document.querySelector('[data-testid="no-results"]') || document.querySelector('[data-testid="error"]')),
    q,
    { timeout: 30_000 },
  );
}

/**
 * In-page: records the keydown timestamp, then when the answer for `want` is in the DOM and the frame
 * after. On the way, chrome.runtime.sendMessage is wrapped for this one keystroke (the polyfill calls it
 * at call time, with a callback; a promise-returning call is handled too) to note when the search
 * message for `want` left and when its reply came back, with the engine's own timings from the reply.
 */
const KEYSTROKE_PROBE = `(want) => {
  let tKey = -1;
  let tSend = NaN;
  let tReply = NaN;
  let timings = null;
  let sawSearching = false;
  const box = document.querySelector('[data-testid="search-input"]');
  const rts = [globalThis.chrome && chrome.runtime, globalThis.browser && browser.runtime].filter((r, i, a) => r && a.indexOf(r) === i);
  const originals = rts.map((rt) => rt.sendMessage);
  const restore = () => rts.forEach((rt, i) => { rt.sendMessage = originals[i]; });
  rts.forEach((rt, i) => {
    const orig = originals[i];
    rt.sendMessage = function (...args) {
      const msg = args[0];
      if (!(msg && msg.type === 'search' && msg.payload && String(msg.payload.q).trim() === want)) return orig.apply(this, args);
      tSend = performance.now();
      const got = (reply) => { tReply = performance.now(); timings = (reply && reply.data && reply.data.timings) || null; };
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        args[args.length - 1] = (reply) => { got(reply); return last(reply); };
        return orig.apply(this, args);
      }
      return orig.apply(this, args).then((reply) => { got(reply); return reply; });
    };
  });
  box.addEventListener('keydown', (e) => { tKey = e.timeStamp; }, { capture: true, once: true });
  window.__bench = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (tKey < 0) return;
      if (document.querySelector('[data-testid="searching"]')) { sawSearching = true; return; }
      if (!sawSearching || box.value.trim() !== want) return;
      const results = document.querySelectorAll('[data-testid="result"]').length;
      if (!results && !document.querySelector('[data-testid="no-results"]') && !document.querySelector('[data-testid="error"]')) return;
      obs.disconnect();
      restore();
      const tDom = performance.now();
      const meta = (document.querySelector('[data-testid="search-meta"]') || {}).textContent || '';
      const m = /·\\s*([\\d.]+)\\s*ms/.exec(meta);
      // The page rounds: "under 1 ms" is counted as 0.5 ms (it read as NaN, which no median can use).
      const took = m ? Number(m[1]) : /·\\s*under 1 ms/.test(meta) ? 0.5 : NaN;
      requestAnimationFrame(() => resolve({ tKey, tSend, tReply, timings, tDom, tFrame: performance.now(), results, took, origin: performance.timeOrigin }));
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}`;

export interface KeystrokeTiming {
  /** keydown event timestamp to the DOM holding the answer. */
  toDom: number;
  /** keydown to the search message leaving the page (input handling, state updates). */
  toSend: number;
  /** Message out to reply in (the worker's whole part, messaging included). */
  roundTrip: number;
  /** Reply in to the answer in the DOM (Preact render). */
  render: number;
  /** The engine's phases (SearchResponse.timings), or null when the reply had none (an older build). */
  timings: Record<string, number> | null;
  /** ... to the next animation frame after it (the paint that shows it). */
  toFrame: number;
  /** The engine's own time for the query (tookMs, shown on the page). */
  engineMs: number;
  results: number;
  /** The keydown as an epoch time (ms), to line it up with the worker's boot trace. */
  keyAt: number;
}

/**
 * Types `q` without its last character (and waits for that answer), then times the last keystroke:
 * from its keydown timestamp to the results for `q` being in the DOM and the frame after.
 */
async function keystroke(page: Page, q: string, prepare = true): Promise<KeystrokeTiming> {
  const input = page.getByTestId('search-input');
  const prefix = q.slice(0, -1);
  if (prepare) {
    await input.fill(prefix);
    if (prefix.trim()) await settled(page, prefix.trim());
  }
  // A string, not a function: tsx would wrap the inner closures in a helper the page does not have.
  await page.evaluate(`(${KEYSTROKE_PROBE})(${JSON.stringify(q)})`);
  await input.press(q.slice(-1) === ' ' ? 'Space' : q.slice(-1));
  const r = await page.evaluate(() => (window as unknown as { __bench: Promise<{ tKey: number; tSend: number; tReply: number; timings: Record<string, number> | null; tDom: number; tFrame: number; results: number; took: number; origin: number }> }).__bench);
  return { toDom: r.tDom - r.tKey, toSend: r.tSend - r.tKey, roundTrip: r.tReply - r.tSend, render: r.tDom - r.tReply, timings: r.timings, toFrame: r.tFrame - r.tKey, engineMs: r.took, results: r.results, keyAt: r.origin + r.tKey };
}

/** Times the last keystroke of each query; a query whose answer never shows is skipped (and counted). */
export async function keystrokes(page: Page, qs: readonly Query[]): Promise<KeystrokeTiming[] & { failed?: number }> {
  const out: KeystrokeTiming[] & { failed?: number } = [];
  out.failed = 0;
  for (const q of qs) {
    try {
      out.push(await keystroke(page, q.text));
    } catch (e) {
      out.failed++;
      console.warn(`  keystroke for “${q.text}” failed: ${String(e).split('\n')[0]}`);
      await page.reload();
      await page.getByTestId('search-input').waitFor();
    }
  }
  return out;
}

/**
 * Stops the worker, then times the first answer: a keystroke in an open search page, a search message,
 * and start-up alone (settings/get). `closeDocument`: Chrome's offscreen document (the embedding model)
 * is closed before every stop too, so the answer also pays creating it and loading the model; by
 * default it stays open across the stop, as an idle stop of the worker leaves it.
 */
export async function afterRestart(ext: BenchExtension, page: Page, qs: readonly Query[], rounds: number, closeDocument = false): Promise<{ keystroke: KeystrokeTiming[]; message: number[]; startup: number[]; parts: FirstAnswerParts[]; hybrid: (number | null)[] }> {
  const ks: KeystrokeTiming[] = [];
  const hybrid: (number | null)[] = [];
  const parts: FirstAnswerParts[] = [];
  const msg: number[] = [];
  const startup: number[] = [];
  const stop = async () => {
    if (closeDocument) await ext.evalSw('chrome.offscreen.closeDocument().catch(() => undefined)');
    await ext.stopWorker();
    await until(async () => !(await ext.workerRunning()), 'worker stopped', 10_000, 50);
  };
  for (let r = 0; r < rounds; r++) {
    // Keystroke: the page is open on the prefix, the worker stops, the user types the last letter.
    const q = qs[r % qs.length]!.text;
    await page.getByTestId('search-input').fill(q.slice(0, -1));
    await settled(page, q.slice(0, -1).trim());
    await stop();
    const k = await keystroke(page, q, false);
    ks.push(k);
    // An answer by words alone while the dense index loads (SearchResponse.denseLoading): when the
    // search box's second answer, with both lanes, replaced it (ms from the keydown).
    hybrid.push(
      await page.evaluate(`new Promise((resolve) => {
        const t0 = performance.now();
        let first = true;
        const check = () => {
          // data-lanes: which lists answered; the status line's text, in builds before it.
          const el = document.querySelector('[data-testid="search-meta"]');
          const meta = el?.textContent ?? '';
          const lanes = el?.getAttribute('data-lanes') ?? (meta.includes('meaning is loading') ? 'loading' : meta.includes('words + meaning') ? 'both' : 'words');
          const loading = lanes === 'loading';
          if (first && !loading) resolve(null); // the first answer was not words-only
          else if (!loading) resolve(lanes === 'both' ? performance.timeOrigin + performance.now() : null);
          else if (performance.now() - t0 > 30000) resolve(null);
          else requestAnimationFrame(check);
          first = false;
        };
        check();
      })`).then((at) => (typeof at === 'number' ? at - k.keyAt : null)),
    );
    parts.push(firstAnswerParts(k, await ext.evalSw<BootTrace>('globalThis.rereadDebug.bootTrace()')));
    // Message: a bare runtime.sendMessage from the page, round trip.
    const q2 = qs[(r + rounds) % qs.length]!.text;
    await stop();
    msg.push(
      await page.evaluate(async (text) => {
        const t = performance.now();
        const reply = (await chrome.runtime.sendMessage({ type: 'search', payload: { q: text, limit: 30 } })) as { ok: boolean };
        if (!reply?.ok) throw new Error('search failed after restart');
        return performance.now() - t;
      }, q2),
    );
    // Start-up alone: a message that does no work (settings/get).
    await stop();
    startup.push(
      await page.evaluate(async () => {
        const t = performance.now();
        await chrome.runtime.sendMessage({ type: 'settings/get', payload: {} });
        return performance.now() - t;
      }),
    );
  }
  return { keystroke: ks, message: msg, startup, parts, hybrid };
}

interface BootTrace {
  origin: number;
  events: { what: string; at: number; ms?: number }[];
}

/**
 * Where the first answer after a stop went, in ms from the keydown: the worker's start (its time
 * origin), its modules evaluated, the search message arriving, `ready` (settings, dense init, forget
 * marks), the reply sent, the DOM and the frame; and for each traced step of the first search
 * (background/bootTrace.ts: whole-store loads, postings, dense lane, sections) its start and duration.
 * `at:` keys are starts from the keydown, `ms:` keys durations.
 */
export type FirstAnswerParts = Record<string, number>;

export function firstAnswerParts(k: KeystrokeTiming, trace: BootTrace): FirstAnswerParts {
  const out: FirstAnswerParts = { 'at:worker start': trace.origin - k.keyAt };
  const first = new Set<string>();
  for (const e of trace.events) {
    // The first of each kind: the first search's steps (later searches repeat the names).
    const name = e.what.replace(/\(\d+\)|: \d+ pages/g, '').trim();
    if (first.has(name)) continue;
    first.add(name);
    out[`at:${name}`] = e.at - k.keyAt;
    if (e.ms !== undefined) out[`ms:${name}`] = e.ms;
  }
  out['at:results in DOM'] = k.toDom;
  out['at:frame'] = k.toFrame;
  return out;
}

/** Random reads of `reads` 388-byte records out of `records`, from IndexedDB in the worker (a separate database). */
async function idbProbe(ext: BenchExtension, records: number, reads: number, rounds: number): Promise<{ writeMs: number; readMs: Dist; perRecordUs: number }> {
  return ext.evalSw(`(async (records, reads, rounds) => {
    const name = 'reread-bench-probe';
    await new Promise((res) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = () => res(); });
    const db = await new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onupgradeneeded = () => r.result.createObjectStore('v'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
    const t0 = performance.now();
    for (let s = 0; s < records; s += 5000) {
      const tx = db.transaction('v', 'readwrite');
      const st = tx.objectStore('v');
      for (let i = s; i < Math.min(records, s + 5000); i++) { const b = new Uint8Array(388); b[0] = i & 255; b[1] = i >> 8; st.put(b, i); }
      await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); });
    }
    const writeMs = performance.now() - t0;
    const times = [];
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % records;
    for (let r = 0; r < rounds; r++) {
      const keys = Array.from({ length: reads }, rnd).sort((a, b) => a - b);
      const t = performance.now();
      const tx = db.transaction('v');
      const st = tx.objectStore('v');
      await Promise.all(keys.map((k) => new Promise((res, rej) => { const q = st.get(k); q.onsuccess = () => res(q.result); q.onerror = () => rej(q.error); })));
      times.push(performance.now() - t);
    }
    db.close();
    await new Promise((res) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = () => res(); });
    times.sort((a, b) => a - b);
    return { writeMs, times };
  })(${records}, ${reads}, ${rounds})`).then((r: unknown) => {
    const x = r as { writeMs: number; times: number[] };
    const d = dist(x.times);
    return { writeMs: x.writeMs, readMs: d, perRecordUs: (d.median / reads) * 1000 };
  });
}

/**
 * Per store: record count and logical bytes (keys and values as stored: string characters, typed
 * array bytes, 8 bytes a number, field names), a size that does not depend on LevelDB's compaction
 * state; plus the payloads (encoded postings, deflated sections, vector codes).
 */
/**
 * The capture write path, isolated: IndexedDB request patterns for real pages' postings, in a separate
 * database in the worker (same store shape as `postings`: key path [t, f], values { t, f, n, d }).
 *  A. as pageStore.appendTermPostings does: per term, a cursor read of its last block, then a put;
 *  B. the same puts without the reads (the last block of each term kept in memory);
 *  C. write-behind: one record per page holding its postings, merged into the term blocks every
 *     `merge` pages (one put per distinct term of those pages).
 * `pages` gives, per page, each distinct term with the byte size its rewritten last block would have.
 */
async function writeProbe(ext: BenchExtension, pages: { t: string; b: number }[][], merge: number): Promise<Record<'A' | 'B' | 'C', number>> {
  return ext.evalSw(`(async (pages, merge) => {
    const name = 'reread-bench-write';
    const del = () => new Promise((res) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = r.onblocked = () => res(); });
    const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
    const done = (tx) => new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
    const out = {};
    for (const pattern of ['A', 'B', 'C']) {
      await del();
      const db = await new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onupgradeneeded = () => r.result.createObjectStore('p', { keyPath: ['t', 'f'] }); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
      const t0 = performance.now();
      let pending = new Map();
      for (let i = 0; i < pages.length; i++) {
        const tx = db.transaction('p', 'readwrite');
        const st = tx.objectStore('p');
        if (pattern === 'A') {
          await Promise.all(pages[i].map(async ({ t, b }) => {
            const c = await req(st.openCursor(IDBKeyRange.bound([t, 0], [t, Infinity]), 'prev'));
            await req(st.put({ t, f: c ? c.value.f : i, n: 1, d: new Uint8Array(b) }));
          }));
        } else if (pattern === 'B') {
          for (const { t, b } of pages[i]) st.put({ t, f: 0, n: 1, d: new Uint8Array(b) });
        } else {
          let bytes = 0;
          for (const { t, b } of pages[i]) { bytes += t.length + 4; pending.set(t, b); }
          st.put({ t: '\\u0000page', f: i, n: pages[i].length, d: new Uint8Array(bytes) });
          if ((i + 1) % merge === 0 || i === pages.length - 1) {
            for (const [t, b] of pending) st.put({ t, f: 0, n: 1, d: new Uint8Array(b) });
            st.delete(IDBKeyRange.bound(['\\u0000page', 0], ['\\u0000page', Infinity]));
            pending = new Map();
          }
        }
        await done(tx);
      }
      out[pattern] = (performance.now() - t0) / pages.length;
      db.close();
    }
    await del();
    return out;
  })(${JSON.stringify(pages)}, ${merge})`);
}

/** Distinct terms per page with the size of each term's rewritten last block, replaying the corpus in order. */
function probePages(pages: readonly SynthPage[], from: number, count: number): { t: string; b: number }[][] {
  const seen = new Map<string, number>();
  const out: { t: string; b: number }[][] = [];
  for (let i = 0; i < from + count && i < pages.length; i++) {
    const p = pages[i]!;
    const perTerm = new Map<string, number>();
    for (const s of p.sections) {
      const terms = indexSection(p.title, { text: `${p.title} > ${s.heading}\n${s.paragraphs.join('\n')}`, headingPath: [p.title, s.heading] }, TOKENIZER).tfs.keys();
      for (const t of terms) perTerm.set(t, (perTerm.get(t) ?? 0) + 1);
    }
    const page: { t: string; b: number }[] = [];
    for (const [t, n] of perTerm) {
      const before = seen.get(t) ?? 0;
      seen.set(t, before + n);
      // Entries in the last block after this page, at ~4.2 encoded bytes an entry (see the lexical part).
      page.push({ t, b: Math.ceil((((before + n - 1) % 512) + 1) * 4.2) });
    }
    if (i >= from) out.push(page);
  }
  return out;
}

async function storageBreakdown(ext: BenchExtension): Promise<Record<string, number>> {
  return ext.evalSw(`(async () => {
    const size = (v) => {
      if (v == null) return 1;
      if (typeof v === 'string') return v.length;
      if (typeof v === 'number' || typeof v === 'boolean') return 8;
      if (ArrayBuffer.isView(v)) return v.byteLength;
      if (Array.isArray(v)) { let n = 0; for (const x of v) n += size(x); return n; }
      let n = 0; for (const k in v) n += k.length + size(v[k]); return n;
    };
    const db = await engine.db();
    const out = {};
    let total = 0;
    for (const store of ['pages', 'sections', 'terms', 'postings', 'segments', 'tombstones', 'vectors', 'embedQueue', 'meta']) {
      const tx = db.transaction(store);
      const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
      let bytes = 0;
      for (let i = 0; i < keys.length; i++) bytes += size(keys[i]) + size(values[i]);
      out[store + 'Records'] = keys.length;
      out[store + 'Bytes'] = bytes;
      total += bytes;
      if (store === 'postings') out.postingPayloadBytes = values.reduce((n, p) => n + p.byteLength, 0);
      if (store === 'sections') out.sectionsPayloadBytes = values.reduce((n, t) => n + t.z.byteLength, 0);
      if (store === 'vectors') {
        // Two record kinds (background/vectorStore.ts): exact int8 blocks keyed [model, f], coarse
        // sign-bit blocks keyed [model + '\\u0000bits', f].
        out.vectorPayloadBytes = values.reduce((n, v) => n + v.codes.byteLength + v.scales.byteLength + v.ids.byteLength, 0);
        for (const kind of ['Exact', 'Coarse']) { out['vectors' + kind + 'Records'] = 0; out['vectors' + kind + 'Bytes'] = 0; out['vectors' + kind + 'Vectors'] = 0; }
        for (let i = 0; i < keys.length; i++) {
          const kind = values[i].m.endsWith('\\u0000bits') ? 'Coarse' : 'Exact';
          out['vectors' + kind + 'Records']++;
          out['vectors' + kind + 'Bytes'] += size(keys[i]) + size(values[i]);
          out['vectors' + kind + 'Vectors'] += values[i].ids.length;
        }
      }
    }
    out.logicalBytes = total;
    return out;
  })()`);
}

/** Waits until the IndexedDB directory's size stops changing (LevelDB compacts in the background). */
export async function settledDisk(dir: string, maxMs = 15_000): Promise<number> {
  const end = Date.now() + maxMs;
  let last = -1;
  let same = 0;
  for (;;) {
    const b = duBytes(dir);
    same = b === last ? same + 1 : 0;
    last = b;
    if (same >= 2 || Date.now() > end) return b;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Typed arrays the worker holds outside the JS heap figure: the dense index, the posting cache. */
export async function residentArrays(ext: BenchExtension): Promise<{ denseIndexBytes: number; postingCacheEntries: number }> {
  return ext.evalSw(`({ denseIndexBytes: dense.index ? dense.index.residentBytes : 0, postingCacheEntries: engine.lexical.cachedEntries ?? 0 })`);
}

export async function runBrowser(report: Report, opts: BrowserOptions): Promise<BrowserResult> {
  report.heading('Chromium with the real extension');
  const log = (s: string) => console.log(s);
  const v = makeVocabulary(1);
  const pages = synthPages(v, 424242, opts.chunks, [18, 22]);
  const docs = pagesToDocs(pages);
  const words = docs.reduce((n, d) => n + d.text.split(/\s+/).length, 0);
  // Document frequencies for the query sampler, from a word count over a sample of the sections.
  const dfMap = new Map<string, number>();
  for (let i = 0; i < docs.length; i += 5) for (const w of new Set(docs[i]!.text.toLowerCase().split(/[^\p{L}\p{N}_]+/u))) dfMap.set(w, (dfMap.get(w) ?? 0) + 5);
  const qs = sampleQueries(docs, opts.quick ? 40 : 200, 99, (w) => dfMap.get(w.toLowerCase()) ?? 0).filter((q) => q.text.length >= 3);
  const model = modelInfo(DEFAULT_SETTINGS.model)!;

  const ext = await launchSnapshot();
  const phases: Record<string, unknown> = {};
  try {
    const chromium = ext.ctx.browser()?.version() ?? 'unknown';
    const admin = await openSearch(ext);
    await ext.evalSw('engine.updateSettings({ denseEnabled: false })');
    const usage0 = await storageUsage(admin);
    const idbDir = join(ext.profile, 'Default', 'IndexedDB');
    const du0 = duBytes(idbDir);
    const heap0 = await workerHeap(ext);

    // 1. Load, dense lane off: most pages written directly as the product stores them once merged
    // (bulkLoad.ts), the last `captureChunks` worth through engine.capture (timed: the write path).
    let split = pages.length;
    for (let c = 0; split > 0 && c < opts.captureChunks; ) c += pages[--split]!.sections.length;
    log(`writing ${split} pages directly, then ${pages.length - split} through engine.capture (dense lane off)…`);
    const tBulk = now();
    const index = new BulkIndex();
    const bulkIds: number[] = [];
    for (let i = 0; i < split; i += 250) {
      const batch = index.add(pages.slice(i, Math.min(split, i + 250)));
      for (const p of batch.pages) bulkIds.push(...p.chunkIds);
      await writeBatch(admin, batch);
    }
    await finishLoad(admin, index);
    // The worker reads what was written from scratch, and checks it is what the product would store.
    await ext.stopWorker();
    const bulkVerify = await ext.evalSw<{ ok: boolean; problems: string[] }>('globalThis.rereadDebug.verifyIndex(engine, false)');
    if (!bulkVerify.ok) throw new Error(`bulk load: ${bulkVerify.problems.slice(0, 3).join('; ')}`);
    const bulkMs = now() - tBulk;
    phases.bulk = { pages: split, chunks: bulkIds.length, terms: index.terms, writeMs: bulkMs, verified: bulkVerify.ok };
    const load = await bulkLoad(ext, pages.slice(split), 25, log);
    // The captured pages' segments merge in the background: let them, and note what it cost.
    await ext.evalSw('globalThis.rereadDebug.maintain(false)');
    phases.maintenance = await ext.evalSw('globalThis.rereadDebug.maintenanceStatus()');
    const stats = await ext.evalSw<{ pages: number; chunks: number }>('engine.stats()');
    const textChars = docs.reduce((n, d) => n + d.text.length, 0);
    report.text(
      `Chromium ${chromium}, headless. ${num(stats.pages)} synthetic pages of 18–22 sections (${num(stats.chunks)} chunks, ${num(words)} words, ${num(words / stats.pages)} words a page): ` +
        `${num(split)} pages written straight into the database as the product stores them once merged (tests/bench/bulkLoad.ts; verifyIndex clean) in ${ms(bulkMs)} ms, the last ${num(pages.length - split)} through engine.capture.`,
    );
    const du1 = await settledDisk(idbDir);
    const usage1 = await storageUsage(admin);
    const perPage = dist(load.perPageMs);
    const capturedChunks = stats.chunks - bulkIds.length;
    const lexStorage = { estimateBytes: usage1 - usage0, diskBytes: du1 - du0, breakdown: await storageBreakdown(ext) };
    phases.load = { wallMs: load.wallMs, workerMs: load.workerMs, perPage, stats, capturedPages: load.perPageMs.length, capturedChunks, chunksPerSecWorker: (capturedChunks / load.workerMs) * 1000, storage: lexStorage };

    // 2. Queries in the worker.
    log('queries in the worker…');
    const lexQ = await workerQueries(ext, qs);
    await ext.evalSw(`(async (qs) => { for (const q of qs) await engine.search({ q, limit: 30 }); })(${JSON.stringify(qs.map((q) => q.text))})`); // refill the posting cache
    const heapLex = await workerHeap(ext);
    const arraysLex = await residentArrays(ext);
    phases.workerQueries = { ...lexQ, heap: heapLex, arrays: arraysLex };

    // 3. Keystroke to results on screen.
    log('keystrokes in search.html…');
    const ksQs = qs.slice(0, opts.quick ? 15 : 60);
    await keystrokes(admin, ksQs.slice(0, 1)); // warm-up
    const ks = await keystrokes(admin, ksQs);
    const ksSum = { toDom: dist(ks.map((k) => k.toDom)), toFrame: dist(ks.map((k) => k.toFrame)), engine: dist(ks.map((k) => k.engineMs)), zeroResults: ks.filter((k) => k.results === 0).length, failed: ks.failed ?? 0 };
    phases.keystroke = ksSum;

    // 4. First answer after the worker was stopped.
    log('first answers after worker restarts…');
    const restart = await afterRestart(ext, admin, qs.slice(Math.floor(qs.length / 2)), opts.quick ? 2 : 5);
    const rsSum = { keystrokeToFrame: dist(restart.keystroke.map((k) => k.toFrame)), keystrokeEngine: dist(restart.keystroke.map((k) => k.engineMs)), message: dist(restart.message), startup: dist(restart.startup), raw: restart };
    phases.restart = rsSum;
    const heapAfterRestart = await workerHeap(ext);

    // 5. Dense lane on (the bundled model): vectors for the directly written chunks written as blocks
    // (random values), the captured chunks embedded by the extension (timed), then measure again.
    log('dense lane on…');
    const vec = await writeVectors(admin, model.id, model.dim, bulkIds);
    const tEmbed = now();
    await ext.evalSw('engine.updateSettings({ denseEnabled: true })');
    const embedBudgetMs = opts.quick ? 60_000 : 180_000;
    let pending = -1;
    await new Promise((r) => setTimeout(r, 500));
    while (now() - tEmbed < embedBudgetMs) {
      pending = (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings;
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const embedMs = now() - tEmbed;
    const embedded = capturedChunks - Math.max(0, pending);
    const denseStatus = await ext.evalSw<{ model: string | null; error?: string }>('dense.status()');
    const du2 = await settledDisk(idbDir);
    const usage2 = await storageUsage(admin);
    const denseStorage = { estimateBytes: usage2 - usage0, diskBytes: du2 - du0, breakdown: await storageBreakdown(ext) };
    const denseQ = await workerQueries(ext, qs.slice(0, opts.quick ? 30 : 100), 4);
    const ks2 = await keystrokes(admin, ksQs.slice(0, opts.quick ? 10 : 40));
    const heapDense = await workerHeap(ext);
    const arraysDense = await residentArrays(ext);
    const restart2 = await afterRestart(ext, admin, qs.slice(Math.floor((qs.length * 3) / 4)), opts.quick ? 2 : 4);
    const restart3 = await afterRestart(ext, admin, qs.slice(Math.floor((qs.length * 5) / 8)), opts.quick ? 2 : 4, true);
    const dense = {
      vectorWrite: vec,
      embed: { pendingAtEnd: pending, embedded, embedMs, chunksPerSec: (embedded / embedMs) * 1000, status: denseStatus },
      storage: denseStorage,
      queries: denseQ,
      keystroke: { toDom: dist(ks2.map((k) => k.toDom)), toFrame: dist(ks2.map((k) => k.toFrame)), engine: dist(ks2.map((k) => k.engineMs)) },
      heap: heapDense,
      arrays: arraysDense,
      restart: { keystrokeToFrame: dist(restart2.keystroke.map((k) => k.toFrame)), keystrokeEngine: dist(restart2.keystroke.map((k) => k.engineMs)), message: dist(restart2.message), startup: dist(restart2.startup) },
      restartDocumentClosed: { keystrokeToFrame: dist(restart3.keystroke.map((k) => k.toFrame)), keystrokeEngine: dist(restart3.keystroke.map((k) => k.engineMs)), message: dist(restart3.message), startup: dist(restart3.startup) },
    };
    phases.dense = dense;

    // 6. The storage-rescoring probe: random reads out of an IndexedDB store of int8 vectors.
    log('IndexedDB random-read probe…');
    const probeRecords = opts.quick ? 20_000 : 100_000;
    const probe = await idbProbe(ext, probeRecords, 200, opts.quick ? 10 : 30);
    phases.idbProbe = probe;

    // 7. The capture write path, isolated: request patterns for real pages' postings.
    log('write-path probe…');
    const wpPages = probePages(pages, opts.quick ? 40 : 200, opts.quick ? 10 : 20);
    const writePatterns = await writeProbe(ext, wpPages, 10);
    phases.writeProbe = { pages: wpPages.length, termsPerPage: mean(wpPages.map((p) => p.length)), msPerPage: writePatterns };

    // 8. What the embedding runtime costs the worker's start-up (variant bundles, fresh profiles).
    log('start-up probe (dist/chrome background.js vs the in-process host bundle)…');
    // A probe that fails (a variant bundle's worker that would not stop, at load) costs its two rows, not
    // the run's other numbers.
    const startup = await startupProbe(opts.quick ? 4 : 8).catch((e: unknown) => {
      console.warn(`  start-up probe failed: ${String(e).split('\n')[0]}`);
      return null;
    });
    phases.startupProbe = startup ?? { failed: true };

    // 9. The final state is consistent (the product's verify, no repair).
    const verify = (await admin.evaluate(`chrome.runtime.sendMessage({ type: 'verify', payload: { repair: false } })`)) as { ok: boolean; data?: { ok: boolean; problems: string[] } };
    phases.verify = verify.data ?? verify;

    // Report.
    const rows: (string | number)[][] = [
      ['build: engine.capture per page (worker)', ms(perPage.median), ms(perPage.p95), `${load.perPageMs.length} pages (${num(capturedChunks)} chunks) at ${num(split)}–${num(pages.length)} pages: ${num((capturedChunks / load.workerMs) * 1000, 1)} chunks/s`],
      ['engine.search in the worker, warm', ms(lexQ.total.median), ms(lexQ.total.p95), `${qs.length} queries, limit 30 (lane depth 90); ${lexQ.results.toFixed(1)} pages a query`],
      ['  of which the lexical lane (postings + BM25)', ms(lexQ.lexical.median), ms(lexQ.lexical.p95), 'the rest: reading chunks and building result cards (present)'],
      ['engine.search, posting cache dropped (postings from IndexedDB)', ms(lexQ.coldPostings.median), ms(lexQ.coldPostings.p95), 'issue target: < 20 ms median'],
      ['keystroke → results in DOM (search.html)', ms(ksSum.toDom.median), ms(ksSum.toDom.p95), `${ks.length} queries${ksSum.failed ? ` (${ksSum.failed} timed out)` : ''}; the popup searches on the keystroke itself (no debounce; one search at a time, latest query next)`],
      ['keystroke → next frame', ms(ksSum.toFrame.median), ms(ksSum.toFrame.p95), `target: < 100 ms median; engine part ${ms(ksSum.engine.median)} ms`],
      ['first answer after worker stop: keystroke → frame', ms(rsSum.keystrokeToFrame.median), ms(rsSum.keystrokeToFrame.p95), `target: < 500 ms; engine part ${ms(rsSum.keystrokeEngine.median)} ms; ${restart.keystroke.length} restarts`],
      ['first answer after worker stop: sendMessage round trip', ms(rsSum.message.median), ms(rsSum.message.p95), `${restart.message.length} restarts`],
      ['  worker start-up alone (settings/get after stop)', ms(rsSum.startup.median), ms(rsSum.startup.p95), 'dist/chrome background.js (offscreen-document host, no ONNX runtime)'],
      ['dense on: engine.search warm', ms(denseQ.total.median), ms(denseQ.total.p95), `${model.id}, ${model.dim} dims, ${num(stats.chunks)} vectors; query vectors cached by the earlier run`],
      ['  dense lane alone, query embedded (offscreen document round trip + scan)', denseQ.dense ? ms(denseQ.dense.median) : '–', denseQ.dense ? ms(denseQ.dense.p95) : '–', 'query vector dropped from the worker\'s cache first'],
      ['  dense lane alone, query vector cached (scan only)', denseQ.denseScan ? ms(denseQ.denseScan.median) : '–', denseQ.denseScan ? ms(denseQ.denseScan.p95) : '–', `resident DenseIndex ${mb(arraysDense.denseIndexBytes)}`],
      ['dense on: keystroke → next frame', ms(dense.keystroke.toFrame.median), ms(dense.keystroke.toFrame.p95), ''],
      ['dense on: first answer after stop (keystroke → frame)', ms(dense.restart.keystrokeToFrame.median), ms(dense.restart.keystrokeToFrame.p95), `offscreen document kept (model loaded), worker reloads the vectors; message round trip ${ms(dense.restart.message.median)} ms, engine part ${ms(dense.restart.keystrokeEngine.median)} ms`],
      ['dense on: first answer after stop, offscreen document closed too', ms(dense.restartDocumentClosed.keystrokeToFrame.median), ms(dense.restartDocumentClosed.keystrokeToFrame.p95), `also creates the document and loads the model; message round trip ${ms(dense.restartDocumentClosed.message.median)} ms, engine part ${ms(dense.restartDocumentClosed.keystrokeEngine.median)} ms`],
      ['write probe A: per term cursor read + put (as pageStore)', ms(writePatterns.A), '', `ms a page; ${num(mean(wpPages.map((p) => p.length)))} distinct terms a page, ${wpPages.length} pages`],
      ['write probe B: puts only (last blocks kept in memory)', ms(writePatterns.B), '', `ms a page, ${(writePatterns.A / writePatterns.B).toFixed(1)}x fewer than A`],
      ['write probe C: one record a page, merged every 10 pages', ms(writePatterns.C), '', `ms a page, ${(writePatterns.A / writePatterns.C).toFixed(1)}x fewer than A`],
      ...(startup
        ? [
            [`start-up, Chrome worker as built (dist/chrome background.js, ${num(startup.chrome.bytes / 1024)} KB), empty profile`, ms(startup.chrome.startup.median), ms(startup.chrome.startup.p95), 'settings/get right after a stop; offscreen-document host'],
            [`start-up, in-process host bundle (dist/firefox background.js, ${num(startup.inProcess.bytes / 1024)} KB) in Chrome`, ms(startup.inProcess.startup.median), ms(startup.inProcess.startup.p95), `bundles @xenova/transformers + ONNX runtime: what the offscreen document saves the worker (${(startup.inProcess.startup.median / startup.chrome.startup.median).toFixed(1)}x, interleaved profiles)`],
          ]
        : [['start-up probe (variant bundles)', '–', '–', 'failed in this run (see the log)']]),
      ['IndexedDB: 200 random gets of 388 B (one transaction)', ms(probe.readMs.median), ms(probe.readMs.p95), `${probe.perRecordUs.toFixed(1)} µs a record, out of ${num(probeRecords)} records`],
    ];
    report.table(['measure', 'median ms', 'p95 ms', 'note'], rows);

    const per = (b: number) => [mb(b), `${num(b / stats.pages / 1024, 1)} KB`, `${num(b / stats.chunks, 0)} B`, `${(b / textChars).toFixed(2)}x`];
    report.table(
      ['IndexedDB bytes', 'total', 'per page', 'per chunk', '÷ section text'],
      [
        ['lexical only, storage.estimate()', ...per(lexStorage.estimateBytes)],
        ['lexical only, LevelDB files on disk', ...per(lexStorage.diskBytes)],
        ['lexical only, logical (keys + values)', ...per(lexStorage.breakdown.logicalBytes ?? NaN)],
        [`with ${model.dim}-dim int8 vectors, storage.estimate()`, ...per(denseStorage.estimateBytes)],
        [`with ${model.dim}-dim int8 vectors, LevelDB files on disk`, ...per(denseStorage.diskBytes)],
        [`with ${model.dim}-dim int8 vectors, logical (keys + values)`, ...per(denseStorage.breakdown.logicalBytes ?? NaN)],
      ],
    );
    const bd = lexStorage.breakdown;
    const dbd = denseStorage.breakdown;
    report.text(
      `Full Text Tabs Forever reports ~27 KB a page without vectors; pages here hold ${num(textChars / stats.pages / 1024, 1)} KB of section text each (${num(words / stats.pages)} words), so bytes ÷ text is the comparable figure: ` +
        `at FTTF's 27 KB a page Reread would hold pages of ~${num(27 * 1024 / (denseStorage.estimateBytes / textChars) / 1024, 1)} KB of text with vectors. ` +
        `Logical bytes by store (lexical only, schema 3): postings ${mb(bd.postingsBytes ?? 0)} in ${num(bd.postingsRecords ?? 0)} blocks (encoded postings ${mb(bd.postingPayloadBytes ?? 0)}, i.e. ${num((bd.postingPayloadBytes ?? 0) / Math.max(1, bd.postingsRecords ?? 1), 0)} B a block; the rest is the key [term id, first id]), ` +
        `term dictionary ${mb(bd.termsBytes ?? 0)} for ${num(bd.termsRecords ?? 0)} terms, sections (metadata and text deflated per page) ${mb(bd.sectionsBytes ?? 0)} (payload ${mb(bd.sectionsPayloadBytes ?? 0)}), pages ${mb(bd.pagesBytes ?? 0)}, segments pending ${num(bd.segmentsRecords ?? 0)}. LevelDB compresses blocks (Snappy) and keeps uncompacted logs, so disk and logical sizes differ, and estimate() is Chrome's cached figure. ` +
        `vectors (${num(vec.exactRecords)} exact and ${num(vec.coarseRecords)} coarse records written directly through vectorStore's vectorRecords, the rest embedded): ${num(dbd.vectorsExactRecords ?? 0)} exact blocks of up to 16 holding ${num(dbd.vectorsExactVectors ?? 0)} vectors, ${mb(dbd.vectorsExactBytes ?? 0)}; ${num(dbd.vectorsCoarseRecords ?? 0)} coarse sign-bit blocks holding ${num(dbd.vectorsCoarseVectors ?? 0)}, ${mb(dbd.vectorsCoarseBytes ?? 0)}; with the lane on, sections ${mb(dbd.sectionsBytes ?? 0)} in ${num(dbd.sectionsRecords ?? 0)} records, embedding queue ${num(dbd.embedQueueRecords ?? 0)} records. ` +
        `Dense lane: ${pending === 0 ? `embedded the ${num(embedded)} captured chunks in ${ms(embedMs)} ms (${num((embedded / embedMs) * 1000, 1)} chunks/s)` : `${num(embedded)} of ${num(capturedChunks)} captured chunks embedded in ${ms(embedMs)} ms (${num((embedded / embedMs) * 1000, 1)} chunks/s)`}${denseStatus.error ? `, error: ${denseStatus.error}` : ''}. ` +
        `Verify after the run: ${(phases.verify as { ok?: boolean }).ok ? 'ok' : JSON.stringify(phases.verify).slice(0, 300)}.`,
    );
    report.table(
      ['worker memory', 'JS heap used (after GC)', 'JS heap total', 'typed arrays outside the heap'],
      [
        ['empty index', mb(heap0.usedBytes), mb(heap0.totalBytes), ''],
        [`lexical, after ${qs.length} queries`, mb(heapLex.usedBytes), mb(heapLex.totalBytes), `posting cache ${num(arraysLex.postingCacheEntries)} entries ≈ ${mb(arraysLex.postingCacheEntries * 12)}`],
        ['fresh worker after a restart and one query', mb(heapAfterRestart.usedBytes), mb(heapAfterRestart.totalBytes), ''],
        ['dense on, after queries', mb(heapDense.usedBytes), mb(heapDense.totalBytes), `dense index ${mb(arraysDense.denseIndexBytes)}, posting cache ≈ ${mb(arraysDense.postingCacheEntries * 12)}`],
      ],
    );
    const targets: Target[] = [
      { what: 'keystroke → results on screen (search.html), median', target: '< 100 ms', measured: `${ms(ksSum.toFrame.median)} ms (lexical only); ${ms(dense.keystroke.toFrame.median)} ms with the dense lane`, met: ksSum.toFrame.median < 100 },
      { what: 'first answer after the worker was stopped', target: '< 500 ms', measured: `${ms(rsSum.keystrokeToFrame.median)} ms keystroke → frame, ${ms(rsSum.message.median)} ms message (lexical); ${ms(dense.restart.keystrokeToFrame.median)} ms with the dense lane`, met: rsSum.keystrokeToFrame.median < 500 },
      { what: 'query with postings read from IndexedDB (cache dropped), median', target: '< 20 ms', measured: `${ms(lexQ.coldPostings.median)} ms`, met: lexQ.coldPostings.median < 20 },
      {
        what: 'IndexedDB bytes a page with vectors vs Full Text Tabs Forever (~27 KB a page, no vectors)',
        target: '< 27 KB a page',
        measured: `${num(denseStorage.estimateBytes / stats.pages / 1024, 1)} KB (estimate), ${num((denseStorage.breakdown.logicalBytes ?? NaN) / stats.pages / 1024, 1)} KB logical, for pages of ${num(textChars / stats.pages / 1024, 1)} KB text (${(denseStorage.estimateBytes / textChars).toFixed(2)}x text): below 27 KB for pages under ~${num((27 * 1024) / (denseStorage.estimateBytes / textChars) / 1024, 1)} KB of text`,
        met: denseStorage.estimateBytes / stats.pages < 27 * 1024,
      },
    ];
    targetTable(report, targets);
    return { chromium, pages: stats.pages, chunks: stats.chunks, phases, targets };
  } finally {
    await ext.close();
  }
}

/**
 * One keystroke taken apart (medians over the queries): the page's part, the message, the engine's
 * phases (from SearchResponse.timings), the render. Phase durations are derived from the offsets the
 * engine notes (the lanes overlap: `dense wait` is what the dense lane added after the lexical one).
 */
export function keystrokeBreakdown(ks: readonly KeystrokeTiming[]): { part: string; median: number; p95: number }[] {
  const withT = ks.filter((k) => k.timings);
  const rows: [string, (k: KeystrokeTiming) => number][] = [
    ['keydown → message sent (page)', (k) => k.toSend],
    ['message round trip (worker, messaging included)', (k) => k.roundTrip],
    ['  messaging (round trip − engine)', (k) => k.roundTrip - (k.timings?.engineMs ?? NaN)],
    ['  engine.search', (k) => k.timings?.engineMs ?? NaN],
    ['    ready (forgets settled)', (k) => k.timings?.readyMs ?? NaN],
    ['    filters (allowed sections)', (k) => k.timings?.filtersAt ?? NaN],
    ['    lexical: postings read/decoded', (k) => at(k, 'postingsAt') - at(k, 'filtersAt')],
    ['    lexical: typo correction', (k) => at(k, 'typosAt') - at(k, 'postingsAt')],
    ['    lexical: BM25 top-k', (k) => at(k, 'bm25At') - at(k, 'typosAt')],
    ['    lexical: proximity, sections read', (k) => (k.timings?.proximityReadAt === undefined ? 0 : at(k, 'proximityReadAt') - at(k, 'bm25At'))],
    ['    lexical: proximity, rescoring', (k) => at(k, 'lexicalAt') - (k.timings?.proximityReadAt ?? at(k, 'bm25At'))],
    ['    lexical lane done at', (k) => at(k, 'lexicalAt')],
    ['    dense: query embedded (offscreen)', (k) => k.timings?.['dense.embedMs'] ?? NaN],
    ['    dense: scan', (k) => k.timings?.['dense.scanMs'] ?? NaN],
    ['    dense lane done at', (k) => at(k, 'denseAt')],
    ['    waiting for the dense lane after the lexical', (k) => Math.max(0, (k.timings?.denseAt ?? 0) - at(k, 'lexicalAt'))],
    ['    fusion', (k) => at(k, 'fusedAt') - Math.max(at(k, 'lexicalAt'), k.timings?.denseAt ?? 0)],
    ['    result sections read', (k) => at(k, 'sectionsAt') - at(k, 'fusedAt')],
    ['    snippets and cards', (k) => at(k, 'presentAt') - at(k, 'sectionsAt')],
    ['reply → results in the DOM (render)', (k) => k.render],
    ['DOM → next frame', (k) => k.toFrame - k.toDom],
    ['keydown → next frame', (k) => k.toFrame],
  ];
  return rows.map(([part, f]) => {
    const xs = (part.startsWith(' ') ? withT : ks).map(f).filter((x) => Number.isFinite(x));
    const d = dist(xs);
    return { part, median: d.median, p95: d.p95 };
  });
}

const at = (k: KeystrokeTiming, key: string): number => k.timings?.[key] ?? NaN;
