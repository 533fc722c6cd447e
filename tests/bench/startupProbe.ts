/**
 * What the embedding host costs the worker's start-up, measured on the bundles as built (no rebuild
 * here, so nothing can drift from scripts/build.mjs): dist/chrome/background.js, Chrome's worker, which
 * talks to the model in the offscreen document and leaves the ONNX runtime out, against
 * dist/firefox/background.js, the in-process host that bundles @xenova/transformers and the runtime
 * (what Chrome's worker carried before the offscreen document), loaded into the same Chrome extension.
 * Each is loaded in a fresh profile and timed over several stop/start cycles (a message that does no
 * work, settings/get).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, until } from '../e2e/harness.js';
import { launchSnapshot } from './chromium.js';
import { dist, type Dist } from './report.js';

export const CHROME_BG = join(DIST, 'background.js');
export const IN_PROCESS_BG = join(DIST, '../firefox/background.js');

async function startups(backgroundJs: string | undefined, rounds: number): Promise<number[]> {
  const ext = await launchSnapshot(backgroundJs ? { backgroundJs } : {});
  try {
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    await page.getByTestId('stat-pages').waitFor({ timeout: 30_000 });
    // The options page asks for its stats every 2 s (and its cards poll too), so it could wake the worker
    // between the stop and the probe: the wait for the stop then timed out under load, or the probe timed
    // a worker already started. The page's timers are cleared; from here only the probe's message wakes it.
    await page.evaluate(() => {
      const last = setTimeout(() => undefined, 0) as unknown as number;
      for (let id = 0; id <= last; id++) {
        clearTimeout(id);
        clearInterval(id);
      }
    });
    const out: number[] = [];
    for (let r = 0; r < rounds; r++) {
      await ext.stopWorker({ wait: false });
      await until(async () => !(await ext.workerRunning()), 'worker stopped', 10_000, 50);
      out.push(
        await page.evaluate(async () => {
          const t = performance.now();
          await chrome.runtime.sendMessage({ type: 'settings/get', payload: {} });
          return performance.now() - t;
        }),
      );
    }
    return out;
  } finally {
    await ext.close();
  }
}

export interface StartupProbe {
  /** dist/chrome/background.js: the offscreen-document host. */
  chrome: { bytes: number; startup: Dist };
  /** dist/firefox/background.js in Chrome: the in-process host with the embedding runtime. */
  inProcess: { bytes: number; startup: Dist };
}

export async function startupProbe(rounds: number): Promise<StartupProbe> {
  if (!existsSync(IN_PROCESS_BG)) throw new Error(`${IN_PROCESS_BG} missing: run \`npm run build\` first`);
  // Alternate the two variants so background load hits both alike.
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 2; i++) {
    a.push(...(await startups(undefined, Math.ceil(rounds / 2))));
    b.push(...(await startups(IN_PROCESS_BG, Math.ceil(rounds / 2))));
  }
  return { chrome: { bytes: statSync(CHROME_BG).size, startup: dist(a) }, inProcess: { bytes: statSync(IN_PROCESS_BG).size, startup: dist(b) } };
}
