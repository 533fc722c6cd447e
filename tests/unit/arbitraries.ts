/** Shared fast-check generators for hostile text. */
import fc from 'fast-check';

/** Single characters a page or a query can throw at the core. */
const SPECIAL = [
  '\u0000', '\u0007', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', // controls
  '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', // zero-width and invisible
  '\ud800', '\udbff', '\udc00', '\udfff', // lone surrogates
  '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', // bidi controls
  'ש', 'ל', 'ו', 'م', 'ر', 'ح', 'ب', 'ا', // RTL letters
  '😀', '👩‍💻', '🇫🇷', '\u{1f3fd}', '\ufe0f', // emoji, ZWJ sequence, flags, modifiers
  '漢', '字', '我', '们', 'の', 'カ', 'ナ', 'ก', 'ไ', 'ท', 'ย', 'ລ', 'ក', 'မ', '𠀀', // unspaced scripts
  '\u0301', '\u0308', '\u0e31', '\u093f', // combining marks
  'Ａ', 'ｚ', '１', 'ﬁ', 'Ⅻ', 'ǅ', 'İ', 'ß', 'Σ', 'ς', '𐐀', '𝐀', // compatibility and case oddities
  '.', '-', '_', ':', '::', '"', "'", '/', '\\', '(', ')', '@', '#', '%', '&', '*', '+', '=', '?', '!', ',', ' ', '\u00a0', '\u3000',
];

export const hostileChar: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
);

export const hostileText = (maxLength = 200, minLength = 0): fc.Arbitrary<string> => fc.string({ unit: hostileChar, minLength, maxLength });
