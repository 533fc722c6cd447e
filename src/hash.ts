/** A fast 53-bit string hash (cyrb53-style mixing); enough to tell "same content" from "changed". */
export function hash53(str: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * hash53 fed piece by piece: `update` any number of strings, then `digest`. The same pieces give the
 * same number; it differs from hash53 of their concatenation (each piece is closed with a separator).
 * Lets a caller hash megabytes of text in slices, yielding in between.
 */
export class Hash53 {
  private h1: number;
  private h2: number;
  constructor(seed = 0) {
    this.h1 = 0xdeadbeef ^ seed;
    this.h2 = 0x41c6ce57 ^ seed;
  }
  update(str: string): this {
    let { h1, h2 } = this;
    for (let i = 0; i < str.length; i++) {
      const ch = str.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    // A separator after every piece: ['ab', 'c'] and ['a', 'bc'] differ.
    this.h1 = Math.imul(h1, 2654435761);
    this.h2 = Math.imul(h2 ^ 0xffff, 1597334677);
    return this;
  }
  digest(): number {
    let { h1, h2 } = this;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  }
}

export function hashHex(str: string): string {
  return hash53(str).toString(16).padStart(14, '0');
}
