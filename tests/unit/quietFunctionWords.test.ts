/**
 * A German or French question is written with function words the ranking's stop list leaves as words
 * (`beim`, `soll`, `welchen`: as stop words they cost German questions their answers, tests/eval/README.md
 * session 34). They still rank (the eval's 4,089 tuning queries rank identically with this), but "matched:" lists and the snippet highlights what the question is
 * about, not them (issue #13: stop words are never listed as matched).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { functionWordOf, queryLanguages } from '../../src/queryLanguage.js';
import { search } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';

const pages = [
  {
    url: 'https://de.test/listen',
    title: 'Mailinglisten',
    blocks: [h(1, 'Regeln für die Listen', 'rules'), p('Beim Antworten auf der Liste soll man den ursprünglichen Absender nicht zusätzlich anschreiben.')],
  },
  { url: 'https://de.test/bugs', title: 'Fehlerberichte', blocks: [h(1, 'Auf Fehler antworten', 'bugs'), p('Beim Antworten auf Fehlerberichte den Absender einbeziehen.')] },
  { url: 'https://en.test/ab', title: 'Workouts', blocks: [h(1, 'Ab workout', 'ab'), p('An ab workout for the mornings.')] },
];

const marked = (r: { snippet: { text: string; match: boolean }[] }) => r.snippet.filter((s) => s.match).flatMap((s) => s.text.toLowerCase().split(/\s+/));

describe('a question’s function words are never listed as matched nor highlighted', () => {
  it('lists and highlights the German question’s content words only', async () => {
    const res = await search(source(pages), { q: 'Soll ich beim Antworten auf der Liste den Absender zusätzlich anschreiben?' });
    expect(res.results[0]!.url).toBe('https://de.test/listen');
    for (const r of res.results) {
      expect(r.whyMatched.map((w) => w.toLowerCase())).not.toContain('soll');
      expect(r.whyMatched.map((w) => w.toLowerCase())).not.toContain('beim');
      for (const m of marked(r)) expect(['soll', 'beim']).not.toContain(m);
    }
    expect(res.results[0]!.whyMatched).toEqual(expect.arrayContaining(['Antworten', 'Liste', 'Absender']));
    expect(marked(res.results[0]!)).toEqual(expect.arrayContaining(['antworten', 'absender']));
  });

  it('a query that shows no language keeps every word (`ab workout` is English; `ab` a German particle too)', async () => {
    expect(functionWordOf('ab', ['de'])).toBe(true);
    expect(queryLanguages('ab workout', 2)).toBeNull();
    const res = await search(source(pages), { q: 'ab workout' });
    expect(res.results[0]!.whyMatched).toEqual(['ab', 'workout']);
  });

  it('a question of function words and nothing else still says what matched', async () => {
    const res = await search(source(pages), { q: 'soll beim' });
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results[0]!.whyMatched.length).toBeGreaterThan(0);
  });

  it('functionWordOf knows no English word as another language’s function word', () => {
    const english = 'the a of to in is it for with on as at by from this that be are was will can has have not or and but if when where how what which who why'.split(' ');
    fc.assert(fc.property(fc.constantFrom(...english), fc.constantFrom('de', 'fr', 'es', 'it', 'pt', 'nl'), (w, l) => !functionWordOf(w, [l])));
    expect(functionWordOf('Beim', ['de'])).toBe(true);
    expect(functionWordOf('welchen', ['de'])).toBe(true);
    expect(functionWordOf('beim', ['fr'])).toBe(false);
    expect(functionWordOf('peut', ['fr'])).toBe(true);
  });
});
