/**
 * Export and import of an index too large for one string (background/transfer.ts, background/transferParts.ts,
 * popup/transfer.ts): the export is read a batch of pages at a time and sent in parts, the import is
 * read from the file in slices and written page by page. The sizes are made small here (parts of a few
 * thousand characters, a dozen sections a read) so that a small profile is many times larger than a part.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import type { DB } from '../../background/db.js';
import type { Engine } from '../../background/engine.js';
import { JsonlExport } from '../../background/transfer.js';
import { pageSections } from '../../background/sections.js';
import { verifyIndex } from '../../background/verify.js';
import { exportedMessage, ExportStopped, exportToBlob, ImportStopped, importFromFile, type Call } from '../../popup/transfer.js';
import { ProtocolError } from '../../src/protocol.js';
import { engineOn, freshDb } from './helpers.js';
import { embedQueued, exportJsonl, importJsonl, queueingLane, transferWorker, vectorsByPlace } from './transferText.js';

const WORDS = 'river stone bread yeast commit rebase kitten litter ocean garden python getElementById café 漢字 ภาษาไทย naïve 🐍'.split(' ');
const para = (seed: number, n = 40) => Array.from({ length: n }, (_, i) => WORDS[(seed * 13 + i * i + i * seed) % WORDS.length]).join(' ');
/** A page of `n` sections (a heading and enough words each). */
const blocks = (seed: number, n: number): Block[] => Array.from({ length: n }, (_, s) => [{ kind: 'heading' as const, text: `Part ${seed}.${s}`, level: 2, id: `p${seed}-${s}` }, { kind: 'text' as const, text: `${para(seed + s)} unique${seed}x${s}` }]).flat();
const urlOf = (i: number) => `https://s${i % 5}.example/page/${i}`;
const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

/** Pages 0..n-1, page i with 1 + i % 6 sections; some revisited, a PDF, a fetched page; with vectors. */
async function profile(n: number): Promise<{ db: DB; engine: Engine }> {
  const db = await freshDb();
  const engine = engineOn(db);
  engine.dense = queueingLane();
  for (let i = 0; i < n; i++) {
    const kind = i === 3 ? { kind: 'pdf' as const, pdf: { pages: 4, read: 4 } } : i === 4 ? { kind: 'fetched' as const } : undefined;
    await engine.capture(urlOf(i), { title: `Page ${i} ${WORDS[i % WORDS.length]}`, lang: i % 2 ? 'en' : 'fr', blocks: blocks(i, 1 + (i % 6)) }, T0 + i * DAY, kind);
    if (i % 4 === 0) await engine.capture(urlOf(i), { title: `Page ${i} ${WORDS[i % WORDS.length]}`, lang: i % 2 ? 'en' : 'fr', blocks: blocks(i, 1 + (i % 6)) }, T0 + (i + 100) * DAY, kind);
  }
  await embedQueued(db);
  return { db, engine };
}

/** What a profile holds, ids aside: every page record, every section, every vector. */
async function holdings(db: DB) {
  const pages = (await db.getAll('pages')).map(({ chunkIds, hash: _h, lens, ...p }) => ({ ...p, sections: chunkIds.length, lens }));
  const sections = await pageSections(db, await db.getAll('pages'));
  return {
    pages,
    sections: [...sections].map(([url, s]) => [url, s?.map(({ id: _id, ...rest }) => rest)]).sort(),
    vectors: [...(await vectorsByPlace(db))].sort(),
  };
}

/** Records each read-only transaction's reads of the page, section and vector stores (fake-indexeddb's IDBObjectStore). */
function watchReads() {
  const proto = IDBObjectStore.prototype;
  const { get, getAll } = proto;
  const perTx = new Map<IDBTransaction, Record<string, number>>();
  const tally = (store: IDBObjectStore, n: number) => {
    if (store.transaction.mode !== 'readonly') return;
    const t = perTx.get(store.transaction) ?? {};
    t[store.name] = (t[store.name] ?? 0) + n;
    perTx.set(store.transaction, t);
  };
  proto.getAll = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['getAll']>) {
    const req = getAll.apply(this, args);
    req.addEventListener('success', () => tally(this, req.result.length));
    return req;
  };
  proto.get = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['get']>) {
    const req = get.apply(this, args);
    req.addEventListener('success', () => tally(this, req.result === undefined ? 0 : 1));
    return req;
  };
  const restore = () => Object.assign(proto, { get, getAll });
  return { most: (store: string) => Math.max(0, ...[...perTx.values()].map((t) => t[store] ?? 0)), restore };
}

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

/** A file's lines as pages: each page line with the chunk lines after it. */
function pagesIn(text: string): { header: Record<string, unknown>; pages: Map<string, { line: Record<string, unknown>; chunks: Record<string, unknown>[] }> } {
  const lines = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const pages = new Map<string, { line: Record<string, unknown>; chunks: Record<string, unknown>[] }>();
  let current: { line: Record<string, unknown>; chunks: Record<string, unknown>[] } | null = null;
  for (const l of lines.slice(1)) {
    if (l.kind === 'page') pages.set(l.url as string, (current = { line: l, chunks: [] }));
    else {
      expect(l.url).toBe(current?.line.url);
      current!.chunks.push(l);
    }
  }
  return { header: lines[0]!, pages };
}

describe('export and import of an index larger than a part', { timeout: 60_000 }, () => {
  it('the export is read a few pages at a time and never held whole; the import gives back every page, section, vector, visit and kind', async () => {
    const { db, engine } = await profile(48);
    const partChars = 3000;
    const worker = transferWorker(engine, { partChars, export: { sectionsPerRead: 12, listBatch: 7 } });
    const watch = watchReads();
    restore = watch.restore;
    // The parts the Options page receives, each kept to check it.
    const parts: string[] = [];
    let peak = 0;
    const call = (async (type: string, payload: unknown) => {
      const r = await (worker.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
      if (type === 'export/part') {
        parts.push((r as { text: string }).text);
        peak = Math.max(peak, worker.transfers.peakChars((payload as { token: string }).token) ?? 0);
      }
      return r;
    }) as Call;
    const file = await exportToBlob(call, true);
    watch.restore();
    const text = await file.blob.text();
    const total = text.length;

    // Much larger than a part, and never held whole: each part at most a part's length, the worker
    // holding at most a part and one batch's lines at once, each transaction reading one batch.
    expect(total).toBeGreaterThan(20 * partChars);
    expect(parts.join('')).toBe(text);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(partChars);
    expect(peak).toBeLessThan(total / 5);
    expect(watch.most('pages')).toBeLessThanOrEqual(12);
    expect(watch.most('sections')).toBeLessThanOrEqual(12);
    // (16 ids a block: a batch's dozen sections, or one page's six, in a few blocks.)
    expect(watch.most('vectors')).toBeLessThanOrEqual(4);
    expect(await db.count('vectors')).toBeGreaterThan(8);
    expect(file).toMatchObject({ pages: 48, listed: 48 });
    expect(exportedMessage(file)).toBe('Exported 48 pages.');
    expect(pagesIn(text).header).toMatchObject({ kind: 'reread-export', pages: 48, vectors: 'reread/glove-100d' });

    // Imported from the file, read in slices, into a fresh profile using the same model.
    const db2 = await freshDb();
    const engine2 = engineOn(db2);
    const told: number[] = [];
    engine2.dense = queueingLane([], told);
    const r = await importFromFile(file.blob, transferWorker(engine2, { partChars }).call, { partChars, sliceBytes: 1000 });
    expect(r.pages).toBe(48);
    expect(r.skipped).toBe(0);
    expect(r.vectors).toBe((await vectorsByPlace(db)).size);
    expect(await db2.count('embedQueue')).toBe(0);
    // Each vector went to the resident index as its page was written.
    expect(told.length).toBe(r.vectors);
    expect(await holdings(db2)).toEqual(await holdings(db));
    expect((await verifyIndex(engine2, false)).problems).toEqual([]);
    for (const q of ['river', 'unique7x3', 'café', '漢字', 'site:s3.example kitten']) {
      const hits = async (e: Engine) => (await e.search({ q, limit: 50 })).results.map((x) => [x.url, x.href, x.snippet, x.lastVisit, x.visitCount]);
      expect(await hits(engine2), q).toEqual(await hits(engine));
    }
    // Exporting the import gives the same file, but for its date.
    const again = (await exportJsonl(engine2, true)).jsonl;
    expect(again.slice(again.indexOf('\n'))).toBe(text.slice(text.indexOf('\n')));
  });

  it('a page forgotten, hidden or read again while the export runs is in the file whole or not at all; the header counts the pages listed', async () => {
    const { db, engine } = await profile(30);
    const sectionsOf = new Map((await db.getAll('pages')).map((p) => [p.url, p.chunkIds.length]));
    const worker = transferWorker(engine, { partChars: 2500, export: { sectionsPerRead: 5, listBatch: 4 } });
    const { token, pages: listed } = await worker.call('export', { vectors: false });
    expect(listed).toBe(30);
    const parts: string[] = [];
    let next: number | null = 0;
    let pages = 0;
    const read = async () => {
      const p = await worker.call('export/part', { token, part: next! });
      parts.push(p.text);
      next = p.next;
      pages = p.pages;
    };
    await read();
    // The file is in write order: these pages are read after the first part.
    await engine.deleteUrls([urlOf(25)]);
    await engine.forget.mark({ kind: 'page', url: urlOf(26) }, T0 + 400 * DAY);
    await engine.capture(urlOf(27), { title: 'Page 27 again', lang: 'en', blocks: blocks(127, 7) }, T0 + 300 * DAY);
    await engine.capture('https://new.example/', { title: 'Captured after the listing', lang: 'en', blocks: blocks(200, 2) }, T0 + 301 * DAY);
    // A delete racing a part: page 29 is whole or gone, whichever transaction comes first.
    await Promise.all([read(), engine.deleteUrls([urlOf(29)])]);
    while (next !== null) await read();
    const text = parts.join('');
    const { header, pages: got } = pagesIn(text);

    expect(header.pages).toBe(30);
    expect(pages).toBe(got.size);
    for (const gone of [urlOf(25), urlOf(26), 'https://new.example/']) expect(got.has(gone), gone).toBe(false);
    // Read again after the listing: exported as it is now, whole.
    expect(got.get(urlOf(27))?.line.title).toBe('Page 27 again');
    expect(got.get(urlOf(27))?.chunks.length).toBe(7);
    for (const [url, p] of got) if (url !== urlOf(27)) expect(p.chunks.length, url).toBe(sectionsOf.get(url));
    expect(got.size).toBe(got.has(urlOf(29)) ? 28 : 27);
    expect(exportedMessage({ pages, listed })).toBe(`Exported ${pages} pages. ${30 - pages} pages forgotten while the export ran are not in the file.`);

    // The importer does not hold the header's count against the file.
    const other = engineOn(await freshDb());
    expect(await importJsonl(other, text)).toMatchObject({ pages: got.size, skipped: 0 });
  });

  it('deletes at every point of a running export never leave half a page in the file', async () => {
    for (let round = 0; round < 6; round++) {
      const { db, engine } = await profile(18);
      const sectionsOf = new Map((await db.getAll('pages')).map((p) => [p.url, p.chunkIds.length]));
      const source = await JsonlExport.start(engine, false, { sectionsPerRead: 4 });
      const lines: string[] = [];
      const deletes: Promise<unknown>[] = [];
      for (let batch = 0, got = await source.next(); got; got = await source.next(), batch++) {
        lines.push(...got);
        // Deletes started while the next batch is read, a few microtasks in.
        const victim = urlOf((round * 5 + batch * 3) % 18);
        deletes.push((async () => {
          for (let i = 0; i < (round + batch) % 4; i++) await Promise.resolve();
          await engine.deleteUrls([victim]);
        })());
      }
      await Promise.all(deletes);
      for (const [url, p] of pagesIn(lines.join('')).pages) expect(p.chunks.length, `round ${round}: ${url}`).toBe(sectionsOf.get(url));
    }
  });
});

describe('an import that stops part-way', { timeout: 60_000 }, () => {
  it('says how many pages were imported; importing the file again finishes it and adds no visit twice', async () => {
    const { engine } = await profile(24);
    const file = new Blob([(await exportJsonl(engine, true)).jsonl]);
    const partChars = 2000;

    const db2 = await freshDb();
    const engine2 = engineOn(db2);
    engine2.dense = queueingLane();
    const worker = transferWorker(engine2, { partChars });
    let parts = 0;
    // The worker stops (and starts again) after the fourth part: the import it held is gone.
    const call = (async (type: string, payload: unknown) => {
      if (type === 'import/part' && ++parts === 5) worker.restart();
      return (worker.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
    }) as Call;
    const err = await importFromFile(file, call, { partChars }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportStopped);
    const stored = await db2.count('pages');
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(24);
    expect((err as Error).message).toBe(
      `Import stopped part-way. The transfer was interrupted (Reread’s background restarted or it took too long). ${stored} of the 24 pages in the file were imported. Import the file again to finish: pages already imported are not added twice.`,
    );
    expect((await verifyIndex(engine2, false)).problems).toEqual([]);

    // Again, whole: the same as one import of the file.
    const r = await importFromFile(file, transferWorker(engine2, { partChars }).call, { partChars });
    expect(r.pages).toBe(24);
    const db3 = await freshDb();
    const engine3 = engineOn(db3);
    engine3.dense = queueingLane();
    await importFromFile(file, transferWorker(engine3, { partChars }).call, { partChars });
    const same = await holdings(db3);
    expect(await holdings(db2)).toEqual(same);
    expect((await verifyIndex(engine2, false)).problems).toEqual([]);
  });

  it('a part whose answer is lost counts as at least the pages confirmed', async () => {
    const { engine } = await profile(12);
    const file = new Blob([(await exportJsonl(engine, false)).jsonl]);
    const db2 = await freshDb();
    const worker = transferWorker(engineOn(db2), { partChars: 2000 });
    let parts = 0;
    const call = (async (type: string, payload: unknown) => {
      const r = await (worker.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
      // The third part was imported, but its answer never came back (the worker stopped as it replied).
      if (type === 'import/part' && ++parts === 3) throw Object.assign(new Error('Reread’s background is not answering. Try again in a moment.'), { code: 'unavailable' });
      return r;
    }) as Call;
    const err = (await importFromFile(file, call, { partChars: 2000 }).catch((e: unknown) => e)) as Error;
    const confirmed = Number(/At least (\d+) of the 12 pages in the file (?:was|were) imported\./.exec(err.message)?.[1]);
    expect(err.message).toMatch(/^Import stopped part-way\. Reread’s background is not answering\. At least \d+ /);
    expect(confirmed).toBeGreaterThan(0);
    expect(await db2.count('pages')).toBeGreaterThanOrEqual(confirmed);

    // The first part's answer lost: nothing was confirmed, but pages may be in; the page says so.
    const db3 = await freshDb();
    const first = transferWorker(engineOn(db3), { partChars: 2000 });
    const lostFirst = (async (type: string, payload: unknown) => {
      const r = await (first.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
      if (type === 'import/part') throw Object.assign(new Error('Reread’s background is not answering. Try again in a moment.'), { code: 'unavailable' });
      return r;
    }) as Call;
    const err1 = (await importFromFile(file, lostFirst, { partChars: 2000 }).catch((e: unknown) => e)) as Error;
    expect(await db3.count('pages')).toBeGreaterThan(0);
    expect(err1.message).toBe('Import stopped part-way. Reread’s background is not answering. Some of its pages may have been imported. Import the file again to finish: pages already imported are not added twice.');
  });

  it('a file that is not an export is refused at its first part, with nothing imported', async () => {
    const db2 = await freshDb();
    const worker = transferWorker(engineOn(db2), { partChars: 100 });
    const err = await importFromFile(new Blob(['x'.repeat(5000)]), worker.call, { partChars: 100 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/not a Reread export/);
    expect(err).not.toBeInstanceOf(ImportStopped);
    expect(await db2.count('pages')).toBe(0);
    await expect(importFromFile(new Blob([]), worker.call)).rejects.toThrow(/not a Reread export/);
    await expect(worker.call('import', { token: 'gone' })).rejects.toThrow(ProtocolError);
  });
});

describe('an export whose answers are lost on their way', { timeout: 60_000 }, () => {
  /** A file without its header line (which says when it was made). */
  const body = (text: string) => text.slice(text.indexOf('\n') + 1);
  const lost = () => Object.assign(new Error('Reread’s background is not answering. Try again in a moment.'), { code: 'unavailable' });

  it('a part whose answer is lost (the last one too) is asked again and is the same text: the file is whole', async () => {
    const { engine } = await profile(12);
    const whole = (await exportJsonl(engine, true)).jsonl;
    const worker = transferWorker(engine, { partChars: 2000 });
    let parts = 0;
    let lostLast = false;
    const asked: number[] = [];
    const call = (async (type: string, payload: unknown) => {
      const r = await (worker.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
      if (type !== 'export/part') return r;
      asked.push((payload as { part: number }).part);
      // The background read part 2 and the last part and moved on; their answers never came back.
      if (++parts === 3 || ((r as { next: number | null }).next === null && !lostLast && (lostLast = true))) throw lost();
      return r;
    }) as Call;
    const file = await exportToBlob(call, true);
    expect(body(await file.blob.text())).toBe(body(whole));
    expect(file.pages).toBe(12);
    const last = asked.at(-1)!;
    expect(asked.length).toBeGreaterThan(4);
    expect(asked.filter((p) => p === 2 || p === last)).toEqual([2, 2, last, last]);
  });

  it('the worker stopped mid-export: no file, a message that says so; started again, the file is whole', async () => {
    const { engine } = await profile(12);
    const whole = (await exportJsonl(engine, false)).jsonl;
    const worker = transferWorker(engine, { partChars: 2000 });
    let parts = 0;
    const call = (async (type: string, payload: unknown) => {
      const r = await (worker.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
      // The worker stopped as it answered part 2: its answer is lost, and so is the export it held.
      if (type === 'export/part' && ++parts === 3) {
        worker.restart();
        throw lost();
      }
      return r;
    }) as Call;
    const err = await exportToBlob(call, false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExportStopped);
    // Every page was read into the parts before the stop (one batch holds all 12), the file was not whole:
    // "after 12 pages of 12" would say the opposite of "stopped".
    expect((err as Error).message).toMatch(/^Export stopped before the file was complete\. The transfer was interrupted \(Reread’s background restarted or it took too long\)\. No file was saved\. Start the export again\.$/);
    expect(body(await (await exportToBlob(worker.call, false)).blob.text())).toBe(body(whole));

    // Two answers lost in a row: asked again once, then stopped (never a file cut short).
    let n = 0;
    const twice = (async (type: string, payload: unknown) => {
      const r = await (worker.call as (t: string, p: unknown) => Promise<unknown>)(type, payload);
      if (type === 'export/part' && ++n >= 2) throw lost();
      return r;
    }) as Call;
    const err2 = await exportToBlob(twice, false).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(ExportStopped);
    expect((err2 as Error).message).toMatch(/Reread’s background is not answering\. No file was saved\. Start the export again\.$/);
    expect(n).toBe(3);
  });
});

describe('a file read in slices', { timeout: 60_000 }, () => {
  it('characters whose bytes straddle a slice edge are imported whole', async () => {
    const { db, engine } = await profile(10);
    const text = (await exportJsonl(engine, true)).jsonl;
    const bytes = new TextEncoder().encode(text);
    const sliceBytes = 7;
    // Slice edges fall inside characters of two, three and four bytes (é, 漢, 🐍).
    const inside = new Set<number>();
    for (let at = sliceBytes; at < bytes.length; at += sliceBytes) {
      if ((bytes[at]! & 0xc0) !== 0x80) continue;
      let lead = at;
      while ((bytes[lead]! & 0xc0) === 0x80) lead--;
      inside.add(bytes[lead]! >= 0xf0 ? 4 : bytes[lead]! >= 0xe0 ? 3 : 2);
    }
    expect([...inside].sort()).toEqual([2, 3, 4]);
    const db2 = await freshDb();
    const engine2 = engineOn(db2);
    engine2.dense = queueingLane();
    const r = await importFromFile(new Blob([bytes]), transferWorker(engine2, { partChars: 500 }).call, { partChars: 500, sliceBytes });
    expect(r).toMatchObject({ pages: 10, skipped: 0 });
    expect(await holdings(db2)).toEqual(await holdings(db));
    expect((await engine2.search({ q: '漢字 🐍' })).results.length).toBeGreaterThan(0);
  });
});
