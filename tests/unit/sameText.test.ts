/**
 * Cards whose passage an earlier card already shows (src/sameText.ts, src/search.ts present): the same
 * text under another address or with a translated cross-reference is the same passage; different text,
 * a short line, or a text of a very different length is not; the search marks the later cards and keeps
 * them where the ranking put them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/memorySource.js';
import { search } from '../../src/search.js';
import { holdsSnippet, SAME_TEXT_MIN_CHARS, samePassage, sameTextAs, sameTextName, sameTextWords, textPrint } from '../../src/sameText.js';

/** A section's text as a manual has it (about 900 characters), citing another section by its title. */
const passage = (ref: string) =>
  `The apt-cache policy command displays the pinning priorities and distribution properties of each package source as explained in ${ref}. It can also show the pinning priorities for all available versions of a given package, which helps to understand why one version and not another is installed, and what an upgrade would bring. ` +
  'Without an argument it lists every source with its priority, the release it belongs to and the origin and label that the release file declares; with the name of a package it lists the installed version, the candidate version that an upgrade would install, and a table of every version known with the sources that offer it. ' +
  'A version pinned with a priority above 1000 is installed even when it is older than the one installed, so use such priorities with care.';

const print = (t: string) => {
  const p = textPrint(t);
  if (!p) throw new Error('no print');
  return p;
};

describe('textPrint and samePassage', () => {
  it('the same passage under spaces and case changes, or with a cross-reference translated', () => {
    const en = print(passage('Section 6.2.5, “Managing Package Priorities”'));
    expect(samePassage(en, print(passage('Section 6.2.5, “Managing Package Priorities”').toUpperCase().replace(/ /g, '  \n ')))).toBe(true);
    expect(samePassage(en, print(passage('Section 6.2.5, « Gérer les priorités associées aux paquets »')))).toBe(true);
    // Japanese text (no spaces) repeated, and with one phrase changed.
    const ja = 'パッケージのピン留め優先度と各パッケージソースの配布属性を表示します。'.repeat(6);
    expect(samePassage(print(ja), print(ja))).toBe(true);
    expect(samePassage(print(ja), print('リポジトリの署名鍵を確認する方法とその理由について説明します。'.repeat(6)))).toBe(false);
  });

  it('different text, or the same opening in a text twice as long, is not the same passage', () => {
    const en = print(passage('Section 6.2.5'));
    expect(samePassage(en, print('A sources.list line names the archive, the distribution and its components; apt reads every such line, fetches the package lists and keeps them under /var/lib/apt/lists, so that a search finds packages of every source that is configured.'))).toBe(false);
    expect(samePassage(en, print(passage('Section 6.2.5') + ' ' + passage('Section 7.1')))).toBe(false);
  });

  it('a text too short to tell (a "see also" line, a stub) has no print', () => {
    expect(textPrint('See also: apt-get(8), apt-cache(8).')).toBeNull();
    expect(textPrint(' '.repeat(500) + 'x'.repeat(SAME_TEXT_MIN_CHARS - 1))).toBeNull();
    expect(textPrint('x'.repeat(SAME_TEXT_MIN_CHARS))).not.toBeNull();
  });

  it('every text is its own passage, a repetitive one too; two texts of different words are not (property)', () => {
    const word = fc.stringMatching(/^[a-z]{3,9}$/);
    const text = fc.array(word, { minLength: 40, maxLength: 300 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(samePassage(print(a), print(a))).toBe(true);
        // Two draws share a few pieces by chance ("ing "), never most of them.
        if (a !== b) expect(samePassage(print(a), print(b))).toBe(false);
      }),
      { numRuns: 100 },
    );
    const repetitive = 'package '.repeat(100);
    expect(samePassage(print(repetitive), print(repetitive))).toBe(true);
    expect(samePassage(print(repetitive), print('version '.repeat(100)))).toBe(false);
  });

  it('a later card repeats an earlier one only if its snippet is in that card\'s section', () => {
    const first = passage('Section 6.2.5');
    expect(holdsSnippet(first, [{ text: '… displays the pinning ' }, { text: 'priorities' }, { text: ' and distribution …' }])).toBe(true);
    // Spaces and ASCII case as the prints fold them.
    expect(holdsSnippet(first, [{ text: 'THE  APT-CACHE\npolicy command' }])).toBe(true);
    // The later version's own line (what the query matched) is not in the first: its snippet is kept.
    expect(holdsSnippet(first, [{ text: 'Changed in version 3.12: the frobnicate parameter was removed.' }])).toBe(false);
    expect(holdsSnippet(first, [{ text: ' … ' }])).toBe(false);
  });

  it('names the first card by its title, or by its address when the title is none or the same', () => {
    const at = (url: string) => url.replace(/^https:\/\//, '');
    expect(sameTextWords(sameTextName({ title: 'APT (fr)' }, { url: 'https://d.example/en/apt', title: 'APT' }, at))).toBe('Same text as “APT” above.');
    expect(sameTextWords(sameTextName({ title: 'json' }, { url: 'https://docs.python.org/3/library/json.html', title: 'json' }, at))).toBe('Same text as docs.python.org/3/library/json.html above.');
    expect(sameTextWords(sameTextName({ title: 'x' }, { url: 'https://d.example/a', title: ' ' }, at))).toBe('Same text as d.example/a above.');
    expect(sameTextName({ title: 'x' }, { url: 'https://d.example/a', title: 'T'.repeat(200) }, at).name).toHaveLength(80);
  });

  it('a card its original does not accept (its snippet is not in that section) is an original for the cards after it', () => {
    const p = print(passage('A'));
    expect(sameTextAs([p, print(passage('A')), print(passage('A'))], (i, j) => !(j === 0))).toEqual([-1, -1, 1]);
    expect(sameTextAs([p, print(passage('A')), print(passage('A'))], () => false)).toEqual([-1, -1, -1]);
  });

  it('the sketch is the exact bottom-k of the pieces (brute force over random texts)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{2,7}$/), { minLength: 40, maxLength: 400 }), (words) => {
        const text = words.join(' ');
        const folded = text.slice(0, 2000);
        const mix = (h: number) => {
          h ^= h >>> 16;
          h = Math.imul(h, 0x85ebca6b);
          h ^= h >>> 13;
          h = Math.imul(h, 0xc2b2ae35);
          return (h ^ (h >>> 16)) >>> 0;
        };
        // Each piece hashed from scratch (not rolling): the polynomial hash of its 8 characters.
        const all = new Set<number>();
        for (let i = 0; i + 8 <= folded.length; i++) {
          let h = 0;
          for (let j = i; j < i + 8; j++) h = (Math.imul(h, 0x01000193) + folded.charCodeAt(j)) | 0;
          all.add(mix(h));
        }
        const want = [...all].sort((a, b) => a - b).slice(0, 64);
        expect([...print(text).sketch]).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });

  it('each repeat points at the first card of its passage, never at another repeat', () => {
    const a = print(passage('A'));
    const b = print('A sources.list line names the archive, the distribution and its components; apt reads every such line, fetches the package lists and keeps them under /var/lib/apt/lists, so that a search finds packages of every source.');
    expect(sameTextAs([a, null, b, print(passage('A')), print(passage('A')), b])).toEqual([-1, -1, -1, 0, 0, 2]);
  });
});

describe('the search marks the cards of a repeated passage', () => {
  it('later cards name the first; the ranking and links are as without the marks; no more rows on them', async () => {
    const src = new MemorySource();
    const page = (url: string, title: string, ref: string) =>
      src.addPage({
        url,
        title,
        chunks: [
          { headingPath: [title, 'The policy command'], section: 'The policy command', anchor: { id: 'policy' }, text: `${title} > The policy command\n${passage(ref)}` },
          { headingPath: [title, 'Pinning'], section: 'Pinning', anchor: { id: 'pinning' }, text: `${title} > Pinning\nPinning priorities decide which version of a package is installed.` },
        ],
      });
    page('https://docs.example.net/en/apt.html', 'APT', '“Managing Package Priorities”');
    page('https://docs.example.net/fr/apt.html', 'APT (fr)', '« Gérer les priorités »');
    src.addPage({ url: 'https://third.example/release.html', title: 'Release files', chunks: [{ headingPath: ['Release files'], section: 'Release files', anchor: { id: 'top' }, text: 'Release files\nA release file declares the origin and label of an archive; apt reads them to decide which source a version comes from, and the policy command prints what it found.' }] });
    const res = await search(src, { q: 'origin label release file declares', limit: 10 });
    const byUrl = new Map(res.results.map((r) => [r.url, r]));
    const fr = byUrl.get('https://docs.example.net/fr/apt.html')!;
    const en = byUrl.get('https://docs.example.net/en/apt.html')!;
    const first = res.results.indexOf(en) < res.results.indexOf(fr) ? en : fr;
    const later = first === en ? fr : en;
    expect(later.sameAs).toEqual({ url: first.url, title: first.title });
    expect(later.more).toEqual([]);
    expect(later.href).toBe(`${later.url}#policy`);
    expect(first.sameAs).toBeUndefined();
    expect(byUrl.get('https://third.example/release.html')!.sameAs).toBeUndefined();
  });

  it('two versions that differ by the line the query matched keep their snippets; a third like the second repeats the second', async () => {
    const src = new MemorySource();
    const line = { v12: 'Changed in version 3.12: the frobnicate parameter was removed.', v13: 'Changed in version 3.13: the frobnicate parameter came back under a new name.' };
    const page = (v: string, extra: string) =>
      src.addPage({
        url: `https://docs.example.org/${v}/library/json.html`,
        title: `json (${v})`,
        chunks: [{ headingPath: ['json', 'json.dumps'], section: 'json.dumps', anchor: { id: 'json.dumps' }, text: `json > json.dumps\n${passage('the json module')} ${extra}` }],
      });
    page('3.12', line.v12);
    page('3.13', line.v13);
    page('3.14', line.v13);
    const res = await search(src, { q: 'frobnicate', limit: 10 });
    expect(res.results).toHaveLength(3);
    const [a, b, c] = res.results.map((r) => ({ r, v: r.url.split('/')[3] }));
    const repeats = res.results.filter((r) => r.sameAs);
    expect(repeats).toHaveLength(1);
    // The repeat is the 3.13 or 3.14 card ranked after the other; it names that one, not the 3.12 card.
    const twin = repeats[0]!;
    expect(['3.13', '3.14']).toContain(twin.url.split('/')[3]);
    expect(twin.sameAs!.url).not.toContain('/3.12/');
    expect(twin.sameAs!.url).toMatch(/\/3\.1[34]\//);
    for (const x of [a, b, c]) if (!x!.r.sameAs) expect(x!.r.snippet.map((g) => g.text).join('')).toContain('frobnicate');
  });
});
