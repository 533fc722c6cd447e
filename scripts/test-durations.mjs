/**
 * Writes tests/durations.json, the seconds each test file took in one full run, from vitest's JSON report:
 * vitest.config.ts starts the longest files first with it, so that the two workers of a group finish
 * together. A clean clone (CI) has no vitest cache to order by, and vitest's fallback (larger files first)
 * started tests/e2e/transfer.test.ts (4.9 KB, 104 s) last and alone.
 *
 * Usage: npx vitest run --reporter=json --outputFile=/tmp/times.json; node scripts/test-durations.mjs /tmp/times.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const report = process.argv[2];
if (!report) throw new Error('usage: node scripts/test-durations.mjs <vitest JSON report>');
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
/** The project a file belongs to, by the folders vitest.config.ts gives each project. */
const project = (path) => (path.startsWith('tests/e2e/') ? 'e2e' : path.startsWith('tests/firefox/') ? 'firefox' : path.startsWith('tests/eval/') ? 'eval' : 'unit');
const seconds = {};
for (const r of testResults) {
  const path = relative(root, r.name);
  seconds[`${project(path)}:${path}`] = Math.max(0.1, Math.round((r.endTime - r.startTime) / 100) / 10);
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(root, 'tests/durations.json'), JSON.stringify(sorted, null, 1) + '\n');
console.log(`tests/durations.json: ${Object.keys(sorted).length} files`);
