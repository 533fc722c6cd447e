/**
 * Blocks in, chunks out. A block is one piece of a page's main content in reading order (a heading,
 * a paragraph, a code block, a table as text, a list item...). A chunk is one section: its heading path
 * folded into its text, then its body; long sections are cut into overlapping windows, tiny ones merged
 * into their parent.
 */

export type BlockKind = 'heading' | 'text' | 'code' | 'table' | 'list' | 'quote';

export interface Block {
  kind: BlockKind;
  text: string;
  /** 1–6 for headings. */
  level?: number;
  /** An element id at or just before this block: where a link can jump to. */
  id?: string;
}

export interface ChunkAnchor {
  id?: string;
  /** Text for a `#:~:text=` fragment when there is no id. */
  text?: string;
}

export interface Chunk {
  /** Position of the chunk in its page, from 0. */
  ord: number;
  headingPath: string[];
  /** The section's own heading (last element of the path), '' before the first heading. */
  section: string;
  anchor: ChunkAnchor;
  /** Heading path folded in: "A > B > C\nbody". */
  text: string;
  words: number;
}

export interface ChunkerOptions {
  /** Bodies longer than this (words) are split. */
  maxWords: number;
  /** Sections shorter than this (words) merge into their parent. */
  minWords: number;
  /** Fraction of a window repeated at the start of the next one. */
  overlap: number;
  /** Hard caps that keep a hostile page harmless. */
  maxChunks: number;
  maxChunkChars: number;
}

export const DEFAULT_CHUNKER_OPTIONS: ChunkerOptions = {
  maxWords: 300,
  minWords: 20,
  overlap: 0.15,
  maxChunks: 1000,
  maxChunkChars: 6000,
};

export interface ChunkResult {
  chunks: Chunk[];
  /** What the caps cut, so the caller can log it. */
  truncated: { chunks: number; chars: number };
}

interface Section {
  level: number;
  path: string[];
  headingId?: string;
  /** Body pieces, each a block's text, with the id nearest to it. */
  body: { text: string; id?: string }[];
  words: number;
}

const WS = /\s+/g;

export function countWords(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 0xa0;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

function clean(s: string): string {
  return s.replace(WS, ' ').trim();
}

/** Groups blocks into sections by heading. */
function sectionize(blocks: readonly Block[]): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let current: Section = { level: 0, path: [], body: [], words: 0 };
  sections.push(current);
  for (const b of blocks) {
    if (b.kind === 'heading') {
      const title = clean(b.text);
      if (!title) continue;
      const level = Math.min(6, Math.max(1, b.level ?? 2));
      while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, title });
      current = { level, path: stack.map((s) => s.title), headingId: b.id, body: [], words: 0 };
      sections.push(current);
    } else {
      const text = b.kind === 'code' ? b.text.replace(/[ \t]+$/gm, '').trim() : clean(b.text);
      if (!text) continue;
      current.body.push({ text, id: b.id });
      current.words += countWords(text);
    }
  }
  return sections;
}

/** Merges sections with fewer than minWords of body into their parent (the nearest shallower one). */
function mergeTiny(sections: Section[], minWords: number): Section[] {
  const kept: Section[] = [];
  for (const s of sections) {
    if (s.words === 0) continue; // its heading lives on in its children's paths
    if (s.words < minWords) {
      let parent: Section | undefined;
      for (let i = kept.length - 1; i >= 0; i--) {
        if (kept[i]!.level < s.level) {
          parent = kept[i];
          break;
        }
      }
      if (parent) {
        const heading = s.path[s.path.length - 1] ?? '';
        parent.body.push({ text: heading ? `${heading}: ${s.body.map((b) => b.text).join(' ')}` : s.body.map((b) => b.text).join(' '), id: s.headingId ?? s.body[0]?.id });
        parent.words += s.words + countWords(heading);
        continue;
      }
    }
    kept.push(s);
  }
  return kept;
}

/** Splits one long text into sentence-ish pieces, each at most maxWords (falls back to word cuts). */
function splitLong(text: string, maxWords: number): string[] {
  const sentences = text.match(/[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)\s*/g) ?? [text];
  const out: string[] = [];
  for (const s of sentences) {
    const w = countWords(s);
    if (w <= maxWords) {
      out.push(s.trim());
      continue;
    }
    const words = s.trim().split(/\s+/);
    // A run of text without spaces (CJK, a hostile blob) counts as one word; cut it by characters.
    for (let i = 0; i < words.length; i += maxWords) out.push(words.slice(i, i + maxWords).join(' '));
  }
  return out.filter(Boolean);
}

interface Piece {
  text: string;
  words: number;
  id?: string;
}

/** Windows of at most maxWords from pieces, each window starting with ~overlap of the previous one. */
function windows(pieces: Piece[], maxWords: number, overlap: number): { text: string; id?: string }[] {
  const out: { text: string; id?: string }[] = [];
  const overlapWords = Math.round(maxWords * overlap);
  let i = 0;
  while (i < pieces.length) {
    let words = 0;
    let j = i;
    while (j < pieces.length && (j === i || words + pieces[j]!.words <= maxWords)) {
      words += pieces[j]!.words;
      j++;
    }
    const id = pieces.slice(i, j).find((p) => p.id)?.id;
    out.push({ text: pieces.slice(i, j).map((p) => p.text).join('\n'), id });
    if (j >= pieces.length) break;
    // Step back over whole pieces worth about `overlapWords`, but always make progress.
    let back = j;
    let carried = 0;
    while (back - 1 > i && carried + pieces[back - 1]!.words <= overlapWords) {
      back--;
      carried += pieces[back]!.words;
    }
    i = back;
  }
  return out;
}

function cutLongText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  // Never cut a surrogate pair in half.
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/** Cuts a long CJK-like piece (few spaces) into pieces of roughly maxWords*4 characters. */
function charWindows(text: string, maxChars: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += maxChars) out.push(cutLongText(text.slice(i), maxChars));
  return out;
}

/** Text whose "words" average over 20 characters is written without spaces (CJK) or is a blob. */
function isUnspaced(text: string): boolean {
  return text.length > 80 && text.length / Math.max(1, countWords(text)) > 20;
}

/** Word count, with ~4 characters counted as a word in text written without spaces. */
function effectiveWords(text: string): number {
  return isUnspaced(text) ? Math.ceil(text.length / 4) : countWords(text);
}

export function chunkBlocks(blocks: readonly Block[], options: Partial<ChunkerOptions> = {}): ChunkResult {
  const opts = { ...DEFAULT_CHUNKER_OPTIONS, ...options };
  const sections = mergeTiny(sectionize(blocks), opts.minWords);
  const chunks: Chunk[] = [];
  const truncated = { chunks: 0, chars: 0 };
  // Roughly 4 characters make a "word" in scripts written without spaces.
  const maxPieceChars = Math.min(opts.maxChunkChars, opts.maxWords * 4);
  for (const s of sections) {
    const pieces: Piece[] = [];
    for (const b of s.body) {
      const parts = effectiveWords(b.text) > opts.maxWords ? splitLong(b.text, opts.maxWords) : [b.text];
      for (const [k, p] of parts.entries()) {
        const cut = p.length > opts.maxChunkChars || (isUnspaced(p) && p.length > maxPieceChars);
        for (const q of cut ? charWindows(p, maxPieceChars) : [p]) {
          pieces.push({ text: q, words: effectiveWords(q), id: k === 0 ? b.id : undefined });
        }
      }
    }
    const total = pieces.reduce((n, p) => n + p.words, 0);
    const wins = total > opts.maxWords ? windows(pieces, opts.maxWords, opts.overlap) : [{ text: pieces.map((p) => p.text).join('\n'), id: pieces.find((p) => p.id)?.id }];
    const heading = s.path.join(' > ');
    for (const [k, w] of wins.entries()) {
      if (chunks.length >= opts.maxChunks) {
        truncated.chunks++;
        continue;
      }
      const full = heading ? `${heading}\n${w.text}` : w.text;
      const text = cutLongText(full, opts.maxChunkChars);
      truncated.chars += full.length - text.length;
      const id = k === 0 ? (s.headingId ?? w.id) : (w.id ?? s.headingId);
      const anchor: ChunkAnchor = id ? { id } : s.path.length ? { text: s.path[s.path.length - 1] } : {};
      chunks.push({
        ord: chunks.length,
        headingPath: s.path,
        section: s.path[s.path.length - 1] ?? '',
        anchor,
        text,
        words: countWords(text),
      });
    }
  }
  return { chunks, truncated };
}
