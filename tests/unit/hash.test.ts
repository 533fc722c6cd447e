import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Hash53, hash53 } from '../../src/hash.js';

const digest = (pieces: string[]) => pieces.reduce((h, p) => h.update(p), new Hash53()).digest();

describe('Hash53 (hash53 fed piece by piece)', () => {
  it('gives the same number for the same pieces, a 53-bit integer', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' })), (pieces) => {
        const a = digest(pieces);
        expect(digest([...pieces])).toBe(a);
        expect(Number.isSafeInteger(a) && a >= 0).toBe(true);
      }),
    );
  });

  it('tells pieces apart by where they are cut, and by one changed character', () => {
    expect(digest(['ab', 'c'])).not.toBe(digest(['a', 'bc']));
    expect(digest(['abc'])).not.toBe(digest(['abc', '']));
    expect(digest(['page text'])).not.toBe(digest(['page texu']));
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 6 }), fc.nat(), (pieces, k) => {
        const i = k % pieces.length;
        const changed = [...pieces];
        const s = changed[i]!;
        changed[i] = s.slice(0, -1) + String.fromCharCode((s.charCodeAt(s.length - 1) + 1) % 0xffff);
        expect(digest(changed)).not.toBe(digest(pieces));
      }),
    );
  });

  it('is not a different function for one piece: it starts where hash53 starts', () => {
    // With nothing fed it is hash53 of the empty string: the same start and the same final mixing.
    expect(new Hash53().digest()).toBe(hash53(''));
  });
});
