import { defineConfig } from 'vitest/config';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts', 'tests/storage/**/*.test.ts'], environment: 'node', setupFiles: ['tests/unit/setup.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // One browser at a time: the machine has two cores.
          fileParallelism: false,
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
          // After the unit and Chromium projects, never beside them: two browsers at once on two cores
          // make both flaky.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
