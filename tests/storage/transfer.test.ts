import { describe, expect, it } from 'vitest';
import { bm25Search } from '../../src/bm25.js';
import type { Block } from '../../src/chunker.js';
import type { DB } from '../../background/db.js';
import type { Engine } from '../../background/engine.js';
import { embedQueued, exportJsonl, importJsonl, queueingLane, vectorsByPlace } from './transferText.js';
import { verifyIndex } from '../../background/verify.js';
import { chunkNames, engineOn, freshDb, logicalIndex } from './helpers.js';

const countSections = async (db: DB) => (await chunkNames(db)).size;

const WORDS = 'river stone bread yeast commit rebase kitten litter ocean garden python getElementById ERR_5041 café 漢字 ภาษาไทย'.split(' ');
const para = (seed: number, n = 40) => Array.from({ length: n }, (_, i) => WORDS[(seed * 13 + i * i + i * seed) % WORDS.length]).join(' ');
const blocks = (seed: number): Block[] => [
  { kind: 'heading', text: `Intro ${seed}`, level: 1, id: `intro-${seed}` },
  { kind: 'text', text: para(seed) },
  { kind: 'heading', text: `Details ${seed}`, level: 2 },
  { kind: 'code', text: `const x${seed} = getElementById("ERR_5041"); // ${para(seed + 1, 25)}` },
  { kind: 'heading', text: `Notes ${seed}`, level: 2 },
  { kind: 'list', text: para(seed + 2, 30) },
];

const QUERIES = ['river', 'bread yeast', 'getElementById', 'err_5041', 'cafe', '漢字', 'kitten litter garden', '"river stone"', 'python -ocean', 'site:b.example commit'];

async function capturedProfile(): Promise<{ db: DB; engine: Engine }> {
  const db = await freshDb();
  const engine = engineOn(db);
  const urls = ['https://a.example/1', 'https://a.example/2?id=3', 'https://b.example/x', 'https://docs.b.example/y', 'https://c.example/'];
  let now = 1_700_000_000_000;
  for (let i = 0; i < urls.length; i++) await engine.capture(urls[i]!, { title: `Page ${i} ${WORDS[i]}`, lang: 'en', blocks: blocks(i) }, (now += 86_400_000));
  // A replaced page and a revisited one, so ids have gaps and visits counts differ.
  await engine.capture(urls[0]!, { title: 'Page 0 river', lang: 'en', blocks: blocks(9) }, (now += 1000));
  await engine.capture(urls[2]!, { title: `Page 2 ${WORDS[2]}`, lang: 'en', blocks: blocks(2) }, (now += 1000));
  return { db, engine };
}

/** What a user sees: for each query, the result cards minus ids and timing. */
async function answers(engine: Engine) {
  const out = [];
  for (const q of QUERIES) {
    const res = await engine.search({ q, limit: 50 });
    out.push(
      res.results.map((r) => ({
        url: r.url,
        title: r.title,
        section: r.section,
        href: r.href,
        snippet: r.snippet,
        whyMatched: r.whyMatched,
        lastVisit: r.lastVisit,
        visitCount: r.visitCount,
        more: r.more.map((m) => m.section),
      })),
    );
  }
  return out;
}

async function scores(engine: Engine, db: DB) {
  const names = await chunkNames(db);
  const terms = ['river', 'getelementbyid', 'err', '5041', 'cafe', 'litter'];
  const [postings, stats] = await Promise.all([engine.lexical.postings(terms), engine.lexical.corpusStats()]);
  return bm25Search(terms.map((term) => ({ term, postings: postings.get(term)! })), stats, { k: 10_000 })
    .map((h) => `${names.get(h.id)} ${h.score.toFixed(12)}`)
    .sort();
}

describe('export / import', { timeout: 30_000 }, () => {
  it('a fresh profile importing an export answers exactly like the original', async () => {
    const { db, engine } = await capturedProfile();
    const { jsonl, pages } = await exportJsonl(engine, false);
    expect(pages).toBe(5);
    // Sections carry the ids of the headings above them (anchor.above): the re-export below must keep them.
    expect(jsonl).toContain('"above":[{"depth":0,"id":"intro-');
    const db2 = await freshDb();
    const engine2 = engineOn(db2);
    expect(await importJsonl(engine2, jsonl)).toEqual({ pages: 5, skipped: 0, vectors: 0, excluded: 0 });

    expect(await answers(engine2)).toEqual(await answers(engine));
    expect(await scores(engine2, db2)).toEqual(await scores(engine, db));
    const a = await logicalIndex(db);
    const b = await logicalIndex(db2);
    expect(b.terms).toEqual(a.terms);
    expect({ N: b.N, totalLength: b.totalLength }).toEqual({ N: a.N, totalLength: a.totalLength });
    expect(b.pages).toEqual(a.pages);
    const visits = async (d: DB) => (await d.getAll('pages')).map((p) => [p.url, p.firstVisit, p.lastVisit, p.visitCount, p.title, p.lang, p.words]);
    expect(await visits(db2)).toEqual(await visits(db));
    expect((await verifyIndex(engine2)).problems).toEqual([]);

    // Exporting the import gives the same file, but for its date.
    const again = await exportJsonl(engine2, false);
    const body = (s: string) => s.split('\n').slice(1).join('\n');
    expect(body(again.jsonl)).toEqual(body(jsonl));
    // Importing the same export twice changes nothing (every page is a revisit of itself).
    await importJsonl(engine2, jsonl);
    expect(await answers(engine2)).toEqual(await answers(engine));
  });

  it('merges the visit history of a page the profile already has', async () => {
    const { engine } = await capturedProfile();
    const { jsonl } = await exportJsonl(engine, false);
    const db2 = await freshDb();
    const engine2 = engineOn(db2);
    const later = 1_800_000_000_000;
    await engine2.capture('https://b.example/x', { title: 'Page 2 stone', lang: 'en', blocks: blocks(2) }, later);
    await importJsonl(engine2, jsonl);
    const page = await db2.get('pages', 'https://b.example/x');
    const original = await (await engine.db()).get('pages', 'https://b.example/x');
    expect(page!.lastVisit).toBe(later);
    expect(page!.firstVisit).toBe(original!.firstVisit);
    expect(page!.visitCount).toBe(Math.max(1, original!.visitCount));
    expect((await engine2.search({ q: 'after:2027-01-01 stone' })).results.map((r) => r.url)).toEqual(['https://b.example/x']);
    expect((await verifyIndex(engine2)).problems).toEqual([]);
  });

  it('an import racing a capture of the same page leaves a consistent index', async () => {
    const { engine } = await capturedProfile();
    const { jsonl } = await exportJsonl(engine, false);
    for (let round = 0; round < 5; round++) {
      const db2 = await freshDb();
      const engine2 = engineOn(db2);
      const importing = importJsonl(engine2, jsonl);
      for (let i = 0; i < round; i++) await Promise.resolve();
      const capturing = engine2.capture('https://a.example/1', { title: 'Fresh capture', lang: 'en', blocks: blocks(42) }, 1_900_000_000_000);
      await Promise.all([importing, capturing]);
      expect((await verifyIndex(engine2)).problems).toEqual([]);
    }
  });

  it('skips malformed lines and refuses a file without the header', async () => {
    const { engine } = await capturedProfile();
    const { jsonl } = await exportJsonl(engine, false);
    const lines = jsonl.trim().split('\n');
    const noisy = [
      lines[0],
      '{not json',
      JSON.stringify({ kind: 'chunk', url: 'https://orphan.example/', text: 'no page line before me', headingPath: [] }),
      JSON.stringify({ kind: 'page', url: 'javascript:alert(1)', title: 'x' }),
      JSON.stringify({ kind: 'weird', url: 'https://a.example/1' }),
      JSON.stringify({ kind: 'page', url: 'https://empty.example/', title: 'no chunks' }),
      ...lines.slice(1),
    ].join('\n');
    const db2 = await freshDb();
    const res = await importJsonl(engineOn(db2), noisy);
    expect(res.pages).toBe(5);
    expect(res.skipped).toBe(5);
    await expect(importJsonl(engineOn(db2), lines.slice(1).join('\n'))).rejects.toThrow(/not a Reread export/);
    await expect(importJsonl(engineOn(db2), '')).rejects.toThrow(/not a Reread export/);
  });

  it('never stores a page of a site this profile never saves, and says how many were left out', async () => {
    const { engine } = await capturedProfile();
    const { jsonl } = await exportJsonl(engine, false);
    const db2 = await freshDb();
    const engine2 = engineOn(db2);
    // b.example and its subdomains (docs.b.example) are never saved here: 2 of the 5 pages.
    await engine2.updateSettings({ excludedSites: [...(await engine2.settings()).excludedSites, 'b.example'] });
    const res = await importJsonl(engine2, jsonl);
    expect(res).toEqual({ pages: 3, skipped: 0, vectors: 0, excluded: 2 });
    expect((await db2.getAllKeys('pages')).sort()).toEqual(['https://a.example/1', 'https://a.example/2?id=3', 'https://c.example/']);
    // Not in any index either: no section of theirs is searchable, and the index is whole.
    expect((await engine2.search({ q: 'site:b.example commit', limit: 50 })).results).toEqual([]);
    expect((await verifyIndex(engine2)).problems).toEqual([]);
    // The site taken off the list, the same file brings them in.
    await engine2.updateSettings({ excludedSites: (await engine2.settings()).excludedSites.filter((s) => s !== 'b.example') });
    expect(await importJsonl(engine2, jsonl)).toMatchObject({ pages: 5, excluded: 0 });
    expect(await db2.count('pages')).toBe(5);
  });
});

describe('local PDFs (file://) in an export', () => {
  it('carries a local PDF with its kind and site; a file:// page that is not a PDF is refused; the site is forgotten like any', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const file = 'file:///home/ann/Papers/estuary.pdf';
    const pdfBlocks: Block[] = [
      { kind: 'heading', text: 'Along the estuary', level: 1, id: 'page=3' },
      { kind: 'text', text: `quillwort estuary ${para(3)}` },
    ];
    await engine.capture('https://a.example/1', { title: 'Web page', lang: 'en', blocks: blocks(1) }, 1_700_000_000_000);
    const res = await engine.capture(file, { title: 'estuary.pdf', lang: '', blocks: pdfBlocks }, 1_700_000_001_000, { kind: 'pdf', pdf: { pages: 4, read: 4 } });
    expect(res.outcome).not.toBe('skipped');
    expect((await db.get('pages', file))?.site).toBe('local-files');
    const { jsonl, pages } = await exportJsonl(engine, false);
    expect(pages).toBe(2);
    const forged = [JSON.stringify({ kind: 'page', url: 'file:///etc/passwd', title: 'not a pdf' }), JSON.stringify({ kind: 'chunk', url: 'file:///etc/passwd', text: 'root:x:0:0', headingPath: [] })];
    const lines = jsonl.trim().split('\n');
    const db2 = await freshDb();
    const other = engineOn(db2);
    const got = await importJsonl(other, [...lines, ...forged].join('\n'));
    expect(got.pages).toBe(2);
    expect(await db2.get('pages', 'file:///etc/passwd')).toBeUndefined();
    const copy = await db2.get('pages', file);
    expect(copy).toMatchObject({ kind: 'pdf', site: 'local-files', pdf: { pages: 4, read: 4 } });
    const found = await other.search({ q: 'site:local-files quillwort' });
    expect(found.results.map((r) => [r.url, r.href])).toEqual([[file, `${file}#page=3`]]);
    expect((await verifyIndex(other)).problems).toEqual([]);
    expect(await other.deleteSite('local-files')).toBe(1);
    expect((await other.search({ q: 'quillwort' })).results).toEqual([]);
    expect(await db2.get('pages', 'https://a.example/1')).toBeDefined();
  });
});

describe('export with vectors', () => {
  it('carries vectors over, so an import into the same model embeds nothing again', async () => {
    const { db, engine } = await capturedProfile();
    // Captured before the lane existed: queue everything by re-capturing into a lane-aware profile.
    const a = engineOn(await freshDb());
    a.dense = queueingLane([]);
    await importJsonl(a, (await exportJsonl(engine, false)).jsonl);
    const adb = await a.db();
    expect(await adb.count('embedQueue')).toBeGreaterThan(0);
    await embedQueued(adb);
    expect(await adb.count('embedQueue')).toBe(0);

    const withVectors = await exportJsonl(a, true);
    expect(withVectors.jsonl.split('\n').filter((l) => l.includes('"vector"')).length).toBe(await countSections(adb));
    const told: number[] = [];
    const b = engineOn(await freshDb());
    b.dense = queueingLane([], told);
    const r = await importJsonl(b, withVectors.jsonl);
    const bdb = await b.db();
    expect(r.vectors).toBe(await countSections(bdb));
    expect(await bdb.count('embedQueue')).toBe(0);
    expect(await vectorsByPlace(bdb)).toEqual(await vectorsByPlace(adb));
    // The resident index is given each vector as it is stored (nothing reloaded).
    expect(told.length).toBe(r.vectors);
    expect(new Set(told)).toEqual(new Set((await bdb.getAll('pages')).flatMap((p) => p.chunkIds)));
    expect((await verifyIndex(b, false)).problems).toEqual([]);

    // Without vectors (or for another model), every section is queued for embedding as before.
    const c = engineOn(await freshDb());
    c.dense = queueingLane([]);
    await importJsonl(c, (await exportJsonl(a, false)).jsonl);
    expect(await (await c.db()).count('embedQueue')).toBe(await countSections(adb));
    const tampered = withVectors.jsonl.replace(/"model":"reread\/glove-100d"/g, '"model":"someone/else"');
    const d = engineOn(await freshDb());
    d.dense = queueingLane([]);
    await importJsonl(d, tampered);
    expect(await (await d.db()).count('embedQueue')).toBe(await countSections(adb));
    void db;
  });
});
