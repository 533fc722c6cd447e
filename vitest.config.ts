import { defineConfig } from 'vitest/config';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    // Unit, storage and eval files run two at a time (vitest's default on two cores is one: cores - 1).
    // Firefox's project below stays one file at a time (fileParallelism: false); Chromium's runs two.
    maxWorkers: 2,
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
          // Last, after Firefox's group (vitest wants a group of its own for a project whose files run in
          // one worker, as these do).
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'firefox',
          include: ['tests/firefox/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          isolate: false,
          // A group of its own: vitest runs groups one after another (unit and eval, then this, then the
          // Chromium project's), so two browsers never run at once on two cores (that makes both flaky).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
