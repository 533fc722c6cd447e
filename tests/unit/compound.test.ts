/** Compounds cut in two known words (src/compound.ts), and search() trying them when nothing answered. */
import { describe, expect, it } from 'vitest';
import { bestCut, compoundCuts, MAX_COMPOUND } from '../../src/compound.js';
import { search } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';

describe('compoundCuts', () => {
  it('cuts into two parts of three letters or more, with and without a linking s, es, n, en', () => {
    const cuts = compoundCuts('Weihnachtsmarkt').map((c) => `${c.left}|${c.right}`);
    expect(cuts).toContain('Weihnachts|markt');
    expect(cuts).toContain('Weihnacht|markt');
    expect(cuts).not.toContain('We|ihnachtsmarkt');
    expect(compoundCuts('Bauregeln').map((c) => `${c.left}|${c.right}`)).toContain('Bau|regeln');
  });

  it('leaves short words and words that are not all letters', () => {
    expect(compoundCuts('Paket')).toEqual([]);
    expect(compoundCuts('os.path.join')).toEqual([]);
    expect(compoundCuts('ABC12345678')).toEqual([]);
  });
});

describe('bestCut', () => {
  const df = (known: Record<string, number>) => (w: string) => known[w.toLowerCase()] ?? 0;
  it('takes the cut whose rarer part is in the most sections', () => {
    const cut = bestCut(compoundCuts('Lizenzangaben'), df({ lizenz: 12, angaben: 5, lizenza: 0, ngaben: 0, liz: 1, enzangaben: 0 }));
    expect(cut).toEqual({ left: 'Lizenz', right: 'angaben' });
  });
  it('is null when no cut has two known parts', () => {
    expect(bestCut(compoundCuts('Wanderwege'), df({ wander: 3 }))).toBeNull();
  });
});

describe('compoundCuts on a run of letters too long to be a compound', () => {
  it('cuts nothing past MAX_COMPOUND letters (a pasted identifier cost a cut and a lookup per letter)', () => {
    expect(compoundCuts('Ab'.repeat(MAX_COMPOUND / 2)).length).toBeGreaterThan(0);
    expect(compoundCuts('Ab'.repeat(MAX_COMPOUND / 2) + 'x')).toEqual([]);
  });
});

describe('search: a compound no page holds', () => {
  // `Paket` is on every page, so a query holding it and one unknown word is off-topic to the coverage
  // gate: nothing answers "Bauregeln des Pakets" until the compound is cut.
  const filler = Array.from({ length: 30 }, (_, i) => ({
    url: `https://x.test/p${i}`,
    title: `Seite ${i}`,
    blocks: [h(1, `Seite ${i}`), p(`Dieses Paket ${i} enthält Dateien, Handbücher und Beispiele für Benutzer.`)],
  }));
  const pages = [...filler, { url: 'https://x.test/rules', title: 'Build', blocks: [h(1, 'Regeln für den Bau'), p('Die Regeln für den Bau des Pakets stehen in der Datei rules, einem Makefile.')] }];
  const q = 'Bauregeln des Pakets';

  it('is searched as its two parts when the query found nothing, and says so', async () => {
    const res = await search(source(pages), { q });
    expect(res.results[0]?.url).toBe('https://x.test/rules');
    expect(res.corrected).toEqual({ query: 'Bau regeln des Pakets', original: q });
  });

  it('finds a part written with an umlaut or ß, as the pages\' words are folded ("Quellenänderungen", "Schlüsselgröße")', async () => {
    const umlauts = [
      ...filler,
      { url: 'https://x.test/changes', title: 'Prüfung', blocks: [h(1, 'Merkwürdige Änderungen'), p('Finden Sie Änderungen an den Quellen, die Sie nicht selbst gemacht haben, prüfen Sie das Paket.')] },
      { url: 'https://x.test/keys', title: 'Schlüssel', blocks: [h(1, 'Schlüssel'), p('Die Größe des Schlüssels für das Paket wird beim Erzeugen gewählt.')] },
    ];
    for (const [query, url, cut] of [
      ['Quellenänderungen des Pakets', 'https://x.test/changes', 'Quellen änderungen des Pakets'],
      ['Schlüsselgröße des Pakets', 'https://x.test/keys', 'Schlüssel größe des Pakets'],
    ] as const) {
      const res = await search(source(umlauts), { q: query });
      expect(res.results[0]?.url, query).toBe(url);
      expect(res.corrected?.query, query).toBe(cut);
    }
  });

  it('cuts a compound that comes after other words no page holds (only the first two were tried before)', async () => {
    // "kommt", "unser" and "wirklich" are on no page and have no cut into two known words; "Bauregeln" comes after them.
    const query = 'Wie kommt unser wirklich Bauregeln des Pakets';
    const res = await search(source(pages), { q: query });
    expect(res.results[0]?.url).toBe('https://x.test/rules');
    expect(res.corrected?.query).toBe('Wie kommt unser wirklich Bau regeln des Pakets');
    expect((await search(source(pages), { q: query }, { lexical: { compounds: false } })).results).toEqual([]);
  });

  it('is not cut when switched off, nor when asked to search as typed (the test would catch it gone)', async () => {
    const off = await search(source(pages), { q }, { lexical: { compounds: false } });
    expect(off.results).toEqual([]);
    const exact = await search(source(pages), { q, exact: true });
    expect(exact.results).toEqual([]);
    expect(exact.corrected).toBeUndefined();
  });

  it('is not cut in a query that is English, nor in one that shows no language when the section it would find is English ("moonlight" stays one word)', async () => {
    const english = [
      ...Array.from({ length: 30 }, (_, i) => ({ url: `https://y.test/p${i}`, title: `Page ${i}`, blocks: [h(1, `Page ${i}`), p(`The results of run ${i} are listed here with their logs.`)] })),
      { url: 'https://y.test/night', title: 'Night', blocks: [h(1, 'Night'), p('The moon gives light at night; the results are mailed to the list.')] },
    ];
    const res = await search(source(english), { q: 'moonlight results' });
    expect(res.results).toEqual([]);
    expect(res.corrected).toBeUndefined();
  });

  it('is cut in a query that shows no language when the section it finds is written in German ("Paketdatei", one word no page holds)', async () => {
    const german = [...filler, { url: 'https://x.test/divert', title: 'dpkg-divert', blocks: [h(1, 'Umgeleitete Dateien'), p('Eine Datei aus einem Paket wird mit dpkg-divert umgeleitet, damit das Paket sie nicht überschreibt.')] }];
    for (const query of ['Paketdatei', 'Paketdatei umleiten']) {
      const res = await search(source(german), { q: query });
      expect(res.results[0]?.url, query).toBe('https://x.test/divert');
      expect(res.corrected?.query, query).toBe(query.replace('Paketdatei', 'Paket datei'));
    }
  });
});
