/**
 * Exports and imports travel between the Options page and the background in parts: a browser carries at
 * most 64 MiB in one message (Chrome: "Message length exceeded maximum allowed length"), and an export
 * of a large index is more. Pure: where a text is cut.
 */

/** The most characters in one part: at most 4 bytes each in UTF-8, so 16 MiB a message at worst. */
export const TRANSFER_PART_CHARS = 4_000_000;

/** The most characters an import may hold in all (as the single message allowed before parts). */
export const MAX_IMPORT_CHARS = 500_000_000;

/**
 * Where the part of `text` that starts at `from` ends: at most `max` characters on, after the last
 * line break in its second half when there is one (a part holds whole lines), and never between the
 * two halves of a surrogate pair (a message would carry each half as U+FFFD).
 */
export function partEnd(text: string, from: number, max: number = TRANSFER_PART_CHARS): number {
  if (max < 2) throw new RangeError('a part holds at least two characters');
  let end = Math.min(text.length, from + max);
  if (end === text.length) return end;
  const newline = text.lastIndexOf('\n', end - 1);
  if (newline >= from + max / 2) return newline + 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return end;
}

/** The parts of a text, in order (what `partEnd` cuts). */
export function textParts(text: string, max: number = TRANSFER_PART_CHARS): string[] {
  const out: string[] = [];
  for (let from = 0; from < text.length; ) {
    const end = partEnd(text, from, max);
    out.push(text.slice(from, end));
    from = end;
  }
  return out;
}
