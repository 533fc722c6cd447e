/**
 * `npm run eval:gate`: the quality gate of `npm test` (tests/eval/gate.test.ts), printed.
 *
 *   npm run eval:gate                                  # measure the held-out corpus against the baseline
 *   npm run eval:gate -- --no-cache                    # cold: capture again (as CI does on a clean clone)
 *   npm run eval:gate -- --write-baseline "why ..."    # re-measure and write tests/eval/gate-baseline.json;
 *                                                      # commit it with a message that says why
 */
import { describe, readBaseline, runGate, verdict, writeBaseline, BASELINE_FILE } from './lib/gate.js';
import fs from 'node:fs';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const run = await runGate({ cache: !argv.includes('--no-cache') });
  const i = argv.indexOf('--write-baseline');
  if (i >= 0) {
    const b = writeBaseline(run.metrics, argv[i + 1] ?? '');
    console.log(describe(run.metrics, null));
    console.log(`wrote ${BASELINE_FILE} (commit ${b.commit}): ${b.why}`);
    return;
  }
  const base = fs.existsSync(BASELINE_FILE) ? readBaseline() : null;
  console.log(describe(run.metrics, base));
  console.log(`${run.seconds.toFixed(1)} s (capture ${run.captureFromCache ? 'cached' : 'cold'})`);
  if (!base) {
    console.log('no baseline yet: npm run eval:gate -- --write-baseline "why"');
    process.exit(1);
  }
  const bad = verdict(run.metrics, base);
  if (bad.length) {
    console.log('GATE FAILS:\n  ' + bad.join('\n  '));
    process.exit(1);
  }
  console.log(`gate passes (tolerance ${0.02}; baseline from ${base.commit}: ${base.why})`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
