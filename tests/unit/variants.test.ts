/** German inflected forms (src/variants.ts), their posting lists merged (src/postings.ts), and search() using them. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PostingList } from '../../src/bm25.js';
import { tfCode } from '../../src/indexing.js';
import { mergeLists } from '../../src/postings.js';
import { search } from '../../src/search.js';
import { germanBase, germanForms, MIN_BASE, verbStem } from '../../src/variants.js';
import { h, p, source } from './pagesSource.js';

describe('germanForms', () => {
  it('puts each ending back on the base: the forms a page writes', () => {
    expect(germanForms('akkord')).toEqual(expect.arrayContaining(['akkorde', 'akkorden', 'akkordes']));
    expect(germanForms('dateien')).toEqual(expect.arrayContaining(['datei', 'dateien'.slice(0, -1)]));
    expect(germanForms('automatisch')).toEqual(expect.arrayContaining(['automatische', 'automatischen', 'automatischer']));
    expect(germanForms('endungen')).toContain('endung');
  });

  it('leaves short words, and words not all letters', () => {
    expect(germanForms('ein')).toEqual([]);
    expect(germanForms('os.path')).toEqual([]);
    expect(germanForms('utf8')).toEqual([]);
  });

  it('takes off no verb ending: `bestimmt` (certainly) is no form of `bestimmen` (decide)', () => {
    expect(germanForms('bestimmt')).not.toContain('bestimmen');
  });

  it('gives an infinitive its weak verb forms and participle (session 38)', () => {
    expect(germanForms('wiederholen')).toEqual(expect.arrayContaining(['wiederholt', 'wiederholte', 'wiederholten']));
    expect(germanForms('aktualisieren')).toEqual(expect.arrayContaining(['aktualisiert', 'aktualisierte']));
    expect(germanForms('ändern')).toEqual(expect.arrayContaining(['ändert', 'geändert']));
    expect(germanForms('sammeln')).toEqual(expect.arrayContaining(['sammelt', 'gesammelt']));
    expect(verbStem('wiederholen')).toBe('wiederhol');
    expect(verbStem('ändern')).toBe('änder');
    // Too short a stem, or no infinitive.
    expect(verbStem('gehen')).toBeNull();
    expect(verbStem('akkord')).toBeNull();
    expect(verbStem('bestimmt')).toBeNull();
  });

  it('never gives the word itself; every form shares the base (or is ge- and the verb stem), which is never shorter than MIN_BASE', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zäöüß]{1,20}$/), (w) => {
        const forms = germanForms(w);
        expect(forms).not.toContain(w);
        if (!forms.length) return;
        const base = germanBase(w);
        expect(base.length).toBeGreaterThanOrEqual(Math.min(MIN_BASE, w.length));
        const stem = verbStem(w);
        for (const f of forms) expect(f.startsWith(base) || (stem !== null && f === `ge${stem}t`), f).toBe(true);
      }),
    );
  });
});

const list = (rows: [number, number][]): PostingList => ({
  ids: Uint32Array.from(rows.map((r) => r[0])),
  tfs: Uint32Array.from(rows.map((r) => r[1])),
  lens: Uint32Array.from(rows.map(() => 10)),
});

describe('mergeLists', () => {
  it('holds each section once, its body counts added and its field bits joined', () => {
    const a = list([
      [1, tfCode(2, false, false, true)],
      [5, tfCode(1, false, false, false)],
    ]);
    const b = list([
      [3, tfCode(1, false, false, false)],
      [5, tfCode(3, true, false, false)],
    ]);
    const m = mergeLists([a, b]);
    expect([...m.ids]).toEqual([1, 3, 5]);
    expect([...m.tfs]).toEqual([tfCode(2, false, false, true), tfCode(1, false, false, false), tfCode(4, true, false, false)]);
  });

  it('is the union of its lists, sorted, each body count the sum (property)', () => {
    const arb = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 30 }), { maxLength: 4 });
    fc.assert(
      fc.property(arb, (idSets) => {
        const lists = idSets.map((ids, k) => list([...ids].sort((x, y) => x - y).map((id) => [id, tfCode(k + 1, false, false, false)] as [number, number])));
        const m = mergeLists(lists);
        const want = new Map<number, number>();
        idSets.forEach((ids, k) => ids.forEach((id) => want.set(id, (want.get(id) ?? 0) + k + 1)));
        expect([...m.ids]).toEqual([...want.keys()].sort((x, y) => x - y));
        m.ids.forEach((id, i) => expect(Math.floor(m.tfs[i]! / 8)).toBe(want.get(id)));
      }),
    );
  });
});

describe('search: a German phrase whose words the page inflects', () => {
  // Filler pages hold each word once in the form typed, on other subjects; the answer holds the
  // phrase's words only as other forms ("Akkorde", "Abkürzungen").
  const filler = Array.from({ length: 12 }, (_, i) => ({
    url: `https://x.test/f${i}`,
    title: `Seite ${i}`,
    blocks: [h(1, `Seite ${i}`), p(i % 2 ? `Ein Akkord steht in Takt ${i} über dem Bass.` : `Die Abkürzung ${i} steht im Glossar der Noten.`)],
  }));
  const answer = { url: 'https://x.test/answer', title: 'Akkorde', blocks: [h(1, 'Akkorde wiederholen'), p('Für wiederholte Akkorde gibt es Abkürzungen: das Zeichen q wiederholt den letzten Akkorde.')] };
  const pages = [...filler, answer];
  // The worker's lexicon of English words (background/lexicon.ts): none of these German words is one.
  const withLexicon = () => Object.assign(source(pages), { words: new Set(['the', 'chord', 'note']) });

  it('ranks the section holding both words, as other forms, first', async () => {
    const res = await search(withLexicon(), { q: 'Akkord Abkürzung' });
    expect(res.results[0]?.url).toBe('https://x.test/answer');
    // "matched:" names the words typed, not the forms found.
    expect(res.results[0]?.whyMatched).toEqual(['Akkord', 'Abkürzung']);
    // The forms are marked in the snippet.
    expect(res.results[0]?.snippet.filter((s) => s.match).map((s) => s.text.toLowerCase())).toEqual(expect.arrayContaining(['akkorde']));
  });

  it('does not without the variants (the test fails if they are not used)', async () => {
    const res = await search(withLexicon(), { q: 'Akkord Abkürzung' }, { lexical: { variantWords: 0 } });
    expect(res.results[0]?.url).not.toBe('https://x.test/answer');
  });

  it('without a lexicon, only a query that reads as German (its function words) gets them', async () => {
    expect((await search(source(pages), { q: 'Akkord Abkürzung' })).results[0]?.url).not.toBe('https://x.test/answer');
    expect((await search(source(pages), { q: 'Akkord mit Abkürzung' })).results[0]?.url).toBe('https://x.test/answer');
  });

  it('leaves an English word alone: "parse" does not find "parser"', async () => {
    const en = [
      { url: 'https://x.test/parser', title: 'Parser', blocks: [h(1, 'The parser'), p('The parser module reads tokens. A parser is built from rules.')] },
      { url: 'https://x.test/other', title: 'Other', blocks: [h(1, 'Other'), p('Nothing about that here at all, only options.')] },
    ];
    const src = source(en);
    src.words = new Set(['parse', 'parser', 'options']);
    expect((await search(src, { q: 'parse options' })).results.map((r) => r.url)).toEqual(['https://x.test/other']);
  });

  it('an infinitive typed finds the page that writes the verb inflected; not without the forms', async () => {
    // "sammeln" is on no page: the answer writes "gesammelt" (three edits away: no typo's correction).
    const verb = { url: 'https://x.test/verb', title: 'Alte Dateien', blocks: [h(1, 'Alte Dateien'), p('Jede alte Datei wird im Ordner gesammelt und dann als eine Datei gepackt.')] };
    const others = Array.from({ length: 8 }, (_, i) => ({ url: `https://x.test/d${i}`, title: `Datei ${i}`, blocks: [h(1, `Datei ${i}`), p(`Eine Datei mit der Nummer ${i} liegt im Ordner der Beispiele.`)] }));
    const src = () => Object.assign(source([...others, verb]), { words: new Set(['the', 'file']) });
    const found = (await search(src(), { q: 'Datei sammeln' })).results;
    expect(found[0]?.url).toBe('https://x.test/verb');
    expect(found[0]?.whyMatched).toEqual(['Datei', 'sammeln']);
    const without = (await search(src(), { q: 'Datei sammeln' }, { lexical: { variantWords: 0 } })).results;
    expect(without.some((r) => r.whyMatched.includes('sammeln'))).toBe(false);
  });

  it('searches the words as typed on "search instead for" (exact)', async () => {
    const res = await search(withLexicon(), { q: 'Akkord Abkürzung', exact: true });
    expect(res.results[0]?.url).not.toBe('https://x.test/answer');
  });
});
