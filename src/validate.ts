/**
 * Shape checks for every request the background accepts. A page is hostile until proven otherwise:
 * anything malformed is refused with `bad-request`, anything over the caps is cut.
 */
import { CHUNKER_VERSION, countWords, DEFAULT_CHUNKER_OPTIONS, type Block, type BlockKind, type Chunk, type ChunkAnchor, type HeadingId, type SectionPart } from './chunker.js';
import { ProtocolError, type CapturePayload, type ForgetScope, type MessageType, type SearchRequest } from './protocol.js';
import { normalizeSitePattern } from './settings.js';
import { normalizeStoredUrl } from './url.js';
import { clipQuery } from './query.js';

export const CAPTURE_LIMITS = {
  /** Total characters of block text kept from one page. */
  maxPageChars: 2_000_000,
  maxBlocks: 20_000,
  maxTitleChars: 500,
  maxBlockChars: 200_000,
} as const;

const BLOCK_KINDS: ReadonlySet<string> = new Set<BlockKind>(['heading', 'text', 'code', 'table', 'list', 'quote']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(message: string): never {
  throw new ProtocolError('bad-request', message);
}

function str(v: unknown, name: string, max: number, optional = false): string | undefined {
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string') fail(`${name} must be a string`);
  return v.length > max ? v.slice(0, max) : v;
}

export interface CaptureValidation {
  payload: CapturePayload;
  truncatedChars: number;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Lone surrogates become U+FFFD: they cannot be put in a URL (encodeURIComponent throws) or compared reliably. */
export const wellFormed = (s: string): string => (/[\ud800-\udfff]/.test(s) ? s.replace(LONE_SURROGATE, '\ufffd') : s);

/**
 * Characters of a page's text that no reader sees: C0 and C1 control characters (tab and line breaks
 * aside), soft hyphens, zero-width spaces and word joiners, byte-order marks, invisible operators, bidi
 * marks, embeddings, overrides and isolates, and Unicode's tag characters. The tokenizer cuts a word at
 * each of them (they are no letters), so a page showing "password" written `pass\u200Bword` was stored
 * as the two words "pass" and "word" and a search for the word it shows did not find it; a control
 * character is noise in every snippet and export. A browser's text fragment matches the text without
 * them (measured in Chromium), so links to the words still land.
 */
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;
/**
 * Joiners and variation selectors between letters of scripts they shape nothing in (Latin, Greek,
 * Cyrillic): `pass\u200Dword` shows "password". Elsewhere they are kept: Persian and Indic words and
 * emoji sequences need them, and a CJK ideographic variation sequence names a glyph.
 */
const IDLE_JOINER = /(?<=[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}])(?:[\u200c\u200d\ufe00-\ufe0f]|\udb40[\udd00-\uddef])+(?=[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}])/gu;
const MAY_JOIN = /[\u200c\u200d\ufe00-\ufe0f]|\udb40[\udd00-\uddef]/;

/** Page text as the reader sees it: well-formed (`wellFormed`), without the characters no reader sees (INVISIBLE, IDLE_JOINER). */
export function withoutInvisible(s: string): string {
  let out = wellFormed(s);
  INVISIBLE.lastIndex = 0;
  if (INVISIBLE.test(out)) out = out.replace(INVISIBLE, '');
  return MAY_JOIN.test(out) ? out.replace(IDLE_JOINER, '') : out;
}

/**
 * An element id a link may jump to: 1–200 characters, no whitespace (HTML ids have none) and no
 * control or separator characters. Anything else is dropped (the section is then linked by text).
 */
export function plainId(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length === 0 || v.length > 200) return undefined;
  const id = wellFormed(v);
  return /[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(id) ? undefined : id;
}

/**
 * Blocks as the background accepts them: known kinds, levels 1–6, plain ids, well-formed text within
 * the caps and without the characters no reader sees (withoutInvisible), no empty blocks. The content script runs this same function before it cuts (src/sections.ts),
 * so both sides cut the same blocks. Throws a bad-request for a malformed block.
 */
export function normalizeBlocks(raw: readonly unknown[]): { blocks: Block[]; truncatedChars: number } {
  const steps = normalizeSteps(raw);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same as normalizeBlocks, a block a step: removing what no reader sees reads every character, and
 * on a page with such a character in every word that is 80–120 ms for 2 MB (Node 20), too long for one
 * task of the page (src/sections.ts cutSections runs the steps in slices).
 */
export function* normalizeSteps(raw: readonly unknown[]): Generator<void, { blocks: Block[]; truncatedChars: number }> {
  const blocks: Block[] = [];
  let chars = 0;
  let truncatedChars = 0;
  let i = 0;
  for (; i < Math.min(raw.length, CAPTURE_LIMITS.maxBlocks); i++) {
    if (i) yield;
    const b: unknown = raw[i];
    if (!isObject(b) || typeof b.kind !== 'string' || !BLOCK_KINDS.has(b.kind)) fail('malformed block');
    if (typeof b.text !== 'string') fail('block text must be a string');
    let text = b.text.length > CAPTURE_LIMITS.maxBlockChars ? b.text.slice(0, CAPTURE_LIMITS.maxBlockChars) : b.text;
    truncatedChars += b.text.length - text.length;
    if (chars + text.length > CAPTURE_LIMITS.maxPageChars) {
      const room = Math.max(0, CAPTURE_LIMITS.maxPageChars - chars);
      truncatedChars += text.length - room;
      text = text.slice(0, room);
    }
    chars += text.length;
    const block: Block = { kind: b.kind as BlockKind, text: withoutInvisible(text) };
    if (b.kind === 'heading') {
      block.level = typeof b.level === 'number' && b.level >= 1 && b.level <= 6 ? Math.round(b.level) : 2;
      if (b.folded === true) block.folded = true;
      if (b.entry === true) block.entry = true;
    }
    const id = plainId(b.id);
    if (id) block.id = id;
    if (block.text) blocks.push(block);
    if (chars >= CAPTURE_LIMITS.maxPageChars) {
      i++;
      break;
    }
  }
  // Blocks never reached (past the page or block cap) were cut too.
  for (; i < raw.length; i++) {
    const b: unknown = raw[i];
    if (isObject(b) && typeof b.text === 'string') truncatedChars += b.text.length;
  }
  return { blocks, truncatedChars };
}

/** A page view's capture id (CapturePayload.capture): 128 random bits in hex, as the content script makes it. */
export function isCaptureId(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{32}$/.test(v);
}

export function validateCapture(v: unknown): CaptureValidation {
  if (!isObject(v)) fail('capture payload must be an object');
  if (typeof v.title !== 'string') fail('title must be a string');
  const title = withoutInvisible(textUpTo(v.title, CAPTURE_LIMITS.maxTitleChars)).replace(/\s+/g, ' ').trim();
  const lang = (str(v.lang, 'lang', 35, true) ?? '').trim();
  if (!Array.isArray(v.blocks)) fail('blocks must be an array');
  const { blocks, truncatedChars } = normalizeBlocks(v.blocks);
  const payload: CapturePayload = { title, lang, blocks };
  // Sections cut by another chunker (a content script or outbox entry older than this worker) are not
  // checked, nor used: the background cuts the blocks itself then.
  if (v.sections !== undefined || v.chunker !== undefined) {
    if (typeof v.chunker !== 'string' || v.chunker.length > 40) fail('chunker must name the chunker version');
    if (v.chunker === CHUNKER_VERSION) {
      payload.sections = validateSections(v.sections, blocks);
      payload.chunker = v.chunker;
    }
  }
  // The page's own address (a single-page app's, after pushState): whole, or left out (the sender's
  // address is used then), never cut to an address nobody visited.
  if (v.url !== undefined && typeof v.url !== 'string') fail('url must be a string');
  if (typeof v.url === 'string' && v.url && v.url.length <= MAX_PAGE_URL) payload.url = v.url;
  if (v.capture !== undefined) {
    if (!isCaptureId(v.capture)) fail('capture must be a page view id (32 hex digits)');
    payload.capture = v.capture;
  }
  if (isObject(v.extraction)) {
    const e = v.extraction;
    const method = e.method === 'readability' || e.method === 'body' || e.method === 'merged' ? e.method : 'body';
    const retention = typeof e.retention === 'number' && e.retention >= 0 && e.retention <= 1 ? e.retention : 0;
    const visibleWords = typeof e.visibleWords === 'number' && e.visibleWords >= 0 ? Math.round(e.visibleWords) : 0;
    const ms = (x: unknown) => (typeof x === 'number' && x >= 0 && x < 1e7 ? x : 0);
    const tasks = typeof e.tasks === 'number' && e.tasks >= 1 && e.tasks < 1e7 ? Math.round(e.tasks) : 0;
    payload.extraction = { method, retention, visibleWords, costMs: ms(e.costMs), longestTaskMs: ms(e.longestTaskMs), tasks };
  }
  return { payload, truncatedChars };
}

/** What a section may be; the chunker never makes more (src/chunker.ts DEFAULT_CHUNKER_OPTIONS). */
export const SECTION_LIMITS = {
  maxSections: DEFAULT_CHUNKER_OPTIONS.maxChunks,
  maxTextChars: DEFAULT_CHUNKER_OPTIONS.maxChunkChars,
  maxHeadingChars: DEFAULT_CHUNKER_OPTIONS.maxHeadingChars,
  /** Heading levels are 1–6, so a path is at most 6 deep. */
  maxPathDepth: 6,
  maxAnchorTextChars: DEFAULT_CHUNKER_OPTIONS.maxHeadingChars,
  /**
   * All sections' text past their heading line, against the blocks' text: the chunker repeats at most
   * its overlap of each window (15%) and, for sub-sections merged into their parent, their headings.
   * Measured at most 1.45x on the Python manual (tests/bench/captureCut.ts notes it); far above is not
   * a cut of these blocks but a page amplified (a thousand copies of one section).
   */
  maxBodyRatio: 2,
  /** Text any page may have on top of that (a small page's overlaps). */
  bodyAllowance: 64_000,
  /** And per heading block: a merged sub-section repeats its path below its parent (6 headings at most). */
  bodyAllowancePerHeading: 6 * (DEFAULT_CHUNKER_OPTIONS.maxHeadingChars + 3),
} as const;

/**
 * A section's (or a merged part's) link: nothing, a plain id of one of the blocks, or a phrase of the section
 * (`known`: phrases an earlier window of the same section held, which every window of it links to).
 */
function checkAnchor(a: unknown, text: string, ids: ReadonlySet<string>, bad: (why: string) => never, pathLength = 0, known?: ReadonlySet<string>): ChunkAnchor {
  if (!isObject(a)) bad('anchor must be an object');
  const { id, text: frag, above, ...rest } = a;
  if (Object.keys(rest).length || (id !== undefined && frag !== undefined)) bad('anchor has an id or a text, not both, and nothing else');
  const out: ChunkAnchor = {};
  if (id !== undefined) {
    if (typeof id !== 'string' || plainId(id) !== id || !ids.has(id)) bad('anchor id is not a plain id of one of the blocks');
    out.id = id;
  } else if (frag !== undefined) {
    // Page text (it is percent-encoded into the link): well-formed, short, and found in the section.
    if (typeof frag !== 'string' || !frag || frag.length > SECTION_LIMITS.maxAnchorTextChars || wellFormed(frag) !== frag) bad('anchor text is not a phrase of at most 200 characters');
    if (!text.includes(frag) && !foldSpace(text).includes(frag) && !known?.has(frag)) bad('anchor text is not in the section');
    out.text = frag;
  }
  if (above !== undefined) {
    // The ids of headings above the section: one per place in the path above its own, in order.
    if (!Array.isArray(above) || above.length === 0 || above.length >= Math.max(1, pathLength)) bad('anchor.above must list at most one id per heading above the section');
    let last = -1;
    out.above = (above as unknown[]).map((x) => {
      if (!isObject(x) || typeof x.depth !== 'number' || !Number.isInteger(x.depth) || x.depth <= last || x.depth >= pathLength - 1) bad('anchor.above must name places in the heading path above the section, in order');
      if (typeof x.id !== 'string' || plainId(x.id) !== x.id || !ids.has(x.id) || Object.keys(x).length !== 2) bad('anchor.above holds an id that is not a plain id of one of the blocks');
      last = x.depth;
      return { depth: x.depth, id: x.id };
    });
  }
  return out;
}

/** Headings are matched as the chunker folds them: whitespace collapsed, then maybe cut at a word. */
const foldSpace = (s: string) => s.replace(/\s+/g, ' ').trim();
const PREFIX_KEY = 32;

/**
 * Sections sent with a capture, checked against the blocks sent with them: never trusted beyond what
 * the background could have made of those blocks itself (see the threat model in README, "Who cuts the
 * page"). The checks read each section's heading line and anchor and the lengths of the rest, never
 * every word (that costs as much as cutting again: tests/bench/cut.ts):
 * - shape and caps: at most maxChunks sections, `ord` = position, text 1–maxChunkChars characters,
 *   `words` = its word count;
 * - heading path: at most 6 headings, each the text of a heading block (or its start, for a heading
 *   the chunker cut), `section` its last, and the text starts with the path as its own line;
 * - anchor: nothing, an id one of the blocks has (a plain id), or a text fragment (well-formed, at
 *   most 200 characters) that the section's text contains, or that an earlier window of the same section
 *   (the sections before it with the same heading path, one after the other) had as its link; and the ids of headings above it (plain
 *   ids of the blocks, one per place in the path above the section's own, in order);
 * - parts (sub-sections merged into it): each starting inside the text after the one before, with a
 *   heading path of the blocks' headings and an anchor by the same rules, at most two per heading;
 * - volume: the bodies together are at most maxBodyRatio times the blocks' text (plus the headings
 *   merged sections repeat, plus a little): no amplifying a page into a thousand copies of itself.
 * Any failure refuses the whole capture with the reason; nothing of it is stored.
 */
export function validateSections(v: unknown, blocks: readonly Block[]): Chunk[] {
  if (!Array.isArray(v)) fail('sections must be an array');
  if (v.length > SECTION_LIMITS.maxSections) fail(`too many sections (${v.length}, at most ${SECTION_LIMITS.maxSections})`);
  const headings = new Set<string>();
  const byStart = new Map<string, string[]>();
  const ids = new Set<string>();
  let blockChars = 0;
  let headingBlocks = 0;
  for (const b of blocks) {
    blockChars += b.text.length;
    if (b.id) ids.add(b.id);
    if (b.kind !== 'heading') continue;
    headingBlocks++;
    const h = foldSpace(b.text);
    headings.add(h);
    if (h.length > PREFIX_KEY) {
      const key = h.slice(0, PREFIX_KEY);
      const list = byStart.get(key);
      if (list) list.push(h);
      else byStart.set(key, [h]);
    }
  }
  const isHeading = (t: string) => headings.has(t) || (t.length > PREFIX_KEY && !!byStart.get(t.slice(0, PREFIX_KEY))?.some((h) => h.startsWith(t)));
  const out: Chunk[] = [];
  let bodyChars = 0;
  // The windows of one long section come one after the other, with the same heading path: each links where
  // its first does, a phrase the first holds (src/chunker.ts: a heading repeated on the page is linked by
  // its section's first words).
  let sectionLine: string | null = null;
  let sectionPhrases = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const s: unknown = v[i];
    const bad: (why: string) => never = (why) => fail(`section ${i}: ${why}`);
    if (!isObject(s)) bad('not an object');
    if (s.ord !== i) bad('ord must be its position');
    if (typeof s.text !== 'string' || !s.text) bad('text must be a non-empty string');
    const text = s.text;
    if (text.length > SECTION_LIMITS.maxTextChars) bad(`text over ${SECTION_LIMITS.maxTextChars} characters`);
    if (s.words !== countWords(text)) bad('words does not match its text');
    if (!Array.isArray(s.headingPath) || s.headingPath.length > SECTION_LIMITS.maxPathDepth) bad(`headingPath must be an array of at most ${SECTION_LIMITS.maxPathDepth} headings`);
    const path: string[] = [];
    for (const h of s.headingPath as unknown[]) {
      if (typeof h !== 'string' || !h || h.length > SECTION_LIMITS.maxHeadingChars) bad('a heading in headingPath is not a string of 1–200 characters');
      if (!isHeading(h)) bad('headingPath names a heading the blocks do not have');
      path.push(h);
    }
    const section = path[path.length - 1] ?? '';
    if (s.section !== section) bad('section must be the last heading of its path');
    const line = path.join(' > ');
    if (line && text !== line && !text.startsWith(line + '\n')) bad('text does not start with its heading path');
    bodyChars += text.length - line.length;
    if (line !== sectionLine) {
      sectionLine = line;
      sectionPhrases = new Set();
    }
    const anchor = checkAnchor(s.anchor, text, ids, bad, path.length, sectionPhrases);
    if (anchor.text) sectionPhrases.add(anchor.text);
    // Sub-sections merged into this one: where each starts in the text, its path and its link.
    let parts: SectionPart[] | undefined;
    if (s.parts !== undefined) {
      if (!Array.isArray(s.parts) || s.parts.length === 0 || s.parts.length > 2 * headingBlocks + 2) bad('parts must be a non-empty array, at most two per heading');
      parts = [];
      let last = -1;
      for (const x of s.parts as unknown[]) {
        if (!isObject(x) || typeof x.at !== 'number' || !Number.isInteger(x.at) || x.at <= last || x.at >= text.length) bad('a part must start inside the text, after the part before it');
        if (!Array.isArray(x.headingPath) || x.headingPath.length > SECTION_LIMITS.maxPathDepth || !x.headingPath.every((h) => typeof h === 'string' && h && h.length <= SECTION_LIMITS.maxHeadingChars && isHeading(h))) bad('a part names a heading the blocks do not have');
        last = x.at;
        parts.push({ at: x.at, headingPath: [...(x.headingPath as string[])], anchor: checkAnchor(x.anchor, text, ids, bad, 0, sectionPhrases) });
      }
    }
    out.push({ ord: i, headingPath: path, section, anchor, text, words: s.words as number, ...(parts ? { parts } : {}) });
  }
  const allowed = blockChars * SECTION_LIMITS.maxBodyRatio + SECTION_LIMITS.bodyAllowance + headingBlocks * SECTION_LIMITS.bodyAllowancePerHeading;
  if (bodyChars > allowed) fail(`sections hold more text than their blocks could make (${bodyChars} characters from ${blockChars})`);
  return out;
}

export function validateSearch(v: unknown): SearchRequest {
  if (!isObject(v)) fail('search request must be an object');
  // Cut where a word ends (clipQuery): the text searched, and the "original" a correction names, hold no half word.
  const q = clipQuery(str(v.q, 'q', Number.MAX_SAFE_INTEGER)!);
  const out: SearchRequest = { q };
  const site = str(v.site, 'site', 300, true);
  const after = str(v.after, 'after', 40, true);
  const before = str(v.before, 'before', 40, true);
  const excludeUrl = v.excludeUrl === undefined ? undefined : pageAddress(v.excludeUrl, 'excludeUrl');
  if (site) out.site = site;
  if (after) out.after = after;
  if (before) out.before = before;
  if (excludeUrl) out.excludeUrl = excludeUrl;
  const box = str(v.box, 'box', 64, true);
  if (box) out.box = box;
  if (v.exact !== undefined) {
    if (typeof v.exact !== 'boolean') fail('exact must be a boolean');
    if (v.exact) out.exact = true;
  }
  if (v.loose !== undefined) {
    if (typeof v.loose !== 'boolean') fail('loose must be a boolean');
    if (v.loose) out.loose = true;
  }
  if (v.awaitDense !== undefined) {
    if (typeof v.awaitDense !== 'boolean') fail('awaitDense must be a boolean');
    if (v.awaitDense) out.awaitDense = true;
  }
  if (v.limit !== undefined) {
    if (typeof v.limit !== 'number' || !Number.isFinite(v.limit)) fail('limit must be a number');
    out.limit = Math.max(1, Math.min(200, Math.round(v.limit)));
  }
  return out;
}

/** Loose check used for the admin messages whose payloads are small objects. */
export function validateObject(v: unknown, type: MessageType): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) fail(`${type}: payload must be an object`);
  return v;
}

export function optionalNumber(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${name} must be a finite number`);
  return v;
}

export function requiredString(v: unknown, name: string, max = 4000): string {
  return str(v, name, max)!;
}

/** The longest page address a message names (browsers allow about 2 MB; pages worth saving stay far below). */
const MAX_PAGE_URL = 65_536;

/** A page's address: checked whole and refused when too long, never cut (a shortened address names another page). */
export function pageAddress(v: unknown, name: string): string {
  if (typeof v !== 'string') fail(`${name} must be a string`);
  if (v.length > MAX_PAGE_URL) fail(`${name} is too long`);
  return v;
}

/** A text cut to `max` characters, never inside a surrogate pair, and well-formed (`wellFormed`). */
function textUpTo(v: string, max: number): string {
  const cut = v.length > max ? v.slice(0, /[\ud800-\udbff]/.test(v[max - 1]!) ? max - 1 : max) : v;
  return wellFormed(cut);
}

/** Epoch ms between 1990 and 2200: anything else is not a day a page was visited on. */
const EARLIEST = Date.UTC(1990, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

/** A forget's scope: one page, a site name, a non-empty range of whole days, or everything. Anything else is refused. */
export function validateForgetScope(v: unknown): ForgetScope {
  if (!isObject(v)) fail('scope must be an object');
  switch (v.kind) {
    case 'all':
      return { kind: 'all' };
    case 'page': {
      // Checked whole, never cut to a length: a shortened address would name another page.
      if (typeof v.url !== 'string' || v.url.length > MAX_PAGE_URL) fail('url must be a page address');
      const url = normalizeStoredUrl(v.url);
      if (!url) fail('not the address of a page Reread saves');
      return { kind: 'page', url };
    }
    case 'site': {
      const site = normalizeSitePattern(str(v.site, 'site', 300)!);
      if (!site) fail('not a site name');
      return { kind: 'site', site };
    }
    case 'range': {
      const { from, to } = v;
      if (typeof from !== 'number' || typeof to !== 'number' || !Number.isFinite(from) || !Number.isFinite(to)) fail('a range needs a first and a last day');
      if (from < EARLIEST || to > LATEST || to <= from) fail('not a range of days');
      // At least about a day (23 h: the day the clocks go forward), a whole number of minutes.
      if (to - from < 23 * 3_600_000 || from % 60_000 !== 0 || to % 60_000 !== 0) fail('a range covers whole days');
      return { kind: 'range', from, to };
    }
    default:
      fail('scope.kind must be page, site, range or all');
  }
}

/** A whole number in [min, max]. */
export function integerIn(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${name} must be a whole number from ${min} to ${max}`);
  return v;
}

/** The ids of the headings above a section (ChunkAnchor.above) as stored or exported, keeping only
 * well-formed entries in order (what the worker reads back, never a capture: that is validateSections). */
export function readAbove(v: unknown): HeadingId[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: HeadingId[] = [];
  for (const x of v.slice(0, 12) as unknown[]) {
    if (!x || typeof x !== 'object') continue;
    const { depth, id } = x as { depth?: unknown; id?: unknown };
    if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > 11 || typeof id !== 'string' || !id || id.length > 2000) continue;
    if (out.length && depth <= out[out.length - 1]!.depth) continue;
    out.push({ depth, id });
  }
  return out.length ? out : undefined;
}
