/**
 * the backfill ("Read these pages now") against its promises — cancel takes effect at once
 * and nothing is stored after it, a page whose read always fails is not retried for ever, and the
 * progress reaches its total when the user reads one of the pages in a tab meanwhile. Each failed on the
 * code it was written against.
 */
import { describe, expect, it } from 'vitest';
import { cutSections } from '../../src/sections.js';
import { engineOn, fakeHistory, freshDb, type Item } from './helpers.js';
import { HistoryImport } from '../../background/dayone/historyImport.js';
import { Backfill } from '../../background/dayone/backfill.js';
import type { PageReader, ReadHtmlResult } from '../../background/reader/readerProtocol.js';
import type { Engine } from '../../background/engine.js';

const NOW = Date.UTC(2026, 10, 30, 12);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function history(n: number): Item[] {
  return Array.from({ length: n }, (_, i) => ({ url: `https://site${i}.example/docs/page-${i}.html`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
}

async function imported(n: number): Promise<{ engine: Engine; urls: string[] }> {
  const engine = engineOn(await freshDb());
  const imp = new HistoryImport(engine, () => fakeHistory(history(n)), () => NOW);
  await imp.start(0);
  await imp.whenIdle();
  const urls = [...(await engine.pages.all()).values()].filter((p) => p.kind === 'title').map((p) => p.url);
  expect(urls).toHaveLength(n);
  return { engine, urls };
}

async function readable(i: number): Promise<ReadHtmlResult> {
  const cut = await cutSections([
    { kind: 'heading', level: 1, text: `Heading ${i}` },
    { kind: 'text', text: `Backfilled body ${i} with the word fernlight and enough other words to be a real page of text that is stored.` },
  ]);
  return { ok: true, title: `Fetched ${i}`, lang: 'en', method: 'body', words: 30, blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker };
}

const fetchedPages = async (engine: Engine) => [...(await engine.pages.all()).values()].filter((p) => p.kind === 'fetched').map((p) => p.url);

/** A site that takes its time (the reader's own timeout is 20 s, the channel's 2 min): reads wait for `release`. */
function slowReader(): { reader: PageReader; reading: Promise<void>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const reading = new Promise<void>((r) => (started = r));
  const reader: PageReader = {
    async readHtml() {
      started();
      await gate;
      return readable(0);
    },
    readPdf: async () => ({ ok: false, problem: 'broken' }),
  };
  return { reader, reading, release };
}

describe('cancel', () => {
  it('"Cancel" answers at once while a site is slow to answer (it does not wait for the request)', async () => {
    const { engine } = await imported(3);
    const { reader, reading, release } = slowReader();
    const bf = new Backfill(engine, reader, () => NOW);
    await bf.control('start');
    await reading;
    const t = performance.now();
    const answered = await Promise.race([bf.control('cancel').then(() => true), sleep(1000).then(() => false)]);
    const waited = performance.now() - t;
    release();
    await bf.whenIdle();
    expect({ answered, waitedUnderASecond: waited < 1000 }).toEqual({ answered: true, waitedUnderASecond: true });
  });

  it('a page whose read finishes after "Cancel" is not stored', async () => {
    const { engine } = await imported(3);
    const { reader, reading, release } = slowReader();
    const bf = new Backfill(engine, reader, () => NOW);
    await bf.control('start');
    await reading;
    const cancelled = bf.control('cancel');
    await sleep(50); // the user clicked Cancel; the answers come in after it
    release();
    await cancelled;
    await bf.whenIdle();
    expect((await bf.status()).state).toBe('cancelled');
    expect(await fetchedPages(engine)).toEqual([]);
  });
});

describe('a page whose read keeps failing', () => {
  it('is tried a bounded number of times, then left title-only, and the run ends', async () => {
    const { engine, urls } = await imported(2);
    const poison = urls[0]!;
    const attempts = new Map<string, number>();
    // Time runs fast (a minute every 50 ms): the 30-second retry delay passes between the loop's 1-second naps.
    let offset = 0;
    const tick = setInterval(() => (offset += 60_000), 50);
    const reader: PageReader = {
      async readHtml(url) {
        attempts.set(url, (attempts.get(url) ?? 0) + 1);
        // This page takes the reader down every time (the offscreen document crashes on it, or the
        // channel times out): the reader rejects, which the backfill counts as "not the page's fault".
        if (url === poison) throw new Error('the reader went away');
        return readable(1);
      },
      readPdf: async () => ({ ok: false, problem: 'broken' }),
    };
    const bf = new Backfill(engine, reader, () => NOW + offset);
    try {
      await bf.control('start');
      const ended = await Promise.race([bf.whenIdle().then(() => true), sleep(7000).then(() => false)]);
      if (!ended) await bf.control('cancel');
      const tries = attempts.get(poison) ?? 0;
      expect({ ended, triesBounded: tries <= 3 }, `the page was tried ${tries} times in 7 s`).toEqual({ ended: true, triesBounded: true });
      const page = await engine.pages.get(poison);
      expect(page?.fetchSkipped).toBeDefined();
    } finally {
      clearInterval(tick);
    }
  }, 20_000);
});

describe('progress', () => {
  it('ends at "N of N" when the user reads one of the pages in a tab while the backfill runs', async () => {
    const { engine, urls } = await imported(6);
    const visited = urls[5]!;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reader: PageReader = {
      async readHtml(url) {
        await gate;
        return readable(urls.indexOf(url));
      },
      readPdf: async () => ({ ok: false, problem: 'broken' }),
    };
    const bf = new Backfill(engine, reader, () => NOW);
    await bf.control('start');
    expect((await bf.status()).total).toBe(6);
    // The user opens one of the entries in a tab: the full page replaces the title-only entry.
    const out = await engine.capture(visited, { title: 'Read in a tab', lang: 'en', blocks: [{ kind: 'heading', level: 1, text: 'Tab' }, { kind: 'text', text: 'The page as the user read it, with enough words in it to be stored as a full page of the index here.' }] }, NOW + 1000);
    expect(['new', 'changed']).toContain(out.outcome);
    release();
    await bf.whenIdle();
    const st = await bf.status();
    expect(st.state).toBe('done');
    // Every page of the run is accounted for: read, skipped, or (here) no longer the backfill's to read.
    expect(`${st.done} of ${st.total}`).toBe(`${st.total} of ${st.total}`);
  });
});
