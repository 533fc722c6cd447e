/**
 * Exports and imports travel between the Options page and the background in parts: a browser carries at
 * most 64 MiB in one message (Chrome: "Message length exceeded maximum allowed length"), and an export
 * of a large index is more. Nor may either side ever hold the whole file as one string: V8 refuses a
 * string of more than 2^29 - 24 characters (about 536 million), and a million sections export to more
 * than that. So the background writes an export a few pages at a time into parts (OutgoingLines), the
 * Options page reads a file to import in byte slices (fileParts) and the background takes its lines as
 * they come (LineSplitter). Pure: where texts are cut.
 */

/** The most characters in one part: at most 4 bytes each in UTF-8, so 16 MiB a message at worst. */
export const TRANSFER_PART_CHARS = 4_000_000;

/** The highest part number a message may name (4 million characters each: far beyond any index). */
export const MAX_TRANSFER_PARTS = 1_000_000;

/**
 * The longest line an import reads. No line Reread writes comes near (a section is at most 6,000
 * characters, its vector 2 KB of base64); a longer one is skipped without being kept whole, so a file
 * that is not an export (no line breaks in gigabytes) costs no more memory than a real one.
 */
export const MAX_LINE_CHARS = TRANSFER_PART_CHARS;

/** Bytes of a file read at once by the Options page (decoded, at most as many characters). */
export const FILE_SLICE_BYTES = 4 * 1024 * 1024;

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

/**
 * Lines of an export waiting to go out (each with its line break), taken a part at a time: whole lines
 * while they fit, so a part is joined from a few thousand lines and never from more than `max`
 * characters; a line longer than a part (none is written: only a guard) is cut as `partEnd` cuts.
 */
export class OutgoingLines {
  private lines: string[] = [];
  private head = 0;
  /** Characters waiting. */
  chars = 0;

  push(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
  }

  /** The next part: at most `max` characters, '' when nothing waits. */
  take(max: number = TRANSFER_PART_CHARS): string {
    const out: string[] = [];
    let n = 0;
    while (this.head < this.lines.length) {
      const line = this.lines[this.head]!;
      if (n + line.length <= max) {
        out.push(line);
        n += line.length;
        this.head++;
        continue;
      }
      if (n === 0) {
        const end = partEnd(line, 0, max);
        out.push(line.slice(0, end));
        n = end;
        this.lines[this.head] = line.slice(end);
      }
      break;
    }
    this.chars -= n;
    // Let the lines taken go (the array is not shifted line by line: that is quadratic).
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.head);
      this.head = 0;
    }
    return out.join('');
  }
}

/**
 * Cuts the text of an import into lines as its parts arrive (a line may run across parts). A line of
 * more than `maxLine` characters is never kept whole: it is dropped, counted in `overlong`, and what
 * follows up to the next line break is dropped with it.
 */
export class LineSplitter {
  private rest: string[] = [];
  private restChars = 0;
  private dropping = false;
  /** Lines dropped for their length. */
  overlong = 0;

  constructor(private readonly maxLine: number = MAX_LINE_CHARS) {}

  /** The lines `text` completes, without their line breaks (a '\r' before one is left: JSON ignores it). */
  push(text: string): string[] {
    const out: string[] = [];
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      if (this.dropping) this.dropping = false;
      else if (this.restChars + nl - from > this.maxLine) this.overlong++;
      else out.push(this.rest.length ? this.rest.join('') + text.slice(from, nl) : text.slice(from, nl));
      this.rest = [];
      this.restChars = 0;
      from = nl + 1;
    }
    if (from < text.length && !this.dropping) {
      if (this.restChars + text.length - from > this.maxLine) {
        this.overlong++;
        this.dropping = true;
        this.rest = [];
        this.restChars = 0;
      } else {
        this.rest.push(text.slice(from));
        this.restChars += text.length - from;
      }
    }
    return out;
  }

  /** The last line, when the text does not end with a line break ('' when it does). */
  end(): string {
    const last = this.rest.join('');
    this.rest = [];
    this.restChars = 0;
    this.dropping = false;
    return last;
  }
}

/** What fileParts decodes bytes with: a TextDecoder (UTF-8, not fatal: a broken byte reads as U+FFFD, as File.text() does). */
export interface StreamDecoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

/**
 * The text of a file of `size` bytes in parts of at most `max` characters, read `sliceBytes` at a time
 * through `read` (the Options page: File.slice(start, end).arrayBuffer()). Never the whole text: at most
 * a part and a slice are held. A character whose bytes straddle two slices is decoded whole (the decoder
 * streams: it keeps the first bytes until the rest come); a part ends after a line break where one is in
 * its second half, and never inside a surrogate pair (partEnd).
 */
export async function* fileParts(
  size: number,
  read: (start: number, end: number) => Promise<Uint8Array>,
  decoder: StreamDecoder,
  max: number = TRANSFER_PART_CHARS,
  sliceBytes: number = FILE_SLICE_BYTES,
): AsyncGenerator<string> {
  let buf = '';
  for (let at = 0; at < size; at += sliceBytes) {
    buf += decoder.decode(await read(at, Math.min(size, at + sliceBytes)), { stream: true });
    while (buf.length > max) {
      const end = partEnd(buf, 0, max);
      yield buf.slice(0, end);
      buf = buf.slice(end);
    }
  }
  buf += decoder.decode();
  while (buf.length) {
    const end = partEnd(buf, 0, max);
    yield buf.slice(0, end);
    buf = buf.slice(end);
  }
}
