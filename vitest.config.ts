import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * The longest files start first in each group, so that its two workers end together: each worker takes
 * the next file when it is free, and a long file taken last runs alone. The seconds are one full run's
 * (tests/durations.json, written by scripts/test-durations.mjs). vitest orders by its cache of the last
 * run, which a clean clone (CI) does not have; its fallback, larger files first, started
 * tests/e2e/transfer.test.ts (4.9 KB, 104 s) last and alone for 84 s, and tests/storage/crashAnywhere.test.ts
 * (42 s) last of the unit group, alone for 27 s (2026-12-07, load average 20-30). A file not in the table
 * starts first (vitest's own rule for files it has not timed). The Firefox project's one file (every
 * Firefox file in turn, tests/firefox/all.test.ts) is the browsers' group's longest: one worker runs it from
 * the start while the other takes the Chromium files.
 */
const DURATIONS = JSON.parse(readFileSync(new URL('./tests/durations.json', import.meta.url), 'utf8')) as Record<string, number>;

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (f: TestSpecification) => DURATIONS[`${f.project.name}:${relative(f.project.config.root, f.moduleId)}`];
    const group = (f: TestSpecification) => f.project.config.sequence.groupOrder;
    const longer = (a: number | undefined, b: number | undefined) => (a === b ? 0 : a === undefined ? -1 : b === undefined ? 1 : b - a);
    // Array.prototype.sort is stable: files of equal (or no) time keep vitest's order.
    return sorted.sort((a, b) => group(a) - group(b) || longer(seconds(a), seconds(b)));
  }
}

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    // Unit, storage and eval files run two at a time (vitest's default on two cores is one: cores - 1);
    // so do the browsers' files: never more than two browsers at once, one of them at most a Firefox.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        // A timeout guards against a hang, never a speed (speed is the benchmarks'): vitest's 5 s stopped
        // property tests that took 5.8-7.5 s on a loaded CI machine (matcher's locate, inflate's 64 KB blocks).
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts', 'tests/storage/**/*.test.ts'], environment: 'node', setupFiles: ['tests/unit/setup.ts'], testTimeout: 60_000 },
      },
      {
        extends: true,
        // The quality gate (held-out retrieval quality, issue #13) and the evaluation harness's own tests.
        test: { name: 'eval', include: ['tests/eval/**/*.test.ts'], environment: 'node', testTimeout: 300_000 },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two files at a time (maxWorkers), each with its own Chromium: the files mostly wait (for a
          // page's capture to settle, a worker to stop, a quota to be enforced), so two of them share the
          // two cores well. Measured on this machine: the project took 299 s with two at a time and
          // 671 s one at a time (clean-clone CI, session 10), every file passing; the longest file
          // (quota, 115-122 s) is about the same either way. Each file launches its own browser, profile
          // and fixture server and shares nothing else (the harness keeps per-browser state only, keyed
          // by the browser).
          fileParallelism: true,
          // A worker keeps its imports (Playwright, the harness) from file to file: a fresh worker per
          // file cost 1.5-2.5 s a file here.
          isolate: false,
          // After the unit and eval group (vitest runs groups one after another), with Firefox's project.
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'firefox',
          // One file that runs every Firefox file in turn, each under a describe of its own: one Firefox at
          // a time, in one worker, while the group's other worker runs the Chromium files (LongestFirst
          // above starts it first). Before, Firefox's files had a group of their own, one after another with
          // the second core mostly idle (200-250 s here); at most two browsers run at once either way.
          // One file alone: FIREFOX_FILES=privacy npx vitest run --project firefox.
          include: ['tests/firefox/all.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          isolate: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
