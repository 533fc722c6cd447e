/**
 * The content script: decides when to capture, asks the background whether this page may be captured
 * (paused, excluded site) before extracting anything, extracts in idle time, and sends the blocks.
 *
 * When: one second after load at the latest (in idle time), or at once when the page is hidden or left
 * before that; again after single-page-app navigations and large content changes, once per distinct
 * content.
 */
import browser from 'webextension-polyfill';
import { countWords } from '../src/chunker.js';
import { hash53 } from '../src/hash.js';
import type { CapturePayload, Reply, MessageType, Request, Response } from '../src/protocol.js';
import { readabilityBlocks, walkBlocks } from './extract.js';

/** Readability's article is kept only if it holds at least this share of the cleaned body's words. */
const READABILITY_MIN_RETENTION = 0.8;
const SETTLE_MS = 600;
const IDLE_TIMEOUT_MS = 400;
const MUTATION_DEBOUNCE_MS = 1500;
/** Text nodes changed before a mutation burst counts as "large". */
const LARGE_CHANGE_NODES = 25;

async function send<K extends MessageType>(type: K, payload: Request<K>): Promise<Response<K>> {
  const reply = (await browser.runtime.sendMessage({ type, payload })) as Reply<K>;
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.data;
}

const idle = (): Promise<void> =>
  new Promise((resolve) => {
    if ('requestIdleCallback' in window) requestIdleCallback(() => resolve(), { timeout: 50 });
    else setTimeout(resolve, 0);
  });

/** Whether this page may be captured; asked once, as soon as the script runs. */
let allowed: boolean | null = null;
let allowedAsked: Promise<boolean> | null = null;
/** Set when the page is going away: a capture in progress stops yielding and finishes at once. */
let hurry = false;
let lastHash: number | null = null;
let running: Promise<void> | null = null;
let captured = false;

async function extract(urgent: boolean): Promise<CapturePayload | null> {
  const body = document.body;
  if (!body) return null;
  let taskStart = performance.now();
  let longest = 0;
  let total = 0;
  const yieldToPage = async () => {
    if (hurry) return;
    const t = performance.now() - taskStart;
    longest = Math.max(longest, t);
    total += t;
    await idle();
    taskStart = performance.now();
  };
  // When the page is going away there is no time to yield: do it in one go.
  const cleaned = await walkBlocks(body, { checkVisibility: true, ...(urgent ? {} : { yieldToPage }) });
  if (!urgent) await yieldToPage();
  let blocks = cleaned.blocks;
  let method: 'readability' | 'body' = 'body';
  let retention = 1;
  if (!urgent) {
    const article = await readabilityBlocks(document);
    if (article && cleaned.words > 0) {
      retention = article.words / cleaned.words;
      if (retention >= READABILITY_MIN_RETENTION) {
        blocks = article.blocks;
        method = 'readability';
      }
    }
  }
  const t = performance.now() - taskStart;
  longest = Math.max(longest, t);
  total += t;
  const title = (document.title || '').trim() || blocks.find((b) => b.kind === 'heading')?.text || location.hostname;
  return {
    title,
    lang: document.documentElement.lang || '',
    blocks,
    // The page's cost is reported with the capture (never written into the page).
    extraction: { method, retention: Math.min(1, retention), visibleWords: cleaned.words, costMs: total, longestTaskMs: longest },
  };
}

function askAllowed(): Promise<boolean> {
  allowedAsked ??= send('page/check', {}).then(
    (r) => (allowed = r.allowed),
    () => (allowed = false),
  );
  return allowedAsked;
}

async function capture(urgent = false): Promise<void> {
  if (urgent) hurry = true;
  if (running) return running;
  // Leaving before the background said yes: nothing is extracted (exclusions are checked first).
  if (urgent && allowed !== true) return;
  running = (async () => {
    try {
      if (!(await askAllowed())) return;
      const payload = await extract(urgent);
      if (!payload) return;
      const words = payload.blocks.reduce((n, b) => n + countWords(b.text), 0);
      const h = hash53(payload.title + '\u0000' + payload.blocks.map((b) => b.text).join('\u0000') + location.href.split('#')[0]);
      if (h === lastHash) return; // same content as last time: nothing new to send
      lastHash = h;
      captured = true;
      if (words === 0 && !payload.title) return;
      await send('page/capture', payload);
    } catch (e) {
      // The extension may have been reloaded under us; the page must never notice.
      console.debug('reread: capture failed', e);
    } finally {
      running = null;
    }
  })();
  return running;
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
    if (!captured) void capture(true);
  };
  window.addEventListener('pagehide', leaving);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') leaving();
  });

  // Single-page apps: a changed URL or a large content change gets a fresh capture, debounced.
  let lastUrl = location.href.split('#')[0];
  let changed = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const recheck = () => {
    timer = undefined;
    const url = location.href.split('#')[0];
    if (url !== lastUrl || changed >= LARGE_CHANGE_NODES) {
      lastUrl = url;
      changed = 0;
      void capture();
    }
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) changed += r.addedNodes.length + r.removedNodes.length + (r.type === 'characterData' ? 1 : 0);
    if (timer === undefined) timer = setTimeout(recheck, MUTATION_DEBOUNCE_MS);
  });
  if (document.body) observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  const nav = (window as Window & { navigation?: EventTarget }).navigation;
  nav?.addEventListener('navigatesuccess', () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(recheck, MUTATION_DEBOUNCE_MS);
  });
  window.addEventListener('popstate', () => {
    if (timer === undefined) timer = setTimeout(recheck, MUTATION_DEBOUNCE_MS);
  });
}

// Only top-level http(s) documents; the manifest already limits us to them, this guards Firefox too.
if (window.top === window && /^https?:$/.test(location.protocol)) start();
