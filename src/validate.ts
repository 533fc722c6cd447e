/**
 * Shape checks for every request the background accepts. A page is hostile until proven otherwise:
 * anything malformed is refused with `bad-request`, anything over the caps is cut.
 */
import type { Block, BlockKind } from './chunker.js';
import { ProtocolError, type CapturePayload, type ForgetScope, type MessageType, type SearchRequest } from './protocol.js';
import { normalizeSitePattern } from './settings.js';

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

export function validateCapture(v: unknown): CaptureValidation {
  if (!isObject(v)) fail('capture payload must be an object');
  const title = str(v.title, 'title', CAPTURE_LIMITS.maxTitleChars)!.replace(/\s+/g, ' ').trim();
  const lang = (str(v.lang, 'lang', 35, true) ?? '').trim();
  if (!Array.isArray(v.blocks)) fail('blocks must be an array');
  const blocks: Block[] = [];
  let chars = 0;
  let truncatedChars = 0;
  let i = 0;
  for (; i < Math.min(v.blocks.length, CAPTURE_LIMITS.maxBlocks); i++) {
    const raw: unknown = v.blocks[i];
    if (!isObject(raw) || typeof raw.kind !== 'string' || !BLOCK_KINDS.has(raw.kind)) fail('malformed block');
    if (typeof raw.text !== 'string') fail('block text must be a string');
    let text = raw.text.length > CAPTURE_LIMITS.maxBlockChars ? raw.text.slice(0, CAPTURE_LIMITS.maxBlockChars) : raw.text;
    truncatedChars += raw.text.length - text.length;
    if (chars + text.length > CAPTURE_LIMITS.maxPageChars) {
      const room = Math.max(0, CAPTURE_LIMITS.maxPageChars - chars);
      truncatedChars += text.length - room;
      text = text.slice(0, room);
    }
    chars += text.length;
    const block: Block = { kind: raw.kind as BlockKind, text };
    if (raw.kind === 'heading') block.level = typeof raw.level === 'number' && raw.level >= 1 && raw.level <= 6 ? Math.round(raw.level) : 2;
    if (typeof raw.id === 'string' && raw.id.length > 0 && raw.id.length <= 200) block.id = raw.id;
    if (text) blocks.push(block);
    if (chars >= CAPTURE_LIMITS.maxPageChars) {
      i++;
      break;
    }
  }
  // Blocks never reached (past the page or block cap) were cut too.
  for (; i < v.blocks.length; i++) {
    const raw: unknown = v.blocks[i];
    if (isObject(raw) && typeof raw.text === 'string') truncatedChars += raw.text.length;
  }
  const payload: CapturePayload = { title, lang, blocks };
  const url = str(v.url, 'url', 4000, true);
  if (url) payload.url = url;
  if (isObject(v.extraction)) {
    const e = v.extraction;
    const method = e.method === 'readability' || e.method === 'body' || e.method === 'merged' ? e.method : 'body';
    const retention = typeof e.retention === 'number' && e.retention >= 0 && e.retention <= 1 ? e.retention : 0;
    const visibleWords = typeof e.visibleWords === 'number' && e.visibleWords >= 0 ? Math.round(e.visibleWords) : 0;
    const ms = (x: unknown) => (typeof x === 'number' && x >= 0 && x < 1e7 ? x : 0);
    payload.extraction = { method, retention, visibleWords, costMs: ms(e.costMs), longestTaskMs: ms(e.longestTaskMs) };
  }
  return { payload, truncatedChars };
}

export function validateSearch(v: unknown): SearchRequest {
  if (!isObject(v)) fail('search request must be an object');
  const q = str(v.q, 'q', 2000)!;
  const out: SearchRequest = { q };
  const site = str(v.site, 'site', 300, true);
  const after = str(v.after, 'after', 40, true);
  const before = str(v.before, 'before', 40, true);
  const excludeUrl = str(v.excludeUrl, 'excludeUrl', 4000, true);
  if (site) out.site = site;
  if (after) out.after = after;
  if (before) out.before = before;
  if (excludeUrl) out.excludeUrl = excludeUrl;
  if (v.exact !== undefined) {
    if (typeof v.exact !== 'boolean') fail('exact must be a boolean');
    if (v.exact) out.exact = true;
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

/** Epoch ms between 1990 and 2200: anything else is not a day a page was visited on. */
const EARLIEST = Date.UTC(1990, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

/** A forget's scope: a site name, a non-empty range of whole days, or everything. Anything else is refused. */
export function validateForgetScope(v: unknown): ForgetScope {
  if (!isObject(v)) fail('scope must be an object');
  switch (v.kind) {
    case 'all':
      return { kind: 'all' };
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
      fail('scope.kind must be site, range or all');
  }
}

/** A whole number in [min, max]. */
export function integerIn(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`${name} must be a whole number from ${min} to ${max}`);
  return v;
}
