/**
 * The service worker (Chrome) / background script (Firefox). Every listener is registered synchronously
 * at the top level so an event that wakes the worker finds its listener.
 */
import { lexicalSearch } from '../src/search.js';
import { parseQuery } from '../src/query.js';
import { searchSource } from './search.js';
import { bundledLexicon } from './lexicon.js';
import browser from 'webextension-polyfill';
import type { ForgetScope, MessageType } from '../src/protocol.js';
import { validateCapture, validateSearch, validateObject, requiredString, validateForgetScope, integerIn, optionalNumber, pageAddress } from '../src/validate.js';
import { HISTORY_FORGET, ProtocolError } from '../src/protocol.js';
import { MAX_TRANSFER_PARTS, TRANSFER_PART_CHARS } from '../src/transferParts.js';
import { Transfers } from './transferParts.js';
import { Engine } from './engine.js';
import { newMarkId } from './forget.js';
import { createRouter, type Handlers, type SenderInfo, type Validators } from './router.js';
import { registerOmnibox } from './omnibox.js';
import { registerContextMenu } from './contextMenu.js';
import { JsonlExport, JsonlImport } from './transfer.js';
import { verifyIndex } from './verify.js';
import { pageSections, recordBlocks } from './sections.js';
import { lexicalLane } from './search.js';
import { ensureIndexVersion } from './indexVersion.js';
import { DenseService } from './dense.js';
import { embedderHost } from './embedding/host.js';
import { CAPTURE_GATE_KEY, gateAllows, isCaptureGate } from '../src/captureGate.js';
import { chunkBlocks, CHUNKER_VERSION } from '../src/chunker.js';
import { capturedPageUrl } from '../src/url.js';
import { visitInScope } from '../src/forget.js';
import { openUrl, takeHandover, tellTabsForgotten } from './tabs.js';
import { forgetUrls, registerMaintenance, runRetention } from './maintenance.js';
import { drainOutbox, hellosFor, isOutboxArea, openOutboxToContentScripts, outboxTotals, pruneHellos, purgeOutbox, recordSighting, registerHello, scopeMatcher, sightingsFor, sitesMatcher } from './outbox.js';
import { isNonce, isOutboxKey } from '../src/outbox.js';
import { pageReader } from './reader/host.js';
import { DayOne } from './dayone/dayOne.js';
import { captureOpenTabs, openTabsLog } from './dayone/openTabs.js';
import { pdfLog } from './dayone/pdfCapture.js';
import { titleWriteLog } from './pageStore.js';
import { DEFAULT_HISTORY_DAYS } from '../src/dayone.js';
import { bootTrace, mark, traced } from './bootTrace.js';

mark('modules evaluated');

const engine = new Engine();
/** Exports and imports whose parts are on their way (the Options page). */
const transfers = new Transfers();
const dense = new DenseService(engine, embedderHost);
engine.dense = dense;
engine.lexicon = bundledLexicon;
// What every message waits for: the settings (the dense lane's model choice) and the forget marks.
const ready = traced('ready', Promise.all([
  traced('dense.init', dense.init()).catch((e: unknown) => console.warn('reread: dense lane init', e)),
  // Pages marked forgotten are hidden before any message is answered (a restart inside an undo window).
  traced('forget marks', engine.forget.ready()).catch((e: unknown) => console.warn('reread: forget marks', e)),
]));
// Index maintenance (a schema migration, pending merges and sweeps) resumes where a stopped worker left
// it; an extension API call between its steps keeps the worker alive while it has work.
engine.maintenance.keepAlive = () => void browser.runtime.getPlatformInfo().catch(() => undefined);
engine.maintenance.schedule(2_000);
// What the first search reads whatever it asks — the page table (section lengths, owners), the delta and
// the corpus statistics — is read now, while the message that woke the worker waits for `ready`.
const firstReads = Promise.allSettled([engine.pages.norms(), engine.delta.ready(), engine.lexical.corpusStats()]);
// An embedding backlog left by a stopped worker resumes once those are in (counting the queue would
// take its turn among the first search's reads).
void Promise.allSettled([ready, firstReads])
  .then(() => dense.resumeBacklog())
  .catch((e: unknown) => console.warn('reread: embedding backlog', e));

const dayOne = new DayOne(engine, pageReader);

/**
 * What a forget clears besides the index, before it: captures still waiting in the outbox from the
 * forgotten pages (a visit already made is part of what was asked to forget; undo does not bring an
 * unfiled capture back), and what a history import or backfill under way would bring back.
 */
async function forgetPending(scope: ForgetScope, urls: readonly string[] = []): Promise<void> {
  await purgeOutbox(scopeMatcher(scope));
  await dayOne.forgot(scope, urls);
}

const empty = (p: unknown, t: MessageType) => {
  validateObject(p, t);
  return {} as Record<string, never>;
};

const validators: Validators = {
  'page/check': (p) => empty(p, 'page/check'),
  'page/hello': (p) => {
    const nonce = validateObject(p, 'page/hello').nonce;
    if (!isNonce(nonce)) throw new ProtocolError('bad-request', 'nonce must be 32 hex digits');
    return { nonce };
  },
  'page/capture': (p) => validateCapture(p).payload,
  search: validateSearch,
  stats: (p) => empty(p, 'stats'),
  sites: (p) => empty(p, 'sites'),
  'settings/get': (p) => empty(p, 'settings/get'),
  'settings/set': (p) => validateObject(p, 'settings/set'),
  'forget/preview': (p) => ({ scope: validateForgetScope(validateObject(p, 'forget/preview').scope) }),
  forget: (p) => ({ scope: validateForgetScope(validateObject(p, 'forget').scope) }),
  'forget/undo': (p) => {
    const id = requiredString(validateObject(p, 'forget/undo').id, 'id', 40);
    if (!/^[a-z0-9-]{1,40}$/.test(id)) throw new ProtocolError('bad-request', 'not a forget id');
    return { id };
  },
  'forget/pending': (p) => empty(p, 'forget/pending'),
  'retention/preview': (p) => {
    const o = validateObject(p, 'retention/preview');
    return { retentionDays: integerIn(o.retentionDays, 'retentionDays', 0, 36_500), maxStorageMb: integerIn(o.maxStorageMb, 'maxStorageMb', 0, 1_000_000) };
  },
  export: (p) => ({ vectors: validateObject(p, 'export').vectors === true }),
  'export/part': (p) => {
    const o = validateObject(p, 'export/part');
    return { token: requiredString(o.token, 'token', 64), part: integerIn(o.part, 'part', 0, MAX_TRANSFER_PARTS) };
  },
  'import/part': (p) => {
    const o = validateObject(p, 'import/part');
    if (typeof o.text !== 'string') throw new ProtocolError('bad-request', 'text must be a string');
    // Refused when over, never cut: a part cut short would import another file.
    if (o.text.length > TRANSFER_PART_CHARS) throw new ProtocolError('too-large', `a part holds at most ${TRANSFER_PART_CHARS} characters`);
    return { token: o.token === null || o.token === undefined ? null : requiredString(o.token, 'token', 64), text: o.text };
  },
  import: (p) => ({ token: requiredString(validateObject(p, 'import').token, 'token', 64) }),
  verify: (p) => ({ repair: validateObject(p, 'verify').repair === true }),
  open: (p) => {
    const o = validateObject(p, 'open');
    const url = pageAddress(o.url, 'url');
    // Web pages, and local files (a local PDF's result; the browser opens one only while file access is allowed).
    if (!/^(?:https?|file):\/\//i.test(url)) throw new ProtocolError('bad-request', 'only web pages and local files can be opened');
    return { url, newTab: o.newTab === true };
  },
  'search/handover': (p) => ({ token: requiredString(validateObject(p, 'search/handover').token, 'token', 100) }),
  'model/status': (p) => empty(p, 'model/status'),
  'model/remove': (p) => ({ model: requiredString(validateObject(p, 'model/remove').model, 'model', 200) }),
  'page/pdf': (p) => {
    const since = validateObject(p, 'page/pdf').sinceLoadMs;
    return typeof since === 'number' && Number.isFinite(since) ? { sinceLoadMs: since } : {};
  },
  'dayone/status': (p) => empty(p, 'dayone/status'),
  'history/import': (p) => {
    const o = validateObject(p, 'history/import');
    return { days: optionalNumber(o.days, 'days') ?? DEFAULT_HISTORY_DAYS, ...(o.whenGranted === true ? { whenGranted: true } : {}) };
  },
  'history/stop': (p) => empty(p, 'history/stop'),
  'backfill/control': (p) => {
    const o = validateObject(p, 'backfill/control');
    if (o.action !== undefined && !['start', 'pause', 'resume', 'cancel'].includes(o.action as string)) throw new ProtocolError('bad-request', 'unknown backfill action');
    const dailyCap = optionalNumber(o.dailyCap, 'dailyCap');
    return { ...(o.action ? { action: o.action as 'start' } : {}), ...(dailyCap !== undefined ? { dailyCap } : {}) };
  },
  'dayone/dismiss': (p) => empty(p, 'dayone/dismiss'),
  'pdf/notes-clear': (p) => empty(p, 'pdf/notes-clear'),
};

/**
 * Whether a page may be captured, asked by what must be recorded at once: a page's hello and the
 * browser's report of a navigation. The capture gate mirrored for content scripts (storage.local, written
 * before a settings change returns) answers yes without waiting for the index database, which a worker
 * just woken by the navigation is still opening: a worker stopped during that wait lost both records of
 * a page left at once, and its capture with them (tests/e2e/outbox.test.ts holds the database to show
 * the records no longer wait). No is asked of the settings themselves, which also give the reason.
 * Filing a capture checks again.
 */
async function mayRecord(url: string): Promise<{ allowed: boolean; reason?: string }> {
  const gate: unknown = (await browser.storage.local.get(CAPTURE_GATE_KEY).catch(() => ({}) as Record<string, unknown>))[CAPTURE_GATE_KEY];
  if (isCaptureGate(gate) && gateAllows(gate, url)) return { allowed: true };
  return engine.captureAllowed(url);
}

const handlers: Handlers = {
  'page/check': async (_p, ctx) => engine.captureAllowed(ctx.pageUrl!),
  'page/hello': async (p, ctx) => {
    // Nothing is recorded for a page that may not be captured (paused, excluded site).
    const check = await mayRecord(ctx.pageUrl!);
    if (!check.allowed) throw new ProtocolError('forbidden', `not captured: ${check.reason ?? 'not allowed'}`);
    await registerHello(p.nonce, ctx.pageUrl!);
    return {};
  },
  'page/capture': async (p, ctx) => {
    // A single-page app's pushState does not update the sender's URL: the page may name its current
    // URL, but only on the sender's own origin (a content script cannot file text under another site).
    return engine.capture(capturedPageUrl(ctx.pageUrl!, p.url), p);
  },
  search: async (p) => engine.search(p),
  stats: async () => {
    const s = await engine.stats();
    const est = await navigator.storage?.estimate?.().catch(() => undefined);
    if (est?.usage !== undefined) s.bytesUsed = est.usage;
    const download = dense.downloadStatus();
    if (download) s.modelDownload = download;
    return s;
  },
  sites: async () => engine.siteCounts(),
  'settings/get': async () => engine.settings(),
  'settings/set': async (p) => {
    const wasPaused = (await engine.settings()).paused;
    const next = await engine.updateSettings(p);
    if (wasPaused && !next.paused) void dayOne.captureResumed().catch((e: unknown) => console.warn('reread: resume', e));
    // A newly excluded site leaves nothing behind, pending captures and hellos included.
    if (p.excludedSites?.length) await purgeOutbox(sitesMatcher(next.excludedSites));
    if ('retentionDays' in p || 'maxStorageMb' in p) void runRetention(engine);
    return next;
  },
  'forget/preview': async (p) => engine.forget.preview(p.scope),
  forget: async ({ scope }) => {
    // The pages' open tabs stop saving their visits first, so none of them brings a page back meanwhile.
    // So do the tabs of its scope whose page is not stored yet (a page of the forgotten site loaded a
    // moment ago): the forget covers the visit, as the worker's capture check does (Forget.releaseLocked).
    // Each tab is told which forget covers it, so that undoing another one leaves it forgotten.
    const urls = await engine.forget.urlsIn(scope);
    const id = newMarkId();
    await tellTabsForgotten(urls, true, id, (url, at) => visitInScope(url, at, scope));
    try {
      await forgetPending(scope, urls);
      const pending = await engine.forget.mark(scope, Date.now(), id);
      // Pages stored between the count above and the mark: their tabs are told now.
      const told = new Set(urls);
      void tellTabsForgotten(engine.forget.markedUrls(pending.id).filter((u) => !told.has(u)), true, id);
      return pending;
    } catch (e) {
      void tellTabsForgotten('all', false, id);
      throw e;
    }
  },
  'forget/undo': async (p) => {
    const restored = await engine.forget.undo(p.id);
    // Wherever the undo was asked (the popup, the results page, Options), every tab this forget covered
    // saves its page again, unless another forget covers it too (content/main.ts).
    void tellTabsForgotten('all', false, p.id);
    return { pages: restored.urls.length };
  },
  'forget/pending': async () => engine.forget.pending(),
  'retention/preview': async (p) => engine.forget.previewRetention(p.retentionDays, p.maxStorageMb),
  export: async (p) => {
    const source = await JsonlExport.start(engine, p.vectors === true);
    return { ...transfers.offer(source), pages: source.listed };
  },
  'export/part': async (p) => transfers.part(p.token, p.part),
  'import/part': async (p) => transfers.receive(p.token, p.text, () => new JsonlImport(engine)),
  import: async (p) => transfers.finish(p.token),
  verify: async (p) => verifyIndex(engine, p.repair === true),
  open: async (p) => ({ tabId: await openUrl(p.url, p.newTab ? 'newForegroundTab' : 'currentTab') }),
  'search/handover': async (p) => takeHandover(p.token),
  'model/status': async () => dense.modelStatus(),
  'model/remove': async (p) => dense.removeModel(p.model),
  // The PDF's URL is the sending frame's, from the browser (never from the payload).
  'page/pdf': async (p, ctx) => ({ outcome: await dayOne.onPdfTab({ id: ctx.sender.tab!.id, incognito: ctx.sender.tab!.incognito, url: ctx.sender.url }, p.sinceLoadMs ?? -1) }),
  'dayone/status': async () => dayOne.status(),
  'history/import': async (p) => dayOne.importHistory(p.days, p.whenGranted === true),
  'history/stop': async () => dayOne.stopHistory(),
  'backfill/control': async (p) => dayOne.controlBackfill(p.action, p.dailyCap),
  'dayone/dismiss': async () => dayOne.dismiss(),
  'pdf/notes-clear': async () => dayOne.clearPdfNotes(),
};

const route = createRouter({
  extensionId: browser.runtime.id,
  extensionOrigin: browser.runtime.getURL(''),
  handlers,
  validators,
});

browser.runtime.onMessage.addListener(async (message: unknown, sender: browser.Runtime.MessageSender) => {
  // A page's hello needs only the settings and the hello database: it does not wait for the dense lane
  // to start, so a page left soon after a cold start still gets its ticket (src/outbox.ts).
  const type = (message as { type?: unknown } | null)?.type;
  // Named only when a string: `String()` throws on `{ "toString": 1 }` (plain JSON), which the router answers.
  const name = typeof type === 'string' ? type.slice(0, 40) : typeof type;
  mark(`message ${name}`);
  if (type !== 'page/hello') await ready;
  const info: SenderInfo = { id: sender.id, url: sender.url, frameId: sender.frameId };
  if (sender.tab) info.tab = { id: sender.tab.id, incognito: sender.tab.incognito, url: sender.tab.url };
  const reply = await route(message, info);
  mark(`reply ${name}`);
  return reply;
});

// Captures handed over through session (Chrome) or local (Firefox) storage by pages closed while the
// worker was stopped: drained at start and whenever one is added (a storage change wakes the worker).
openOutboxToContentScripts();
// Every top-frame navigation to a page Reread may capture, as the browser reports it: what files a capture
// whose hello never got through, because its page was gone before the stopped worker had started
// (src/outbox.ts, `Sighting`). Chrome only: its `webNavigation` permission adds no install warning next to
// the host permissions; Firefox's build does not ask for it (it would add one).
(browser as { webNavigation?: typeof browser.webNavigation }).webNavigation?.onCommitted.addListener(
  (d) => {
    if (d.frameId !== 0 || (d as { documentLifecycle?: string }).documentLifecycle === 'prerender') return;
    void (async () => {
      const tab = await browser.tabs.get(d.tabId).catch(() => null);
      if (!tab || tab.incognito || !(await mayRecord(d.url)).allowed) return;
      await recordSighting(d.url, Math.round(d.timeStamp) || Date.now());
    })().catch((e: unknown) => console.warn('reread: navigation record', e));
  },
  { url: [{ schemes: ['http', 'https'] }] },
);
const drain = () => void ready.then(() => drainOutbox(engine)).catch((e: unknown) => console.warn('reread: outbox', e));
browser.storage.onChanged.addListener((changes, area) => {
  if (isOutboxArea(area) && Object.entries(changes).some(([k, c]) => isOutboxKey(k) && c.newValue !== undefined)) drain();
});
drain();
void pruneHellos().catch(() => undefined);
// An index built by another version of the tokenizer is rebuilt once, in the background.
void ready.then(() => ensureIndexVersion(engine)).catch((e: unknown) => console.warn('reread: index version', e));
// Stored pages cut by another chunker are cut again from their blocks, in the background (recut.ts).
// While a pass is pending an alarm wakes a stopped worker to go on with it.
const RECUT_ALARM = 'reread-recut';
const recut = () =>
  void ready
    .then(async () => {
      if (await engine.recut.pending()) await browser.alarms?.create(RECUT_ALARM, { periodInMinutes: 0.5 });
      await engine.recut.run();
      await browser.alarms?.clear(RECUT_ALARM);
    })
    .catch((e: unknown) => console.warn('reread: re-cut', e));
browser.alarms?.onAlarm.addListener((alarm) => {
  if (alarm.name === RECUT_ALARM) recut();
});
recut();

registerOmnibox(engine);
registerContextMenu(engine);
registerMaintenance(engine, { forgotAll: () => forgetPending({ kind: 'all' }), forgotUrls: (urls) => dayOne.forgotUrls(urls), tellTabs: (urls) => tellTabsForgotten(urls, true, HISTORY_FORGET) });
dayOne.register();
// A history import or backfill that was running when the worker stopped (or the browser closed) goes on.
void ready.then(() => dayOne.resumeJobs()).catch((e: unknown) => console.warn('reread: resuming the first-day imports', e));

// Mirror the capture gate (pause, exclusions) for content scripts, at start and on every change.
// The toolbar button says when saving is paused (its badge and tooltip), so it is never a surprise.
// One change after another: a pause and a resume in quick succession end with the resume's badge and gate.
let gateWrites: Promise<void> = Promise.resolve();
engine.onGateChange = (gate) =>
  (gateWrites = gateWrites.then(async () => {
    await browser.storage.local.set({ [CAPTURE_GATE_KEY]: gate }).catch(() => undefined);
    await showPaused(gate.paused);
  }));
void engine.settings().then((s) => engine.onGateChange?.({ paused: s.paused, excludedSites: s.excludedSites }));

// For end-to-end tests and benchmarks driving the worker through CDP (not reachable from any page).
(globalThis as unknown as { reread: unknown }).reread = { engine, dense };
(globalThis as unknown as { rereadDebug: unknown }).rereadDebug = {
  verifyIndex,
  /** The start-up timeline (bootTrace.ts): what the first answer after a worker stop waited for. */
  bootTrace,
  /** Runs index maintenance (migration, merges, sweeps) until nothing is left; `force` ignores thresholds. */
  maintain: (force = true) => engine.maintenance.run({ force }),
  maintenanceStatus: () => engine.maintenance.status(),
  /** The lexical lane alone (postings + BM25), for the benchmarks. */
  lexicalLane: async (terms: string[], k: number) => lexicalLane(engine, terms, k, await engine.settings()),
  /** A stored page's sections with their text (decompressed), in order. */
  pageChunks: async (url: string) => {
    const db = await engine.db();
    const page = await db.get('pages', url);
    if (!page) return [];
    return (await pageSections(db, [page])).get(url) ?? [];
  },
  /** Forgets pages at once, their pending captures first (as a followed history deletion does). */
  forgetUrls: (urls: string[]) => forgetUrls(engine, urls),
  registerHello, recordSighting, hellosFor, sightingsFor, drainOutbox, outboxTotals, dayOne, captureOpenTabs: () => captureOpenTabs(engine), openTabsLog, pdfLog, titleWriteLog, chunkerVersion: CHUNKER_VERSION,
  /** The lexical lane alone, as search() runs it (the benchmark times it apart from the dense lane). */
  lexicalSearch: async (q: string, k: number) => lexicalSearch(searchSource(engine, await engine.settings()), parseQuery(q).text, k),
  /** What a capture costs the worker before it is written: checking the page's sections, or cutting (tests/bench/captureCut.ts). */
  cut: { chunkBlocks, validateCapture },
  /** The blocks and chunker version stored for a page (background/recut.ts cuts them again). */
  pageBlocks: async (url: string) => {
    const rec = await (await engine.db()).get('sections', url);
    const blocks = rec ? await recordBlocks(rec) : null;
    // bytes: the blocks' stream (format 1), or the record's one stream (format 2, sections and blocks).
    return rec && blocks ? { blocks, chunker: rec.cv ?? null, bytes: (rec.b ?? rec.z).byteLength, textBytes: rec.z.byteLength, oneStream: !rec.b } : null;
  } };

/** The toolbar button's badge and tooltip while saving is paused (the manifest's title otherwise). */
async function showPaused(paused: boolean): Promise<void> {
  const action = browser.action;
  if (!action) return;
  const title = paused ? 'Reread: saving is paused (search still works)' : (browser.runtime.getManifest().action?.default_title ?? 'Reread');
  try {
    await Promise.all([action.setBadgeText({ text: paused ? 'off' : '' }), action.setTitle({ title }), paused ? action.setBadgeBackgroundColor({ color: '#6b6b6b' }) : undefined]);
  } catch (e) {
    // A badge is a courtesy: the pause itself is saved whatever the toolbar says.
    console.warn('reread: toolbar badge', e);
  }
}
