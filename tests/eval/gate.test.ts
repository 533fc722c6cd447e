/**
 * Quality gate (issue #13): the gated held-out corpus (devref; cmake, also held out, is only reported by
 * `npm run eval`) through the shipped search path must stay within 0.02
 * of tests/eval/gate-baseline.json in nDCG@10 and section hit rate. The baseline changes only in a
 * commit that says why (npm run eval:gate -- --write-baseline "why"). Needs the held-out corpus's
 * Debian packages (.ci/run installs them).
 */
import { describe as group, expect, it } from 'vitest';
import { checkInstalled, corpus, GATED } from './lib/corpora.js';
import { describe, readBaseline, runGate, verdict, type Baseline, type GateMetrics } from './lib/gate.js';

group('quality gate', () => {
  it('the comparison fails on a drop of more than 0.02 and passes within it', () => {
    const m: GateMetrics = { ndcg10: 0.8, sectionHit1: 0.6, queries: 100, sectionQueries: 90, classes: {} };
    const b: Baseline = { corpus: GATED, lane: 'hybrid', metrics: m, why: 'test', commit: 'x', date: '' };
    expect(verdict(m, b)).toEqual([]);
    expect(verdict({ ...m, ndcg10: 0.781 }, b)).toEqual([]);
    expect(verdict({ ...m, ndcg10: 0.779 }, b)).toHaveLength(1);
    expect(verdict({ ...m, sectionHit1: 0.579 }, b)).toHaveLength(1);
    expect(verdict({ ...m, queries: 99 }, b)).toHaveLength(1);
  });

  it(`held-out ${GATED}: nDCG@10 and section hit rate within 0.02 of the baseline`, async () => {
    const missing = checkInstalled(corpus(GATED));
    if (missing) throw new Error(missing);
    const base = readBaseline();
    // A baseline says why it is what it is (npm run eval:gate -- --write-baseline "why").
    expect(base.why.trim().length, 'gate-baseline.json needs a reason').toBeGreaterThanOrEqual(10);
    const run = await runGate();
    console.log(describe(run.metrics, base) + `\n  ${run.seconds.toFixed(1)} s, capture ${run.captureFromCache ? 'cached' : 'cold'}`);
    expect(verdict(run.metrics, base)).toEqual([]);
  }, 300_000);
});
