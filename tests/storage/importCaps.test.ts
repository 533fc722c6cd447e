/** Import (JSONL) lines a capture could never produce are capped as capture caps them (review, session 33: each failed before its fix). */
import { describe, expect, it } from 'vitest';
import { importJsonl } from './transferText.js';
import { verifyIndex } from '../../background/verify.js';
import { unpackSections } from '../../background/sections.js';
import { countWords, DEFAULT_CHUNKER_OPTIONS } from '../../src/chunker.js';
import { engineOn, freshDb } from './helpers.js';

const HEADER = JSON.stringify({ kind: 'reread-export', version: 1, exportedAt: '2024-01-01T00:00:00Z', pages: 1 });
const URL = 'https://a.example/p';
const page = (extra: Record<string, unknown> = {}) => JSON.stringify({ kind: 'page', url: URL, title: 'T', lang: 'en', firstVisit: 1_700_000_000_000, lastVisit: 1_700_000_000_000, visitCount: 1, ...extra });
const chunk = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ kind: 'chunk', url: URL, ord: 0, headingPath: ['H'], section: 'H', anchor: {}, text, ...extra });

async function stored(db: Awaited<ReturnType<typeof freshDb>>) {
  const p = (await db.get('pages', URL))!;
  const rec = (await db.get('sections', URL))!;
  return { p, sections: await unpackSections(rec, p) };
}

describe('import caps what capture caps (src/validate.ts SECTION_LIMITS)', () => {
  it('keeps at most maxChunks sections of one page', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const n = DEFAULT_CHUNKER_OPTIONS.maxChunks + 500;
    const lines = [HEADER, page(), ...Array.from({ length: n }, (_, i) => chunk(`H\nword${i} river`))];
    const res = await importJsonl(engine, lines.join('\n'));
    const { p } = await stored(db);
    expect(p.chunkIds.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxChunks);
    expect(res.skipped).toBeGreaterThanOrEqual(500);
  });

  it('caps a section text at maxChunkChars, and its word count is that of the stored text', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const text = 'H\n' + 'a '.repeat(50_000); // 100,002 characters, 50,001 words
    await importJsonl(engine, [HEADER, page(), chunk(text)].join('\n'));
    const { p, sections } = await stored(db);
    // Words stored must describe the text stored (capture: words === countWords(text)).
    expect(p.words).toBe(countWords(sections[0]!.text));
    expect(sections[0]!.text.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxChunkChars);
  });

  it('caps headings (at most 6, each at most maxHeadingChars) and section', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const huge = 'h'.repeat(100_000);
    const path = Array.from({ length: 10_000 }, (_, i) => (i < 12 ? huge : 'x'));
    await importJsonl(engine, [HEADER, page(), chunk('body text river', { headingPath: path, section: huge })].join('\n'));
    const { sections } = await stored(db);
    const s = sections[0]!;
    expect(s.headingPath.length).toBeLessThanOrEqual(6);
    expect(Math.max(...s.headingPath.map((h) => h.length))).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxHeadingChars);
    expect(s.section.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxHeadingChars);
  });
});

describe('import dates', () => {
  it('an overflowing lastVisit (1e400 parses to Infinity) does not freeze the page against later captures', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const line = page().replace('"lastVisit":1700000000000', '"lastVisit":1e400');
    expect(line).toContain('1e400');
    await importJsonl(engine, [HEADER, line, chunk('H\nold river text')].join('\n'));
    const p = (await db.get('pages', URL))!;
    expect(Number.isFinite(p.lastVisit)).toBe(true);
  });

  it('a far-future lastVisit does not make every later capture of the page a no-op', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const line = page({ lastVisit: 9e15 }); // year ~287,000
    await importJsonl(engine, [HEADER, line, chunk('H\nold river text')].join('\n'));
    await engine.capture(URL, { title: 'T', lang: 'en', blocks: [{ kind: 'heading', text: 'New', level: 1 }, { kind: 'text', text: 'zeppelin '.repeat(30) }] }, 1_800_000_000_000);
    const res = await engine.search({ q: 'zeppelin' });
    expect(res.results.map((r) => r.url)).toContain(URL);
    expect((await verifyIndex(engine)).ok).toBe(true);
  });
});

describe('import lines in odd order', () => {
  it('a second page line for a URL does not silently drop the chunks read before it', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const res = await importJsonl(engine, [HEADER, page(), chunk('H\nfirst river'), chunk('H\nsecond river'), page({ title: 'again' }), chunk('H\nthird river')].join('\n'));
    const { p } = await stored(db);
    // Either all three sections are kept, or the two dropped are counted as skipped.
    expect(p.chunkIds.length + res.skipped).toBeGreaterThanOrEqual(3);
  });
});
