/**
 * The first answer after a worker stop, alone, on a kept scale profile (issue 17): a build is loaded
 * into the profile (as `--scale-dist` does), background maintenance is run once with force (so the
 * page table's snapshot is in the form this build writes: each build is measured in its steady state),
 * then `--rounds` times: the worker stops, the last letter of a query is typed in search.html, and the
 * keystroke → frame time is printed with the worker's boot trace (when each traced step started after
 * the keydown, and how long it took). About 30 s at 1M sections instead of the scale part's 100 s.
 *
 *   node --import tsx tests/bench/firstAnswerProbe.ts --profile=/tmp/lead7-1m --dist=dist/chrome [--rounds=5] [--json=out.json]
 *
 * The profile must have been loaded by `npm run bench -- scale --scale-profile=DIR` (its loaded.json
 * gives the queries). Never copy a profile elsewhere: the extension's id, and so its database, follow
 * the directory. `--rounds=0` only converts the snapshot (run it before the scale part with a build).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { until } from '../e2e/harness.js';
import { launchSnapshot } from './chromium.js';
import { afterRestart, openSearch } from './browser.js';
import type { Query } from './corpus.js';
import { dist, ms } from './report.js';

const flags = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const profileDir = flags.get('profile');
if (!profileDir) throw new Error('--profile=DIR (a kept scale profile) is required');
const distDir = resolve(flags.get('dist') ?? 'dist/chrome');
const rounds = Number(flags.get('rounds') ?? 5);
const { queries } = JSON.parse(readFileSync(join(profileDir, 'loaded.json'), 'utf8')) as { queries: Query[] };

const load0 = loadavg()[0]!;
const ext = await launchSnapshot({ keepDir: profileDir, dist: distDir, evalTimeoutMs: 600_000 });
try {
  await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker', 120_000);
  await ext.evalSw('engine.updateSettings({ denseEnabled: true })');
  await ext.evalSw('globalThis.rereadDebug.maintain(true)');
  await until(async () => (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'the embedding queue', 600_000, 2000);
  // --rounds=0: only the conversion (e.g. before `npm run bench -- scale --scale-dist=` with this build).
  if (rounds === 0) console.log(`build ${distDir}: maintenance run, the snapshot is in this build's form`);
  else await measure();
} finally {
  // Closing the kept profile's browser can hang for minutes: not waited for past 20 s.
  await Promise.race([ext.close(), new Promise((r) => setTimeout(r, 20_000))]);
}
process.exit(0);

async function measure(): Promise<void> {
  const page = await openSearch(ext);
  // Warm the browser side (the page, the offscreen document's model) before the first stop.
  await page.getByTestId('search-input').fill(queries[0]!.text);
  const restart = await afterRestart(ext, page, queries.slice(Math.floor(queries.length / 2)), rounds);
  const frames = restart.keystroke.map((k) => k.toFrame);
  const d = dist(frames);
  console.log(`build ${distDir}  load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`);
  console.log(`first answer after a stop, keystroke -> frame: median ${ms(d.median)} ms; runs ${frames.map((f) => ms(f)).join(', ')}`);
  for (const [r, parts] of restart.parts.entries()) {
    const starts = Object.keys(parts)
      .filter((k) => k.startsWith('at:'))
      .sort((a, b) => parts[a]! - parts[b]!);
    console.log(`round ${r + 1}:`);
    for (const k of starts) {
      const name = k.slice(3);
      const dur = parts[`ms:${name}`];
      console.log(`  ${ms(parts[k]!).padStart(8)}  ${name}${dur === undefined ? '' : ` (${ms(dur)} ms)`}`);
    }
  }
  const out = flags.get('json');
  if (out) writeFileSync(out, JSON.stringify({ dist: distDir, load: [load0, loadavg()[0]], frames, parts: restart.parts }, null, 1));
}
