/**
 * A page's sections record (background/sections.ts): with the page's blocks kept beside it, section
 * texts are stored as references into the blocks (issue 17) and read back exactly, whatever the texts
 * (cut from the blocks, partly or not at all); a record that refers to blocks it lacks or reaches past
 * them is an error (verifyIndex reports it), never a wrong text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { deflate, inflate } from '../../background/deflate.js';
import { blocksJson, packBlocks, packPage, packSections, recordBlocks, unpackSections } from '../../background/sections.js';

const page = (n: number) => ({ url: 'https://a.example/p', chunkIds: Array.from({ length: n }, (_, i) => i + 1) });
const meta = { headingPath: ['H'], section: 'H', anchor: {} };
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'ηθ', '日本語', '😀', 'x', ' ', '\n', '…', ':'];
const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 120 }).map((w) => w.join(' '));

describe('sections record with kept blocks', () => {
  it('stores a cut page\'s texts as references, reads them back exactly, in far fewer bytes', async () => {
    const para = (i: number) => `Paragraph ${i} tells how the heron waits in the shallows of the river, ${'still and patient '.repeat(3 + (i % 4))}until a fish comes by.`;
    const raw: Block[] = [{ kind: 'heading', level: 1, text: 'Herons' }];
    for (let i = 0; i < 40; i++) raw.push(i % 8 === 0 ? { kind: 'heading', level: 2, text: `Part ${i / 8}`, id: `p${i}` } : { kind: 'text', text: para(i) });
    const cut = await cutSections(raw);
    expect(cut.sections.length).toBeGreaterThan(2);
    const b = await packBlocks(cut.blocks);
    const literal = await packSections(cut.sections);
    const refs = await packSections(cut.sections, cut.blocks);
    const parsed = JSON.parse(await inflate(refs)) as { t: unknown[] };
    expect(parsed.t.every((t) => Array.isArray(t))).toBe(true);
    expect(refs.byteLength).toBeLessThan(literal.byteLength / 2);
    const back = await unpackSections({ z: refs, b }, page(cut.sections.length));
    expect(back.map((s) => [s.text, s.headingPath, s.anchor, s.parts])).toEqual(cut.sections.map((s) => [s.text, s.headingPath, s.anchor, s.parts]));
    expect(back).toEqual(await unpackSections({ z: literal }, page(cut.sections.length)));
  });

  it('any texts against any blocks read back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 6 }), fc.array(text, { maxLength: 4 }), fc.nat(), async (blockTexts, extra, seed) => {
        const blocks: Block[] = blockTexts.map((t) => ({ kind: 'text', text: t }));
        const src = blockTexts.join('\n');
        // Texts cut from the blocks (any slices, joined, with words between), and texts of their own.
        const slice = (k: number) => src.slice((seed * (k + 1)) % (src.length + 1), ((seed * (k + 7)) % (src.length + 1)) + 40);
        const texts = [src, slice(1) + ' : ' + slice(2), '…' + slice(3), ...extra];
        const chunks = texts.map((t) => ({ ...meta, text: t }));
        const back = await unpackSections({ z: await packSections(chunks, blocks), b: await packBlocks(blocks) }, page(chunks.length));
        expect(back.map((s) => s.text)).toEqual(texts);
      }),
      { numRuns: 60 },
    );
  });

  it('a record referring to blocks it lacks, or past their end, cannot be read', async () => {
    const blocks: Block[] = [{ kind: 'text', text: 'the heron waits in the shallows of the river for a fish to come by' }];
    const z = await packSections([{ ...meta, text: blocks[0]!.text }], blocks);
    await expect(unpackSections({ z }, page(1))).rejects.toThrow(/blocks it lacks/);
    const past = await deflate(JSON.stringify({ t: [[10, 500]], h: [[]], s: [''], a: [{}] }));
    await expect(unpackSections({ z: past, b: await packBlocks(blocks) }, page(1))).rejects.toThrow(/reference/);
    const shorter = await packBlocks([{ kind: 'text', text: 'the heron' }]);
    await expect(unpackSections({ z, b: shorter }, page(1))).rejects.toThrow(/reference/);
  });

  /** The blocks as cut, and as read back from a record of either format, are the blocks given. */
  async function expectKeptInBothFormats(raw: Block[]): Promise<void> {
    const cut = await cutSections(raw);
    expect(cut.blocks).toEqual(raw);
    expect(await recordBlocks({ z: await packSections(cut.sections, cut.blocks), b: await packBlocks(cut.blocks) })).toEqual(raw);
    expect(await recordBlocks({ z: await packPage(cut.sections, cut.blocks) })).toEqual(raw);
  }

  it('keeps folded headings (a closed <details> summary: Block.folded) in both formats, with and without an id', async () => {
    const raw: Block[] = [
      { kind: 'heading', level: 2, text: 'Questions', id: 'faq' },
      { kind: 'heading', level: 3, text: 'How long does it take?', folded: true },
      { kind: 'text', text: 'Two to four days, the heron says, for a parcel to come by.' },
      { kind: 'heading', level: 3, text: 'Is it free?', id: 'q-free', folded: true },
      { kind: 'text', text: 'Over fifty euros the heron carries it for free.' },
    ];
    await expectKeptInBothFormats(raw);
    // A reader from before the flag took the 0 for no id and read the rest as it always did.
    const rows = JSON.parse(blocksJson(raw)) as unknown[][];
    expect(rows[1]).toEqual(['h3', 'How long does it take?', 0, 1]);
    expect(rows[3]).toEqual(['h3', 'Is it free?', 'q-free', 1]);
  });

  it("keeps an entry's heading (Block.entry: a method of a reference) in both formats, beside folded ones", async () => {
    const raw: Block[] = [
      { kind: 'heading', level: 3, text: 'Public Instance Methods', id: 'methods' },
      { kind: 'heading', level: 4, text: 'chr → string', id: 'method-i-chr', entry: true },
      { kind: 'text', text: 'Returns the first character of the heron.' },
      { kind: 'heading', level: 5, text: 'Is it free?', folded: true },
      { kind: 'text', text: 'Over fifty euros the heron carries it for free.' },
    ];
    await expectKeptInBothFormats(raw);
    const rows = JSON.parse(blocksJson(raw)) as unknown[][];
    // Flags after the id: 2 an entry (a reader before the flag reads it as no folded heading), 1 folded.
    expect(rows[1]).toEqual(['h4', 'chr → string', 'method-i-chr', 2]);
    expect(rows[3]).toEqual(['h5', 'Is it free?', 0, 1]);
  });
});
