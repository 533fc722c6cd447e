/**
 * Exports and imports in parts (src/transferParts.ts, background/transferParts.ts): a browser carries at
 * most 64 MiB in one message, so a large index could be neither exported nor imported.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partEnd, textParts } from '../../src/transferParts.js';
import { Transfers } from '../../background/transferParts.js';
import { ProtocolError } from '../../src/protocol.js';

describe('cutting a text into parts', () => {
  it('the parts put together are the text; none is longer than asked; none ends inside a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '\n', '🐍', 'é', '{', '"'), maxLength: 400 }), fc.integer({ min: 2, max: 50 }), (text, max) => {
        const parts = textParts(text, max);
        expect(parts.join('')).toBe(text);
        for (const p of parts) {
          expect(p.length).toBeGreaterThan(0);
          expect(p.length).toBeLessThanOrEqual(max);
          expect(/[\ud800-\udbff]$/.test(p)).toBe(false);
          expect(/^[\udc00-\udfff]/.test(p)).toBe(false);
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

describe('transfers held in the worker', () => {
  const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ s: 'pages', v: { url: `https://e.example/${i}`, title: `Seite ${i} 🐍 “quoted”` } })).join('\n');

  it('an export read part by part is the export, and is let go after its last part', () => {
    const t = new Transfers(Date.now, 1000);
    const { token, size } = t.offer(lines);
    expect(size).toBe(lines.length);
    const got: string[] = [];
    let n = 0;
    for (let from: number | null = 0; from !== null; n++) {
      const p = t.part(token, from);
      expect(p.text.length).toBeLessThanOrEqual(1000);
      got.push(p.text);
      from = p.next;
    }
    expect(n).toBeGreaterThan(10);
    expect(got.join('')).toBe(lines);
    expect(() => t.part(token, 0)).toThrow(/interrupted/);
  });

  it('an import sent part by part is the file; a part too long or a total too large is refused, not cut', () => {
    const t = new Transfers(Date.now, 1000, 50_000);
    let token: string | null = null;
    for (const part of textParts(lines, 1000)) token = t.receive(token, part).token;
    expect(t.take(token!)).toBe(lines);
    expect(() => t.take(token!)).toThrow(/interrupted/);
    expect(() => t.receive(null, 'x'.repeat(1001))).toThrow(ProtocolError);
    let big: string | null = null;
    expect(() => {
      for (let i = 0; i < 60; i++) big = t.receive(big, 'y'.repeat(1000)).token;
    }).toThrow(/at most 50,000 characters/);
    // The refused import is gone: nothing of it can be imported.
    expect(() => t.take(big!)).toThrow(/interrupted/);
  });

  it('a token the worker does not hold (it restarted between two parts) is reported as interrupted', () => {
    const t = new Transfers();
    expect(() => t.receive('no-such-token', 'x')).toThrow(/interrupted/);
    expect(() => t.part('no-such-token', 0)).toThrow(/interrupted/);
  });

  it('a transfer left unfinished is dropped after ten minutes', () => {
    let now = 0;
    const t = new Transfers(() => now);
    const { token } = t.receive(null, 'half a file');
    now += 11 * 60_000;
    expect(() => t.take(token)).toThrow(/interrupted/);
  });
});
