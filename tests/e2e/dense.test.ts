/**
 * The dense lane in the real extension: chunks are embedded in the service worker after they are
 * stored, a paraphrase that shares no word with a page finds it, and a worker killed again and again
 * while embedding ends with exactly one vector per chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineStats, launch, readStats, searchPage, serve, until, visit, type Extension, type FixtureServer } from './harness.js';

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

describe('dense lane', () => {
  it('finds a page by a paraphrase that shares no word with it', async () => {
    await visit(ext, [server.url('/cats.html'), server.url('/git-undo.html'), server.url('/bread.html')]);
    await until(async () => {
      const s = await readStats(ext);
      return s.pages === 3 && s.pendingEmbeddings === 0;
    }, 'pages stored and embedded');
    // Neither word appears in the corpus; the bundled word vectors relate them to baking bread.
    const results = await searchPage(ext, { q: 'cake pastry' });
    expect(results[0]?.href.startsWith(server.url('/bread.html'))).toBe(true);
    expect(results[0]?.lanes).toEqual(['dense']);
  });

  it('shows no results for a query of unknown words instead of nearest-neighbour noise', async () => {
    expect(await searchPage(ext, { q: 'zzqvx wqqzy' })).toEqual([]);
  });

  it('after a worker stop, the search box ends on the answer of both lanes (asking again if the first came by words alone)', async () => {
    const page = await ext.ctx.newPage();
    // What the page asks the worker and what it answers, as sent (nothing changed).
    await page.addInitScript(() => {
      const log: { req: Record<string, unknown>; res: Record<string, unknown> | undefined }[] = [];
      (window as unknown as { __searches: typeof log }).__searches = log;
      const send = chrome.runtime.sendMessage.bind(chrome.runtime) as (m: unknown) => Promise<{ ok: boolean; data?: Record<string, unknown> }>;
      (chrome.runtime as unknown as { sendMessage: unknown }).sendMessage = async (m: { type?: string; payload?: Record<string, unknown> }) => {
        const reply = await send(m);
        if (m?.type === 'search') log.push({ req: m.payload ?? {}, res: reply?.data });
        return reply;
      };
    });
    await page.goto(ext.extensionUrl('search.html'));
    expect(await ext.stopWorker()).toBeGreaterThan(0);
    await page.getByTestId('search-input').fill('cake pastry');
    await expect.poll(() => page.getByTestId('search-meta').textContent(), { timeout: 20_000 }).toContain('words + meaning');
    const log = await page.evaluate(() => (window as unknown as { __searches: { req: Record<string, unknown>; res: Record<string, unknown> | undefined }[] }).__searches);
    const last = log.filter((e) => e.req.q === 'cake pastry');
    expect(last.length).toBeGreaterThan(0);
    // Each answer marked denseLoading was asked again, waiting for the index, and that answer used both lanes.
    for (const [i, e] of last.entries()) {
      if (!e.res?.denseLoading) continue;
      expect((e.res.lanesUsed as { dense: boolean }).dense).toBe(false);
      const again = last.slice(i + 1).find((x) => x.req.awaitDense === true);
      expect(again?.res?.lanesUsed).toEqual({ lexical: true, dense: true });
    }
    expect(last.at(-1)!.res?.lanesUsed).toEqual({ lexical: true, dense: true });
    const rows = await page.evaluate(() => document.querySelectorAll('[data-testid="result"]').length);
    expect(rows).toBeGreaterThan(0);
    await page.close();
  });

  it('embeds every chunk exactly once even when the worker is killed again and again', async () => {
    // Queue a large backlog straight through the engine (the capture path after validation).
    const pages = 60;
    const queue = (from: number) => ext.evalSw(`(async () => {
      const words = 'alpha bravo charlie delta echo foxtrot river mountain forest ocean harbour village engine garden library market station'.split(' ');
      for (let p = ${from}; p < ${from + pages}; p++) {
        const blocks = [];
        for (let s = 0; s < 12; s++) {
          blocks.push({ kind: 'heading', level: 2, text: 'Section ' + s + ' of page ' + p });
          let text = '';
          for (let w = 0; w < 80; w++) text += words[(p * 7 + s * 3 + w * 5) % words.length] + ' ';
          blocks.push({ kind: 'text', text });
        }
        await engine.capture('http://bulk.test/page' + p, { title: 'Bulk page ' + p, lang: 'en', blocks });
      }
    })()`);
    await queue(0);
    let kills = 0;
    let batches = 1;
    for (let i = 0; i < 24 && kills < 6; i++) {
      const s = await engineStats(ext);
      if (s.pendingEmbeddings === 0) {
        // A backlog can drain between two stops (how fast depends on the machine's load): queue another
        // batch so that at least three stops land in the middle of embedding.
        if (kills >= 3 || batches >= 4) break;
        await queue(batches++ * pages);
        continue;
      }
      kills += await ext.stopWorker();
      await new Promise((r) => setTimeout(r, 150 + (i % 4) * 60));
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    // Any extension event wakes the worker; it resumes the backlog on start.
    await until(async () => (await engineStats(ext)).pendingEmbeddings === 0, 'backlog drained after restarts', 60_000, 500);
    const check = await ext.evalSw<{ ok: boolean; problems: string[]; checked: { chunks: number; vectors: number } }>(`(async () => {
      const { verifyIndex } = globalThis.rereadDebug;
      return verifyIndex(engine, false);
    })()`);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    // Every chunk of these pages has known words, so every chunk has exactly one vector.
    expect(check.checked.vectors).toBe(check.checked.chunks);
  }, 240_000);
});
