import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkBlocks, countWords, measureWords, DEFAULT_CHUNKER_OPTIONS, type Block, type Chunk, type ChunkerOptions } from '../../src/chunker.js';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
/** `n` sentences of `len` words each, every word unique. */
const sentences = (n: number, len: number, prefix = 's') =>
  Array.from({ length: n }, (_, i) => Array.from({ length: len }, (_, j) => `${prefix}${i}x${j}`).join(' ') + '.').join(' ');
const h = (level: number, text: string, id?: string): Block => ({ kind: 'heading', level, text, ...(id ? { id } : {}) });
const p = (text: string, id?: string): Block => ({ kind: 'text', text, ...(id ? { id } : {}) });

const body = (c: Chunk) => (c.headingPath.length ? c.text.slice(c.text.indexOf('\n') + 1) : c.text);
const tokens = (s: string) => s.split(/\s+/).filter(Boolean);

/** The longest prefix of `next` that `prev` ends with. */
function overlapOf(prev: string, next: string): string {
  for (let k = Math.min(prev.length, next.length); k > 0; k--) if (prev.endsWith(next.slice(0, k))) return next.slice(0, k);
  return '';
}

describe('chunkBlocks: sections', () => {
  it('makes one chunk per section with the heading path folded into its text', () => {
    const { chunks } = chunkBlocks([
      h(1, 'Tutorial', 'tut'),
      p(words(30, 'a')),
      h(2, 'Data Structures', 'ds'),
      p(words(30, 'b')),
      h(3, 'List Comprehensions', 'lc'),
      p(words(30, 'c')),
      h(2, 'Modules', 'mod'),
      p(words(30, 'd')),
    ]);
    expect(chunks.map((c) => c.headingPath.join(' > '))).toEqual(['Tutorial', 'Tutorial > Data Structures', 'Tutorial > Data Structures > List Comprehensions', 'Tutorial > Modules']);
    expect(chunks[2]!.text.startsWith('Tutorial > Data Structures > List Comprehensions\nc0 c1')).toBe(true);
    expect(chunks[2]!.section).toBe('List Comprehensions');
    // Each section also keeps the ids of the headings above it (a query naming one links there).
    expect(chunks.map((c) => c.anchor)).toEqual([
      { id: 'tut' },
      { id: 'ds', above: [{ depth: 0, id: 'tut' }] },
      { id: 'lc', above: [{ depth: 0, id: 'tut' }, { depth: 1, id: 'ds' }] },
      { id: 'mod', above: [{ depth: 0, id: 'tut' }] },
    ]);
    expect(chunks.map((c) => c.ord)).toEqual([0, 1, 2, 3]);
  });

  it('anchors a heading without an id by its text, and text before any heading has no path', () => {
    const { chunks } = chunkBlocks([p(words(25, 'pre')), h(2, 'No id here'), p(words(25))]);
    expect(chunks[0]!.headingPath).toEqual([]);
    expect(chunks[0]!.text).toBe(words(25, 'pre'));
    expect(chunks[0]!.anchor).toEqual({});
    expect(chunks[1]!.anchor).toEqual({ text: 'No id here' });
  });

  it('merges tiny sections into their parent, keeping their heading and words', () => {
    const { chunks } = chunkBlocks([h(1, 'Parent', 'p'), p(words(30)), h(2, 'Tiny', 't'), p('only five words in here'), h(2, 'Big', 'b'), p(words(40, 'big'))]);
    expect(chunks.map((c) => c.section)).toEqual(['Parent', 'Big']);
    expect(chunks[0]!.text).toContain('Tiny: only five words in here');
  });

  it('never merges an entry (Block.entry: a method of a reference), however short', () => {
    const entry = (level: number, text: string, id: string): Block => ({ ...h(level, text, id), entry: true });
    const blocks = [h(1, 'Parent', 'p'), p(words(30)), entry(2, 'chr → string', 'method-i-chr'), p('Returns the first character.'), h(3, 'Tiny', 't'), p('only five words in here')];
    const { chunks } = chunkBlocks(blocks);
    expect(chunks.map((c) => c.section)).toEqual(['Parent', 'chr → string']);
    expect(chunks[1]!.anchor).toMatchObject({ id: 'method-i-chr' });
    expect(chunks[1]!.text).toContain('Tiny: only five words in here');
    // Without the flag it is a tiny section like any other.
    expect(chunkBlocks(blocks.map(({ entry: _, ...b }) => b)).chunks.map((c) => c.section)).toEqual(['Parent']);
  });

  it('keeps the heading of an empty leaf section, and drops an empty heading that only has sub-sections', () => {
    const { chunks } = chunkBlocks([h(1, 'Top', 'top'), p(words(30)), h(2, 'Empty leaf'), h(2, 'Wrapper'), h(3, 'Inner', 'in'), p(words(30, 'in'))]);
    expect(chunks.map((c) => c.headingPath.join(' > '))).toEqual(['Top', 'Top > Wrapper > Inner']);
    expect(chunks[0]!.text).toContain('Empty leaf');
  });

  it('re-opens an enclosing section when its heading (same id) comes back', () => {
    const { chunks } = chunkBlocks([
      h(1, 'os.path', 'module-os.path'),
      p(words(25, 'intro')),
      h(2, 'os.path.join(path, *paths)', 'os.path.join'),
      p(words(40, 'join')),
      h(1, 'os.path', 'module-os.path'),
      p(words(25, 'after')),
    ]);
    expect(chunks.map((c) => c.section)).toEqual(['os.path', 'os.path.join(path, *paths)']);
    expect(chunks[0]!.text).toContain('after0');
    expect(chunks[1]!.text).not.toContain('after0');
    expect(chunks[1]!.anchor).toEqual({ id: 'os.path.join', above: [{ depth: 0, id: 'module-os.path' }] });
  });

  it('never splits an identifier at its dots', () => {
    const text = Array.from({ length: 200 }, (_, i) => `Call os.path.join(a${i}, b) to join e.g. parts.`).join(' ');
    const { chunks } = chunkBlocks([h(1, 'Paths'), p(text)]);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c.text).not.toMatch(/os\.\s|path\.\s/);
    for (let i = 0; i < 200; i++) expect(chunks.some((c) => c.text.includes(`os.path.join(a${i},`))).toBe(true);
  });

  it('keeps the lines of code blocks', () => {
    const { chunks } = chunkBlocks([h(1, 'Code'), { kind: 'code', text: 'def f(x):\n    return x + 1\n' }, p(words(25))]);
    expect(chunks[0]!.text).toContain('def f(x):\n    return x + 1');
  });
});

describe('chunkBlocks: long bodies', () => {
  it('cuts at paragraph boundaries, with about 15% overlap, windows within maxWords', () => {
    const paras = Array.from({ length: 20 }, (_, i) => p(sentences(5, 10, `p${i}s`)));
    const { chunks } = chunkBlocks([h(1, 'Long', 'long'), ...paras]);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const c of chunks) expect(measureWords(body(c))).toBeLessThanOrEqual(300);
    for (let i = 1; i < chunks.length; i++) {
      const ov = overlapOf(body(chunks[i - 1]!), body(chunks[i]!));
      expect(countWords(ov)).toBeGreaterThanOrEqual(20);
      expect(countWords(ov)).toBeLessThanOrEqual(45);
      // The new content starts at a paragraph: the window's fresh text begins after a line break.
      const fresh = body(chunks[i]!).slice(ov.length);
      expect(fresh.startsWith('\n')).toBe(true);
    }
    for (const c of chunks) expect(c.headingPath).toEqual(['Long']);
    expect(chunks[0]!.anchor).toEqual({ id: 'long' });
  });

  it('cuts one long paragraph at sentence ends', () => {
    const { chunks } = chunkBlocks([h(1, 'Sentences'), p(sentences(100, 12))]);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks.slice(0, -1)) expect(body(c).endsWith('.')).toBe(true);
  });

  it('cuts text without punctuation or headings into word windows of the same size', () => {
    const { chunks } = chunkBlocks([p(words(1000))]);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const c of chunks) {
      expect(c.headingPath).toEqual([]);
      expect(countWords(c.text)).toBeLessThanOrEqual(300);
    }
    for (let i = 0; i < 1000; i++) expect(chunks.some((c) => tokens(c.text).includes(`w${i}`))).toBe(true);
    for (let i = 1; i < chunks.length; i++) expect(countWords(overlapOf(chunks[i - 1]!.text, chunks[i]!.text))).toBeGreaterThan(0);
    // Later windows without an id jump to their own first words.
    expect(chunks[1]!.anchor.text).toMatch(/^w\d+/);
  });

  it('windows unspaced (CJK) text by characters and loses none of it', () => {
    const han = '我们在这里测试中文文本的切分效果'.repeat(200); // 3,200 characters, no spaces, no punctuation
    const { chunks } = chunkBlocks([h(1, '中文'), p(han)]);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(measureWords(body(c))).toBeLessThanOrEqual(300);
      expect(c.text.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxChunkChars);
    }
    // Every 20-character stretch survives somewhere.
    for (let i = 0; i + 20 <= han.length; i += 97) expect(chunks.some((c) => c.text.includes(han.slice(i, i + 20)))).toBe(true);
  });

  it('keeps right-to-left text and its words', () => {
    const ar = Array.from({ length: 120 }, (_, i) => `كلمة${i} نص عربي.`).join(' ');
    const { chunks } = chunkBlocks([h(1, 'العربية', 'ar'), p(ar)]);
    for (let i = 0; i < 120; i++) expect(chunks.some((c) => tokens(c.text).includes(`كلمة${i}`))).toBe(true);
  });
});

describe('chunkBlocks: caps', () => {
  it('holds the chunk cap on 5,000 headings and says what it cut', () => {
    const blocks: Block[] = [];
    for (let i = 0; i < 5000; i++) blocks.push(h(2, `Heading ${i}`, `h${i}`), p(words(25, `b${i}x`)));
    const { chunks, truncated } = chunkBlocks(blocks);
    expect(chunks.length).toBe(DEFAULT_CHUNKER_OPTIONS.maxChunks);
    expect(truncated.chunks).toBe(4000);
  });

  it('holds the length cap on a blob without spaces', () => {
    const blob = 'A'.repeat(100_000);
    const { chunks } = chunkBlocks([h(1, 'Blob'), p(blob)]);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxChunkChars);
    expect(chunks.reduce((n, c) => n + (c.text.match(/A/g)?.length ?? 0), 0)).toBeGreaterThanOrEqual(100_000);
  });

  it('cuts very long headings at a word boundary, and keeps the rest of them in the body', () => {
    const heading = words(200, 'hh');
    const { chunks } = chunkBlocks([h(1, heading, 'sig'), p(words(30))]);
    const section = chunks[0]!.section;
    expect(section.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxHeadingChars);
    expect(heading.startsWith(section + ' ')).toBe(true);
    const all = new Set(chunks.flatMap((c) => tokens(c.text.replace('…', ''))));
    for (const w of tokens(heading)) expect(all.has(w), w).toBe(true);
    expect(chunks[0]!.anchor).toEqual({ id: 'sig' });
  });
});

// ---- properties ----

const vocabulary = fc.constantFrom(
  'the', 'index', 'os.path.join', 'ERR_5041', 'getElementById', 'end.', 'why?', 'utf-8', '3.11', 'std::vector',
  '数据', '结构。', 'テスト', 'كلمة', 'שלום', 'naïve', '(a,', 'b)', '—', '🙂',
);
const text = fc.array(fc.tuple(vocabulary, fc.constantFrom(' ', ' ', ' ', '\n', '  ')), { minLength: 0, maxLength: 400 }).map((ts) => ts.map(([w, s]) => w + s).join(''));

const anyBlocks = fc.array(
  fc.record({
    kind: fc.constantFrom('heading', 'text', 'code', 'table', 'list', 'quote') as fc.Arbitrary<Block['kind']>,
    text: fc.oneof(text, fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 })),
    level: fc.option(fc.integer({ min: -3, max: 12 }), { nil: undefined }),
    id: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
  }),
  { maxLength: 80 },
);

const anyOptions: fc.Arbitrary<Partial<ChunkerOptions>> = fc.record({
  maxWords: fc.integer({ min: 5, max: 400 }),
  minWords: fc.integer({ min: 0, max: 40 }),
  overlap: fc.double({ min: 0, max: 0.5, noNaN: true }),
  maxChunks: fc.integer({ min: 1, max: 300 }),
  maxChunkChars: fc.integer({ min: 300, max: 8000 }),
});

/**
 * Blocks with unique heading texts and ids (so paths identify sections); body words from the vocabulary,
 * each made unique by a number in front (so an overlap can be told from a coincidental repeat).
 */
const docBlocks = fc
  .array(fc.oneof(fc.record({ heading: fc.integer({ min: 1, max: 6 }) }), fc.record({ para: text }), fc.record({ code: text })), { maxLength: 60 })
  .map((items) => {
    let n = 0;
    const unique = (s: string) => s.replace(/\S+/g, (w) => `${n++}${w}`);
    return items.map((it, i): Block => {
      if ('heading' in it) return { kind: 'heading', level: it.heading, text: `Section ${i}`, id: `s${i}` };
      if ('para' in it) return { kind: 'text', text: unique(it.para) };
      return { kind: 'code', text: unique(it.code) };
    });
  });

/** The expected heading path of every heading, by a plain stack. */
function expectedPaths(blocks: Block[]): string[][] {
  const stack: { level: number; title: string }[] = [];
  const out: string[][] = [];
  for (const b of blocks) {
    if (b.kind !== 'heading') continue;
    const level = b.level!;
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, title: b.text });
    out.push(stack.map((s) => s.title));
  }
  return out;
}

describe('chunkBlocks: properties', () => {
  it('never throws and holds every cap, whatever the blocks and options', () => {
    fc.assert(
      fc.property(anyBlocks, anyOptions, (blocks, options) => {
        const { chunks, truncated } = chunkBlocks(blocks, options);
        expect(chunks.length).toBeLessThanOrEqual(options.maxChunks!);
        chunks.forEach((c, i) => {
          expect(c.ord).toBe(i);
          expect(c.text.length).toBeLessThanOrEqual(options.maxChunkChars!);
          expect(c.headingPath.length).toBeLessThanOrEqual(6);
          for (const t of c.headingPath) expect(t.length).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxHeadingChars);
        });
        expect(truncated.chunks).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps windows within the word budget (default options)', () => {
    fc.assert(
      fc.property(docBlocks, (blocks) => {
        const { chunks } = chunkBlocks(blocks);
        for (const c of chunks) expect(measureWords(body(c))).toBeLessThanOrEqual(DEFAULT_CHUNKER_OPTIONS.maxWords);
      }),
      { numRuns: 300 },
    );
  });

  it('loses no word, of a body or a heading, unless a cap cut it', () => {
    fc.assert(
      fc.property(docBlocks, fc.integer({ min: 10, max: 300 }), fc.integer({ min: 0, max: 30 }), (blocks, maxWords, minWords) => {
        const { chunks, truncated } = chunkBlocks(blocks, { maxWords, minWords });
        if (truncated.chunks || truncated.chars) return;
        const got = new Set(chunks.flatMap((c) => tokens(c.text.replace(/ > /g, ' ').replace(/: /g, ' '))));
        for (const b of blocks) for (const t of tokens(b.text)) expect(got.has(t), t).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('gives every chunk a correct heading path, folded into its text, and every substantial section its chunk', () => {
    fc.assert(
      fc.property(docBlocks, (blocks) => {
        const { chunks } = chunkBlocks(blocks);
        const paths = expectedPaths(blocks).map((x) => x.join(' > '));
        const valid = new Set(['', ...paths]);
        for (const c of chunks) {
          const path = c.headingPath.join(' > ');
          expect(valid.has(path)).toBe(true);
          if (path) expect(c.text === path || c.text.startsWith(path + '\n')).toBe(true);
          expect(c.section).toBe(c.headingPath[c.headingPath.length - 1] ?? '');
        }
        // A section whose own body has at least minWords words has a chunk of its own, anchored at its id.
        let hi = -1;
        let own = 0;
        const check = () => {
          if (hi >= 0 && own >= DEFAULT_CHUNKER_OPTIONS.minWords) {
            const c = chunks.find((x) => x.headingPath.join(' > ') === paths[hi]);
            expect(c).toBeDefined();
            expect(c!.anchor.id).toBe(`s${blocks.filter((b) => b.kind === 'heading')[hi]!.text.slice(8)}`);
          }
        };
        for (const b of blocks) {
          if (b.kind === 'heading') {
            check();
            hi++;
            own = 0;
          } else own += countWords(b.text);
        }
        check();
      }),
      { numRuns: 300 },
    );
  });

  it('starts every later window of a section with an overlap of at most ~15% of the previous one', () => {
    fc.assert(
      fc.property(docBlocks, fc.integer({ min: 20, max: 300 }), (blocks, maxWords) => {
        const { chunks } = chunkBlocks(blocks, { maxWords });
        const budget = Math.round(maxWords * DEFAULT_CHUNKER_OPTIONS.overlap);
        for (let i = 1; i < chunks.length; i++) {
          const a = chunks[i - 1]!;
          const b = chunks[i]!;
          if (a.headingPath.join(' > ') !== b.headingPath.join(' > ')) continue;
          const ov = overlapOf(body(a), body(b));
          expect(ov.trim().length).toBeGreaterThan(0);
          expect(measureWords(ov)).toBeLessThanOrEqual(budget + 1);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('chunkBlocks: where each merged section lies (parts)', () => {
  const sectionAt = (c: Chunk, at: number): string[] => {
    let path = c.headingPath;
    for (const p of c.parts ?? []) if (p.at <= at) path = p.headingPath;
    return path;
  };

  it('records where a merged tiny section starts, with its own heading path and anchor', () => {
    const { chunks } = chunkBlocks([
      h(1, 'Parent', 'p'),
      p(words(30, 'own')),
      h(2, 'Tiny one', 't1'),
      p('only five words in here'),
      h(2, 'Tiny two'),
      p('and three more'),
    ]);
    expect(chunks).toHaveLength(1);
    const c = chunks[0]!;
    expect(c.anchor).toEqual({ id: 'p' });
    expect(c.parts).toEqual([
      { at: c.text.indexOf('Tiny one:'), headingPath: ['Parent', 'Tiny one'], anchor: { id: 't1' } },
      { at: c.text.indexOf('Tiny two:'), headingPath: ['Parent', 'Tiny two'], anchor: { text: 'Tiny two' } },
    ]);
    expect(sectionAt(c, c.text.indexOf('own3'))).toEqual(['Parent']);
    expect(sectionAt(c, c.text.indexOf('five'))).toEqual(['Parent', 'Tiny one']);
    expect(sectionAt(c, c.text.indexOf('three'))).toEqual(['Parent', 'Tiny two']);
  });

  it('has no parts when nothing was merged, and links every window of a section to its heading', () => {
    const { chunks } = chunkBlocks([h(1, 'Long', 'long'), p(sentences(80, 10)), p('x', 'a-table-id')]);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.parts).toBeUndefined();
      expect(c.anchor).toEqual({ id: 'long' });
    }
  });

  it('never takes an id of the body for a heading that has none', () => {
    const { chunks } = chunkBlocks([h(2, 'No id'), p(words(30), 'table-of-the-section-before')]);
    expect(chunks[0]!.anchor).toEqual({ text: 'No id' });
  });

  it('attributes every body word to the section it was written under (property)', () => {
    fc.assert(
      fc.property(docBlocks, fc.integer({ min: 20, max: 300 }), fc.integer({ min: 0, max: 30 }), (blocks, maxWords, minWords) => {
        const { chunks, truncated } = chunkBlocks(blocks, { maxWords, minWords });
        if (truncated.chunks || truncated.chars) return;
        const paths = expectedPaths(blocks);
        const owner = new Map<string, string>();
        let hi = -1;
        for (const b of blocks) {
          if (b.kind === 'heading') hi++;
          else for (const t of tokens(b.text)) owner.set(t, hi >= 0 ? paths[hi]!.join(' > ') : '');
        }
        for (const c of chunks) {
          const parts = c.parts ?? [];
          for (let i = 1; i < parts.length; i++) expect(parts[i]!.at).toBeGreaterThan(parts[i - 1]!.at);
          for (const x of parts) expect(x.at).toBeLessThan(c.text.length);
          const bodyAt = c.headingPath.length ? c.text.indexOf('\n') + 1 : 0;
          if (c.headingPath.length && bodyAt === 0) continue;
          for (const m of c.text.slice(bodyAt).matchAll(/\S+/g)) {
            const word = m[0].replace(/:$/, '');
            const want = owner.get(word);
            if (want === undefined) continue; // a heading word
            expect(sectionAt(c, bodyAt + m.index).join(' > '), word).toBe(want);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
