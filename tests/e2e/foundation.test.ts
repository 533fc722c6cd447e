/**
 * The foundation slice, end to end: a visited page is cut into sections, indexed, and found again from
 * search.html by a word that appears only in one section; titles are searchable; a page left before its
 * capture ran is captured as it goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, readStats, searchPage, serve, until, visit, type Extension, type FixtureServer } from './harness.js';

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

describe('foundation', () => {
  it('finds a visited section by a word only that section contains', async () => {
    await visit(ext, [server.url('/cats.html'), server.url('/git-undo.html')]);
    await until(async () => (await readStats(ext)).pages >= 2, 'two pages stored');
    const results = await searchPage(ext, { q: 'zephyrine' });
    expect(results.length).toBe(1);
    const [top] = results;
    expect(top!.href).toBe(server.url('/cats.html') + '#litter');
    expect(top!.title).toBe('Living with Cats: A Practical Guide');
    expect(top!.section).toContain('The litter box');
    expect(top!.snippet.toLowerCase()).toContain('zephyrine');
    const stats = await readStats(ext);
    expect(stats.chunks).toBeGreaterThanOrEqual(6);
  });

  it('searches page titles', async () => {
    const results = await searchPage(ext, { q: 'practical guide' });
    expect(results[0]?.title).toBe('Living with Cats: A Practical Guide');
  });

  it('finds exact identifiers and error codes', async () => {
    const results = await searchPage(ext, { q: 'ERR_5041' });
    expect(results[0]?.href).toBe(server.url('/git-undo.html') + '#reset');
  });

  it('shows no-results for words that appear nowhere', async () => {
    const results = await searchPage(ext, { q: 'qwxzzvk' });
    expect(results).toEqual([]);
  });

  it('captures a page that is left before its capture ran', async () => {
    const page = await ext.ctx.newPage();
    await page.goto(server.url('/bread.html'), { waitUntil: 'load' });
    // Leave well before the one-second capture: pagehide must capture it.
    await page.waitForTimeout(150);
    await page.goto('about:blank');
    await page.close();
    await until(async () => (await searchPage(ext, { q: 'sourdough starter' })).length > 0, 'bread page captured on pagehide');
  });

  it('answers every bad message with an error instead of crashing', async () => {
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    const replies = await page.evaluate(async () => {
      const send = (m: unknown) => chrome.runtime.sendMessage(m);
      return Promise.all([send({ type: 'nope' }), send('garbage'), send({ type: 'search', payload: { q: 42 } }), send({ type: 'page/capture', payload: { title: 'x', blocks: [] } })]);
    });
    expect(replies.map((r: { ok: boolean; error?: { code: string } }) => r.error?.code)).toEqual(['unknown-type', 'bad-request', 'bad-request', 'forbidden']);
    await page.close();
  });
});
