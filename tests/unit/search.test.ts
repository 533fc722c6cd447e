/**
 * The search pipeline (src/search.ts) over an in-memory source: proximity for remembered sentences,
 * common words in questions, typos, and what a result says it matched.
 */
import { describe, expect, it, vi } from 'vitest';
import { lexicalSearch, search, type SearchSource } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';
import { chunkBlocks } from '../../src/chunker.js';

/** Thirty short pages of everyday words (https://docs.test/notes/0 ... /29), page i's text given by `text`. */
function notes(text: (i: number) => string) {
  return Array.from({ length: 30 }, (_, i) => ({ url: `https://docs.test/notes/${i}`, title: `Note ${i}`, blocks: [h(1, `Note ${i}`), p(text(i))] }));
}


const filler = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed}${i % 7}`).join(' ');

describe('proximity: a remembered sentence typed without quotes', () => {
  // Every page holds every word of the sentence; only one holds them in order, side by side, and it
  // is the longest (BM25 alone ranks it last).
  const sentence = 'the reactor cools the turbine blades slowly';
  const pages = [
    { url: 'https://x.test/scattered-1', title: 'Turbines', blocks: [h(1, 'Turbines'), p('Blades of the turbine spin. The reactor heats water. Cools slowly, blades turbine reactor cools.')] },
    { url: 'https://x.test/scattered-2', title: 'Reactors', blocks: [h(1, 'Reactors'), p('Slowly the reactor cools; turbine blades and the reactor, blades cools turbine.')] },
    { url: 'https://x.test/exact', title: 'Plant notes', blocks: [h(1, 'Plant notes'), p(`${filler('alpha', 80)} At night the reactor cools the turbine blades slowly, as designed. ${filler('omega', 80)}`)] },
  ];

  it('ranks the section holding the exact sequence first', async () => {
    const res = await search(source(pages), { q: sentence });
    expect(res.results[0]!.url).toBe('https://x.test/exact');
  });

  it('without proximity the scattered pages win (the test would catch proximity switched off)', async () => {
    const res = await search(source(pages), { q: sentence }, { lexical: { proximity: { ordered: 0, unordered: 0, window: 8, sequenceMinWords: 0, heading: 0, candidates: 0 } } });
    expect(res.results[0]!.url).not.toBe('https://x.test/exact');
  });

  it("counts the sequence in a page's title or a heading as in the section (a chapter title over sentences that quote it)", async () => {
    // The query is the title of the 'contributing' page, whose sections do not repeat it; two other
    // pages use the same words in the same order in a sentence.
    const quoted = [
      { url: 'https://x.test/faq', title: 'Questions', blocks: [h(1, 'Questions'), p('Read the guide before contributing to the project, and ask on the list when stuck.')] },
      { url: 'https://x.test/news', title: 'News', blocks: [h(1, 'News'), p('Thanks to everyone contributing to the project this year: releases came faster.')] },
      {
        url: 'https://x.test/contributing',
        title: 'Contributing to the project',
        blocks: [h(2, 'Money'), p('Donations pay for servers, mirrors and travel to meetings of contributors.'), h(2, 'Code'), p('Send patches for review; contributing code starts with a small fix.')],
      },
    ];
    const res = await search(source(quoted), { q: 'contributing to the project' });
    expect(res.results[0]!.url).toBe('https://x.test/contributing');
  });

  it('finds the sequence of a phrase whose other words are all stop words (one word retrieves)', async () => {
    // "which is more practical but": only `practical` retrieves. Two short sections hold every word,
    // scattered, and BM25 ranks them first; the long one holds the phrase, word after word.
    const one = [
      { url: 'https://x.test/short-1', title: 'Notes', blocks: [h(1, 'Notes'), p('But which tool is more practical? The practical one is more often than not the one which is simplest, but not always.')] },
      { url: 'https://x.test/short-2', title: 'Tips', blocks: [h(1, 'Tips'), p('Practical tips but more of them: which is best is practical, is it not? More practical advice, but which?')] },
      { url: 'https://x.test/examples', title: 'Examples', blocks: [h(1, 'Examples'), p(`${filler('alpha', 60)} Or use the short form, which is more practical but less readable. ${filler('omega', 60)}`)] },
    ];
    const res = await search(source(one), { q: 'which is more practical but' });
    expect(res.results.map((r) => r.url)).toEqual(['https://x.test/examples', 'https://x.test/short-2', 'https://x.test/short-1']);
  });

  it('looks deeper for a phrase of common words that none of the first hits holds', async () => {
    // "is an object that contains": `object` and `contains` are in 100 short sections that rank above
    // the one long section holding the phrase, beyond the first 90 hits the phrase is looked for in.
    const many = Array.from({ length: 100 }, (_, i) => ({
      url: `https://x.test/api-${i}`,
      title: `API ${i}`,
      blocks: [h(1, `API ${i}`), p(`That object is an item: the object contains fields that it contains, an object that is ${i}.`)],
    }));
    const target = { url: 'https://x.test/meta', title: 'Meta', blocks: [h(1, 'Meta'), p(`${filler('alpha', 150)} The meta property is an object that contains the following properties. ${filler('omega', 150)}`)] };
    const src = source([...many, target]);
    const res = await search(src, { q: 'is an object that contains' });
    expect(res.results[0]!.url).toBe('https://x.test/meta');
    // Switched off, it is not found first (the test would catch the deeper look gone).
    const off = await search(src, { q: 'is an object that contains' }, { lexical: { phraseDepth: 0 } });
    expect(off.results[0]!.url).not.toBe('https://x.test/meta');
  });

  it('reads, for a phrase of common words, only sections that hold each of its common words', async () => {
    // "both abstract classes and some": 200 short sections hold `abstract`, `classes`, `and` and `some`
    // and rank above the long one with the phrase; of them only the long one also holds `both` (which
    // 300 other sections hold), so it is among the sections read however deep it ranks.
    const many = Array.from({ length: 200 }, (_, i) => ({
      url: `https://x.test/abc-${i}`,
      title: `ABC ${i}`,
      blocks: [h(1, `ABC ${i}`), p(`Abstract classes ${i} and some more: abstract classes define an interface for classes.`)],
    }));
    const other = Array.from({ length: 300 }, (_, i) => ({ url: `https://x.test/other-${i}`, title: `Other ${i}`, blocks: [h(1, `Other ${i}`), p(`Both ways ${i} work.`)] }));
    const target = { url: 'https://x.test/filesys', title: 'Files', blocks: [h(1, 'Files'), p(`${filler('alpha', 150)} The io module, including both abstract classes and some concrete classes. ${filler('omega', 150)}`)] };
    const res = await search(source([...many, ...other, target]), { q: 'both abstract classes and some' });
    expect(res.results[0]!.url).toBe('https://x.test/filesys');
  });

  it('centres the snippet on the sequence', async () => {
    const res = await search(source(pages), { q: sentence });
    const text = res.results[0]!.snippet.map((s) => s.text).join('');
    expect(text).toContain('reactor cools the turbine blades slowly');
  });
});

describe('questions and common words', () => {
  const pages = [
    { url: 'https://docs.test/venv', title: 'Virtual environments', blocks: [h(1, 'Creating virtual environments'), p('A virtual environment keeps the packages of a project apart from the system. Create one with the venv module and activate it in your shell.')] },
    { url: 'https://docs.test/files', title: 'Reading files', blocks: [h(1, 'Reading and writing files'), p('Open a file with open() and read it line by line; close it when you are done, or use a with statement so it is closed for you.')] },
    { url: 'https://docs.test/loops', title: 'Loops', blocks: [h(1, 'Loops'), p('A for loop walks over a sequence; a while loop runs as long as its condition holds. Break leaves a loop early and continue skips to the next turn.')] },
  ];
  const src = () => source(pages);

  it('answers a question by its content words, and lists only those as matched', async () => {
    const res = await search(src(), { q: 'How do I create a virtual environment for my project?' });
    expect(res.results[0]!.url).toBe('https://docs.test/venv');
    expect(res.results[0]!.whyMatched).toEqual(['create', 'virtual', 'environment', 'project']);
    for (const r of res.results) for (const s of r.snippet) if (s.match) expect(['a', 'do', 'i', 'my', 'for', 'how']).not.toContain(s.text.toLowerCase());
  });

  it('does not return every page for a long question that matches one of its words', async () => {
    const res = await search(src(), { q: 'how do I read a file line by line and close it' });
    expect(res.results.map((r) => r.url)).toEqual(['https://docs.test/files']);
  });

  it('shows the words as typed, not their stems', async () => {
    const res = await search(src(), { q: 'Reading Files' });
    expect(res.results[0]!.whyMatched).toEqual(['Reading', 'Files']);
  });

  it('still searches a query made only of common words', async () => {
    const res = await search(src(), { q: 'as long as' });
    expect(res.results[0]?.url).toBe('https://docs.test/loops');
  });

  it('returns nothing for an off-topic question', async () => {
    // "best" and "recipe" are everyday words on these pages, as generic words are on real ones.
    const everyday = notes((i) => `The best recipe for note number ${i} is to keep it short, said the ${i}th reader.`);
    const s = source([
      ...pages,
      ...everyday,
      { url: 'https://docs.test/recipes', title: 'Recipes', blocks: [h(1, 'Recipes and best practices'), p('What is the best way to write a recipe for a loop? The best recipes keep each step small.')] },
    ]);
    s.words = new Set(['banana', 'bread', 'recipe', 'walnuts', 'bake', 'sourdough', 'hiking', 'boots', 'winter', 'capital', 'australia']);
    for (const q of ['banana bread recipe with walnuts', 'how do I bake sourdough bread', 'best hiking boots for winter', 'what is the capital of australia', 'best sourdough recipe for beginners']) {
      expect((await search(s, { q })).results, q).toEqual([]);
    }
    // The same generic words in an on-topic question still find their page.
    expect((await search(s, { q: 'what is the best recipe for writing a loop' })).results[0]?.url).toBe('https://docs.test/recipes');
  });

  it('answers a long paraphrased question whose rarest words no page holds, when one section holds three of its words', async () => {
    // The question avoids the answer's own terms (`watch`, `scanner`): six of its nine content words are
    // on no page and weigh the most, so the answer covers under 0.3 of its weight; but it holds three of
    // the question's words (`newer`, `upstream`, `tarball`), where an off-topic question above matches
    // one or two generic words.
    // The known words are everyday words here (each on a third of the pages), as on real ones.
    const topic = ['newer', 'upstream', 'tarball'];
    const everyday = notes((i) => `Note number ${i} on the ${topic[i % 3]} one is kept short, said the ${i}th reader of the notes.`);
    const s = source([
      ...everyday,
      { url: 'https://docs.test/watch', title: 'The watch file', blocks: [h(1, 'The watch file'), p('The watch file tells the scanner where upstream releases are published: when a newer upstream tarball appears, it is downloaded and unpacked next to the old one.')] },
      { url: 'https://docs.test/control', title: 'The control file', blocks: [h(1, 'The control file'), p('The control file names the source package, its maintainer and the binary packages built from it.')] },
    ]);
    const unknown = ['helper', 'spots', 'authors', 'homepage', 'grabs', 'unattended'];
    s.words = new Set(unknown);
    const q = 'which helper spots a newer upstream tarball on the authors homepage and grabs it unattended';
    expect((await search(s, { q })).results[0]?.url).toBe('https://docs.test/watch');
    // Coverage alone (the rule before) answers it with nothing: the test would catch the exception gone.
    expect((await search(s, { q }, { lexical: { coverageWords: 0 } })).results).toEqual([]);
  });

  it('answers a question naming a file type or tool its answer names, though its other words are on no page', async () => {
    // "Vorlage", "Rahmens" and "speichern" are on no page and weigh the most: `kicad_wks` alone covers
    // under 0.3 of the query's weight. A name-shaped word (snake_case, camelCase, letters and digits) shared with a
    // section is no generic word: the question is answered.
    const everyday = notes((i) => `Note number ${i} is kept short, said the ${i}th reader of the notes.`);
    const s = source([
      ...everyday,
      { url: 'https://docs.test/wks', title: 'Worksheets', blocks: [h(1, 'Output file'), p('The editor writes the page layout to a file ending in .kicad_wks, read again by the schematic editor.')] },
      { url: 'https://docs.test/logo', title: 'Logos', blocks: [h(1, 'Adding logos'), p('Convert a bitmap with Bitmap2Component first; the editor then places it as a polygon.')] },
    ]);
    s.words = new Set(['vorlage', 'rahmens', 'speichern', 'firmenlogo', 'vektorgrafik', 'umwandeln']);
    for (const [q, url] of [
      ['Vorlage des Rahmens als kicad_wks speichern', 'https://docs.test/wks'],
      ['Firmenlogo als Vektorgrafik mit Bitmap2Component umwandeln', 'https://docs.test/logo'],
    ] as const) {
      expect((await search(s, { q })).results[0]?.url, q).toBe(url);
      // Without the exception the coverage gate answers nothing: the test would catch it gone.
      expect((await search(s, { q }, { lexical: { coverageNames: false } })).results, q).toEqual([]);
    }
    // A prose word the pages hold is no name: an off-topic question with unknown words still gets nothing.
    expect((await search(s, { q: 'Vorlage des Rahmens als editor speichern' })).results).toEqual([]);
  });

  it('does not ask a section for two words when one of three is a word no page holds', async () => {
    // `obliterate` is on no page: the question can still be answered by `reflog` or `expiry`, which no
    // one section holds together (counting the unknown word, the two-word minimum left nothing).
    const everyday = notes((i) => `Note number ${i} is kept short, said the ${i}th reader of the notes.`);
    const s = source([
      ...everyday,
      { url: 'https://docs.test/reflog', title: 'The reflog', blocks: [h(1, 'The reflog'), p('The reflog records where the tips of branches were, so that a lost commit can be found again.')] },
      { url: 'https://docs.test/gc', title: 'Garbage collection', blocks: [h(1, 'Garbage collection'), p('Old entries are dropped when their expiry date has passed, and unreachable objects go with them.')] },
    ]);
    s.words = new Set(['obliterate']);
    const res = await search(s, { q: 'obliterate reflog expiry' });
    expect(res.results.map((r) => r.url).sort()).toEqual(['https://docs.test/gc', 'https://docs.test/reflog']);
    // Two known words of three still need each other to rank: the section holding both comes first, and
    // one holding only one of them is listed after it (the list is short), never before.
    const both = await search(s, { q: 'reflog expiry tips' });
    expect(both.results.map((r) => r.url)).toEqual(['https://docs.test/reflog', 'https://docs.test/gc']);
    expect(both.results[1]!.whyMatched).toEqual(['expiry']);
    const strict = await search(s, { q: 'reflog expiry tips' }, { lexical: { minMatchFill: 0 } });
    expect(strict.results.map((r) => r.url)).toEqual(['https://docs.test/reflog']);
  });

  it('fills a short list with sections holding fewer words only when some section holds enough', async () => {
    // `mushroom` alone is in a section ranked above everything by its rarity, yet it comes after the
    // section holding two of the words; a query no section answers with two words gets nothing.
    const filler = Array.from({ length: 30 }, (_, i) => ({ url: `https://docs.test/f/${i}`, title: `Page ${i}`, blocks: [h(1, `Page ${i}`), p(`A page about compost and soil, number ${i}, written for gardeners.`)] }));
    const s = source([
      ...filler,
      { url: 'https://docs.test/rare', title: 'Mushroom', blocks: [h(1, 'Mushroom'), p('The mushroom grows in the dark.')] },
      { url: 'https://docs.test/both', title: 'Tomato beds', blocks: [h(1, 'Tomato beds'), p('Raised beds of compost suit the tomato well.')] },
    ]);
    const res = await search(s, { q: 'tomato compost mushroom' });
    expect(res.results[0]!.url).toBe('https://docs.test/both');
    const rare = res.results.findIndex((r) => r.url === 'https://docs.test/rare');
    expect(rare).toBeGreaterThan(0);
    // Every section holding two words ranks before every section holding one.
    const counts = res.results.map((r) => r.whyMatched.length);
    expect(counts.slice(1).every((n) => n === 1)).toBe(true);
    expect(counts[0]).toBeGreaterThanOrEqual(2);
    // No section holds two of these three: nothing, as before.
    expect((await search(s, { q: 'tomato mushroom soil' })).results).toEqual([]);
    // A question of four words is not filled with sections holding one of them.
    const question = await search(s, { q: 'which tomato compost mushroom grows' });
    expect(question.results.every((r) => r.whyMatched.length >= 2)).toBe(true);
    expect(question.results.map((r) => r.url)).toContain('https://docs.test/both');
  });
});

describe('a compound word counts as held by its whole, not by one of its parts', () => {
  it('"XSS via UTF-7": a section with "via" and some "7" is not two of its words; the UTF-7 section is listed', async () => {
    // Forty sections hold "via" and a 7 (two of the three words, if a part could stand for its word);
    // the one about UTF-7 lacks "via" and "XSS".
    const chatter = Array.from({ length: 40 }, (_, i) => ({
      url: `https://docs.test/proxy/${i}`,
      title: `Proxy ${i}`,
      blocks: [h(1, `Proxy ${i}`), p(`Requests reach the backend via the proxy, as part 7 of the protocol describes for server ${i}.`)],
    }));
    const filler = Array.from({ length: 30 }, (_, i) => ({ url: `https://docs.test/f/${i}`, title: `Page ${i}`, blocks: [h(1, `Page ${i}`), p(`Modules and directives of the server, page ${i}, for administrators.`)] }));
    const glossary = { url: 'https://docs.test/glossary', title: 'Glossary', blocks: [h(1, 'Glossary'), p('XSS: cross-site scripting, an attack through pages that echo input, in UTF-7 for instance.')] };
    const s = source([
      ...chatter,
      ...filler,
      glossary,
      {
        url: 'https://docs.test/env',
        title: 'Environment variables',
        blocks: [h(1, 'Environment variables'), h(2, 'Security note'), p('Browsers that guess the character set can be fooled into UTF-7, and UTF-7 content from the request is not escaped: a cross-site scripting risk.')],
      },
    ]);
    const res = await search(s, { q: 'XSS via UTF-7' });
    // The glossary holds two of the words; the section about UTF-7 comes next, before any "via … 7".
    expect(res.results.map((r) => r.url).slice(0, 2)).toEqual(['https://docs.test/glossary', 'https://docs.test/env']);
    // "matched" says what the section holds: "via", not UTF-7 for its "part 7".
    const chat = res.results.find((r) => r.url.startsWith('https://docs.test/proxy/'));
    expect(chat?.whyMatched).toEqual(['via']);
    expect(res.results[1]!.whyMatched).toEqual(['UTF-7']);
    // A section that holds only parts of a one-word query still says what it matched.
    const parts = await search(s, { q: 'UTF-7' });
    expect(parts.results.every((r) => r.whyMatched.length > 0)).toBe(true);
    // The same words spelt apart in a page ("UTF 7") still hold the word when no page has the whole.
    const apart = source([
      ...filler,
      glossary,
      { url: 'https://docs.test/a', title: 'Charsets', blocks: [h(1, 'Charsets'), p('Old browsers switch to UTF 7 via a guess.')] },
    ]);
    expect((await search(apart, { q: 'XSS via UTF-7' })).results.map((r) => r.url)).toContain('https://docs.test/a');
  });
});

describe('a compound written apart, or cut by the segmenter, still holds the word', () => {
  const filler = Array.from({ length: 30 }, (_, i) => ({ url: `https://docs.test/f/${i}`, title: `Page ${i}`, blocks: [h(1, `Page ${i}`), p(`Modules and directives of the server, page ${i}, for administrators.`)] }));

  it('by all its parts together, whichever page holds the whole', async () => {
    const s = source([
      ...filler,
      { url: 'https://docs.test/en', title: 'Charsets', blocks: [h(1, 'Charsets'), p('Some browsers guess UTF-7 from the content.')] },
      // The segmenter cuts 「UTF-7として」 into utf, 7 and kana: no `utf-7` term on this page.
      { url: 'https://docs.test/ja', title: '文字コード', blocks: [h(1, '文字コード'), p('古いブラウザは文字コードをUTF-7として解釈します。')] },
      { url: 'https://docs.test/attack', title: 'Attacks', blocks: [h(1, 'Attacks'), p('攻撃の種類について。')] },
    ]);
    // The Japanese page holds ブラウザ and UTF-7 (cut); no page holds two words otherwise.
    expect((await search(s, { q: 'UTF-7 ブラウザ 攻撃' })).results.map((r) => r.url)).toContain('https://docs.test/ja');
  });

  it('a part that is another word of the query counts for that word, in any order', async () => {
    const s = source([
      ...filler,
      { url: 'https://docs.test/mod', title: 'mod_rewrite', blocks: [h(1, 'mod_rewrite'), p('The mod_rewrite module of Apache, with an example.')] },
      { url: 'https://docs.test/rules', title: 'Rules', blocks: [h(1, 'Rules'), p('How to rewrite URLs with rules and conditions.')] },
    ]);
    const a = (await search(s, { q: 'mod_rewrite rewrite rules apache example' })).results.map((r) => r.url);
    const b = (await search(s, { q: 'rewrite rules apache example mod_rewrite' })).results.map((r) => r.url);
    expect(a).toContain('https://docs.test/rules');
    expect(b).toContain('https://docs.test/rules');
  });
});

describe('pages with some of the words (loose), offered when the gates leave nothing', () => {
  const everyday = notes((i) => `The best package for note number ${i} is to keep it short, said the ${i}th reader.`);
  const pages = [
    ...everyday,
    { url: 'https://docs.test/changelog', title: 'The changelog', blocks: [h(1, 'The changelog'), p('Every upload of the package adds an entry to the changelog, with the version and what changed.')] },
    { url: 'https://docs.test/control', title: 'The control file', blocks: [h(1, 'The control file'), p('The control file names the package, its maintainer and what it depends on.')] },
  ];
  const src = () => source(pages);

  it('offers them when the off-topic gate answered nothing, naming the words no page has', async () => {
    // `Änderungsprotokoll` is on no page; `package` is on every page: under the coverage gate, nothing.
    const res = await search(src(), { q: 'Änderungsprotokoll package' });
    expect(res.results).toEqual([]);
    expect(res.partial).toEqual({ missing: ['Änderungsprotokoll'] });
    const loose = await search(src(), { q: 'Änderungsprotokoll package', loose: true, limit: 50 });
    expect(loose.results.map((r) => r.url)).toEqual(expect.arrayContaining(['https://docs.test/changelog', 'https://docs.test/control']));
    expect(loose.partial).toEqual({ missing: ['Änderungsprotokoll'] });
    for (const r of loose.results) expect(r.whyMatched).toEqual(['package']);
  });

  it('offers them when no section holds two of three known words (nothing missing)', async () => {
    const res = await search(src(), { q: 'upload maintainer reader' });
    expect(res.results).toEqual([]);
    expect(res.partial).toEqual({ missing: [] });
    const loose = await search(src(), { q: 'upload maintainer reader', loose: true });
    expect(loose.results.slice(0, 2).map((r) => r.url).sort()).toEqual(['https://docs.test/changelog', 'https://docs.test/control']);
    expect(loose.partial).toEqual({ missing: [] });
  });

  it('offers nothing when no section holds any of the words, or when there are results', async () => {
    const none = await search(src(), { q: 'zyxwvut qponml' });
    expect(none.results).toEqual([]);
    expect(none.partial).toBeUndefined();
    const found = await search(src(), { q: 'changelog entry' });
    expect(found.results.map((r) => r.url)).toEqual(['https://docs.test/changelog']);
    expect(found.partial).toBeUndefined();
  });
});

describe('function words the stop list reads as typed: French à, pieces an apostrophe cuts off', () => {
  // French `à` folds to the index term `a` (the English article of every English section); `d'` of
  // `d'autres` is a word `d` of its own. Neither is what a query is about, and neither is "matched".
  const english = Array.from({ length: 12 }, (_, i) => ({
    url: `https://docs.test/en/${i}`,
    title: `Installer notes ${i}`,
    blocks: [h(1, `Installer notes ${i}`), p(`The installer asks a question about a disk and writes a log, see note ${i} for a d-pad summary.`)],
  }));
  const french = { url: 'https://docs.test/fr/paquet', title: 'Installer un paquet', blocks: [h(1, 'Installer un paquet à la main'), p("Pour installer un paquet à la main, téléchargez le fichier .deb et passez-le à dpkg ; d'autres outils le font pour vous.")] };
  const src = () => source([...english, french]);

  it('does not let `à` retrieve, count toward the two-word minimum, or be listed as matched', async () => {
    const q = 'comment installer à la main un paquet téléchargé';
    const res = await search(src(), { q });
    expect(res.results.map((r) => r.url)).toEqual([french.url]);
    expect(res.results[0]!.whyMatched).not.toContain('à');
    // Read as a word (stop words off), `à` is the term `a`: with `installer` it lets every English section through.
    const off = await search(src(), { q }, { lexical: { common: { commonShare: 1, stopwords: false, minSections: 100, score: true } } });
    expect(off.results.length).toBeGreaterThan(1);
  });

  it('reads French question words and inversions (`quand`, `faut-il`, `peut-on`) as function words', async () => {
    // A section whose heading holds "Quand" and whose text says "il faut" ranked above the answer for a
    // question written with them, by the heading's weight on a word the question is not about.
    const when = Array.from({ length: 3 }, (_, i) => ({
      url: `https://docs.test/fr/quand${i}`,
      title: `Quand utiliser quoi ${i}`,
      blocks: [h(1, `Quand utiliser quoi ${i}`), p(`Quand faut-il une section ? Quand peut-on la fusionner ? Il faut choisir quand même, note ${i}.`)],
    }));
    const fips = { url: 'https://docs.test/fr/fips', title: 'Mode FIPS', blocks: [h(1, 'Mode FIPS'), p('Le mode FIPS demande une bibliothèque SSL qui le prend en charge ; sinon le serveur refuse de redémarrer.')] };
    const res = await search(source([...english, french, ...when, fips]), { q: 'quand faut-il redémarrer en mode FIPS' });
    expect(res.results[0]!.url).toBe(fips.url);
    expect(res.results.map((r) => r.url)).toEqual([fips.url]);
    for (const w of ['quand', 'faut-il', 'en']) expect(res.results[0]!.whyMatched).not.toContain(w);
    // A verb that is not an auxiliary keeps its inversion a word (`refuse-t-il`).
    const refuse = await search(source([...english, french, ...when, fips]), { q: 'refuse-t-il de redémarrer' });
    expect(refuse.results[0]!.url).toBe(fips.url);
  });

  it("treats the piece an apostrophe cuts off as a function word (`d'autres`), not a lone letter elsewhere", async () => {
    const res = await search(src(), { q: "d'autres outils pour dpkg" });
    expect(res.results[0]?.url).toBe(french.url);
    expect(res.results[0]!.whyMatched).toEqual(['autres', 'outils', 'dpkg']);
    // A lone `d` is a word like any other (`d pad`): it is matched and listed.
    const lone = await search(src(), { q: 'd pad summary' });
    expect(lone.results.length).toBeGreaterThan(0);
    expect(lone.results[0]!.whyMatched).toContain('d');
  });
});

describe('stop words however they are typed', () => {
  const pages = [
    { url: 'https://docs.test/commit', title: 'git commit', blocks: [h(1, 'git commit'), p('Record changes to the repository with a log message that describes them. The message is written in an editor.')] },
    { url: 'https://docs.test/amend', title: 'Amending', blocks: [h(1, 'Amending'), p('To fix the last commit, amend it: the new commit replaces the old one with your changes to it.')] },
    { url: 'https://docs.test/log', title: 'git log', blocks: [h(1, 'git log'), p('Show commit logs, with each message, newest first, and how to read them.')] },
  ];
  const urls = (r: { results: { url: string }[] }) => r.results.map((x) => x.url);

  it('a word corrected to a stop word is that stop word: ranked as typed right, never listed as matched', async () => {
    const right = await search(source(pages), { q: 'commit with message' });
    const typo = await search(source(pages), { q: 'commit wiht message' });
    expect(typo.corrected).toEqual({ query: 'commit with message', original: 'commit wiht message' });
    expect(urls(typo)).toEqual(urls(right));
    expect(typo.results.length).toBeGreaterThan(0);
    for (const r of typo.results) expect(r.whyMatched).not.toContain('with');
  });

  it('the off-topic gate reads such a word as the stop word typed right, even where few sections hold it', async () => {
    // Sections in another language hold "commit" and "message" but not "with": "with" could not be
    // covered, and counted against the typo'd query only.
    const many = [
      ...Array.from({ length: 12 }, (_, i) => ({ url: `https://docs.test/de${i}`, title: `Seite ${i}`, blocks: [h(1, `Seite ${i}`), p(`Jeder commit braucht eine message ${i}, kurz und klar.`)] })),
      { url: 'https://docs.test/en', title: 'English', blocks: [h(1, 'English'), p('Write the commit with a message that says why.')] },
    ];
    const right = await search(source(many), { q: 'commit with message' });
    const typo = await search(source(many), { q: 'commit wiht message' });
    expect(right.results.length).toBeGreaterThan(0);
    expect(urls(typo)).toEqual(urls(right));
  });

  it('a word of a German question is not corrected to an English stop word ("weich" is no slip for "which")', async () => {
    const mixed = [
      { url: 'https://docs.test/which', title: 'Which one', blocks: [h(1, 'Which one'), p('Which package to choose, and which version, depends on the release.')] },
      { url: 'https://docs.test/kochen', title: 'Pakete', blocks: [h(1, 'Pakete'), p('Wie lange ein Paket gepflegt wird, hängt von der Veröffentlichung ab.')] },
    ];
    const res = await search(source(mixed), { q: 'Wie lange muss ein Ei kochen, damit es weich bleibt?' });
    expect(res.corrected?.query ?? '').not.toMatch(/which/i);
    for (const r of res.results) expect(r.whyMatched).not.toContain('which');
  });

  it('stop words typed full-width (a Japanese keyboard) or decomposed are stop words', async () => {
    const plain = await search(source(pages), { q: 'how to commit' });
    const wide = await search(source(pages), { q: 'ｈｏｗ ｔｏ ｃｏｍｍｉｔ' });
    expect(urls(wide)).toEqual(urls(plain));
    for (const r of wide.results) expect(r.whyMatched).toEqual(['ｃｏｍｍｉｔ']);
    const decomposed = await search(source(pages), { q: 'amend a\u0300 commit' });
    for (const r of decomposed.results) expect(r.whyMatched.map((w) => w.normalize('NFC'))).not.toContain('à');
  });
});

describe('a long query (more words than a bit mask holds)', () => {
  it('a Japanese particle from the 31st word on is neither listed as matched nor taken for content words', async () => {
    const english = 'apple banana cherry damson elder fig grape hazel iris juniper kale lemon mango nutmeg olive peach quince radish sage thyme ugli vanilla walnut yam zucchini almond basil cocoa dill'.split(' ');
    // は is word 30 and パッケージ word 31: they share the last bit of a 31-bit mask.
    expect(english.length).toBe(29);
    const pages = [{ url: 'https://ja.test/pkg', title: 'パッケージ', blocks: [h(1, 'パッケージ'), p(`${english.join(' ')}。Debian のパッケージは便利です。`)] }];
    const res = await search(source(pages), { q: `${english.join(' ')} の は パッケージ` });
    expect(res.results[0]?.url).toBe('https://ja.test/pkg');
    expect(res.results[0]!.whyMatched).toContain('パッケージ');
    expect(res.results[0]!.whyMatched).not.toContain('の');
    expect(res.results[0]!.whyMatched).not.toContain('は');
  });
});

describe('typos', () => {
  const pages = [
    { url: 'https://docs.test/argparse', title: 'argparse — Parser for command-line options', blocks: [h(1, 'argparse — Parser for command-line options'), p('The argparse module makes it easy to write user-friendly command-line interfaces. It parses the options and arguments a program was given.')] },
    { url: 'https://docs.test/logging', title: 'logging — Logging facility', blocks: [h(1, 'logging — Logging facility'), p('The logging module defines functions and classes which implement a flexible event logging system for applications and libraries.')] },
  ];

  it('a result found by another word as near lists the form it holds, not the correction shown above', async () => {
    const bread = [
      { url: 'https://bake.test/a', title: 'Rye', blocks: [h(1, 'Rye'), p('Feed the sourdough starter with rye flour the night before.')] },
      { url: 'https://bake.test/b', title: 'Wheat', blocks: [h(1, 'Wheat'), p('A wheat starter needs warmth; the starter doubles in a day.')] },
      { url: 'https://bake.test/c', title: 'Oven', blocks: [h(1, 'Oven'), p('Start the oven an hour early so the stone is hot.')] },
    ];
    // `startr` is one edit from both: one is shown above, the other searched as the same word.
    const res = await search(source(bread), { q: 'startr' });
    expect(res.results.length).toBe(3);
    const why = new Map(res.results.map((r) => [r.url, r.whyMatched]));
    expect(why.get('https://bake.test/a')).toEqual(['starter']);
    expect(why.get('https://bake.test/c')).toEqual(['start']);
  });

  it('corrects at most a dozen words of a query (each is a scan of the term dictionary)', async () => {
    const src = source(pages);
    const near = src.similarTerms.bind(src);
    let asked = 0;
    src.similarTerms = (term: string, max: number) => {
      asked++;
      return near(term, max);
    };
    const typed = Array.from({ length: 30 }, (_, i) => `argprase${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`).join(' ');
    await search(src, { q: `${typed} argprase` });
    expect(asked).toBe(12);
    asked = 0;
    await search(src, { q: 'argprase loging' });
    expect(asked).toBe(2);
  });

  it('finds the page of a misspelled word, and says what it searched instead', async () => {
    const res = await search(source(pages), { q: 'argprase' });
    expect(res.results[0]?.url).toBe('https://docs.test/argparse');
    expect(res.corrected).toEqual({ query: 'argparse', original: 'argprase' });
    expect(res.results[0]!.whyMatched).toEqual(['argparse']);
  });

  it('finds the phrase of a typo with several equally near words (any one of them is the word)', async () => {
    // `provdies` is two edits from `provid`, `provide` and `proxy`: the sentence holding "fill, and
    // provides methods for" must be found word after word, though "provides" is only one of the three.
    const streams = [
      { url: 'https://docs.test/proxy', title: 'Proxy', blocks: [h(1, 'Proxy'), p('A proxy may fill the buffer for methods that provided data; methods fill it.')] },
      { url: 'https://docs.test/fill', title: 'Fill', blocks: [h(1, 'Fill'), p('Methods fill buffers; the data provided to fill methods, and methods provided for proxy use.')] },
      { url: 'https://docs.test/byob', title: 'BYOB request', blocks: [h(1, 'BYOB request'), p(`${filler('alpha', 40)} The object gives access to the view the read request is to fill, and provides methods for signalling that the data has been provided. ${filler('omega', 40)}`)] },
    ];
    const res = await search(source(streams), { q: 'fill and provdies methods for' });
    expect(res.corrected?.original).toBe('fill and provdies methods for');
    expect(res.results[0]?.url).toBe('https://docs.test/byob');
  });

  it('corrects a typo in the ending the stemmer takes off, and shows the word whole', async () => {
    const cfg = [{ url: 'https://docs.test/config', title: 'Configuration', blocks: [h(1, 'Configuration'), p('Each setting is kept in the file until you change it.')] }];
    const res = await search(source([...pages, ...cfg]), { q: 'settign kept' });
    expect(res.results[0]?.url).toBe('https://docs.test/config');
    expect(res.corrected?.query).toBe('setting kept');
  });

  it('shows a correction as the pages write it, not as the stem it was found by', async () => {
    const more = [
      { url: 'https://docs.test/streams', title: 'Streams', blocks: [h(1, 'Readable streams'), p('A readable stream provides methods for reading chunks of data as they arrive.')] },
      { url: 'https://docs.test/de/faq', title: 'Häufige Fragen', blocks: [h(1, 'Häufige Fragen'), p('Sie könnten zum Beispiel die Datei von Hand bearbeiten, wenn Sie das Werkzeug nicht mögen.')] },
    ];
    const src = source([...pages, ...more]);
    // `provdies` is read as the stem `provid` (of provides, provided…), which is no word to show.
    const en = await search(src, { q: 'stream provdies methods' });
    expect(en.results[0]?.url).toBe('https://docs.test/streams');
    expect(en.corrected?.query).toBe('stream provides methods');
    expect(en.results[0]!.whyMatched).toContain('provides');
    // The index folds diacritics (könnten -> konnten): the page's letters are shown, in the case typed.
    const de = await search(src, { q: 'Sie Könntne Datei bearbeiten' });
    expect(de.results[0]?.url).toBe('https://docs.test/de/faq');
    expect(de.corrected?.query).toBe('Sie Könnten Datei bearbeiten');
  });

  it('searches the words as near as the correction too, and lets the other words choose', async () => {
    // `indee` is one edit from `index` (on more pages) and from `indeed`: the remembered sequence says which.
    const idx = Array.from({ length: 4 }, (_, i) => ({ url: `https://docs.test/index${i}`, title: `Index ${i}`, blocks: [h(1, `Search index ${i}`), p(`The index maps each word to the name of its file, and the index is rebuilt nightly (${i}).`)] }));
    const links = { url: 'https://docs.test/links', title: 'Automatic links', blocks: [h(1, 'Links to files'), p('If the word is indeed the name of a documented file, a link to that file is made for you.')] };
    const res = await search(source([...pages, ...idx, links]), { q: 'word is indee the name' });
    expect(res.results[0]?.url).toBe(links.url);
    expect(res.corrected?.query).toBe('word is indeed the name');
  });

  it('corrects a typo inside a CamelCase name whose other parts are known, shown as the pages write it', async () => {
    // `GShurce` is `gshurce` + `g` + `shurce`: every GList holds a `g`, so the word seemed known.
    const glib = [
      { url: 'https://docs.test/main-loop', title: 'The Main Event Loop', blocks: [h(1, 'The Main Event Loop'), p('Use this macro as the return value of a GSourceFunc to remove the GSource from the main loop.')] },
      { url: 'https://docs.test/lists', title: 'Doubly-Linked Lists', blocks: [h(1, 'Doubly-Linked Lists'), p('A GList is a doubly-linked list; g_list_append() adds to the main list and returns the new start of the GList.')] },
    ];
    const res = await search(source([...pages, ...glib]), { q: 'the GShurce from the main' });
    expect(res.results[0]?.url).toBe('https://docs.test/main-loop');
    expect(res.corrected).toEqual({ query: 'the GSource from the main', original: 'the GShurce from the main' });
    // A compound no page holds whole, every part of which is known, is searched by its parts, uncorrected.
    const parts = await search(source([...pages, ...glib]), { q: 'GMainList' });
    expect(parts.corrected).toBeUndefined();
    expect(parts.results.map((r) => r.url)).toContain('https://docs.test/lists');
  });

  it('does not stack the ending it compared with on the typed one ("unclosed" is no typo of "undo")', async () => {
    // `unclosed` is stemmed `unclos` + `ed`; `unclos` is two edits from `undo` + `s`, and the form shown was
    // "undosed"; the typed word is four edits from any form of `undo`.
    const git = [{ url: 'https://docs.test/undo', title: 'Undo', blocks: [h(1, 'How to undo a commit'), p('To undo the last commit, reset to the commit before it; undos are recorded in the reflog.')] }];
    const res = await search(source([...pages, ...git]), { q: 'unclosed quote' });
    expect(res.corrected).toBeUndefined();
    expect(res.results).toEqual([]);
  });

  it('searches the word as typed when asked (search instead for …)', async () => {
    const res = await search(source(pages), { q: 'argprase', exact: true });
    expect(res.results).toEqual([]);
    expect(res.corrected).toBeUndefined();
  });

  it('corrects inside a longer query and keeps the operators', async () => {
    const res = await search(source(pages), { q: 'flexible loging site:docs.test' });
    expect(res.results[0]?.url).toBe('https://docs.test/logging');
    expect(res.corrected?.query).toBe('flexible logging site:docs.test');
  });

  it('costs nothing when every word is known', async () => {
    const src = source(pages);
    const spy = vi.spyOn(src, 'similarTerms');
    await search(src, { q: 'argparse options' });
    expect(spy).not.toHaveBeenCalled();
  });

  it('searches the words as typed when the correction leads nowhere (a word of another language is no typo)', async () => {
    // `Begrüßung` is two edits from `Begründung`; read so, the query needs two of its three words in a
    // section and none holds two: nothing was shown, though the mail server's section holds one.
    const de = [
      { url: 'https://docs.test/de/changes', title: 'Änderungen', blocks: [h(1, 'Änderungen'), p('Die Begründung jeder Änderung steht im Änderungsprotokoll des Pakets.')] },
      { url: 'https://docs.test/de/mail', title: 'E-Mail', blocks: [h(1, 'Der Mailserver'), p('Jeder Austausch beginnt mit dem Namen des sendenden Mailservers, der angenommen oder abgelehnt wird.')] },
      { url: 'https://docs.test/de/keys', title: 'Schlüssel', blocks: [h(1, 'Schlüssel'), p('Die Signatur eines Pakets lässt sich vor der Installation prüfen.')] },
      ...Array.from({ length: 12 }, (_, i) => ({ url: `https://docs.test/de/other${i}`, title: `Kapitel ${i}`, blocks: [h(1, `Kapitel ${i}`), p(`Dieses Kapitel ${i} beschreibt die Verzeichnisse und Dateien eines Systems.`)] })),
    ];
    const res = await search(source([...pages, ...de]), { q: 'Begrüßung des Mailservers prüfen' });
    expect(res.results[0]?.url).toBe('https://docs.test/de/mail');
    expect(res.corrected).toBeUndefined();
    expect(res.partial).toBeUndefined();
    // A typo whose correction finds something is still corrected.
    expect((await search(source([...pages, ...de]), { q: 'Begrümdung des Pakets' })).corrected?.query).toBe('Begründung des Pakets');
  });

  it('names a correction as the pages write it even when nothing is found', async () => {
    // `Begrümdung` is corrected to the term `begrundung`; with `Fahrrad` (no page holds it) no section
    // answers either query, and no snippet shows how the pages write the word: a section holding it does.
    const de = [
      { url: 'https://docs.test/de/changes', title: 'Änderungen', blocks: [h(1, 'Änderungen'), p('Die Begründung jeder Änderung steht im Änderungsprotokoll des Pakets.')] },
      ...Array.from({ length: 12 }, (_, i) => ({ url: `https://docs.test/de/other${i}`, title: `Kapitel ${i}`, blocks: [h(1, `Kapitel ${i}`), p(`Dieses Kapitel ${i} beschreibt die Verzeichnisse und Dateien eines Systems.`)] })),
    ];
    const res = await search(source([...pages, ...de]), { q: 'Begrümdung Fahrrad Sattel' });
    expect(res.results).toEqual([]);
    expect(res.corrected?.query).toBe('Begründung Fahrrad Sattel');
  });

  it('does not "correct" a real word the pages do not use', async () => {
    const src = source(pages);
    src.words = new Set(['logic']);
    const res = await search(src, { q: 'logic' });
    expect(res.corrected).toBeUndefined();
  });
});

describe('a card’s extra rows link to other places of the page', () => {
  it('leaves out a row that links where the card or an earlier row does, and takes the next section', async () => {
    const url = 'https://docs.example/config.html';
    // One long section, cut into windows that all link to #options, each holding the words; then two
    // short sections elsewhere on the page that hold them too.
    const long = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}: the cache directory option sets where cached files go. ${filler(`w${i}`, 70)}`);
    const src = source([
      {
        url,
        title: 'Configuration',
        blocks: [
          h(1, 'Configuration', 'top'),
          h(2, 'Options', 'options'),
          ...long.map((t) => p(t)),
          h(2, 'Environment', 'env'),
          p(`The cache directory can also be set from the environment. ${filler('e', 30)}`),
          h(2, 'Files', 'files'),
          p(`Cached files and the cache directory are removed by clean. ${filler('f', 30)}`),
        ],
      },
    ]);
    const [card] = (await search(src, { q: 'cache directory option', limit: 5 })).results;
    const hrefs = [card!.href, ...card!.more.map((m) => m.href)];
    expect(new Set(hrefs).size).toBe(hrefs.length);
    expect(card!.more.length).toBe(2);
    expect(hrefs).toContain(`${url}#env`);
  });
});

describe('a remembered phrase of common words', () => {
  it('is found in order beyond the first candidates, where its two content words are everywhere', async () => {
    // 60 pages hold every word of it, often, but never in its order (BM25 ranks them first); one page
    // says the phrase once, in a long text.
    const noisy = Array.from({ length: 60 }, (_, i) => ({
      url: `https://docs.test/p${i}`,
      title: `Page ${i}`,
      blocks: [h(1, `Page ${i}`), p(`That object contains keys. Is it an object? The object contains values, and that one contains an object too. ${filler(`n${i}`, 10)}`)],
    }));
    const target = { url: 'https://docs.test/meta', title: 'Meta', blocks: [h(1, 'Meta'), p(`The meta property is an object that contains the URL of the module, and an object that contains an object of its own. ${filler('m', 120)}`)] };
    const src = source([...noisy, target]);
    // Its section ranks below proximity's 30 candidates.
    const res = await search(src, { q: 'is an object that contains', limit: 30 });
    // The popup asks for 8 and ranks them as the results page does.
    expect((await search(src, { q: 'is an object that contains', limit: 8 })).results[0]?.url).toBe('https://docs.test/meta');
    expect(res.results[0]?.url).toBe('https://docs.test/meta');
    // A word typed twice counts once.
    expect((await search(src, { q: 'an object that contains an object', limit: 30 })).results[0]?.url).toBe('https://docs.test/meta');
    const off = await search(src, { q: 'is an object that contains', limit: 30 }, { lexical: { phraseReach: false } });
    expect(off.results.map((r) => r.url).indexOf('https://docs.test/meta')).not.toBe(0);
  });
});

describe('an identifier typed as the query', () => {
  // A short section that mentions the name outranks, by BM25, the long list where it is defined.
  const mention = { url: 'https://docs.test/git-push', title: 'git-push', blocks: [h(1, 'git-push'), h(2, 'OUTPUT'), p('With transfer.fsckObjects set, the objects pushed are checked as transfer.fsckObjects says.')] };
  const filler = Array.from({ length: 30 }, (_, i) => [p(`core.setting${i}`), p(`Controls behaviour number ${i} of the repository, the index and the working tree when commands run.`)]).flat();
  const definition = {
    url: 'https://docs.test/git-config',
    title: 'git-config',
    blocks: [h(1, 'git-config'), h(2, 'VARIABLES'), ...filler.slice(0, 30), p('transfer.fsckObjects'), p('When set, fetch or receive will abort in the case of a malformed object or a link to a nonexistent object.'), ...filler.slice(30)],
  };
  const others = Array.from({ length: 4 }, (_, i) => ({ url: `https://docs.test/other${i}`, title: `other ${i}`, blocks: [h(1, `other ${i}`), p(`Objects are stored in the object database; transfer settings are described elsewhere (${i}).`)] }));

  it('has the page that defines it first, not one that only mentions it', async () => {
    const src = source([mention, definition, ...others]);
    const lexicalOnly = await lexicalSearch(src, 'transfer.fsckObjects', 10);
    const first = (await src.sections([lexicalOnly[0]!.id]))[0]!;
    // The premise: by its words alone the mention ranks first.
    expect(first.url).toBe(mention.url);
    const res = await search(src, { q: 'transfer.fsckObjects' });
    expect(res.results.map((r) => r.url).slice(0, 2)).toEqual([definition.url, mention.url]);
    // The card opens the definition (the section's heading; the snippet is the defining line's).
    expect(res.results[0]!.snippet.map((s) => s.text).join('')).toContain('When set, fetch or receive will abort');
  });

  it('finds a long option by its name, not by the word in it', async () => {
    // `--only` is git-commit's option; "only" is on every page, most often on short ones.
    const prose = Array.from({ length: 6 }, (_, i) => ({ url: `https://docs.test/p${i}`, title: `p ${i}`, blocks: [h(1, `p ${i}`), p(`Only this one; only that one, and only ${i}.`)] }));
    const commit = {
      url: 'https://docs.test/git-commit',
      title: 'git-commit',
      blocks: [h(1, 'git-commit'), h(2, 'OPTIONS'), ...filler.slice(0, 20), p('Only the first and only the second, only these are committed.'), p('-o, --only'), p('Make a commit by taking the updated working tree contents of the paths specified on the command line.'), ...filler.slice(20)],
    };
    const res = await search(source([...prose, commit]), { q: '--only' });
    expect(res.results[0]?.url).toBe(commit.url);
    // The option, not the word: the snippet is centred on `--only` and marks nothing else.
    expect(res.results[0]!.snippet.filter((s) => s.match).map((s) => s.text)).toEqual(['--only']);
    // An option no page holds is searched as its word, a typo in it corrected as in any word.
    const typo = await search(source([...prose, commit]), { q: '--commti' });
    expect(typo.corrected?.query).toBe('commit');
    expect(typo.results[0]?.url).toBe(commit.url);
  });

  it('puts a page whose heading names it before one with a line that opens with it (a traceback)', async () => {
    // unittest's examples print "AssertionError: 1 != 0": a line opening with the name, on a short page
    // that ranks first by its words; the exceptions page defines it under its own heading.
    const tests = { url: 'https://docs.test/unittest', title: 'unittest', blocks: [h(1, 'unittest'), h(2, 'Subtests'), p('AssertionError: 1 != 0'), p('An AssertionError is raised; AssertionError ends the test.')] };
    const exceptions = {
      url: 'https://docs.test/exceptions',
      title: 'Built-in Exceptions',
      blocks: [h(1, 'Built-in Exceptions'), ...filler.slice(0, 20), h(2, 'exception AssertionError'), p('Raised when an assert statement fails.'), ...filler.slice(20)],
    };
    const res = await search(source([tests, exceptions, ...others]), { q: 'AssertionError' });
    expect(res.results.map((r) => r.url).slice(0, 2)).toEqual([exceptions.url, tests.url]);
  });

  it('leaves the order alone for words that are not an identifier', async () => {
    const src = source([mention, definition, ...others]);
    const res = await search(src, { q: 'objects pushed are checked' });
    expect(res.results[0]?.url).toBe(mention.url);
  });
});

describe('filters without words', () => {
  const pages = [
    { url: 'https://docs.test/python', title: 'Python', blocks: [h(1, 'Python notes'), p('Notes on python packaging and virtual environments for the team.')] },
    { url: 'https://docs.test/rust', title: 'Rust', blocks: [h(1, 'Rust notes'), p('Notes on cargo workspaces and crates for the team.')] },
    { url: 'https://blog.test/cats', title: 'Cats', blocks: [h(1, 'Cats'), p('A page about cats and their litter boxes, nothing about programming.')] },
  ];

  it('a site or a day lists its pages, the exclusions beside it applied', async () => {
    const res = await search(source(pages), { q: 'site:docs.test -python' });
    expect(res.results.map((r) => r.url)).toEqual(['https://docs.test/rust']);
  });

  it('exclusions alone find by nothing and list nothing (-site: listed every other page)', async () => {
    for (const q of ['-python', '-site:docs.test', '-"virtual environments" -site:blog.test']) {
      expect((await search(source(pages), { q })).results, q).toEqual([]);
    }
  });
});

describe('a query of an address (pasted into a search box, typed after the omnibox keyword)', () => {
  // Two pages on docs.test about json: the one at the pasted address names json less often.
  const pages = [
    { url: 'https://docs.test/library/json.html', title: 'Data formats', blocks: [h(1, 'Data formats'), p('Reading JSON and CSV files, and where each is the better choice for configuration.')], lastVisit: 1 },
    { url: 'https://docs.test/tutorial/json-howto.html', title: 'JSON how-to', blocks: [h(1, 'JSON how-to'), p('JSON, JSON and more JSON: json.dumps writes json, json.loads reads json.')], lastVisit: 3 },
    { url: 'https://docs.test/library/csv.html', title: 'CSV', blocks: [h(1, 'CSV'), p('Comma separated values, read row by row.')], lastVisit: 2 },
    { url: 'https://elsewhere.test/json.html', title: 'JSON elsewhere', blocks: [h(1, 'JSON elsewhere'), p('JSON on another site: json json json.')], lastVisit: 4 },
  ];
  const src = () => {
    const s = source([]);
    for (const pg of pages) s.addPage({ url: pg.url, title: pg.title, lastVisit: pg.lastVisit, chunks: chunkBlocks(pg.blocks).chunks });
    return s;
  };

  it('searches its page name on its site, the page at the address first, and says so', async () => {
    const res = await search(src(), { q: 'https://docs.test/library/json.html#json.dumps' });
    expect(res.results.map((r) => r.url)).toEqual(['https://docs.test/library/json.html', 'https://docs.test/tutorial/json-howto.html']);
    expect(res.address).toEqual({ site: 'docs.test', words: ['json'], q: 'json site:docs.test', page: 'first' });
    // Without it, the page that names json most comes first (the test would catch the page-first step gone).
    expect((await search(src(), { q: 'json site:docs.test' })).results[0]!.url).toBe('https://docs.test/tutorial/json-howto.html');
  });

  it('opens the page at its top, its matching sections below it', async () => {
    const s = src();
    const url = 'https://docs.test/library/codecs.html';
    const filler = (w: string, n: number) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
    s.addPage({
      url,
      title: 'Text encodings',
      lastVisit: 5,
      chunks: chunkBlocks([
        h(1, 'Text encodings', 'top'),
        p(`Encoders and decoders for text and bytes, the codecs. ${filler('a', 120)}`),
        h(2, 'Decoding errors', 'errors'),
        p(`A codecs error names the codecs registry and the codecs lookup that failed. ${filler('b', 120)}`),
      ]).chunks,
    });
    const [card] = (await search(s, { q: url })).results;
    expect(card!.url).toBe(url);
    // The best section for `codecs` is the errors section (named there three times), yet the page opens at its top.
    expect(card!.href).toBe(`${url}#top`);
    expect(card!.more.map((m) => m.href)).toContain(`${url}#errors`);
  });

  it('opens the page at its top even when the passage shown lies in a small sub-section merged into it', async () => {
    const s = src();
    // A long French opening and a short English sub-section, merged into it, that holds the address's word.
    const cases = [
      { url: 'https://docs.test/faq/kernel.html', heading: 'More on it', id: 'moreinfo', text: 'See the kernel handbook.' },
      // Nor at one whose heading names the page's word ("Kernel2").
      { url: 'https://docs.test/faq/kernel2.html', heading: 'Kernel2', id: 'kernelpart', text: 'See the kernel2 handbook.' },
    ];
    for (const [i, c] of cases.entries()) {
      s.addPage({
        url: c.url,
        title: 'Le noyau Linux',
        lastVisit: 5 + i,
        chunks: chunkBlocks([
          h(1, 'Le noyau Linux', 'top'),
          p(`How the system boots and loads its modules, step by step. ${Array.from({ length: 120 }, (_, j) => `w${j}`).join(' ')}`),
          h(2, c.heading, c.id),
          p(c.text),
        ]).chunks,
      });
      const [card] = (await search(s, { q: c.url })).results;
      expect(card!.url, c.url).toBe(c.url);
      expect(card!.href, c.url).toBe(`${c.url}#top`);
    }
  });

  it('lists the stored page first even when its name is not among its words', async () => {
    const res = await search(src(), { q: 'https://docs.test/library/csv.html' });
    expect(res.results[0]!.url).toBe('https://docs.test/library/csv.html');
    const off = await search(src(), { q: 'https://docs.test/library/xylophone.html' });
    expect(off.results).toEqual([]);
    expect(off.address?.page).toBe('unsaved');
  });

  it("a site's root lists the pages read there, most recent first, the root's page first when stored", async () => {
    const res = await search(src(), { q: 'https://docs.test/' });
    expect(res.results.map((r) => r.url)).toEqual(['https://docs.test/tutorial/json-howto.html', 'https://docs.test/library/csv.html', 'https://docs.test/library/json.html']);
    expect(res.address).toEqual({ site: 'docs.test', words: [], q: 'site:docs.test', page: 'unsaved' });
  });

  it('a page hidden by a forget still in its undo window is left out, not "not saved"', async () => {
    // The worker's pages() leaves such a page out (background/pageTable.ts hide) until the forget is undone or purged.
    const s = src();
    const url = 'https://docs.test/library/csv.html';
    const all = await s.pages();
    const hiding: SearchSource = { ...s, settings: s.settings, dense: s.dense, pages: async () => new Map([...all].filter(([u]) => u !== url)), allowedChunks: (q, x) => s.allowedChunks(q, x), corpusStats: () => s.corpusStats(), postings: (t) => s.postings(t), sections: (ids) => s.sections(ids) };
    expect((await search(hiding, { q: url })).address?.page).toBe('unsaved');
    expect((await search({ ...hiding, isHidden: (u) => u === url }, { q: url })).address?.page).toBe('left-out');
    expect((await search({ ...hiding, isHidden: (u) => u === url }, { q: 'https://docs.test/library/xylophone.html' })).address?.page).toBe('unsaved');
  });

  it('keeps the filters typed beside it; a page they leave out is not put first', async () => {
    const res = await search(src(), { q: 'https://docs.test/library/json.html after:2024-01-01' }, { now: Date.UTC(2025, 0, 1) });
    expect(res.results).toEqual([]);
    expect(res.address?.page).toBe('left-out');
  });
});
