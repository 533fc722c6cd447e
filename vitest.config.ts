import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The Firefox project's one file (every Firefox file in turn, tests/firefox/all.test.ts) starts first in
 * the browsers' group, so that one worker runs it from the start while the other takes the Chromium files.
 * Otherwise vitest's order (by project name, then by size or the last run's times) starts it last, alone.
 */
class FirefoxFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => f.project.name === 'firefox'), ...sorted.filter((f) => f.project.name !== 'firefox')];
  }
}

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    // Unit, storage and eval files run two at a time (vitest's default on two cores is one: cores - 1);
    // so do the browsers' files: never more than two browsers at once, one of them at most a Firefox.
    maxWorkers: 2,
    sequence: { sequencer: FirefoxFirst },
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
          // a time, in one worker, while the group's other worker runs the Chromium files (FirefoxFirst
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
