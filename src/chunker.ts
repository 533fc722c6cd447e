/**
 * Blocks in, chunks out. A block is one piece of a page's main content in reading order (a heading,
 * a paragraph, a code block, a table as text, a list item...). A chunk is one section: its heading path
 * folded into its text ("Tutorial > Data Structures > List Comprehensions\n" then the body).
 *
 * - Sections with fewer than `minWords` words of body merge into their parent (the nearest enclosing
 *   section that keeps its own chunk), as "Heading: body".
 * - Bodies over `maxWords` are cut into windows: at paragraph boundaries when one falls in the second
 *   half of a window, else at sentence boundaries (else at words, else at characters), each window
 *   starting with about `overlap` of the previous one. Text without headings gets the same windows.
 * - A heading block that repeats an open ancestor (same level, text and id) re-opens that section: the
 *   content walker uses it to say "the definition list is over, back to the enclosing section".
 * - Caps: at most `maxChunks` chunks and `maxChunkChars` characters per chunk; what they cut is counted.
 *   A heading longer than `maxHeadingChars` is cut in the path and the rest opens its section's body.
 */

import { hash53 } from './hash.js';

export type BlockKind = 'heading' | 'text' | 'code' | 'table' | 'list' | 'quote';

export interface Block {
  kind: BlockKind;
  text: string;
  /** 1–6 for headings. */
  level?: number;
  /** An element id at or just before this block: where a link can jump to. */
  id?: string;
  /**
   * A heading whose section the page keeps folded away under it: the summary of a closed `<details>`
   * (content/extract.ts summaryHeading). A browser opens it for a link to something inside its body
   * (an id there, a text fragment of its words), not for its summary's id or text (Chromium 156 and
   * Firefox ESR 153, measured): such a section is linked by its first words, where the page holds them once.
   */
  folded?: boolean;
  /**
   * A heading that opens an entry of a reference (content/extract.ts entryHeading: RDoc's methods): its
   * section is a unit of its own however short, never merged into the section above it.
   */
  entry?: boolean;
}

export interface ChunkAnchor {
  id?: string;
  /** Text for a `#:~:text=` fragment when there is no id. */
  text?: string;
  /**
   * A section's own anchor only: the ids of the headings above it, by their place in its heading path
   * (those that have one). A query that names one of them links there (src/namedHeading.ts), also
   * when that heading has no chunk of its own (a chapter heading followed at once by its first
   * sub-heading) or its chunk was not among the candidates.
   */
  above?: HeadingId[];
}

/** A heading's id, by its place in a heading path. */
export interface HeadingId {
  depth: number;
  id: string;
}

/**
 * Where, inside a chunk's text, a section that was merged into it begins (a heading too small to keep
 * a chunk of its own), or where the chunk's own section resumes after one. Search links a match to
 * the part it falls in.
 */
export interface SectionPart {
  /** Offset in the chunk's `text` from which this section applies (up to the next part). */
  at: number;
  headingPath: string[];
  anchor: ChunkAnchor;
}

export interface Chunk {
  /** Position of the chunk in its page, from 0. */
  ord: number;
  headingPath: string[];
  /** The section's own heading (last element of the path), '' before the first heading. */
  section: string;
  /** Where a link jumps for the chunk's own section: its heading's id, else the heading's text. */
  anchor: ChunkAnchor;
  /** Heading path folded in: "A > B > C\nbody". */
  text: string;
  words: number;
  /** Sections merged into this chunk, by offset (absent when it holds only its own). */
  parts?: SectionPart[];
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
  /** Longer headings are cut (at a word boundary) before they enter the heading path. */
  maxHeadingChars: number;
}

export const DEFAULT_CHUNKER_OPTIONS: ChunkerOptions = {
  maxWords: 300,
  minWords: 20,
  overlap: 0.15,
  maxChunks: 1000,
  maxChunkChars: 6000,
  maxHeadingChars: 200,
};

/**
 * Bump when a change to this file changes what chunkBlocks makes of some blocks (the golden test in
 * tests/unit/chunkerVersion.test.ts fails until you do). Stored pages are re-cut in the background when
 * CHUNKER_VERSION changes (background/recut.ts); a change of DEFAULT_CHUNKER_OPTIONS changes it by itself.
 */
export const CHUNKER_REVISION = 5; // 2: merged sub-sections carry their own links (parts), every window links to its heading; 3: the ids of the headings above (anchor.above); 4: a heading without an id whose words occur earlier on the page is linked by its section's first words; 5: those words capped (120 characters, whole words, none in scripts without spaces)

/** Names the cut: the revision and the options. Stored with each page; sent with each capture. */
export function chunkerVersion(options: ChunkerOptions = DEFAULT_CHUNKER_OPTIONS): string {
  return `${CHUNKER_REVISION}.${hash53(JSON.stringify(options)).toString(36)}`;
}

export const CHUNKER_VERSION = chunkerVersion();

export interface ChunkResult {
  chunks: Chunk[];
  /** What the caps cut, so the caller can log it. */
  truncated: { chunks: number; chars: number };
}

/** Whitespace-separated words (what the page's word counts and the minimum page size use). */
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

// Scripts written without spaces: a run of them is many words, about two characters each.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const UNSPACED_CHARS_PER_WORD = 2;

/** Size in words for the window budget: like countWords, but unspaced text counts by characters. */
export function measureWords(s: string): number {
  if (!UNSPACED.test(s)) return countWords(s);
  let n = 0;
  for (const token of s.split(/\s+/)) {
    if (!token) continue;
    n += UNSPACED.test(token) ? Math.max(1, Math.ceil(token.length / UNSPACED_CHARS_PER_WORD)) : 1;
  }
  return n;
}

const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Cuts `s` to at most `max` characters, at a word boundary when one is near, never inside a surrogate pair. */
function cutChars(s: string, max: number, atWord = false): string {
  if (s.length <= max) return s;
  let end = max;
  if (atWord) {
    const space = s.lastIndexOf(' ', max);
    if (space > max * 0.6) end = space;
  }
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end).trimEnd();
}

/** A merged sub-section: its full heading path and where a link jumps for it. */
interface PartInfo {
  headingPath: string[];
  anchor: ChunkAnchor;
}

/** One body paragraph of a section, the id a link can jump to for it, and the merged section it belongs to. */
interface Para {
  text: string;
  id?: string;
  /** Absent: the section's own text. */
  part?: PartInfo;
  /** A code block or a table: its text is not the page's as a browser finds it (kept lines, " | " between cells). */
  literal?: 'code' | 'table';
  /** A table's rows, one a line (its text has them on one line). */
  rows?: string;
}

/**
 * Where a link jumps for a section: its heading's id, else a text fragment of the heading, or of the
 * section's first words where the heading's would land elsewhere (`lead`, linkRepeatedHeadings). A folded
 * section (Block.folded) opens only for its own words: its lead first, then its heading's id; one with
 * neither whose heading's words occur earlier on the page links to the nearest heading above it that
 * has an id (its summary lies under that heading), not to the earlier words.
 */
function sectionAnchor(s: Section, lead = s.lead): ChunkAnchor {
  const heading = s.path[s.path.length - 1] ?? '';
  if (s.folded && lead) return { text: lead };
  if (s.headingId) return { id: s.headingId };
  if (lead) return { text: lead };
  const up = s.folded && s.repeated ? s.above?.[s.above.length - 1]?.id : undefined;
  if (up) return { id: up };
  return heading ? { text: heading } : {};
}

interface Section {
  level: number;
  path: string[];
  headingId?: string;
  /** Its heading's place in the blocks. */
  block?: number;
  /** Its heading has no id and its words occur earlier on the page (linkRepeatedHeadings). */
  repeated?: boolean;
  /** Its heading is folded (Block.folded): linked by its lead whenever it has one. */
  folded?: boolean;
  /** Its heading opens an entry (Block.entry): never merged into its parent. */
  entry?: boolean;
  /** Then a text fragment of its own first words that the page holds nowhere else. */
  lead?: string;
  /** The ids of the headings above it, by place in `path`. */
  above?: HeadingId[];
  body: Para[];
  /** Body size by measureWords (unspaced text counts by characters, so a CJK section is not "tiny"). */
  words: number;
}

/** Groups blocks into sections by heading (in order of first appearance). */
function* sectionize(blocks: readonly Block[], maxHeadingChars: number): Generator<void, Section[]> {
  const preamble: Section = { level: 0, path: [], body: [], words: 0 };
  const sections: Section[] = [preamble];
  const open: Section[] = [];
  let current = preamble;
  let n = 0;
  for (const [bi, b] of blocks.entries()) {
    if ((++n & 255) === 0) yield;
    if (b.kind === 'heading') {
      const full = clean(b.text);
      const title = cutChars(full, maxHeadingChars, true);
      if (!title) continue;
      // What a long heading (a C signature) loses in the path opens its body, so no word is lost.
      const rest = full.slice(title.length).trim();
      const level = Math.min(6, Math.max(1, Math.round(b.level ?? 2)));
      if (b.id) {
        const k = open.findIndex((s) => s.level === level && s.headingId === b.id && s.path[s.path.length - 1] === title);
        if (k >= 0) {
          open.length = k + 1;
          current = open[k]!;
          continue;
        }
      }
      while (open.length && open[open.length - 1]!.level >= level) open.pop();
      current = { level, path: [...open.map((s) => s.path[s.path.length - 1]!), title], headingId: b.id, block: bi, body: [], words: 0, ...(b.folded ? { folded: true } : {}), ...(b.entry ? { entry: true } : {}) };
      const above = open.flatMap((s, depth) => (s.headingId ? [{ depth, id: s.headingId }] : []));
      if (above.length) current.above = above;
      if (rest) {
        current.body.push({ text: '…' + rest });
        current.words += measureWords(rest);
      }
      open.push(current);
      sections.push(current);
    } else {
      // Code keeps its lines; everything else is one line of normalised text.
      const text = b.kind === 'code' ? b.text.replace(/[ \t]+$/gm, '').replace(/^\s*\n|\n\s*$/g, '').trimEnd() : clean(b.text);
      if (!text.trim()) continue;
      current.body.push({ text, ...(b.id ? { id: b.id } : {}), ...(b.kind === 'code' ? { literal: b.kind } : b.kind === 'table' ? { literal: b.kind, rows: b.text } : {}) });
      current.words += measureWords(text);
    }
  }
  return sections;
}

/** The most words of a text fragment (src/url.ts sectionHref cuts a link's text to as many). */
const FRAGMENT_WORDS = 8;
const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;

/** The words a text fragment of `text` looks for: its first words. */
function fragmentWords(text: string): string {
  return text.trim().split(/\s+/).slice(0, FRAGMENT_WORDS).join(' ');
}

/** The longest lead: well under the background's limit on a link's text (src/validate.ts, 200 characters). */
const LEAD_MAX_CHARS = 120;

/**
 * A lead made of `text`'s first words, at most LEAD_MAX_CHARS long (whole words only), or null: for text in
 * a script without spaces (a browser matches a fragment there at the segmenter's word boundaries, which a
 * cut here would not respect) or whose first word alone is longer (a URL).
 */
function leadOf(text: string): string | null {
  if (UNSPACED.test(text)) return null;
  let out = '';
  for (const w of fragmentWords(text).split(' ')) {
    const next = out ? `${out} ${w}` : w;
    if (next.length > LEAD_MAX_CHARS) break;
    out = next;
  }
  return out || null;
}

/** The most places in a section's text tried for words the page holds nowhere else. */
const LEAD_TRIES = 12;
/** Characters the search for such words may read, in page texts (the rest keep their headings' fragments). */
const LEAD_READS = 128;
/** And at most this many in all, however long the page (a few tens of ms of searching, in slices). */
const LEAD_READS_MAX = 100_000_000;
/** What one hit of findWords is charged, in characters read (a page of "aaaa…" must not make every character a hit for free). */
const HIT_CHARS = 256;
/** The search yields to the page after about this many characters read. */
const LEAD_YIELD_CHARS = 4_000_000;

/**
 * Where a text fragment could land in a section: the first words of each paragraph, then of each table
 * cell (a browser finds a fragment within one block: a cell, not a row). Not code: a browser matches its
 * spaces as they are.
 */
function* leadCandidates(body: readonly Para[]): Generator<string> {
  const own = body.filter((p) => !p.part && p.literal !== 'code' && !p.text.startsWith('…'));
  for (const p of own) {
    const lead = p.literal ? null : leadOf(p.text);
    if (lead) yield lead;
  }
  for (const p of own) {
    if (p.literal !== 'table') continue;
    for (const row of (p.rows ?? p.text).split('\n')) {
      for (const cell of row.split(' | ')) {
        const lead = /[\p{L}\p{N}]/u.test(cell) ? leadOf(cell) : null;
        if (lead) yield lead;
      }
    }
  }
}

/**
 * Where `needle` first occurs in `hay` from `from` on as whole words (both lower case), as a browser finds a
 * text fragment; -1 when nowhere. In scripts without spaces any occurrence counts.
 */
function findWords(hay: string, needle: string, from = 0, read?: { chars: number }): number {
  if (!needle) return -1;
  const unspaced = UNSPACED.test(needle);
  for (let i = hay.indexOf(needle, from); ; i = hay.indexOf(needle, i + 1)) {
    // A hit inside a longer word costs a turn of this loop, whatever the distance moved: charged as HIT_CHARS.
    if (read) read.chars += (i < 0 ? hay.length : i) - from + HIT_CHARS;
    if (i < 0) return -1;
    from = i;
    if (unspaced) return i;
    const startOk = !WORD_CHAR.test(needle[0]!) || i === 0 || !WORD_CHAR.test(hay[i - 1]!);
    const end = i + needle.length;
    const endOk = !WORD_CHAR.test(needle[needle.length - 1]!) || end >= hay.length || !WORD_CHAR.test(hay[end]!);
    if (startOk && endOk) return i;
  }
}

/**
 * A section without an id is linked by a text fragment of its heading, and a browser scrolls to the first
 * place the page holds those words. Where they occur earlier (a heading repeated over several sections:
 * "Parameters", "Examples"; a mention in the text before), the link would land there: such a section is
 * linked by the first words of its own text instead (of a paragraph or a table cell, the first the page
 * holds nowhere else, among its first few); else by its heading, as before.
 */
function* linkRepeatedHeadings(sections: Section[], blocks: readonly Block[]): Generator<void, ((lead: string) => boolean) | null> {
  if (!sections.some((s) => s.level > 0 && (!s.headingId || s.folded))) return null;
  // The page's text as a browser searches it (lower case, whitespace collapsed) and where each block starts.
  const starts: number[] = [];
  let text = '';
  for (const [i, b] of blocks.entries()) {
    if ((i & 255) === 255) yield;
    starts.push(text.length);
    text += clean(b.text).toLowerCase() + ' ';
  }
  // Bounded: a huge page of repeated headings is not searched a thousand times over.
  const read = { chars: 0 };
  const budget = Math.min(LEAD_READS * text.length, LEAD_READS_MAX);
  /** Whether the page holds `lead` once (false, too, once the budget is spent). */
  const once = (lead: string): boolean => {
    if (read.chars > budget) return false;
    const needle = lead.toLowerCase();
    const at = findWords(text, needle, 0, read);
    return at >= 0 && findWords(text, needle, at + 1, read) < 0;
  };
  let n = 0;
  let yielded = 0;
  for (const s of sections) {
    if (s.level === 0 || s.headingId || s.folded || s.block === undefined) continue;
    if (read.chars > budget) break;
    if ((++n & 63) === 0 || read.chars - yielded > LEAD_YIELD_CHARS) {
      yielded = read.chars;
      yield;
    }
    const heading = fragmentWords(s.path[s.path.length - 1] ?? '').toLowerCase();
    const at = findWords(text, heading, 0, read);
    if (at < 0 || at >= starts[s.block]!) continue;
    s.repeated = true;
    s.lead = pickLead(s, once);
  }
  // Folded sections (Block.folded) after the others, which keep the reading budget they had: each is
  // linked by words of its own that the page holds once. Without them and without an id, its heading
  // counts as repeated when its words occur earlier or the budget ran out before it was looked at.
  for (const s of sections) {
    if (!s.folded || s.level === 0 || s.block === undefined) continue;
    if (read.chars > budget) {
      s.repeated = !s.headingId;
      continue;
    }
    if ((++n & 63) === 0 || read.chars - yielded > LEAD_YIELD_CHARS) {
      yielded = read.chars;
      yield;
    }
    s.lead = pickLead(s, once);
    if (s.lead || s.headingId) continue;
    const heading = fragmentWords(s.path[s.path.length - 1] ?? '').toLowerCase();
    const at = findWords(text, heading, 0, read);
    if (at >= 0 && at < starts[s.block]!) s.repeated = true;
  }
  return once;
}

/** The first of a section's leads (leadCandidates) that `ok` takes, among the first LEAD_TRIES. */
function pickLead(s: Section, ok: (lead: string) => boolean): string | undefined {
  let tries = 0;
  for (const lead of leadCandidates(s.body)) {
    if (++tries > LEAD_TRIES) return undefined;
    if (ok(lead)) return lead;
  }
  return undefined;
}

/** Whether a text fragment is in a chunk's text as src/validate.ts checks it. */
const holds = (text: string, frag: string) => text.includes(frag) || clean(text).includes(frag);

const isAncestor = (a: Section, b: Section) => a.level > 0 && a.path.length < b.path.length && a.path.every((t, i) => b.path[i] === t);

/**
 * Merges sections with fewer than minWords words into their parent. A section with no body and
 * sub-sections disappears (its heading lives on in their paths); one with no body and no
 * sub-sections is a tiny section like any other (its heading is not lost).
 */
function mergeTiny(sections: Section[], minWords: number): Section[] {
  const kept: Section[] = [];
  // The kept sections enclosing the current one, outermost first (sections come in document order).
  const open: Section[] = [];
  // The words of the small folded sections right under each section (Block.folded: a FAQ's short answers,
  // Node's "History" under an API), which merge into it when it is kept: with them it is no small section.
  // A section's short text and its folded changelog stay one chunk, as they were before the fold was one.
  const folded = new Array<number>(sections.length).fill(0);
  const under: number[] = [];
  for (const [i, s] of sections.entries()) {
    while (under.length && !isAncestor(sections[under[under.length - 1]!]!, s)) under.pop();
    const up = under[under.length - 1];
    if (s.folded && s.words < minWords && up !== undefined && sections[up]!.path.length === s.path.length - 1) folded[up]! += s.words;
    if (s.level > 0) under.push(i);
  }
  for (const [i, s] of sections.entries()) {
    const next = sections[i + 1];
    const words = s.words + folded[i]!;
    if (words === 0 && (s.level === 0 || (next && isAncestor(s, next)))) continue;
    while (open.length && !isAncestor(open[open.length - 1]!, s)) open.pop();
    const parent = open[open.length - 1];
    if (words < minWords && s.level > 0 && parent && !s.entry) {
      // Its path below the parent: headings in between that have no chunk of their own live on here.
      const heading = s.path.slice(parent.path.length).join(' > ');
      const body = s.body.map((p) => p.text).join(' ');
      const part: PartInfo = { headingPath: s.path, anchor: sectionAnchor(s) };
      parent.body.push({ text: body ? `${heading}: ${body}` : heading, ...(s.headingId ? { id: s.headingId } : {}), part });
      parent.words += s.words + measureWords(heading);
      continue;
    }
    kept.push(s);
    if (s.level > 0) open.push(s);
  }
  return kept;
}

/** A piece of a section body small enough to pack: a paragraph, a sentence, a run of words, a slice. */
interface Unit {
  text: string;
  words: number;
  /** What joins it to the unit before: '\n' between paragraphs and lines, ' ' or '' inside one. */
  sep: string;
  /** Starts a paragraph (a preferred cut point). */
  para: boolean;
  id?: string;
  part?: PartInfo;
}

const SENTENCE_END = /([.!?…]+["'”’)\]]*)(\s+)|([。！？]+["'」』”’)]*)(\s*)|([ \t]*\n\s*)/gu;

/** Sentences (and lines) of one paragraph, each with the whitespace that preceded it. */
function sentences(text: string): { text: string; sep: string }[] {
  const out: { text: string; sep: string }[] = [];
  let start = 0;
  let sep = '';
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + (m[1] ?? m[3] ?? '').length;
    const ws = m[2] ?? m[4] ?? m[5] ?? '';
    const piece = text.slice(start, end);
    if (piece.trim()) {
      out.push({ text: piece, sep });
      sep = ws.includes('\n') ? '\n' : ws ? ' ' : '';
    } else if (ws.includes('\n')) sep = '\n';
    start = m.index + m[0].length;
  }
  const rest = text.slice(start);
  if (rest.trim()) out.push({ text: rest, sep });
  return out;
}

/** Splits one piece that is over the unit limits into runs of words, then slices of characters. */
function* splitPiece(text: string, sep: string, maxWords: number, maxChars: number, out: Unit[], first: { para: boolean; id?: string }, part: PartInfo | undefined): Generator<void, void> {
  const push = (t: string, s: string) => {
    const u: Unit = { text: t, words: measureWords(t), sep: s, para: first.para };
    if (first.id) u.id = first.id;
    if (part) u.part = part;
    out.push(u);
    first.para = false;
    first.id = undefined;
  };
  let run: string[] = [];
  let runWords = 0;
  let runChars = 0;
  let runSep = sep;
  const flush = () => {
    if (run.length) push(run.join(' '), runSep);
    run = [];
    runWords = 0;
    runChars = 0;
    runSep = ' ';
  };
  let n = 0;
  for (const token of text.split(/\s+/)) {
    if ((++n & 1023) === 0) yield;
    if (!token) continue;
    const w = measureWords(token);
    if (w > maxWords || token.length > maxChars) {
      // One enormous "word": unspaced text or a blob. Slice it by characters.
      flush();
      const size = Math.max(1, Math.min(maxChars, maxWords * (UNSPACED.test(token) ? UNSPACED_CHARS_PER_WORD : 8)));
      let s = runSep;
      for (let i = 0; i < token.length; ) {
        if ((++n & 63) === 0) yield;
        const piece = cutChars(token.slice(i), size);
        const len = piece.length || 1;
        push(token.slice(i, i + len), s);
        s = '';
        i += len;
      }
      runSep = ' ';
      continue;
    }
    if (run.length && (runWords + w > maxWords || runChars + token.length + 1 > maxChars)) flush();
    run.push(token);
    runWords += w;
    runChars += token.length + 1;
  }
  flush();
}

/** Paragraphs -> units no bigger than the limits (a paragraph that fits stays whole). */
function* toUnits(body: Para[], maxWords: number, maxChars: number): Generator<void, Unit[]> {
  const units: Unit[] = [];
  for (const p of body) {
    yield;
    const words = measureWords(p.text);
    if (words <= maxWords && p.text.length <= maxChars) {
      units.push({ text: p.text, words, sep: '\n', para: true, ...(p.id ? { id: p.id } : {}), ...(p.part ? { part: p.part } : {}) });
      continue;
    }
    const first: { para: boolean; id?: string } = { para: true, ...(p.id ? { id: p.id } : {}) };
    for (const s of sentences(p.text)) {
      const sepHere = first.para ? '\n' : s.sep;
      const w = measureWords(s.text);
      if (w <= maxWords && s.text.length <= maxChars) {
        units.push({ text: s.text, words: w, sep: sepHere, para: first.para, ...(first.id ? { id: first.id } : {}), ...(p.part ? { part: p.part } : {}) });
        first.para = false;
        first.id = undefined;
      } else yield* splitPiece(s.text, sepHere, maxWords, maxChars, units, first, p.part);
    }
  }
  return units;
}

/** The last `words` words of a unit (or characters, for unspaced text), carried into the next window. */
function tailOf(u: Unit, words: number, chars: number): Unit {
  const tokens = u.text.split(/(\s+)/);
  let out = '';
  let w = 0;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!;
    if (!t) continue;
    if (/^\s+$/.test(t)) {
      out = t + out;
      continue;
    }
    const tw = measureWords(t);
    if (w + tw > words || out.length + t.length > chars) {
      if (!w) {
        // One long token: keep its end.
        let start = Math.max(0, t.length - Math.min(chars, words * UNSPACED_CHARS_PER_WORD));
        const c = t.charCodeAt(start);
        if (c >= 0xdc00 && c <= 0xdfff) start++;
        out = t.slice(start) + out;
      }
      break;
    }
    out = t + out;
    w += tw;
  }
  out = out.trimStart();
  return { text: out, words: measureWords(out), sep: '', para: false, ...(u.part ? { part: u.part } : {}) };
}

interface Window {
  text: string;
  /** Where a link should jump for this window (text before any heading only). */
  id?: string;
  /** The first words of its new content (for a text fragment when there is no id). */
  lead: string;
  /** Offsets in `text` where the merged section changes (undefined part: the section's own). */
  parts: { at: number; part: PartInfo | undefined }[];
}

/** Pieces joined as a window's text, and where each merged section starts in it. */
function joinPieces(pieces: readonly { text: string; sep: string; part?: PartInfo | undefined }[]): { text: string; parts: Window['parts'] } {
  let text = '';
  const parts: Window['parts'] = [];
  let current: PartInfo | undefined;
  pieces.forEach((u, i) => {
    if (i) text += u.sep;
    if (u.part !== current) {
      parts.push({ at: text.length, part: u.part });
      current = u.part;
    }
    text += u.text;
  });
  return { text, parts };
}

/** Packs units into windows of at most maxWords / maxChars, each starting with ~overlap of the previous. */
function* pack(units: Unit[], maxWords: number, maxChars: number, overlapWords: number, overlapChars: number): Generator<void, Window[]> {
  const out: Window[] = [];
  let win: Unit[] = [];
  let carried = 0; // how many units at the start of `win` repeat the previous window
  let words = 0;
  let chars = 0;
  let lastId: string | undefined;
  const emit = (k: number) => {
    const taken = win.slice(0, k);
    const fresh = taken.slice(carried);
    const { text, parts } = joinPieces(taken);
    const id = fresh[0]?.id ?? lastId;
    for (const u of taken) if (u.id) lastId = u.id;
    out.push({ text, ...(id ? { id } : {}), lead: fresh[0]?.text ?? '', parts });
    // Overlap: whole units from the end worth at most overlapWords, else the tail of the last one.
    const tail: Unit[] = [];
    let tw = 0;
    let tc = 0;
    for (let i = taken.length - 1; i >= carried; i--) {
      const u = taken[i]!;
      if (tw + u.words > overlapWords || tc + u.text.length + 1 > overlapChars) break;
      tail.unshift(u);
      tw += u.words;
      tc += u.text.length + 1;
    }
    if (!tail.length && taken.length) {
      const t = tailOf(taken[taken.length - 1]!, overlapWords, overlapChars);
      if (t.text) tail.push(t);
    }
    win = [...tail, ...win.slice(k)];
    carried = tail.length;
    words = win.reduce((n, u) => n + u.words, 0);
    chars = win.reduce((n, u) => n + u.text.length + 1, 0);
  };
  let n = 0;
  for (const u of units) {
    if ((++n & 127) === 0) yield;
    while (win.length > carried && (words + u.words > maxWords || chars + u.text.length + 1 > maxChars)) {
      // Prefer the last paragraph start in the second half of the window.
      let k = win.length;
      let before = 0;
      let best = -1;
      for (let i = 0; i < win.length; i++) {
        if (i > carried && win[i]!.para && before >= maxWords * 0.5) best = i;
        before += win[i]!.words;
      }
      if (best > 0) k = best;
      emit(k);
    }
    win.push(u);
    words += u.words;
    chars += u.text.length + 1;
  }
  if (win.length > carried) emit(win.length);
  return out;
}

/** A merged section's link in one chunk: its first words only where the chunk holds them, else its heading. */
function partAnchor(anchor: ChunkAnchor, path: readonly string[], text: string): ChunkAnchor {
  return anchor.text && !holds(text, anchor.text) ? { text: path[path.length - 1] ?? anchor.text } : anchor;
}

/** Blocks -> chunks in one go. */
export function chunkBlocks(blocks: readonly Block[], options: Partial<ChunkerOptions> = {}): ChunkResult {
  const steps = chunkSteps(blocks, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same cut as chunkBlocks, in small steps: it pauses (yields) every so often, never after more than
 * a few hundred blocks, units or tokens, so a caller can spread a huge page over many short tasks
 * (src/sections.ts cutSections).
 */
export function* chunkSteps(blocks: readonly Block[], options: Partial<ChunkerOptions> = {}): Generator<void, ChunkResult> {
  const opts = { ...DEFAULT_CHUNKER_OPTIONS, ...options };
  const cut = yield* sectionize(blocks, opts.maxHeadingChars);
  const once = yield* linkRepeatedHeadings(cut, blocks);
  const sections = mergeTiny(cut, opts.minWords);
  const chunks: Chunk[] = [];
  const truncated = { chunks: 0, chars: 0 };
  const overlapWords = Math.max(1, Math.round(opts.maxWords * opts.overlap));
  for (const s of sections) {
    yield;
    if (chunks.length >= opts.maxChunks) {
      truncated.chunks++;
      continue;
    }
    const heading = s.path.join(' > ');
    const section = s.path[s.path.length - 1] ?? '';
    // Room for the body once the heading line is in.
    const maxChars = Math.max(200, opts.maxChunkChars - (heading ? heading.length + 1 : 0));
    const overlapChars = Math.max(1, Math.round(maxChars * opts.overlap));
    let wins: Window[];
    const total = s.body.reduce((n, p) => n + p.text.length + 1, 0);
    if (measureWords(s.body.map((p) => p.text).join(' ')) <= opts.maxWords && total <= maxChars) {
      const firstId = s.body.find((p) => p.id)?.id;
      wins = [{ ...joinPieces(s.body.map((p) => ({ ...p, sep: '\n' }))), ...(firstId ? { id: firstId } : {}), lead: s.body[0]?.text ?? '' }];
    } else {
      // Units leave room for the overlap, so every window can start with one.
      const units = yield* toUnits(s.body, Math.max(1, opts.maxWords - overlapWords), Math.max(1, maxChars - overlapChars - 1));
      wins = yield* pack(units, opts.maxWords, maxChars, overlapWords, overlapChars);
    }
    // Every window of a section links where its first does: to words of its own text that its first window holds.
    let lead = s.lead;
    for (const [k, w] of wins.entries()) {
      if (k === 0 && lead && once) {
        const first = cutChars(heading ? `${heading}\n${w.text}` : w.text, opts.maxChunkChars);
        if (!holds(first, lead)) lead = pickLead(s, (l) => holds(first, l) && once(l));
      }
      if (chunks.length >= opts.maxChunks) {
        truncated.chunks++;
        continue;
      }
      const full = heading ? (w.text ? `${heading}\n${w.text}` : heading) : w.text;
      const text = cutChars(full, opts.maxChunkChars);
      truncated.chars += full.length - text.length;
      // A section links to its heading (every window of it), or, where its heading's words occur earlier
      // on the page, to its lead (linkRepeatedHeadings); text before any heading to an id in it, else, past
      // its first window, to the window's first words.
      const link: ChunkAnchor = section
        ? sectionAnchor(s, lead)
        : w.id
          ? { id: w.id }
          : k > 0 && w.lead
            ? { text: cutChars(clean(w.lead), 120, true) }
            : {};
      const anchor: ChunkAnchor = s.above ? { ...link, above: s.above } : link;
      const shift = full.length - w.text.length;
      const own: PartInfo = { headingPath: s.path, anchor: link };
      const parts = w.parts
        .map((x) => ({ at: x.at + shift, headingPath: (x.part ?? own).headingPath, anchor: x.part ? partAnchor(x.part.anchor, x.part.headingPath, text) : own.anchor }))
        .filter((x) => x.at < text.length && !(x.at === shift && x.headingPath === s.path));
      chunks.push({ ord: chunks.length, headingPath: s.path, section, anchor, text, words: countWords(text), ...(parts.length ? { parts } : {}) });
    }
  }
  return { chunks, truncated };
}

/** Pages with less main text than this are not worth a result. */
export const MIN_PAGE_WORDS = 12;

/** Whether a page with these sections is too small to store (capture, the content script and the evaluation ask). */
export function tooLittleText(title: string, chunks: readonly { text: string }[]): boolean {
  // measureWords: a Japanese or Chinese page has few spaces, and by spaces a page of 50 characters was "3 words".
  const words = chunks.reduce((n, c) => n + measureWords(c.text), 0);
  return words < MIN_PAGE_WORDS && measureWords(title) + words < MIN_PAGE_WORDS;
}
