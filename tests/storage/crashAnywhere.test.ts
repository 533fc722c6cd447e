/**
 * The worker killed at any moment (tests/storage/killSwitch.ts): the workload of killWorkload.ts (captures,
 * changes, forgets with undo and purge, embedding, maintenance's merge and sweep, a re-cut, an import)
 * cut at sampled requests, and a restarted engine checked each time: the index verifies, every
 * acknowledged write is there, nothing forgotten comes back, open forgets can be undone, counts match a
 * recount, and every visible section is embedded or queued. The sample is fixed (seeded), spread over
 * the whole workload; a review swept every 7th request of its 10,005 (session 34) with the same checks.
 */
import { describe, expect, it } from 'vitest';
import { checkRestart, runKilled } from './killWorkload.js';

describe('a worker killed anywhere in the workload', { timeout: 120_000 }, () => {
  it('comes back with nothing acknowledged lost and nothing forgotten back', async () => {
    const origWarn = console.warn;
    console.warn = () => undefined;
    const onUnhandled = () => undefined;
    process.on('unhandledRejection', onUnhandled);
    try {
      const full = await runKilled(Infinity);
      expect(await checkRestart(full)).toEqual([]);
      let seed = 34;
      const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
      const ks = Array.from({ length: 24 }, () => 1 + Math.floor(rand() * full.requests)).sort((a, b) => a - b);
      const problems: string[] = [];
      for (const k of ks) {
        const r = await runKilled(k);
        for (const p of await checkRestart(r)) problems.push(`k=${k} (${r.inFlight}): ${p}`);
      }
      expect(problems).toEqual([]);
    } finally {
      console.warn = origWarn;
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
