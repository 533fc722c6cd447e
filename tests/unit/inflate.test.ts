/**
 * src/inflate.ts against Node's zlib (an independent DEFLATE implementation) and the platform's
 * CompressionStream (what the section store writes with): every block type, every level, text and
 * binary, long runs (overlapping copies), and refusal of malformed or truncated data.
 */
import fc from 'fast-check';
import { constants, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateRaw, inflateRawText, InflateError } from '../../src/inflate.js';

const bytes = (s: string) => new TextEncoder().encode(s);

async function streamDeflate(text: string): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer());
}

describe('inflateRaw', () => {
  it('decodes what zlib encodes, at every level and strategy (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 5000 }), fc.string({ maxLength: 3000, unit: 'grapheme' }).map(bytes), fc.array(fc.constantFrom('the ', 'river ', 'stone ', '\n', 'é', '{"t":[', '0'), { maxLength: 2000 }).map((a) => bytes(a.join('')))),
        fc.integer({ min: 0, max: 9 }),
        fc.constantFrom(constants.Z_DEFAULT_STRATEGY, constants.Z_FIXED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FILTERED),
        (data, level, strategy) => {
          const z = deflateRawSync(data, { level, strategy });
          expect(inflateRaw(new Uint8Array(z))).toEqual(data);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('decodes stored blocks larger than 64 KB and long runs', () => {
    const big = new Uint8Array(70_000).map((_, i) => (i * 2654435761) >>> 24);
    expect(inflateRaw(new Uint8Array(deflateRawSync(big, { level: 0 })))).toEqual(big);
    const run = new Uint8Array(100_000).fill(97);
    expect(inflateRaw(new Uint8Array(deflateRawSync(run, { level: 9 })))).toEqual(run);
    expect(inflateRaw(new Uint8Array(deflateRawSync(new Uint8Array(0))))).toEqual(new Uint8Array(0));
  });

  it('decodes what CompressionStream writes (the section store), as text', async () => {
    const texts = ['', 'a', JSON.stringify({ t: ['Heading\nSome body text about rivers and stones.'], h: [['Heading']], s: ['Heading'], a: [{ id: 'x' }] }), 'ünïcödé — 日本語のテキスト 😀 '.repeat(500), 'x'.repeat(70_000)];
    for (const t of texts) expect(inflateRawText(await streamDeflate(t))).toBe(t);
  });

  it('refuses truncated and malformed data', () => {
    const z = new Uint8Array(deflateRawSync(bytes('the river stone '.repeat(200)), { level: 6 }));
    expect(() => inflateRaw(z.subarray(0, z.length - 3))).toThrow(InflateError);
    expect(() => inflateRaw(new Uint8Array([0x07]))).toThrow(InflateError); // block type 3
    expect(() => inflateRaw(new Uint8Array([0x01, 0x05, 0x00, 0x00, 0x00]))).toThrow(/stored block length/);
    expect(() => inflateRaw(new Uint8Array(0))).toThrow(InflateError);
    // Random bytes: an error or some output, never a hang or a crash of another kind.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        try {
          inflateRaw(data);
        } catch (e) {
          expect(e).toBeInstanceOf(InflateError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
