import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkBlocks, chunkSteps, CHUNKER_VERSION, type Block, type Chunk } from '../../src/chunker.js';
import { ProtocolError } from '../../src/protocol.js';
import { cutSections } from '../../src/sections.js';
import { normalizeBlocks, normalizeSteps, plainId, SECTION_LIMITS, validateCapture } from '../../src/validate.js';
import { hostileText } from './arbitraries.js';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const h = (level: number, text: string, id?: string): Block => ({ kind: 'heading', level, text, ...(id ? { id } : {}) });
const p = (text: string, id?: string): Block => ({ kind: 'text', text, ...(id ? { id } : {}) });

const PAGE: Block[] = [
  h(1, 'Guide', 'guide'),
  p(words(40, 'intro')),
  h(2, 'Install', 'install'),
  p(words(400, 'inst')),
  h(2, 'Usage'),
  p(words(60, 'use')),
  { kind: 'code', text: 'x = 1\n  y = 2', id: 'example' },
];

/** A capture as a content script sends it (the sections cut from the blocks), JSON round-tripped like a message. */
async function sent(blocks: Block[]) {
  const cut = await cutSections(blocks);
  return JSON.parse(JSON.stringify({ title: 'T', lang: 'en', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker })) as { blocks: Block[]; sections: Chunk[]; chunker: string } & Record<string, unknown>;
}

function refused(v: unknown, reason: RegExp): void {
  try {
    validateCapture(v);
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).code).toBe('bad-request');
    expect((e as Error).message).toMatch(reason);
    return;
  }
  throw new Error(`expected a refusal matching ${reason}`);
}

describe('cutSections', () => {
  it('cuts exactly as chunkBlocks does, over the blocks the background accepts, and names the chunker', async () => {
    const cut = await cutSections(PAGE);
    expect(cut.sections).toEqual(chunkBlocks(normalizeBlocks(PAGE).blocks).chunks);
    expect(cut.chunker).toBe(CHUNKER_VERSION);
    expect(cut.sections.length).toBeGreaterThan(3);
  });

  it('yields between steps: 2 MB of paragraphs are cut in many short steps, the same cut as in one go', async () => {
    const huge: Block[] = Array.from({ length: 12 }, (_, i) => p(words(20_000, `p${i}w`)));
    let yields = 0;
    let t = 0;
    const cut = await cutSections(huge, { now: () => t++, sliceMs: 0, yieldToPage: async () => void yields++ });
    expect(cut.sections).toEqual(chunkBlocks(normalizeBlocks(huge).blocks).chunks);
    // The chunker pauses at least every 1024 tokens (and every 128 units, 256 blocks, each section).
    const tokens = 12 * 20_000;
    expect(yields).toBeGreaterThan(tokens / 1024);
    // Normalising pauses after each block too (src/validate.ts normalizeSteps).
    let pauses = 0;
    const normalize = normalizeSteps(huge);
    while (!normalize.next().done) pauses++;
    const steps = chunkSteps(normalizeBlocks(huge).blocks);
    while (!steps.next().done) pauses++;
    expect(pauses).toBe(yields);
  });

  it('plain ids only: odd ids are dropped on both sides, lone surrogates made well-formed', () => {
    expect(plainId('os.path.join')).toBe('os.path.join');
    for (const bad of ['', 'a b', 'a\nb', 'x\u0000', 'x'.repeat(201), 5, null, 'a\u2028b']) expect(plainId(bad)).toBeUndefined();
    expect(plainId('\ud800x')).toBe('\ufffdx');
    const { blocks } = normalizeBlocks([h(2, 'A\udc00', 'id with space'), p('text \ud800')]);
    expect(blocks).toEqual([h(2, 'A\ufffd'), p('text \ufffd')]);
  });
});

describe('validateCapture with sections', () => {
  it('accepts what the chunker made, unchanged', async () => {
    const v = await sent(PAGE);
    const { payload } = validateCapture(v);
    expect(payload.sections).toEqual(v.sections);
    expect(payload.chunker).toBe(CHUNKER_VERSION);
  });

  it('accepts the chunker output of any blocks, hostile text and ids included (property)', async () => {
    const block = fc.oneof(
      fc.record({ kind: fc.constant('heading' as const), level: fc.integer({ min: 1, max: 6 }), text: hostileText(300, 1), id: fc.option(hostileText(20, 1), { nil: undefined }) }),
      fc.record({ kind: fc.constantFrom('text' as const, 'code' as const, 'list' as const, 'quote' as const, 'table' as const), text: hostileText(2000, 1), id: fc.option(hostileText(20, 1), { nil: undefined }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(block, { maxLength: 40 }), async (raw) => {
        const blocks = raw.map(({ id, ...b }) => (id === undefined ? b : { ...b, id })) as Block[];
        const v = await sent(blocks);
        const { payload } = validateCapture(v);
        expect(payload.sections).toEqual(v.sections);
        const bodies = v.sections.reduce((n, s) => n + s.text.length - s.headingPath.join(' > ').length, 0);
        const chars = v.blocks.reduce((n, b) => n + b.text.length, 0);
        // Without the constant allowance: the ratio alone holds for any blocks.
        expect(bodies).toBeLessThanOrEqual(chars * SECTION_LIMITS.maxBodyRatio + blocks.filter((b) => b.kind === 'heading').length * SECTION_LIMITS.bodyAllowancePerHeading);
      }),
      { numRuns: 150 },
    );
  });

  it('ignores sections cut by another chunker (the background cuts the blocks itself)', async () => {
    const v = await sent(PAGE);
    const { payload } = validateCapture({ ...v, chunker: '0.old' });
    expect(payload.sections).toBeUndefined();
    expect(payload.blocks).toEqual(v.blocks);
  });

  it('refuses sections the background could not have cut from these blocks, saying why', async () => {
    const v = await sent(PAGE);
    const s0 = v.sections[0]!;
    const last = v.sections.length - 1;
    const withSection = (i: number, patch: Partial<Chunk> | Record<string, unknown>) => ({ ...v, sections: v.sections.map((s, k) => (k === i ? { ...s, ...patch } : s)) });
    refused({ ...v, chunker: 7 }, /chunker/);
    refused({ ...v, sections: 'x' }, /sections must be an array/);
    refused({ ...v, sections: [null] }, /section 0: not an object/);
    // too many
    refused({ ...v, sections: Array.from({ length: SECTION_LIMITS.maxSections + 1 }, (_, i) => ({ ...s0, ord: i })) }, /too many sections/);
    // oversize
    const big = s0.text + ' x'.repeat(SECTION_LIMITS.maxTextChars);
    refused(withSection(0, { text: big, words: big.split(' ').length }), /over 6000 characters/);
    // counts and order
    refused(withSection(0, { words: s0.words + 1 }), /words does not match/);
    refused(withSection(1, { ord: 0 }), /section 1: ord/);
    // heading paths inconsistent with the blocks or the text
    refused(withSection(0, { headingPath: ['Not a heading here'], section: 'Not a heading here', text: 'Not a heading here\nintro0', words: 5 }), /headings the blocks do not have|names a heading/);
    refused(withSection(0, { headingPath: ['Guide', 'Guide', 'Guide', 'Guide', 'Guide', 'Guide', 'Guide'] }), /at most 6/);
    refused(withSection(0, { section: 'Install' }), /last heading/);
    refused(withSection(0, { text: 'Install\n' + s0.text.split('\n')[1], words: 41 }), /start with its heading path/);
    // anchors: plain ids of the blocks, or text the section holds
    refused(withSection(0, { anchor: { id: 'elsewhere' } }), /anchor id/);
    refused(withSection(0, { anchor: { id: 'a b' } }), /anchor id/);
    refused(withSection(0, { anchor: { id: 'guide', text: 'Guide' } }), /not both/);
    refused(withSection(0, { anchor: { href: 'javascript:alert(1)' } }), /nothing else/);
    refused(withSection(last, { anchor: { text: 'words this page never had' } }), /not in the section/);
    refused(withSection(last, { anchor: { text: 'use1\ud800' } }), /a phrase of at most/);
    refused(withSection(last, { anchor: { text: 'x'.repeat(201) } }), /a phrase of at most/);
    refused(withSection(last, { anchor: 'x' }), /anchor must be an object/);
    // the ids of the headings above: plain ids of the blocks, one per place above the section's own
    const install = v.sections.findIndex((s) => s.section === 'Install');
    expect(v.sections[install]!.anchor).toEqual({ id: 'install', above: [{ depth: 0, id: 'guide' }] });
    expect(validateCapture(v).payload.sections![install]!.anchor).toEqual({ id: 'install', above: [{ depth: 0, id: 'guide' }] });
    refused(withSection(install, { anchor: { id: 'install', above: [{ depth: 0, id: 'elsewhere' }] } }), /anchor.above holds an id/);
    refused(withSection(install, { anchor: { id: 'install', above: [{ depth: 0, id: 'guide', href: 'x' }] } }), /anchor.above holds an id/);
    refused(withSection(install, { anchor: { id: 'install', above: [{ depth: 1, id: 'guide' }] } }), /places in the heading path above/);
    refused(withSection(install, { anchor: { id: 'install', above: [{ depth: -1, id: 'guide' }] } }), /places in the heading path above/);
    refused(withSection(install, { anchor: { id: 'install', above: [] } }), /at most one id per heading above/);
    refused(withSection(install, { anchor: { id: 'install', above: 'guide' } }), /at most one id per heading above/);
    refused(withSection(0, { anchor: { id: 'guide', above: [{ depth: 0, id: 'guide' }] } }), /at most one id per heading above/);
  });

  it('refuses a page amplified into many copies of itself', async () => {
    const blocks = [h(1, 'Small', 'small'), p(words(30))];
    const v = await sent(blocks);
    const one = v.sections[0]!;
    const body = ('Small\n' + words(30) + ' ').repeat(150).trim().slice(0, 5990);
    const copies = Array.from({ length: 40 }, (_, i) => ({ ...one, ord: i, text: 'Small\n' + body, words: ('Small\n' + body).split(/\s+/).length }));
    refused({ ...v, sections: copies }, /more text than their blocks/);
  });
});

describe('a heading without an id whose words occur earlier on the page (a manual: "Examples" under each task)', () => {
  // A text fragment of "Examples" lands on the page's first "Examples": the second task's is linked by its
  // own first words, which the page holds nowhere else.
  const MANUAL: Block[] = [
    h(2, 'Copy', 'copy'),
    p(words(40, 'copy')),
    h(3, 'Examples'),
    p(`Copies one file. ${words(40, 'cex')}`),
    h(2, 'Move', 'move'),
    p(words(40, 'move')),
    h(3, 'Examples'),
    p(`Moves a whole directory elsewhere. ${words(800, 'mex')}`),
    h(3, 'Parameters'),
    { kind: 'table', text: `Attribute | Description\nfile | The file to move.\ntodir | ${words(40, 'todir')}` },
    h(3, 'Parameters'),
    { kind: 'table', text: `Attribute | Description\nfile | The file to copy again.\ntofile | ${words(40, 'tofile')}` },
  ];
  const anchorsOf = (sections: readonly Chunk[], heading: string) => sections.filter((s) => s.section === heading).map((s) => s.anchor.text);

  it("links such a section by its own first words, every window of it alike, and the first one by its heading", () => {
    const { chunks } = chunkBlocks(MANUAL);
    const examples = anchorsOf(chunks, 'Examples');
    expect(examples[0]).toBe('Examples');
    // The second task's section is long: every window links where its first does.
    expect(examples.length).toBeGreaterThan(2);
    expect(examples.slice(1).every((t) => t === 'Moves a whole directory elsewhere. mex0 mex1 mex2')).toBe(true);
  });

  it('takes a table cell the page holds once when the section opens with a table', () => {
    const { chunks } = chunkBlocks(MANUAL);
    // The first stays "Parameters" (its first occurrence); in the second, "Attribute", "Description" and
    // "file" repeat, "The file to copy again." does not.
    expect(anchorsOf(chunks, 'Parameters')).toEqual(['Parameters', 'The file to copy again.']);
  });

  it('keeps the heading when the section holds nothing the page has only once', () => {
    const { chunks } = chunkBlocks([h(2, 'A', 'a'), h(3, 'Notes'), p('Same words here.'), h(2, 'B', 'b'), h(3, 'Notes'), p('Same words here.')]);
    expect(anchorsOf(chunks, 'Notes')).toEqual(['Notes', 'Notes']);
  });

  it('never takes a lead a browser could not find or the background would refuse (CJK text, a long first word)', async () => {
    const jaPara = 'この節ではツールを導入する手順を説明します。'.repeat(10); // one unbroken run of 220 characters
    const url = `https://example.com/${'segment/'.repeat(20)}index.html`;
    const blocks: Block[] = [h(2, 'はじめに', 'intro'), p('インストールの前に読んでください。'), h(2, 'インストール'), p(jaPara), h(2, 'Setup', 'setup'), h(3, 'Examples'), p(words(20, 'a')), h(3, 'Examples'), p(`${url} is where the second example lives.`)];
    const v = await sent(blocks);
    // Accepted: before, the Japanese section's lead was its 220-character run and the whole capture was refused.
    expect(validateCapture(v).payload.sections).toEqual(v.sections);
    for (const c of v.sections) expect((c.anchor.text ?? '').length).toBeLessThanOrEqual(120);
    // Neither has a lead it could use: each keeps its heading's fragment.
    expect(anchorsOf(v.sections, 'インストール')).toEqual(['インストール']);
    expect(anchorsOf(v.sections, 'Examples')).toEqual(['Examples', 'Examples']);
  });

  it('links each of a hundred repeated headings on a long page by its own words', () => {
    const blocks: Block[] = [];
    for (let i = 0; i < 100; i++) blocks.push(h(2, `Task ${i}`, `t${i}`), p(words(400, `t${i}x`)), h(3, 'Examples'), p(`Example ${i} of the manual. ${words(30, `e${i}x`)}`));
    const { chunks } = chunkBlocks(blocks);
    const examples = anchorsOf(chunks, 'Examples');
    expect(examples).toHaveLength(100);
    expect(examples[0]).toBe('Examples');
    expect(examples.slice(1).every((t, k) => t === `Example ${k + 1} of the manual. e${k + 1}x0 e${k + 1}x1 e${k + 1}x2`)).toBe(true);
  });

  it('is accepted by the background, and a window may not link to words its section never had', async () => {
    const v = await sent(MANUAL);
    expect(validateCapture(v).payload.sections).toEqual(v.sections);
    const windows = v.sections.flatMap((s, i) => (s.section === 'Examples' && s.anchor.text !== 'Examples' ? [i] : []));
    const later = windows[windows.length - 1]!;
    expect(v.sections[later]!.text.includes(v.sections[later]!.anchor.text!)).toBe(false);
    // The first "Examples" section's phrase is not this section's: its window is refused.
    refused({ ...v, sections: v.sections.map((s, k) => (k === later ? { ...s, anchor: { text: 'Copies one file.' } } : s)) }, /not in the section/);
  });
});

describe('a folded heading (Block.folded: the summary of a closed <details>) links inside its section', () => {
  // A closed <details> opens for a link to an id or words inside its body, not for its summary's id or text
  // (Chromium 156, Firefox ESR 153): the section is linked by its own first words that the page holds once.
  const folded = (level: number, text: string, id?: string): Block => ({ ...h(level, text, id), folded: true });
  const FAQ: Block[] = [
    h(2, 'Shipping', 'shipping'),
    p(words(30, 'intro')),
    folded(3, 'How long does it take?', 'q-long'),
    p(`Two to four days. ${words(500, 'long')}`),
    folded(3, 'Is it free?'),
    p('Over fifty euros it is free of charge.'),
    h(3, 'Open question', 'q-open'),
    p(words(30, 'open')),
  ];
  const bySection = (chunks: readonly Chunk[], heading: string) => chunks.filter((c) => c.section === heading);

  it('links it by its first words (not its id), every window alike; an open one by its id', async () => {
    const v = await sent(FAQ);
    const long = bySection(v.sections, 'How long does it take?');
    expect(long.length).toBeGreaterThan(1);
    for (const c of long) expect(c.anchor.text).toBe('Two to four days. long0 long1 long2 long3');
    for (const c of long) expect(c.anchor.id).toBeUndefined();
    expect(bySection(v.sections, 'Open question')[0]!.anchor.id).toBe('q-open');
    // Merged into the section above (a short answer), it keeps that link as its part's.
    const part = v.sections.flatMap((c) => c.parts ?? []).find((x) => x.headingPath.at(-1) === 'Is it free?');
    expect(part?.anchor).toEqual({ text: 'Over fifty euros it is free of charge.' });
    // The background accepts the flag and the links, and cuts the same.
    const { payload } = validateCapture(v);
    expect(payload.blocks.filter((b) => b.folded).map((b) => b.text)).toEqual(['How long does it take?', 'Is it free?']);
    expect(payload.sections).toEqual(v.sections);
    // Without the flag: the id, as any heading.
    const plain = chunkBlocks(FAQ.map(({ folded: _, ...b }) => b)).chunks;
    expect(bySection(plain, 'How long does it take?')[0]!.anchor.id).toBe('q-long');
  });

  it('without words of its own to link by: its id; else, where its heading occurs earlier, the id of the heading above it', () => {
    const code = (t: string): Block => ({ kind: 'code', text: `${t}\n${words(25, t)}` });
    const blocks: Block[] = [
      h(2, 'fs.open', 'fs-open'), p(words(30, 'open')), folded(3, 'History', 'h-open'), code('a'),
      h(2, 'fs.close', 'fs-close'), p(words(30, 'close')), folded(3, 'History'), code('b'),
      h(2, 'fs.stat', 'fs-stat'), p(words(30, 'stat')), folded(3, 'Changes since 1.0'), code('c'),
    ];
    const { chunks } = chunkBlocks(blocks);
    const history = bySection(chunks, 'History');
    expect(history.map((c) => c.anchor.id)).toEqual(['h-open', 'fs-close']);
    // Its heading's words are nowhere earlier: a fragment of them lands on its (closed) summary.
    expect(bySection(chunks, 'Changes since 1.0')[0]!.anchor).toMatchObject({ text: 'Changes since 1.0' });
  });

  it('keeps a short section with its short folded sub-sections as one chunk of its own (a deprecation and its "History")', () => {
    // Node's deprecations: "DEP0026: util.print()" is a type and a sentence, its changelog a closed <details>.
    const blocks: Block[] = [
      h(2, 'List of deprecated APIs', 'list'),
      p(words(30, 'list')),
      h(3, 'DEP0025: require(node:sys)', 'dep0025'),
      p('Type: Runtime. The sys module is deprecated. Please use the util module instead.'),
      h(3, 'DEP0026: util.print()', 'dep0026'),
      folded(4, 'History'),
      { kind: 'table', text: 'Version | Changes\nv12.0.0 | End-of-Life.\nv6.12.0 | A deprecation code has been assigned.' },
      // The <details> is over: the walk re-opens the section it sat in (content/extract.ts).
      h(3, 'DEP0026: util.print()', 'dep0026'),
      p('Type: End-of-Life. util.print() has been removed. Please use console.log() instead.'),
    ];
    const { chunks } = chunkBlocks(blocks);
    const dep = chunks.find((c) => c.section === 'DEP0026: util.print()');
    expect(dep?.anchor.id).toBe('dep0026');
    expect(dep?.text).toContain('util.print() has been removed');
    expect(dep?.parts?.map((x) => x.headingPath.at(-1))).toEqual(['History']);
    // A short section without one still merges into the section above.
    expect(chunks.some((c) => c.section === 'DEP0025: require(node:sys)')).toBe(false);
  });
});
