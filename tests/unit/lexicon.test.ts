/** The worker's lexicon: the build's sorted word list (scripts/lexicon.mjs) read by binary search (src/spelling.ts). */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lexiconOf, SortedLexicon } from '../../src/spelling.js';
// @ts-expect-error: a plain ES module of the build's, without types.
import { lexiconText } from '../../scripts/lexicon.mjs';

const tokenizer = JSON.parse(readFileSync(join(__dirname, '../../models/reread/glove-100d/tokenizer.json'), 'utf8')) as unknown;
const text = (lexiconText as (t: unknown) => string)(tokenizer);

describe('the build\'s word list', () => {
  it('holds exactly the words lexiconOf takes from the tokenizer file', () => {
    const set = lexiconOf(tokenizer)!;
    const lines = text.split('\n');
    expect(new Set(lines)).toEqual(set);
    expect(lines.length).toBe(set.size);
  });

  it('answers every word of the model and no word outside it, as the Set does', () => {
    const set = lexiconOf(tokenizer)!;
    const sorted = new SortedLexicon(text);
    expect(sorted.size).toBe(set.size);
    for (const w of set) expect(sorted.has(w)).toBe(true);
    for (const w of ['', 'zzqx', 'akkord', 'Bread', 'bread ', 'aaaaaa', 'ｂｒｅａｄ']) expect(sorted.has(w)).toBe(set.has(w));
    expect(sorted.has('bread')).toBe(true);
  });
});

describe('SortedLexicon', () => {
  it('is a Set of the lines of any sorted list (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !s.includes('\n'))), fc.array(fc.string({ maxLength: 6 })), (words, probes) => {
        const sorted = [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const lex = new SortedLexicon(sorted.join('\n'));
        const set = new Set(words);
        for (const w of [...words, ...probes]) expect(lex.has(w)).toBe(set.has(w));
      }),
    );
  });

  it('holds nothing when empty', () => {
    expect(new SortedLexicon('').has('')).toBe(false);
    expect(new SortedLexicon('').size).toBe(0);
  });
});
