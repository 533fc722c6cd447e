/**
 * Launches Chromium with a private snapshot of dist/chrome, otherwise exactly as tests/e2e/harness.ts
 * `launch` does (same flags, same Extension interface, evalSw over a non-flattened CDP session).
 *
 * Why a snapshot: the browser part runs for minutes, and `npm run build` (by anyone working in the
 * tree) deletes and rewrites dist/ meanwhile; a worker restarted after that would load a half-written
 * build. With a `dist` option on harness.launch this file could go.
 */
import { chromium } from 'playwright';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, type Extension } from '../e2e/harness.js';

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

export interface BenchExtension extends Extension {
  /** Where the loaded copy of dist/chrome lives. */
  dist: string;
  /** Stops the worker and, unless `wait` is false, waits (up to 2 s) until its target is gone. */
  stopWorker(opts?: { wait?: boolean }): Promise<number>;
  workerRunning(): Promise<boolean>;
  /** Sends CDP commands to the service worker over one session. */
  workerCdp<T>(commands: { method: string; params?: Record<string, unknown> }[]): Promise<T[]>;
}

export interface SnapshotOptions {
  evalTimeoutMs?: number;
  /** Replaces the snapshot's background.js (the start-up probe's variant bundles). */
  backgroundJs?: string;
  /**
   * Keep the browser profile in this directory (created if missing) instead of a temporary one, and
   * leave it there on close: a later launch with the same directory finds the extension's IndexedDB
   * as it was left. The extension is copied to `<dir>/extension` each launch (the same path: the same
   * extension id, so the same origin and database), from `dist` or dist/chrome.
   */
  keepDir?: string;
  /** The build to load (default dist/chrome): another checkout's dist/chrome, for before/after runs. */
  dist?: string;
}

export async function launchSnapshot(opts: SnapshotOptions = {}): Promise<BenchExtension> {
  const evalTimeoutMs = opts.evalTimeoutMs ?? 120_000;
  if (!CHROMIUM) throw new Error('Chromium not found: apt-get install chromium');
  const from = opts.dist ?? DIST;
  if (!existsSync(join(from, 'manifest.json'))) throw new Error(`${from} missing: run \`npm run build\` first`);
  const root = opts.keepDir ?? mkdtempSync(join(tmpdir(), 'reread-bench-'));
  mkdirSync(root, { recursive: true });
  const dist = join(root, 'extension');
  rmSync(dist, { recursive: true, force: true });
  cpSync(from, dist, { recursive: true });
  if (opts.backgroundJs) cpSync(opts.backgroundJs, join(dist, 'background.js'));
  const profile = join(root, 'profile');
  // A kept profile holds the service worker registered by the last launch, script included: dropped,
  // so the worker of the build copied now is the one that runs (the extension's data stays).
  if (opts.keepDir) for (const d of ['ScriptCache', 'Database']) rmSync(join(profile, 'Default', 'Service Worker', d), { recursive: true, force: true });
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    colorScheme: 'light',
    args: [`--disable-extensions-except=${dist}`, `--load-extension=${dist}`, '--no-first-run', '--disable-sync', '--disable-component-update', '--disable-background-networking', '--disable-gpu', '--no-sandbox'],
  });
  const worker = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent('serviceworker', { timeout: 30_000 }));
  const extId = new URL(worker.url()).host;

  const targets = async () => {
    const cdp = await ctx.browser()!.newBrowserCDPSession();
    try {
      const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
      return targetInfos.filter((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extId}/`));
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  };

  const ext: BenchExtension = {
    ctx,
    extId,
    profile,
    dist,
    async workerRunning() {
      return (await targets()).length > 0;
    },
    async sw() {
      if (!(await ext.workerRunning())) {
        const p = await ctx.newPage();
        await p.goto(`chrome-extension://${extId}/options.html`);
        await p.getByTestId('stat-pages').waitFor({ timeout: 30_000 });
        await p.close();
      }
      const all = ctx.serviceWorkers().filter((w) => w.url().includes(extId));
      return all[all.length - 1] ?? worker;
    },
    extensionUrl: (path) => `chrome-extension://${extId}/${path.replace(/^\//, '')}`,
    async stopWorker(opts: { wait?: boolean } = {}) {
      const cdp = await ctx.browser()!.newBrowserCDPSession();
      let n = 0;
      try {
        for (const t of await targets()) {
          await cdp.send('Target.closeTarget', { targetId: t.targetId });
          n++;
        }
      } finally {
        await cdp.detach().catch(() => undefined);
      }
      // Until the target is gone: a stopping worker can still be listed, and an evaluation sent to it
      // then fails ("setTimeout is not defined") or is never answered (seen at 52k sections).
      if (opts.wait !== false) for (let i = 0; i < 40 && (await targets()).length; i++) await new Promise((r) => setTimeout(r, 50));
      return n;
    },
    async workerCdp<T>(commands: { method: string; params?: Record<string, unknown> }[]): Promise<T[]> {
      const target = (await targets())[0];
      if (!target) throw new Error('service worker not running');
      const cdp = await ctx.browser()!.newBrowserCDPSession();
      try {
        const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
        const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
        cdp.on('Target.receivedMessageFromTarget', (ev: { sessionId: string; message: string }) => {
          if (ev.sessionId !== sessionId) return;
          const msg = JSON.parse(ev.message) as { id?: number; result?: unknown; error?: { message: string } };
          const p = msg.id === undefined ? undefined : pending.get(msg.id);
          if (!p) return;
          pending.delete(msg.id!);
          if (msg.error) p.reject(new Error(msg.error.message));
          else p.resolve(msg.result);
        });
        const out: T[] = [];
        let id = 0;
        for (const c of commands) {
          const my = ++id;
          const reply = new Promise((resolve, reject) => pending.set(my, { resolve, reject }));
          await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: my, method: c.method, params: c.params ?? {} }) });
          // The timer is cleared once the reply is in: left pending it kept the bench's process alive for
          // up to evalTimeoutMs (10 min in the scale part) after its results were written.
          let timeout: ReturnType<typeof setTimeout> | undefined;
          const timer = new Promise<never>((_, reject) => {
            timeout = setTimeout(() => reject(new Error(`service worker did not answer ${c.method} in ${evalTimeoutMs} ms`)), evalTimeoutMs);
          });
          try {
            out.push((await Promise.race([reply, timer])) as T);
          } finally {
            clearTimeout(timeout);
          }
        }
        return out;
      } finally {
        await cdp.detach().catch(() => undefined);
      }
    },
    async evalSw<T>(fn: string, attempts = 3): Promise<T> {
      // A worker caught while starting or stopping can fail an evaluation or leave no target: retry
      // (callers pass idempotent code), as the e2e harness does.
      for (let attempt = 1; ; attempt++) {
        try {
          return await evalOnce();
        } catch (e) {
          if (attempt >= attempts || !/setTimeout is not defined|service worker not running/.test(String(e))) throw e;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      async function evalOnce(): Promise<T> {
      await ext.sw();
      const code = `(async () => { for (let i = 0; i < 200 && !globalThis.reread; i++) await new Promise((r) => setTimeout(r, 50)); const { engine, dense } = globalThis.reread; return (${fn}); })()`;
      const [res] = await ext.workerCdp<{ result: { value?: unknown }; exceptionDetails?: { exception?: { description?: string }; text: string } }>([
        { method: 'Runtime.evaluate', params: { expression: code, awaitPromise: true, returnByValue: true } },
      ]);
      if (!res) throw new Error('no answer from the service worker');
      if (res.exceptionDetails) throw new Error(res.exceptionDetails.exception?.description ?? res.exceptionDetails.text);
      return res.result.value as T;
      }
    },
    async close() {
      await ctx.close();
      if (!opts.keepDir) rmSync(root, { recursive: true, force: true });
    },
  };
  return ext;
}
