/**
 * The content script: decides when to capture, asks the background whether this page may be captured
 * (paused, excluded site) before extracting anything, extracts and cuts the page into sections in idle
 * time, and sends the sections with the blocks they were cut from.
 *
 * When: one second after load at the latest (in idle time), or at once when the page is hidden or left
 * before that; again after single-page-app navigations and large content changes, once per distinct
 * content. Each read is filed under the address the page had when it began; a new address still showing
 * the view of the one before waits for its own view.
 */
import browser from 'webextension-polyfill';
import { Hash53, hash53 } from '../src/hash.js';
import { CAPTURE_GATE_KEY, gateAllows, isCaptureGate } from '../src/captureGate.js';
import { isPageForgottenNotice, type CapturePayload, type Reply, type MessageType, type Request, type Response } from '../src/protocol.js';
import { normalizeStoredUrl } from '../src/url.js';
import { OUTBOX_PREFIX, type OutboxEntry } from '../src/outbox.js';
import { EARLY_KEY, hello, startEarly, type Early, type EarlyApi } from './earlyStart.js';
import { captureDocument } from './pageCapture.js';

const SETTLE_MS = 600;
const IDLE_TIMEOUT_MS = 400;
/** Content changes are re-checked once the page has been quiet this long (but at least every MAX_WAIT). */
const MUTATION_DEBOUNCE_MS = 1500;
const MUTATION_MAX_WAIT_MS = 5000;
/** Text nodes changed before a mutation burst counts as "large". */
const LARGE_CHANGE_NODES = 25;
/** A page that keeps changing (a ticker, a feed) is re-captured this many times at most, per URL. */
const MAX_CONTENT_RECAPTURES = 10;

/** Attempts per message: the worker can be stopped while it handles one (Chrome does when idle). */
const SEND_ATTEMPTS = 10;
/**
 * Answers worth sending again: the worker failed for a passing reason (a stop aborts its open
 * transactions while it can still answer) or gave no answer. A refusal (forbidden, bad request, too
 * large, storage full) would only be repeated.
 */
const TRANSIENT = new Set(['internal', 'unavailable']);

/** The background answered and said no: the capture was delivered and judged, not lost. */
class Refused extends Error {}

async function send<K extends MessageType>(type: K, payload: Request<K>): Promise<Response<K>> {
  for (let attempt = 1; ; attempt++) {
    let reply: Reply<K> | undefined;
    let failure: unknown = null;
    try {
      reply = (await browser.runtime.sendMessage({ type, payload })) as Reply<K> | undefined;
      if (!reply) failure = new Error('no answer from Reread');
      else if (!reply.ok && TRANSIENT.has(reply.error.code)) failure = new Error(`${reply.error.code}: ${reply.error.message}`);
    } catch (e) {
      // "message port closed" / "receiving end does not exist": the worker died mid-answer or is
      // restarting. Sending again is safe: a capture carries its page view's id, and the background
      // counts one visit per view (the content is taken again, the visit not).
      failure = e;
    }
    if (failure !== null || !reply) {
      if (attempt >= SEND_ATTEMPTS) throw failure;
      await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** (attempt - 1))));
      // Forgotten while the worker was away: the capture is of the visit that was forgotten.
      if (type === 'page/capture' && forgottenHere()) throw new Refused('forgotten meanwhile');
      continue;
    }
    if (!reply.ok) throw new Refused(`${reply.error.code}: ${reply.error.message}`);
    return reply.data;
  }
}

const idle = (): Promise<void> =>
  new Promise((resolve) => {
    if ('requestIdleCallback' in window) requestIdleCallback(() => resolve(), { timeout: 50 });
    else setTimeout(resolve, 0);
  });

/** A capture being sent: if the page is left before the background answered, it goes to the outbox. */
let sending: (CapturePayload & { url: string }) | null = null;

/** What content/early.ts started at document_start (or the same, started now if it did not run). */
function early(): Early {
  const g = globalThis as { [EARLY_KEY]?: Early };
  g[EARLY_KEY] ??= startEarly(browser as unknown as EarlyApi, () =>
    browser.storage.local.get(CAPTURE_GATE_KEY).then((got) => {
      const gate: unknown = got[CAPTURE_GATE_KEY];
      return isCaptureGate(gate) ? gateAllows(gate, location.href) : null;
    }),
  );
  return g[EARLY_KEY];
}

/**
 * Where the outbox lives: extension session storage where content scripts may write it (Chrome, once
 * the background opened it to them), else extension local storage (Firefox gives content scripts no
 * storage.session; see src/outbox.ts for what that changes). Tried in this order.
 */
function outboxAreas(): browser.Storage.StorageArea[] {
  const session = (browser.storage as { session?: browser.Storage.StorageArea }).session;
  return session ? [session, browser.storage.local] : [browser.storage.local];
}

/**
 * Hands a capture to the outbox, which the browser keeps whatever happens to this page or to the
 * background. Used only when the page is going away (a message sent then is lost if the background is
 * not running). False when storage refused it.
 */
async function toOutbox(message: CapturePayload & { url: string }): Promise<boolean> {
  const { url, ...payload } = message;
  const entry: OutboxEntry = { nonce: early().nonce, url, at: Date.now(), payload };
  // One entry per page and URL: handing the same capture over twice (hidden, then left) replaces it.
  const key = `${OUTBOX_PREFIX}${entry.nonce}-${hash53(url.split('#')[0]!).toString(36)}`;
  for (const area of outboxAreas()) {
    try {
      await area.set({ [key]: entry });
      return true;
    } catch (e) {
      // Chrome refuses session storage to content scripts until the background opened it: try the next.
      console.debug('reread: outbox refused', e);
    }
  }
  return false;
}

/** Whether this page may be captured; asked once, as soon as the script runs. */
let allowed: boolean | null = null;
let allowedAsked: Promise<boolean> | null = null;
/** Set when the page is going away: a capture in progress stops yielding and finishes at once. */
let hurry = false;
let lastHash: number | null = null;
/** The text read last as what its own address shows, and that address (see `capture`). */
let lastView: { url: string; text: number } | null = null;
/**
 * A capture found the page at a new address still showing the view of the one before (see `capture`):
 * the next change of the page's content, however small, is captured (`start`'s recheck).
 */
let awaitingView = false;
/** Mutation records the page's content has had (`start`'s observer): tells whether it changed while it was read. */
let contentChanges = 0;
let running: Promise<void> | null = null;
/** Bumped by each capture; a capture superseded by a later one (see `capture`) sends nothing. */
let generation = 0;
let runningUrgent = false;
/** Called once this page's capture was answered or handed over (see `start`). */
let settled: () => void = () => undefined;
let captured = false;

/** Main-thread time the capture costs the page: every slice between two yields is one task. */
function costMeter() {
  let taskStart = performance.now();
  let longest = 0;
  let total = 0;
  let tasks = 0;
  const close = () => {
    const t = performance.now() - taskStart;
    longest = Math.max(longest, t);
    total += t;
    tasks++;
  };
  return {
    async yieldToPage(): Promise<void> {
      if (hurry) return;
      close();
      await idle();
      taskStart = performance.now();
    },
    /** Time since the current task began (to decide when to yield). */
    taskMs: () => performance.now() - taskStart,
    finish(): { costMs: number; longestTaskMs: number; tasks: number } {
      close();
      return { costMs: total, longestTaskMs: longest, tasks };
    },
  };
}

interface Extracted {
  payload: CapturePayload;
  words: number;
  /** Tells this capture (its title, address and text) from the one sent last. */
  hash: number;
  /** Its text alone (`lastView`). */
  textHash: number;
}

/** An address without its fragment: one page, whatever part of it is shown. */
const pageKey = (url: string) => url.split('#')[0]!;

/**
 * The page view being read: its address and capture id (CapturePayload.capture). One id per address
 * read in a row: a capture sent again or handed to the outbox as it was in flight, and a re-read of
 * the same view's changed content, are the same visit; another address read, or this one read again
 * after another, is a new visit.
 */
let view: { key: string; id: string } | null = null;
function viewId(url: string): string {
  if (view?.key !== pageKey(url)) view = { key: pageKey(url), id: Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('') };
  return view.id;
}

/**
 * The page's main content, as blocks and cut into sections (content/pageCapture.ts, the step the
 * backfill and PDF capture run too), with what it cost the page.
 */
async function extract(urgent: boolean, url: string): Promise<Extracted | null> {
  const meter = costMeter();
  const got = await captureDocument(document, { live: true, urgent, yieldToPage: meter.yieldToPage, fallbackTitle: location.hostname });
  if (!got) return null;
  const { payload } = got;
  // What tells a changed page from the one sent last time. Hashed block by block, in slices like the
  // rest: a megabyte page's text is milliseconds of hashing, too long for one task.
  const text = new Hash53();
  for (const b of payload.blocks) {
    text.update(b.text);
    if (meter.taskMs() > 5) await meter.yieldToPage();
  }
  const textHash = text.digest();
  const hash = new Hash53().update(payload.title).update(pageKey(url)).update(textHash.toString(36)).digest();
  const cost = meter.finish();
  // The page's cost is reported with the capture (never written into the page).
  return { payload: { ...payload, extraction: { ...got.extraction, ...cost } }, words: got.words, hash, textHash };
}

/**
 * Exclusions and pause are read from the gate the background mirrors into extension storage (no
 * worker round trip, so the answer is there even when the page is left at once); without a gate yet
 * (first start), the background is asked.
 */
function askAllowed(): Promise<boolean> {
  allowedAsked ??= early()
    .allowed.then((ok) => ok ?? send('page/check', {}).then((r) => r.allowed))
    .then(
      (ok) => (allowed = ok),
      () => (allowed = false),
    );
  return allowedAsked;
}

/**
 * The pages (as stored) the user forgot (that page, its site, a range of days, everything) while this
 * document showed them, with the forgets that covered each: their visit is not saved again, whatever the
 * page does next, until every one of those forgets is undone. Another URL of a single-page app is saved
 * as usual.
 */
const forgottenUrls = new Map<string, Set<string>>();
/** Forgets undone while this document was open (a late "forgotten" notice of one is ignored). */
const undoneForgets = new Set<string>();
const forgottenHere = () => forgottenUrls.size > 0 && forgottenUrls.has(normalizeStoredUrl(location.href) ?? '');

async function capture(urgent = false): Promise<void> {
  if (forgottenHere()) return;
  if (urgent) hurry = true;
  // A capture still extracting in slices when the page is left is superseded by one done now, in one
  // go: a page going away is frozen (back-forward cache) or its scripts stopped before the next slice
  // would run (Firefox does both; in a background tab, where idle callbacks are throttled, a second is
  // often not enough to finish). One that already extracted is being sent: `leaving` hands it over.
  if (running && !(urgent && !runningUrgent && !sending && allowed === true)) return running;
  // Leaving before the background said yes: nothing is extracted (exclusions are checked first).
  if (urgent && allowed !== true) return;
  const gen = ++generation;
  runningUrgent = urgent;
  const run = (async () => {
    try {
      if (!(await askAllowed())) return;
      // The address the page has as it is read: what is read is filed under it, not under the one the
      // page has when the reading is over.
      const url = location.href;
      const capture = viewId(url);
      const changesBefore = contentChanges;
      const got = await extract(urgent, url);
      // Forgotten while it was read (extraction runs in slices): not sent.
      if (!got || gen !== generation || forgottenHere()) return;
      // A new address still showing the text read under the address before: an app that changes the
      // address first and shows the new view when its data comes (seconds later, perhaps in a few text
      // nodes, no "large" change). Filed now, the old view was stored under the new address and stayed
      // there. Not sent; the next change of the content is captured.
      if (lastView && lastView.url !== pageKey(url) && lastView.text === got.textHash) {
        awaitingView = true;
        return;
      }
      awaitingView = false;
      lastView = { url: pageKey(url), text: got.textHash };
      // The page moved to another address while it was read (a single-page app's pushState between two
      // slices; the read used to be filed, whole, under the new address). It is the view of the address
      // it began at, unless the content changed meanwhile too: then it may be part one view, part the
      // next, and is not sent. The move starts a capture of the new address (`start`'s recheck).
      if (pageKey(location.href) !== pageKey(url) && contentChanges !== changesBefore) return;
      if (got.hash === lastHash) return; // same content as last time: nothing new to send
      lastHash = got.hash;
      captured = true;
      if (got.words === 0 && !got.payload.title) return;
      const message = { ...got.payload, url, capture };
      if (hurry && (await toOutbox(message))) {
        settled();
        return;
      }
      sending = message;
      try {
        await send('page/capture', message);
      } catch (e) {
        // A refusal (storage full, too large, excluded meanwhile) was delivered: handing it over
        // would only have the background refuse it again, or at the storage limit forget other
        // pages for a page it already turned down.
        if (!(e instanceof Refused)) {
          // Not delivered after every attempt (the background kept stopping, or failing): the outbox
          // keeps it for the background's next start, as for a page left while it was away. Left to
          // the page's leaving, it was lost when the tab closed before a capture read again there
          // could be handed over (seen in Firefox with its background suspended every 1-2.5 s).
          if (!forgottenHere() && (await toOutbox(message))) {
            settled();
            return;
          }
          // Not kept anywhere: the page is not counted as captured, so leaving it tries again.
          captured = false;
          lastHash = null;
        }
        throw e;
      }
      settled();
    } catch (e) {
      // The extension may have been reloaded under us; the page must never notice.
      console.debug('reread: capture failed', e);
    } finally {
      if (gen === generation) {
        sending = null;
        running = null;
        if (document.visibilityState === 'visible') hurry = false;
      }
    }
  })();
  running = run;
  return run;
}

function schedule(): void {
  setTimeout(() => {
    if ('requestIdleCallback' in window) requestIdleCallback(() => void capture(), { timeout: IDLE_TIMEOUT_MS });
    else void capture();
  }, SETTLE_MS);
}

function start(): void {
  // Prerendered pages are not visits; wait until they are shown.
  if ((document as Document & { prerendering?: boolean }).prerendering) {
    document.addEventListener('prerenderingchange', start, { once: true });
    return;
  }
  void askAllowed();
  if (document.readyState === 'complete') schedule();
  else window.addEventListener('load', schedule, { once: true });

  const leaving = () => {
    // A hello not yet confirmed (the worker was restarting all along): one last try, so that the
    // capture handed to the outbox below can be filed.
    const e = early();
    if (!e.confirmed && allowed) void browser.runtime.sendMessage({ type: 'page/hello', payload: { nonce: e.nonce } }).catch(() => undefined);
    if (forgottenHere()) return;
    if (sending) void toOutbox(sending).then((ok) => ok && settled());
    else if (!captured) void capture(true);
  };
  window.addEventListener('pagehide', leaving);
  // A forget that covers this page (the worker says so before it marks the page, and again after an undo).
  // Only Reread's own contexts can send to a content script (tabs.sendMessage; a web page cannot reach
  // runtime.onMessage); the sender is checked all the same.
  browser.runtime.onMessage.addListener((message: unknown, sender: browser.Runtime.MessageSender) => {
    const fromReread = sender.id === browser.runtime.id && (sender.url === undefined || sender.url.startsWith(browser.runtime.getURL('')));
    if (!fromReread || !isPageForgottenNotice(message)) return undefined;
    if (message.forgotten) {
      // (An undo that came first, its notice overtaking this one: the forget is over.)
      if (normalizeStoredUrl(location.href) !== message.url || undoneForgets.has(message.forget)) return undefined;
      // By the forgets that cover it: undoing one of two (a page, then its site) leaves the visit forgotten.
      forgottenUrls.set(message.url, new Set([...(forgottenUrls.get(message.url) ?? []), message.forget]));
      return Promise.resolve({ ok: true });
    }
    // An undo reaches every page this document was told of, not only the one it shows now (a single-page
    // app moved on, and may come back).
    undoneForgets.add(message.forget);
    // (Every tab hears of every undo: the oldest are let go, a late notice comes within a second.)
    if (undoneForgets.size > 64) undoneForgets.delete(undoneForgets.values().next().value!);
    let freed = false;
    for (const [url, by] of forgottenUrls) {
      if (!by.delete(message.forget) || by.size) continue;
      forgottenUrls.delete(url);
      freed = true;
    }
    if (!freed) return Promise.resolve({ ok: true });
    // The forget took this page's hello with it (background/outbox.ts purgeOutbox); restored, the page
    // says hello again so that a capture it hands over when hidden or left is filed.
    const e = early();
    e.confirmed = false;
    void hello(browser as unknown as EarlyApi, e.nonce).then((ok) => (e.confirmed = ok));
    return Promise.resolve({ ok: true });
  });
  // Firefox stops whatever script a page runs when a navigation from outside the page (address bar,
  // back/forward, automation) begins, and pagehide can run into that (measured: 3 of 200 pages left
  // after a fraction of a second lost their capture). beforeunload runs before such a navigation
  // starts. Listened to only until this page's capture was answered or handed over, so that a page
  // kept longer is never held out of the back-forward cache by it.
  window.addEventListener('beforeunload', leaving);
  settled = () => window.removeEventListener('beforeunload', leaving);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') leaving();
    else if (!running) hurry = false;
  });

  // Single-page apps: a changed URL or a large content change gets a fresh capture once the page is
  // quiet (debounced, with a maximum wait); a page that never stops changing is re-captured a few times only.
  let lastUrl = location.href.split('#')[0];
  let changed = 0;
  let contentRecaptures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstPending = 0;
  const recheck = () => {
    timer = undefined;
    if (running) {
      later();
      return;
    }
    const url = location.href.split('#')[0];
    if (url !== lastUrl) {
      lastUrl = url;
      changed = 0;
      contentRecaptures = 0;
      void capture();
    } else if (changed >= LARGE_CHANGE_NODES || (awaitingView && changed > 0)) {
      changed = 0;
      if (++contentRecaptures <= MAX_CONTENT_RECAPTURES) void capture();
    }
  };
  const later = () => {
    const t = performance.now();
    if (timer === undefined) firstPending = t;
    else if (t - firstPending < MUTATION_MAX_WAIT_MS) clearTimeout(timer);
    else return;
    timer = setTimeout(recheck, MUTATION_DEBOUNCE_MS);
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) changed += r.addedNodes.length + r.removedNodes.length + (r.type === 'characterData' ? 1 : 0);
    contentChanges += records.length;
    later();
  });
  if (document.body) observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  const nav = (window as Window & { navigation?: EventTarget }).navigation;
  nav?.addEventListener('currententrychange', later);
  nav?.addEventListener('navigatesuccess', later);
  window.addEventListener('popstate', later);
}

/**
 * Capture was refused when this page loaded (paused, or the gate said no) and has been resumed since:
 * ask the background again and capture if it now says yes. Nothing happens on a page already captured.
 */
function resume(): void {
  if (captured || running || allowed === true) return;
  allowedAsked = send('page/check', {}).then(
    async (r) => {
      // Loaded while capture was paused: the early script sent no hello then. A capture handed to the
      // outbox (a hidden tab hurries, see `capture`) is filed only for a page whose hello is recorded:
      // without this, a tab hidden while paused was never captured after resuming (seen in Firefox).
      const e = early();
      if (r.allowed && !e.confirmed) e.confirmed = await hello(browser as unknown as EarlyApi, e.nonce);
      return (allowed = r.allowed);
    },
    () => (allowed = false),
  );
  void capture();
}

/** A PDF shown in the tab (Chrome runs content scripts in its viewer's outer document): the background reads it. */
function isPdfDocument(): boolean {
  return document.contentType === 'application/pdf';
}

/**
 * The capture already running in this isolated world, if any. The background also injects this script
 * into tabs that were open before Reread was installed or while capture was paused
 * (background/openTabs.ts): a second copy in the same document must not capture it again, so it hands
 * over to the first one. After an update the old copy is orphaned (its runtime is gone): a new one starts.
 */
interface Running {
  alive(): boolean;
  resume(): void;
}
const RUNNING_KEY = '__rereadContent';
const g = globalThis as { [RUNNING_KEY]?: Running };
const previous = g[RUNNING_KEY];
let alreadyRunning = false;
try {
  alreadyRunning = !!previous && previous.alive();
} catch {
  alreadyRunning = false;
}

// Only top-level http(s) documents (the manifest already limits us to them, this guards Firefox too),
// and never in a private window, even where the user let the extension run there.
if (window.top === window && /^https?:$/.test(location.protocol) && !browser.extension.inIncognitoContext) {
  if (alreadyRunning) previous!.resume();
  else {
    g[RUNNING_KEY] = { alive: () => !!browser.runtime?.id, resume };
    if (isPdfDocument()) void send('page/pdf', { sinceLoadMs: performance.now() }).catch((e: unknown) => console.debug('reread: pdf', e));
    else start();
  }
}
