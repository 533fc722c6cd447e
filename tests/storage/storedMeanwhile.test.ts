/**
 * A page stored again while a search runs (a revisit cut into new sections) takes away the sections the
 * search found by their old ids before it reads them. The search is run once more when it asked for a
 * section no longer there while the page table changed under it (background/search.ts searchStored):
 * the page is found, whether the answer came out short or full.
 */
import { describe, expect, it } from 'vitest';
import { writePage } from '../../background/pageStore.js';
import { engineOn, freshDb, pageInput } from './helpers.js';
import type { Engine } from '../../background/engine.js';

type Db = Awaited<ReturnType<typeof freshDb>>;

const store = async (engine: Engine, db: Db, input: ReturnType<typeof pageInput>) => engine.applyWrite((await writePage(db, input, {})).batch);

/** The next search's postings come back, then `input` is stored (its page cut otherwise) before the search reads its sections. */
function storeAfterPostings(engine: Engine, db: Db, input: ReturnType<typeof pageInput>): void {
  const own = engine.lexical.postings.bind(engine.lexical);
  let once = true;
  engine.lexical.postings = async (terms) => {
    const got = await own(terms);
    if (once) {
      once = false;
      await store(engine, db, input);
    }
    return got;
  };
}

describe('a page stored again while a search reads it', () => {
  it('is still found (the search runs once more over the new sections)', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const url = 'https://faq.example/details';
    await store(engine, db, pageInput(url, 'Help', ['Orders ship in two days.', 'If it arrived broken, photograph the brokensmokerword box.']));
    for (let i = 0; i < 3; i++) await store(engine, db, pageInput(`https://other.example/${i}`, `Other ${i}`, [`nothing here ${i}`]));
    storeAfterPostings(engine, db, pageInput(url, 'Help', ['Orders ship in two days. If it arrived broken, photograph the brokensmokerword box.'], 1_700_000_100_000));
    const res = await engine.search({ q: 'brokensmokerword' });
    expect(res.results.map((r) => r.url)).toEqual([url]);
  });

  it('is found in its place when the answer was full without it', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const url = 'https://faq.example/details';
    const text = (n: number) => `If it arrived broken, photograph the ${'quirkleword '.repeat(n)}box.`;
    await store(engine, db, pageInput(url, 'Help', ['Orders ship in two days.', text(3)]));
    // A page that holds the word once: the answer of one result is full with it alone.
    await store(engine, db, pageInput('https://other.example/once', 'Other', [`${text(1)} And many more words about other things entirely.`]));
    expect((await engine.search({ q: 'quirkleword', limit: 1 })).results.map((r) => r.url)).toEqual([url]);
    storeAfterPostings(engine, db, pageInput(url, 'Help', [`Orders ship in two days. ${text(3)}`], 1_700_000_100_000));
    const res = await engine.search({ q: 'quirkleword', limit: 1 });
    expect(res.results.map((r) => r.url)).toEqual([url]);
  });
});
