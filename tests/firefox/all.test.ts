/**
 * Every Firefox test file, one after another in one worker: the Firefox project runs this file only, in
 * the same group as the Chromium files (vitest.config.ts), so one Firefox runs beside one Chromium file
 * instead of alone. Each file keeps its own browser, fixture server, hooks and tests, under a describe
 * named after it; a file's hooks are scoped to that describe.
 *
 * One file alone: `FIREFOX_FILES=privacy npx vitest run --project firefox` (comma-separated names), or
 * `-t privacy.test.ts`.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const FILES: Record<string, () => Promise<unknown>> = {
  'reliability.test.ts': () => import('./reliability.test.js'),
  'surfaces.test.ts': () => import('./surfaces.test.js'),
  'dayone.test.ts': () => import('./dayone.test.js'),
  'capture.test.ts': () => import('./capture.test.js'),
  'popup-zoom.test.ts': () => import('./popup-zoom.test.js'),
  'privacy.test.ts': () => import('./privacy.test.js'),
  'outbox.test.ts': () => import('./outbox.test.js'),
};

const only = process.env.FIREFOX_FILES?.split(',').map((f) => f.trim().replace(/(\.test\.ts)?$/, '.test.ts'));

it('runs every Firefox test file (a new one must be listed above)', () => {
  const here = readdirSync(import.meta.dirname).filter((f) => f.endsWith('.test.ts') && f !== 'all.test.ts');
  expect(Object.keys(FILES).sort()).toEqual(here.sort());
  if (only) expect(only.filter((f) => !(f in FILES))).toEqual([]);
});

for (const [file, load] of Object.entries(FILES)) {
  if (only && !only.includes(file)) continue;
  describe(file, async () => {
    await load();
  });
}
