/**
 * The meaning lane of an English model is kept from queries that show another language
 * (src/queryLanguage.ts), and only from those: a query with no sign of a language (names, identifiers,
 * a few content words) is taken to be in any.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryLanguages, queryMayBeIn } from '../../src/queryLanguage.js';
import { search, type SearchSource } from '../../src/search.js';
import { MemorySource } from '../../src/memorySource.js';
import { MODELS } from '../../src/models.js';

describe('queryLanguages', () => {
  it('finds nothing to say about English questions, names and identifiers', () => {
    for (const q of [
      'how do I revert a commit that was already pushed',
      'what is the simplest way to fill named placeholders in text that translators will edit',
      'os.path.join',
      'su root without password',
      'service startup configuration',
      'de facto standard',
      'café near the station',
      'x y coordinates',
      'io_uring vs epoll',
      "don't ship the .orig files",
      'sans-serif font',
      '',
      '???',
    ])
      expect(queryLanguages(q), q).toBeNull();
  });

  it('names the language of questions and topics in other languages', () => {
    expect(queryLanguages('Wie wird das Wetter morgen in Berlin?')).toEqual(['de']);
    expect(queryLanguages('Welche Wanderwege gibt es im Schwarzwald?')).toEqual(['de']);
    expect(queryLanguages('recette de la tarte tatin aux pommes')).toContain('fr');
    expect(queryLanguages("compilation pour d'autres architectures")).toEqual(['fr']);
    expect(queryLanguages('¿dónde está la estación de tren?')).toContain('es');
    expect(queryLanguages('東京でおすすめのラーメン屋はどこですか')).toEqual(['ja']);
    expect(queryLanguages('北京明天的天气怎么样')).toEqual(['zh', 'ja']);
    expect(queryLanguages('как установить пакет')).toContain('ru');
    // Letters outside ASCII count against English when nothing else is said.
    expect(queryLanguages('Änderungsprotokoll')).toEqual(['und']);
  });

  it('never throws, and answers null or a non-empty list (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => {
        const r = queryLanguages(s);
        expect(r === null || r.length > 0).toBe(true);
      }),
    );
  });

  it('a model of every language takes every query; an English one only those that show no other', () => {
    expect(queryMayBeIn('Wie wird das Wetter morgen in Berlin?', null)).toBe(true);
    expect(queryMayBeIn('Wie wird das Wetter morgen in Berlin?', ['en'])).toBe(false);
    expect(queryMayBeIn('Wie wird das Wetter morgen in Berlin?', ['de', 'en'])).toBe(true);
    expect(queryMayBeIn('weather tomorrow in Berlin', ['en'])).toBe(true);
  });
});

describe('search: the meaning lane and the query language', () => {
  const bundled = MODELS.find((m) => m.bundled)!;
  it('the bundled model is English, the multilingual one is not limited', () => {
    expect(bundled.calibration.languages).toEqual(['en']);
    expect(MODELS.find((m) => m.id.includes('multilingual'))!.calibration.languages).toBeUndefined();
  });

  async function run(q: string, languages: readonly string[] | undefined) {
    const src = new MemorySource();
    src.addPage({ url: 'https://a.test/wetter', title: 'Wetterbericht', chunks: [{ headingPath: ['Wetter'], section: 'Wetter', anchor: { id: 'w' }, text: 'Wetter\nSonne und Regen über dem Land.' }] });
    src.settings = { ...src.settings, denseEnabled: true };
    const { languages: _drop, ...rest } = bundled.calibration;
    // A meaning lane that finds the page by meaning alone, well above the floor.
    const dense: SearchSource['dense'] = async () => ({ hits: [{ id: 1, score: 0.99 }], calibration: { ...rest, ...(languages ? { languages } : {}) } });
    const view: SearchSource = {
      settings: src.settings,
      pages: () => src.pages(),
      allowedChunks: (p, e) => src.allowedChunks(p, e),
      corpusStats: () => src.corpusStats(),
      postings: (t) => src.postings(t),
      sections: (ids) => src.sections(ids),
      dense,
    };
    return search(view, { q }, { now: 0 });
  }

  it('drops what an English model finds for a German question, and keeps it for an English one', async () => {
    const de = await run('Wie wird das Klima morgen?', ['en']);
    expect(de.results).toEqual([]);
    expect(de.lanesUsed).toEqual({ lexical: true, dense: false });
    const en = await run('what will the climate be tomorrow', ['en']);
    expect(en.results.map((r) => r.url)).toEqual(['https://a.test/wetter']);
    expect(en.lanesUsed.dense).toBe(true);
    // A model of every language answers both.
    expect((await run('Wie wird das Klima morgen?', undefined)).results.length).toBe(1);
  });
});
