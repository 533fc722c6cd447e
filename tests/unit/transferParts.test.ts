/**
 * Exports and imports in parts (src/transferParts.ts, background/transferParts.ts): a browser carries at
 * most 64 MiB in one message, so a large index could be neither exported nor imported; and no string may
 * hold the whole file (V8's limit is about 536 million characters), so neither side ever joins it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileParts, LineSplitter, OutgoingLines, partEnd, textParts } from '../../src/transferParts.js';
import { Transfers, type ExportSource, type ImportSink } from '../../background/transferParts.js';
import { ProtocolError } from '../../src/protocol.js';

const UNITS = ['a', 'b', '\n', '🐍', 'é', '漢', '{', '"'];
const loneSurrogateAtEdge = (p: string) => /[\ud800-\udbff]$/.test(p) || /^[\udc00-\udfff]/.test(p);

describe('cutting a text into parts', () => {
  it('the parts put together are the text; none is longer than asked; none ends inside a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 400 }), fc.integer({ min: 2, max: 50 }), (text, max) => {
        const parts = textParts(text, max);
        expect(parts.join('')).toBe(text);
        for (const p of parts) {
          expect(p.length).toBeGreaterThan(0);
          expect(p.length).toBeLessThanOrEqual(max);
          expect(loneSurrogateAtEdge(p)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
  it('ends a part after a line when one ends in its second half', () => {
    const text = 'a first line of text\nthe second line\nthird\n';
    expect(partEnd(text, 0, 24)).toBe(21);
    expect(textParts(text, 24)).toEqual(['a first line of text\n', 'the second line\nthird\n']);
    // A line break in the first half is not worth a part that short: cut where the most fits.
    expect(partEnd('ab\ncdefghijklmnop', 0, 10)).toBe(10);
    expect(textParts('', 10)).toEqual([]);
  });
});

describe("an export's lines taken a part at a time (OutgoingLines)", () => {
  it('parts are the lines in order, at most max characters, whole lines unless one alone is longer', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '🐍', '"'), maxLength: 60 }).map((s) => s + '\n');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.integer({ min: 2, max: 40 }), (lines, max) => {
        const q = new OutgoingLines();
        for (const l of lines) q.push(l);
        const parts: string[] = [];
        while (q.chars) parts.push(q.take(max));
        expect(parts.join('')).toBe(lines.join(''));
        for (const p of parts) {
          expect(p.length).toBeGreaterThan(0);
          expect(p.length).toBeLessThanOrEqual(max);
          expect(loneSurrogateAtEdge(p)).toBe(false);
        }
        // When every line fits in a part, every part ends at the end of a line.
        if (lines.every((l) => l.length <= max)) for (const p of parts) expect(p.endsWith('\n')).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(new OutgoingLines().take(10)).toBe('');
  });
});

describe("an import's lines as its parts arrive (LineSplitter)", () => {
  it('gives the lines of the text wherever its parts were cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 300 }), fc.array(fc.nat(300), { maxLength: 12 }), (text, cuts) => {
        const at = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const s = new LineSplitter(1000);
        const got: string[] = [];
        let from = 0;
        for (const c of [...at, text.length]) {
          got.push(...s.push(text.slice(from, c)));
          from = c;
        }
        got.push(s.end());
        expect(got).toEqual(text.split('\n'));
        expect(s.overlong).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('drops a line longer than its cap without keeping it, and reads the lines after it', () => {
    const s = new LineSplitter(10);
    expect(s.push('short\n' + 'x'.repeat(8))).toEqual(['short']);
    // The long line goes on over three parts: never held whole.
    expect(s.push('y'.repeat(8))).toEqual([]);
    expect(s.push('z'.repeat(30) + '\nnext\nlast')).toEqual(['next']);
    expect(s.end()).toBe('last');
    expect(s.overlong).toBe(1);
    // A line over the cap that ends in the same part is dropped too.
    const t = new LineSplitter(5);
    expect(t.push('123456\n12345\n')).toEqual(['12345']);
    expect(t.overlong).toBe(1);
  });
});

describe("reading a file in slices (fileParts)", () => {
  const bytesOf = (s: string) => new TextEncoder().encode(s);
  const reader = (bytes: Uint8Array) => async (start: number, end: number) => bytes.slice(start, end);

  it('characters whose bytes straddle two slices are read whole; parts are at most max characters', async () => {
    const text = '{"t":"café 漢字 ภาษาไทย 🐍🐍 naïve"}\n'.repeat(20) + 'last line without a break é';
    const bytes = bytesOf(text);
    for (const sliceBytes of [1, 2, 3, 5, 7, 64]) {
      // The test means something: some slice edge falls inside a character (a UTF-8 continuation byte).
      if (sliceBytes < 64) expect(Array.from({ length: Math.floor(bytes.length / sliceBytes) }, (_, k) => bytes[(k + 1) * sliceBytes]).some((b) => b !== undefined && (b & 0xc0) === 0x80)).toBe(true);
      for (const max of [9, 40, 10_000]) {
        const parts: string[] = [];
        for await (const p of fileParts(bytes.length, reader(bytes), new TextDecoder(), max, sliceBytes)) parts.push(p);
        expect(parts.join(''), `slices of ${sliceBytes} bytes, parts of ${max}`).toBe(text);
        for (const p of parts) {
          expect(p.length).toBeLessThanOrEqual(max);
          expect(loneSurrogateAtEdge(p)).toBe(false);
        }
      }
    }
  });

  it('an empty file is no part; a byte order mark is not text (as File.text() reads it)', async () => {
    const none: string[] = [];
    for await (const p of fileParts(0, reader(new Uint8Array()), new TextDecoder())) none.push(p);
    expect(none).toEqual([]);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytesOf('{"kind":"x"}\n')]);
    const parts: string[] = [];
    for await (const p of fileParts(bom.length, reader(bom), new TextDecoder(), 100, 2)) parts.push(p);
    expect(parts.join('')).toBe('{"kind":"x"}\n');
  });
});

/** An export's lines, `perRead` at a time, counting the reads. */
class FakeExport implements ExportSource {
  reads = 0;
  written = 0;
  constructor(
    private readonly lines: string[],
    private readonly perRead: number,
  ) {}
  async next(): Promise<string[] | null> {
    const at = this.reads * this.perRead;
    if (at >= this.lines.length) return null;
    this.reads++;
    const out = this.lines.slice(at, at + this.perRead);
    this.written += out.length;
    return out;
  }
}

class FakeImport implements ImportSink {
  got: string[] = [];
  abandoned = 0;
  failAt = -1;
  async push(text: string) {
    if (this.got.length === this.failAt) throw new Error('storage full');
    this.got.push(text);
    return { pages: this.got.length, read: this.got.length, listed: null };
  }
  async end() {
    return { pages: this.got.length, skipped: 0, vectors: 0, excluded: 0 };
  }
  abandon() {
    this.abandoned++;
  }
}

describe('transfers held in the worker', () => {
  const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ s: 'pages', v: { url: `https://e.example/${i}`, title: `Seite ${i} 🐍 “quoted”` } }) + '\n');

  it('an export is read from its source only as its parts are asked for, and never held whole', async () => {
    const t = new Transfers(Date.now, 1000);
    const source = new FakeExport(lines, 5);
    const { token } = t.offer(source);
    expect(source.reads).toBe(0);
    const got: string[] = [];
    let part: number | null = 0;
    const first = await t.part(token, part);
    // The first part asked for only what fills it (5 lines of about 80 characters a read).
    expect(source.reads).toBeLessThanOrEqual(Math.ceil(1000 / (5 * 75)) + 1);
    got.push(first.text);
    part = first.next;
    let n = 1;
    while (part !== null) {
      const p = await t.part(token, part);
      expect(p.text.length).toBeLessThanOrEqual(1000);
      expect(p.pages).toBe(source.written);
      expect(t.peakChars(token) ?? 0).toBeLessThanOrEqual(1000 + 5 * 100);
      got.push(p.text);
      part = p.next;
      n++;
    }
    expect(n).toBeGreaterThan(10);
    expect(got.join('')).toBe(lines.join(''));
    // After its last part nothing more is read; the last part can still be asked again (its answer lost).
    const reads = source.reads;
    await expect(t.part(token, n)).rejects.toThrow(ProtocolError);
    expect((await t.part(token, n - 1)).text).toBe(got.at(-1));
    expect(source.reads).toBe(reads);
  });

  it('the part asked for last, asked again (its answer lost), is the same text; any other part out of order is refused', async () => {
    const t = new Transfers(Date.now, 1000);
    const source = new FakeExport(lines, 5);
    const { token } = t.offer(source);
    const a = await t.part(token, 0);
    // Asked again: the same answer, nothing read for it (it was refused: the export was lost).
    const reads = source.reads;
    expect(await t.part(token, 0)).toEqual(a);
    expect(source.reads).toBe(reads);
    await expect(t.part(token, a.next! + 1)).rejects.toThrow(ProtocolError);
    // Asked again while it is still being read (the first request timed out): the one reading answers both.
    const [b, b2] = await Promise.all([t.part(token, a.next!), t.part(token, a.next!)]);
    expect(b2).toEqual(b);
    expect(b.text.length).toBeGreaterThan(0);
    // An earlier part than the last asked is gone (the page has it).
    await expect(t.part(token, 0)).rejects.toThrow(ProtocolError);
    const c = await t.part(token, b.next!);
    expect([a.text, b.text, c.text].join('')).toBe(lines.join('').slice(0, a.text.length + b.text.length + c.text.length));
  });

  it('an import is handed on part by part; a part too long is refused, not cut; a part that fails ends the import', async () => {
    const t = new Transfers(Date.now, 1000);
    const sink = new FakeImport();
    let token: string | null = null;
    const parts = textParts(lines.join(''), 1000);
    for (const part of parts) token = (await t.receive(token, part, () => sink)).token;
    expect(sink.got.join('')).toBe(lines.join(''));
    expect(await t.finish(token!)).toEqual({ pages: parts.length, skipped: 0, vectors: 0, excluded: 0 });
    expect(sink.abandoned).toBe(1);
    await expect(t.finish(token!)).rejects.toThrow(/interrupted/);
    await expect(t.receive(null, 'x'.repeat(1001), () => new FakeImport())).rejects.toThrow(ProtocolError);

    const failing = new FakeImport();
    failing.failAt = 2;
    let f: string | null = null;
    for (const part of parts.slice(0, 2)) f = (await t.receive(f, part, () => failing)).token;
    await expect(t.receive(f, parts[2]!, () => failing)).rejects.toThrow(/storage full/);
    expect(failing.abandoned).toBe(1);
    await expect(t.receive(f, parts[3]!, () => failing)).rejects.toThrow(/interrupted/);
  });

  it('a token the worker does not hold (it restarted between two parts) is reported as interrupted', async () => {
    const t = new Transfers();
    await expect(t.receive('no-such-token', 'x', () => new FakeImport())).rejects.toThrow(/interrupted/);
    await expect(t.part('no-such-token', 0)).rejects.toThrow(/interrupted/);
    await expect(t.finish('no-such-token')).rejects.toThrow(/interrupted/);
  });

  it('a transfer left unfinished is dropped after ten minutes (an import is abandoned)', async () => {
    let now = 0;
    const t = new Transfers(() => now);
    const sink = new FakeImport();
    const { token } = await t.receive(null, 'half a file', () => sink);
    const out = t.offer(new FakeExport(lines, 5));
    now += 11 * 60_000;
    await expect(t.finish(token)).rejects.toThrow(/interrupted/);
    expect(sink.abandoned).toBe(1);
    await expect(t.part(out.token, 0)).rejects.toThrow(/interrupted/);
  });
});
