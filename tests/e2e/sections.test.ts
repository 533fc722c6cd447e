/**
 * Who cuts the page, in the real browser: the content script cuts the page into sections and the
 * background stores them as sent (after checking them against the blocks). A compromised content script
 * — played here by code run in the extension's own isolated world in the page, with the real
 * runtime.sendMessage — gets forged sections refused with the reason, and nothing of them is stored.
 */
import type { CDPSession, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, serve, until, type Extension, type FixtureServer } from './harness.js';

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sections page</title></head><body><main>
<h1 id="top">Sections page</h1><p>${words(60, 'secta')}.</p>
<h2 id="second">Second part</h2><p>${words(400, 'sectb')}.</p>
<h2>Third part</h2><p>${words(50, 'sectc')}.</p></main></body></html>`;

let server: FixtureServer;
let ext: Extension;
beforeAll(async () => {
  server = await serve({});
  server.routes.set('/s/page.html', PAGE);
  server.routes.set('/s/victim.html', PAGE.replace(/sect/g, 'victim'));
  ext = await launch();
  await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

/** Runs `expr` in Reread's isolated world in `page` (where the content script runs), over CDP. */
async function inContentScript<T>(page: Page, expr: string): Promise<T> {
  const cdp: CDPSession = await ext.ctx.newCDPSession(page);
  const contexts: { id: number; name: string; origin: string; auxData?: { type?: string } }[] = [];
  cdp.on('Runtime.executionContextCreated', (e: { context: (typeof contexts)[number] }) => contexts.push(e.context));
  await cdp.send('Runtime.enable');
  const ctx = await until(async () => contexts.find((c) => c.auxData?.type === 'isolated' && c.origin.includes(ext.extId)), 'the content script world');
  const { result, exceptionDetails } = (await cdp.send('Runtime.evaluate', { expression: expr, contextId: ctx.id, awaitPromise: true, returnByValue: true })) as { result: { value: T }; exceptionDetails?: { text: string } };
  await cdp.detach();
  if (exceptionDetails) throw new Error(exceptionDetails.text);
  return result.value;
}

describe('sections cut by the page', () => {
  it('the content script cuts; the background stores its sections as sent', async () => {
    const url = server.url('/s/page.html');
    const page = await ext.ctx.newPage();
    await page.goto(url);
    const entry = await until(() => ext.evalSw<{ cutBy: string; chunks: number } | undefined>(`engine.captureLog.findLast((e) => e.url === ${JSON.stringify(url)})`), 'the capture');
    expect(entry.cutBy).toBe('page');
    // What is stored is the cut of the stored blocks by the chunker the worker runs.
    const same = await ext.evalSw<boolean>(`(async () => {
      const { blocks } = await globalThis.rereadDebug.pageBlocks(${JSON.stringify(url)});
      const want = globalThis.rereadDebug.cut.chunkBlocks(blocks).chunks;
      const got = await globalThis.rereadDebug.pageChunks(${JSON.stringify(url)});
      return want.length === got.length && want.every((c, i) => c.text === got[i].text && JSON.stringify(c.anchor) === JSON.stringify(got[i].anchor) && c.headingPath.join('>') === got[i].headingPath.join('>'));
    })()`);
    expect(same).toBe(true);
    expect(entry.chunks).toBeGreaterThanOrEqual(3);
    await page.close();
  });

  it('refuses forged sections from a compromised content script, saying why, and stores none of them', async () => {
    const url = server.url('/s/victim.html');
    const page = await ext.ctx.newPage();
    // Paused first, so the real content script stores nothing; the forgeries are sent after resuming.
    await ext.evalSw('engine.updateSettings({ excludedSites: ["127.0.0.1"] }).then(() => true)');
    await page.goto(url);
    await ext.evalSw('engine.updateSettings({ excludedSites: [] }).then(() => true)');
    const send = (payload: unknown) => inContentScript<{ ok: boolean; error?: { code: string; message: string }; data?: { outcome: string } }>(page, `chrome.runtime.sendMessage(${JSON.stringify({ type: 'page/capture', payload })})`);
    const blocks = [
      { kind: 'heading', level: 1, text: 'Victim', id: 'top' },
      { kind: 'text', text: `${words(60, 'honest')}.` },
    ];
    const chunker = await ext.evalSw<string>('globalThis.rereadDebug.chunkerVersion');
    const honest = { ord: 0, headingPath: ['Victim'], section: 'Victim', anchor: { id: 'top' }, text: `Victim\n${words(60, 'honest')}.`, words: 61 };
    const forged: [string, unknown[], RegExp][] = [
      ['an anchor id with odd characters', [{ ...honest, anchor: { id: 'top"><img src=x onerror=alert(1)>' } }], /anchor id is not a plain id/],
      ['an anchor id the page does not have', [{ ...honest, anchor: { id: 'elsewhere' } }], /anchor id is not a plain id of one of the blocks/],
      ['a heading path the blocks do not have', [{ ...honest, headingPath: ['Bank login'], section: 'Bank login', text: `Bank login\n${words(60, 'honest')}.`, words: 62 }], /names a heading the blocks do not have/],
      ['a word count that is not its text\'s', [{ ...honest, words: 5000 }], /words does not match/],
      ['a thousand copies of the page', Array.from({ length: 1000 }, (_, i) => ({ ...honest, ord: i })), /more text than their blocks/],
      ['too many sections', Array.from({ length: 1001 }, (_, i) => ({ ...honest, ord: i })), /too many sections/],
    ];
    for (const [what, sections, reason] of forged) {
      const reply = await send({ title: 'Victim', lang: 'en', blocks, sections, chunker });
      expect(reply.ok, what).toBe(false);
      expect(reply.error?.code, what).toBe('bad-request');
      expect(reply.error?.message, what).toMatch(reason);
    }
    expect(await ext.evalSw<unknown>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(url)})).then((p) => p ?? null)`)).toBeNull();
    expect(await ext.evalSw<number>(`engine.search({ q: 'honest1' }).then((r) => r.results.length)`)).toBe(0);
    // The same message with honest sections goes through: the refusals above were for the forgeries.
    const ok = await send({ title: 'Victim', lang: 'en', blocks, sections: [honest], chunker });
    expect(ok).toMatchObject({ ok: true, data: { outcome: 'new' } });
    expect(await ext.evalSw<string[]>(`engine.search({ q: 'honest1' }).then((r) => r.results.map((x) => x.href))`)).toEqual([`${url}#top`]);
    await page.close();
  });
});
