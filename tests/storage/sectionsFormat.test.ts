/**
 * The section store's two formats (background/sections.ts). Format 1 records users already have (the
 * committed fixture, written by main before format 2) read back exactly, blocks included; format 2 (the
 * sections and the blocks in one stream, relative slice starts) reads back exactly whatever the text —
 * all of Unicode, lone surrogates, NUL, quotes — and is smaller than format 1 on a cut page; any record
 * that is not what the writer makes (an unknown format, a cut stream, references out of place, columns
 * of the wrong length, random bytes) is refused with an Error, never read as a wrong text.
 */
import { readFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { FORMAT_2, isOneStream, keepsBlocks, ONE_STREAM, oneStream, packBlocks, packPage, packSections, recordBlocks, unpackSections } from '../../background/sections.js';
import { makeVocabulary, synthPages, toPayload } from '../bench/corpus.js';

interface FixtureCase {
  name: string;
  z: string;
  b?: string;
  chunks: { headingPath: string[]; section: string; anchor: { id?: string; text?: string }; parts?: unknown[]; text: string }[];
  blocks?: Block[];
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/sections-v1.json', import.meta.url), 'utf8')) as { cases: FixtureCase[] };
const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));
const page = (n: number) => ({ url: 'https://a.example/p', chunkIds: Array.from({ length: n }, (_, i) => i + 10) });
const view = (s: { headingPath: string[]; section: string; anchor: object; parts?: unknown[]; text: string }) => ({ headingPath: s.headingPath, section: s.section, anchor: s.anchor, parts: s.parts, text: s.text });

describe('format 1 (records written before format 2) is read for ever', () => {
  it('has every kind of record in the fixture', () => {
    expect(fixture.cases.map((c) => c.name)).toHaveLength(5);
    expect(fixture.cases.filter((c) => c.b)).toHaveLength(3);
  });
  for (const c of fixture.cases) {
    it(`reads ${c.name} exactly, and its blocks`, async () => {
      const rec = { z: bytes(c.z), ...(c.b ? { b: bytes(c.b) } : {}) };
      expect(isOneStream(rec.z)).toBe(false);
      const back = await unpackSections(rec, page(c.chunks.length));
      expect(back.map(view)).toEqual(c.chunks.map((x) => view({ ...x, parts: x.parts })));
      expect(back.map((s) => s.id)).toEqual(page(c.chunks.length).chunkIds);
      expect(keepsBlocks(rec)).toBe(!!c.b);
      expect(await recordBlocks(rec)).toEqual(c.b ? c.blocks : null);
    });
  }
});

// Any UTF-16 string: lone surrogates, NUL, controls, every plane. (A block's id is never empty: validate.ts
// plainId; both formats store an empty id as none.)
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: fc.constantFrom('\ud800', '\udfff', '😀', '\u0000', '"', '\\', '\n', ' ', 'the ', 'heron ', '日本'), maxLength: 80 }));
const block = fc.record({ kind: fc.constantFrom('heading', 'text', 'code', 'table', 'list', 'quote'), text: anyText, id: fc.option(anyText.filter((t) => t.length > 0), { nil: undefined }), level: fc.integer({ min: 1, max: 6 }) }).map((b): Block => {
  const out: Block = { kind: b.kind as Block['kind'], text: b.text };
  if (b.kind === 'heading') out.level = b.level;
  if (b.id !== undefined) out.id = b.id;
  return out;
});

describe('format 2: sections and blocks in one stream', () => {
  it('any sections against any blocks read back exactly, blocks included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.nat(), fc.nat(), anyText, fc.array(anyText, { maxLength: 3 }), fc.boolean()), { minLength: 1, maxLength: 6 }), async (blocks, specs) => {
        const src = blocks.map((b) => b.text).join('\n');
        // Texts cut from the blocks (slices anywhere, out of order, joined with other text) and texts of their own.
        const chunks = specs.map(([a, b, extra, path, lastIsName]) => {
          const from = a % (src.length + 1);
          const text = src.slice(from, from + 30 + (b % 400)) + extra + src.slice(b % (src.length + 1));
          return { headingPath: path, section: lastIsName && path.length ? path[path.length - 1]! : extra, anchor: path.length ? { id: path[0]! } : {}, text };
        });
        const z = await packPage(chunks, blocks);
        expect(isOneStream(z)).toBe(true);
        const back = await unpackSections({ z }, page(chunks.length));
        expect(back.map(view)).toEqual(chunks.map((c) => view({ ...c, parts: undefined })));
        expect(await recordBlocks({ z })).toEqual(blocks);
      }),
      { numRuns: 150 },
    );
  });

  it('a cut page reads back as cut (merged parts, anchors), in fewer bytes than format 1', async () => {
    for (const p of synthPages(makeVocabulary(3), 4, 60, [8, 12]).slice(0, 3)) {
      const cut = await cutSections(toPayload(p).blocks);
      const z = await packPage(cut.sections, cut.blocks);
      const back = await unpackSections({ z }, page(cut.sections.length));
      expect(back.map(view)).toEqual(cut.sections.map((s) => view({ ...s, parts: s.parts })));
      const v1 = (await packSections(cut.sections, cut.blocks)).byteLength + (await packBlocks(cut.blocks)).byteLength;
      expect(z.byteLength).toBeLessThan(v1 * 0.99);
      // Most slice starts are written relative to the text before (small numbers), not as offsets into the page.
      const t = (JSON.parse(inflateRawSync(z.subarray(2)).toString()) as { t: (string | number)[][] }).t.flat().filter((x) => typeof x === 'number' && x < 0);
      expect(t.length).toBeGreaterThanOrEqual(cut.sections.length);
    }
  });

  it('the ids of the headings above a section (anchor.above) read back; malformed ones are dropped', async () => {
    const blocks: Block[] = [
      { kind: 'heading', level: 1, text: 'Chapter', id: 'chap' },
      { kind: 'heading', level: 2, text: 'First', id: 'first' },
      { kind: 'text', text: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty' },
    ];
    const cut = await cutSections(blocks);
    expect(cut.sections.map((s) => s.anchor)).toEqual([{ id: 'first', above: [{ depth: 0, id: 'chap' }] }]);
    const back = await unpackSections({ z: await packPage(cut.sections, cut.blocks) }, page(1));
    expect(back[0]!.anchor).toEqual({ id: 'first', above: [{ depth: 0, id: 'chap' }] });
    // A record written by hand: entries out of order, of the wrong shape or type are left out.
    const above = [{ depth: 0, id: 'chap' }, { depth: 0, id: 'again' }, { depth: 'x', id: 'y' }, null, { depth: 3, id: 7 }, { depth: 2, id: 'deep' }];
    const json = JSON.stringify({ t: ['Chapter > First\nbody'], h: [['Chapter', 'First']], s: [0], a: [{ id: 'first', above }], b: [] });
    const z = oneStream(new Uint8Array(deflateRawSync(Buffer.from(json))));
    expect((await unpackSections({ z }, page(1)))[0]!.anchor).toEqual({ id: 'first', above: [{ depth: 0, id: 'chap' }, { depth: 2, id: 'deep' }] });
  });

  it('a huge page round-trips', async () => {
    const text = 'x'.repeat(3_000_000) + '\ud800' + 'y '.repeat(500_000);
    const blocks: Block[] = [{ kind: 'text', text }];
    const z = await packPage([{ headingPath: [], section: '', anchor: {}, text }], blocks);
    expect(z.byteLength).toBeLessThan(100_000);
    expect((await unpackSections({ z }, page(1)))[0]!.text).toBe(text);
  });
});

describe('a malformed record is refused, never read as a wrong text', () => {
  const blocks: Block[] = [{ kind: 'heading', level: 1, text: 'Herons' }, { kind: 'text', text: 'the heron waits in the shallows of the river for a fish to come by, still and patient' }];
  const chunks = [{ headingPath: ['Herons'], section: 'Herons', anchor: {}, text: 'Herons\nthe heron waits in the shallows of the river for a fish to come by, still and patient' }];
  const stream = async () => JSON.parse(inflateRawSync((await packPage(chunks, blocks)).subarray(2)).toString()) as Record<string, unknown>;
  const remade = (blob: unknown) => oneStream(new Uint8Array(deflateRawSync(JSON.stringify(blob))));

  it('refuses an unknown format, a cut stream, and broken columns', async () => {
    const z = await packPage(chunks, blocks);
    expect(z[0]).toBe(ONE_STREAM);
    expect(z[1]).toBe(FORMAT_2);
    await expect(unpackSections({ z }, page(1))).resolves.toHaveLength(1);
    await expect(unpackSections({ z: Uint8Array.from([ONE_STREAM, 3, ...z.subarray(2)]) }, page(1))).rejects.toThrow(/unknown format/);
    await expect(unpackSections({ z: z.subarray(0, z.length - 4) }, page(1))).rejects.toThrow();
    await expect(unpackSections({ z: Uint8Array.from([ONE_STREAM, FORMAT_2]) }, page(1))).rejects.toThrow();
    await expect(unpackSections({ z }, page(2))).rejects.toThrow(/1 sections for 2 chunk ids/);
    const good = await stream();
    const broken: [string, unknown][] = [
      ['a slice past the blocks', { ...good, t: [[-1, 10_000]] }],
      ['a slice of no length', { ...good, t: [[0, 0]] }],
      ['a fractional start', { ...good, t: [[0.5, 3]] }],
      ['a start without a length', { ...good, t: [['x', 3]] }],
      ['a text that is neither string nor reference', { ...good, t: [7] }],
      ['a name taken from an empty heading path', { ...good, h: [[]], s: [0] }],
      ['a name that is another number', { ...good, s: [1] }],
      ['columns of different lengths', { ...good, h: [] }],
      ['blocks that are not rows', { ...good, b: 'x' }],
      ['a block of an unknown kind', { ...good, b: [['z', 'text']] }],
      ['no blocks', { ...good, b: undefined }],
      ['not an object', [1, 2]],
      ['null', null],
    ];
    for (const [what, blob] of broken) await expect(unpackSections({ z: remade(blob) }, page(1)), what).rejects.toThrow(Error);
  });

  it('random bytes after the marker are refused with an Error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (junk) => {
        const z = Uint8Array.from([ONE_STREAM, FORMAT_2, ...junk]);
        const r = await unpackSections({ z }, page(1)).then(
          () => 'read',
          (e: unknown) => (e instanceof Error ? 'refused' : 'threw a non-Error'),
        );
        expect(r).not.toBe('threw a non-Error');
        // Junk that happens to inflate and parse must still be a well-formed record to be read.
        if (r === 'read') expect(junk.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
