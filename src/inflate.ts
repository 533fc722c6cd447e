/**
 * Raw DEFLATE (RFC 1951) decoding, synchronous, in JavaScript. The section store's records are small
 * (a page's sections: about 1 KB compressed; its blocks: about 16 KB), and the platform's
 * DecompressionStream costs about 1.6 ms a record whatever its size (a stream, a Blob, a Response and
 * their hops), which made reading the 30 candidates' pages for proximity most of a search at 52k
 * sections. Decoding them here costs a fraction of that. Written from the RFC: stored, fixed-Huffman and
 * dynamic-Huffman blocks; canonical codes decoded through one lookup table per code.
 */

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order the code-length code's lengths are sent in. */
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code as a table indexed by the next `bits` input bits: symbol << 4 | code length (0: no code). */
interface Table {
  entries: Uint32Array;
  bits: number;
}

export class InflateError extends Error {
  constructor(message: string) {
    super(`inflate: ${message}`);
    this.name = 'InflateError';
  }
}

/** The canonical code of these code lengths (0: symbol unused), as a lookup table. */
function buildTable(lengths: ArrayLike<number>): Table {
  const count = new Uint16Array(16);
  let max = 0;
  for (let i = 0; i < lengths.length; i++) {
    const l = lengths[i]!;
    count[l]!++;
    if (l > max) max = l;
  }
  count[0] = 0;
  // Over-subscribed codes are invalid (an incomplete one is allowed: a single-symbol distance code).
  let left = 1;
  for (let l = 1; l <= 15; l++) {
    left = (left << 1) - count[l]!;
    if (left < 0) throw new InflateError('over-subscribed code');
  }
  const next = new Uint16Array(16);
  for (let l = 1, code = 0; l <= 15; l++) {
    code = (code + count[l - 1]!) << 1;
    next[l] = code;
  }
  const bits = Math.max(max, 1);
  const entries = new Uint32Array(1 << bits);
  for (let sym = 0; sym < lengths.length; sym++) {
    const l = lengths[sym]!;
    if (!l) continue;
    const code = next[l]!++;
    // Codes are sent most significant bit first into a stream read least significant bit first.
    let rev = 0;
    for (let i = 0; i < l; i++) rev |= ((code >>> i) & 1) << (l - 1 - i);
    for (let i = rev; i < entries.length; i += 1 << l) entries[i] = (sym << 4) | l;
  }
  return { entries, bits };
}

let fixed: { lit: Table; dist: Table } | null = null;
function fixedTables(): { lit: Table; dist: Table } {
  if (!fixed) {
    const lit = new Uint8Array(288);
    lit.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
    fixed = { lit: buildTable(lit), dist: buildTable(new Uint8Array(30).fill(5)) };
  }
  return fixed;
}

/** Decodes raw DEFLATE data (no zlib or gzip header); throws InflateError on anything malformed or truncated. */
export function inflateRaw(input: Uint8Array): Uint8Array {
  let pos = 0;
  let buf = 0;
  let cnt = 0;
  let out = new Uint8Array(Math.max(1024, input.length * 4));
  let n = 0;

  const need = (k: number) => {
    while (cnt < k) {
      if (pos >= input.length) throw new InflateError('unexpected end of data');
      buf |= input[pos++]! << cnt;
      cnt += 8;
    }
  };
  const take = (k: number): number => {
    if (k === 0) return 0;
    need(k);
    const v = buf & ((1 << k) - 1);
    buf >>>= k;
    cnt -= k;
    return v;
  };
  const decode = (t: Table): number => {
    // Fill up to the table's width, or what is left of the input (a short final code needs no more).
    while (cnt < t.bits && pos < input.length) {
      buf |= input[pos++]! << cnt;
      cnt += 8;
    }
    const e = t.entries[buf & ((1 << t.bits) - 1)]!;
    const l = e & 15;
    if (l === 0 || l > cnt) throw new InflateError(l === 0 ? 'invalid code' : 'unexpected end of data');
    buf >>>= l;
    cnt -= l;
    return e >>> 4;
  };
  const room = (k: number) => {
    if (n + k <= out.length) return;
    const grown = new Uint8Array(Math.max(out.length * 2, n + k));
    grown.set(out.subarray(0, n));
    out = grown;
  };

  for (let last = 0; !last; ) {
    last = take(1);
    const type = take(2);
    if (type === 0) {
      // Stored: to the byte boundary, LEN and its complement, LEN bytes.
      take(cnt & 7);
      const len = take(16);
      if ((take(16) ^ 0xffff) !== len) throw new InflateError('stored block length mismatch');
      room(len);
      let k = 0;
      while (k < len && cnt >= 8) {
        out[n++] = take(8);
        k++;
      }
      if (pos + (len - k) > input.length) throw new InflateError('unexpected end of data');
      out.set(input.subarray(pos, pos + (len - k)), n);
      n += len - k;
      pos += len - k;
      continue;
    }
    let lit: Table;
    let dist: Table;
    if (type === 1) ({ lit, dist } = fixedTables());
    else if (type === 2) {
      const hlit = take(5) + 257;
      const hdist = take(5) + 1;
      const hclen = take(4) + 4;
      if (hlit > 286 || hdist > 30) throw new InflateError('too many codes');
      const clen = new Uint8Array(19);
      for (let i = 0; i < hclen; i++) clen[CLEN_ORDER[i]!] = take(3);
      const ct = buildTable(clen);
      const lengths = new Uint8Array(hlit + hdist);
      for (let i = 0; i < lengths.length; ) {
        const sym = decode(ct);
        if (sym < 16) {
          lengths[i++] = sym;
          continue;
        }
        let rep: number;
        let val = 0;
        if (sym === 16) {
          if (i === 0) throw new InflateError('repeat with no previous length');
          val = lengths[i - 1]!;
          rep = 3 + take(2);
        } else if (sym === 17) rep = 3 + take(3);
        else rep = 11 + take(7);
        if (i + rep > lengths.length) throw new InflateError('too many code lengths');
        lengths.fill(val, i, i + rep);
        i += rep;
      }
      if (!lengths[256]) throw new InflateError('no end-of-block code');
      lit = buildTable(lengths.subarray(0, hlit));
      dist = buildTable(lengths.subarray(hlit));
    } else throw new InflateError('invalid block type');

    for (;;) {
      const sym = decode(lit);
      if (sym < 256) {
        room(1);
        out[n++] = sym;
        continue;
      }
      if (sym === 256) break;
      const li = sym - 257;
      if (li >= 29) throw new InflateError('invalid length code');
      const len = LENGTH_BASE[li]! + take(LENGTH_EXTRA[li]!);
      const di = decode(dist);
      if (di >= 30) throw new InflateError('invalid distance code');
      const d = DIST_BASE[di]! + take(DIST_EXTRA[di]!);
      if (d > n) throw new InflateError('distance before the start');
      room(len);
      // Byte by byte: a copy may overlap what it writes (a run).
      for (let k = 0, from = n - d; k < len; k++) out[n++] = out[from + k]!;
    }
  }
  return out.subarray(0, n);
}

const utf8 = new TextDecoder();

/** Raw DEFLATE data decoded as UTF-8 text (invalid sequences replaced, as Response.text() does). */
export function inflateRawText(input: Uint8Array): string {
  return utf8.decode(inflateRaw(input));
}
