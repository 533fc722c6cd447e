/**
 * What the embedding runtime costs the worker's start-up: the same background/main.ts bundled twice,
 * as scripts/build.mjs does and with @xenova/transformers replaced by a stub, each loaded in a fresh
 * profile and timed over several stop/start cycles (a message that does no work, settings/get).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { until } from '../e2e/harness.js';
import { launchSnapshot } from './chromium.js';
import { ROOT } from './corpus.js';
import { dist, type Dist } from './report.js';

async function bundle(stub: boolean): Promise<{ file: string; bytes: number; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'reread-bench-bundle-'));
  await build({
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'error',
    ...(stub ? { resolve: { alias: { '@xenova/transformers': join(ROOT, 'tests/bench/stubs/transformers.ts') } } } : {}),
    build: {
      outDir: dir,
      emptyOutDir: true,
      copyPublicDir: false,
      lib: { entry: join(ROOT, 'background/main.ts'), formats: ['es'], fileName: () => 'background.js', name: 'reread_background' },
      rollupOptions: { output: { codeSplitting: false } },
    },
  });
  const file = join(dir, 'background.js');
  return { file, bytes: statSync(file).size, dir };
}

async function startups(backgroundJs: string, rounds: number): Promise<number[]> {
  const ext = await launchSnapshot({ backgroundJs });
  try {
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    await page.getByTestId('stat-pages').waitFor({ timeout: 30_000 });
    const out: number[] = [];
    for (let r = 0; r < rounds; r++) {
      await ext.stopWorker();
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

export async function startupProbe(rounds: number): Promise<{ full: { bytes: number; startup: Dist }; noEmbedding: { bytes: number; startup: Dist } }> {
  const full = await bundle(false);
  const lean = await bundle(true);
  try {
    // Alternate the two variants so background load hits both alike.
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 2; i++) {
      a.push(...(await startups(full.file, Math.ceil(rounds / 2))));
      b.push(...(await startups(lean.file, Math.ceil(rounds / 2))));
    }
    return { full: { bytes: full.bytes, startup: dist(a) }, noEmbedding: { bytes: lean.bytes, startup: dist(b) } };
  } finally {
    rmSync(full.dir, { recursive: true, force: true });
    rmSync(lean.dir, { recursive: true, force: true });
  }
}
