/**
 * A newer search from the same search box stops the one before it (SearchRequest.box): the older is
 * answered `superseded` at its next step, the newer is answered in full; other boxes are not touched.
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/protocol.js';
import { search, SupersededError } from '../../src/search.js';
import { MemorySource } from '../../src/memorySource.js';
import { writePage } from '../../background/pageStore.js';
import { engineOn, freshDb, pageInput } from './helpers.js';

async function engineWithPages() {
  const db = await freshDb();
  const engine = engineOn(db);
  for (let i = 0; i < 5; i++) engine.applyWrite((await writePage(db, pageInput(`https://a.example/${i}`, `River ${i}`, [`the river stone bread ${i}`, `yeast and stone ${i}`]), {})).batch);
  return engine;
}

describe('superseded searches', () => {
  it('stops the older search of a box and answers the newer', async () => {
    const engine = await engineWithPages();
    const first = engine.search({ q: 'river stone', box: 'popup-1' });
    const second = engine.search({ q: 'river', box: 'popup-1' });
    const err = await first.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('superseded');
    const res = await second;
    expect(res.results.length).toBeGreaterThan(0);
  });

  it('leaves searches of other boxes, and searches without a box, alone', async () => {
    const engine = await engineWithPages();
    const [a, b, c] = await Promise.all([engine.search({ q: 'river stone', box: 'popup-1' }), engine.search({ q: 'river', box: 'page-2' }), engine.search({ q: 'stone' })]);
    for (const r of [a, b, c]) expect(r.results.length).toBeGreaterThan(0);
    // A box whose search finished searches again normally.
    expect((await engine.search({ q: 'yeast', box: 'popup-1' })).results.length).toBeGreaterThan(0);
  });

  it('search() stops at the step after its signal is set, and runs to the end without it', async () => {
    const src = new MemorySource();
    src.addPage({ url: 'https://a.example/', title: 'A', chunks: [{ headingPath: ['A'], section: 'A', anchor: {}, text: 'A\nriver stone bread' }] });
    const signal = { superseded: false };
    const postings = src.postings.bind(src);
    // Superseded while its postings are read: the search must not go on to score and present.
    src.postings = async (terms) => {
      signal.superseded = true;
      return postings(terms);
    };
    let read = 0;
    const sections = src.sections.bind(src);
    src.sections = async (ids) => {
      read++;
      return sections(ids);
    };
    await expect(search(src, { q: 'river stone' }, { signal })).rejects.toBeInstanceOf(SupersededError);
    expect(read).toBe(0);
    src.postings = postings;
    expect((await search(src, { q: 'river stone' }, { signal: { superseded: false } })).results.length).toBe(1);
  });
});
