/**
 * The one typed message protocol between the parts of the extension.
 *
 * `Messages` maps each message type to its request and response. The background's handler table is
 * typed from it (a message with no handler does not compile), and `sendMessage` in the glue is typed
 * by it. Every request is answered: `{ ok: true, data }` or `{ ok: false, error: { code, message } }`.
 *
 * Who may send what (checked by the background before any work):
 * - `page/*` only content scripts in a normal tab; the page URL is taken from the sender, never the payload.
 * - everything else only the extension's own pages.
 */
import type { Block, Chunk } from './chunker.js';
import type { ParsedQuery } from './query.js';
import type { SnippetSegment } from './snippet.js';
import type { Settings } from './settings.js';
import type { ModelDownload } from './models.js';
import type { PageKind } from './pageKind.js';
import type { DayOneStatus, HistoryImportRequest, BackfillAction } from './dayone.js';

export interface CapturePayload {
  /** The page's current URL (changes with pushState); honoured only on the sender's own origin. */
  url?: string;
  title: string;
  /** BCP 47 language tag from the page (`<html lang>`), '' when unknown. */
  lang: string;
  blocks: Block[];
  /**
   * The page cut into sections by the sender (src/sections.ts cutSections over these blocks), and the
   * chunker that cut them (CHUNKER_VERSION). Checked against the blocks (src/validate.ts
   * validateSections); without them, or from another chunker, the background cuts the blocks itself.
   */
  sections?: Chunk[];
  chunker?: string;
  /** Capture diagnostics: how much of the page's visible text the extraction kept (0..1), and how. */
  extraction?: Extraction;
  /**
   * The page view this capture is of (src/validate.ts isCaptureId: 32 hex digits), picked by the content
   * script once per address it shows: a capture delivered twice (sent again after the worker stopped
   * mid-answer, or handed to the outbox while in flight) and a re-read of the same view's changed content
   * are that one visit, counted once (background/pageStore.ts `captures`).
   */
  capture?: string;
}

export interface Extraction {
  method: 'readability' | 'body' | 'merged';
  /** Readability's words over the cleaned body's words (0..1). */
  retention: number;
  visibleWords: number;
  /** Main-thread milliseconds the capture cost the page, and its longest single task. */
  costMs: number;
  longestTaskMs: number;
  /** Tasks the capture ran as (one per slice between two yields to the page; 1 when done in one go). */
  tasks: number;
}

export type CaptureOutcome = 'new' | 'changed' | 'revisit' | 'skipped';

export interface CaptureResponse {
  outcome: CaptureOutcome;
  chunks: number;
  reason?: string;
}

export interface CaptureCheckResponse {
  allowed: boolean;
  reason?: string;
}

export interface SearchRequest {
  q: string;
  /** Filter controls and URL parameters: merged with the operators typed in `q`. */
  site?: string;
  /** ISO date or relative form (see query.ts). */
  after?: string;
  before?: string;
  limit?: number;
  /** Exclude this page (more-like-this). */
  excludeUrl?: string;
  /** Search the words as typed: no typo correction ("search instead for …"). */
  exact?: boolean;
  /**
   * Show sections holding any of the query's words: neither the two-word minimum nor the off-topic gate
   * applies ("show pages with some of these words", offered by `SearchResponse.partial`).
   */
  loose?: boolean;
  /**
   * The search box asking (an id it picks once): a newer search from the same box supersedes this one,
   * which then stops at its next step and is answered with the error `superseded`.
   */
  box?: string;
  /**
   * Wait for the dense lane's index to load instead of answering without it: the search box asks again
   * this way, once, after an answer marked `denseLoading`.
   */
  awaitDense?: boolean;
}

export type LaneRanks = { lexical?: number; dense?: number };

export interface ResultSection {
  chunkId: number;
  section: string;
  headingPath: string[];
  /** The page URL with a jump-to-section fragment. */
  href: string;
  snippet: SnippetSegment[];
  /** The words of the query this section matched (as typed, or as corrected); never common words. */
  whyMatched: string[];
  lanes: LaneRanks;
  /** Fused score, rounded to 3 decimals. */
  score: number;
}

export interface SearchResult extends ResultSection {
  url: string;
  title: string;
  site: string;
  lastVisit: number;
  visitCount: number;
  /** How Reread got the page (src/pageKind.ts): absent for a page read in a tab. */
  kind?: PageKind;
  /** Up to two more sections of the same page. */
  more: ResultSection[];
  /**
   * Set when this card's section holds nearly the text of an earlier card's, and the words it would show
   * word for word (src/sameText.ts): that card's page. The card says so in place of the passage, and its
   * `more` keeps only sections that card's do not hold.
   */
  sameAs?: { url: string; title: string };
}

export interface SearchResponse {
  results: SearchResult[];
  parsed: ParsedQuery;
  tookMs: number;
  /** Which lanes ran for this query. */
  lanesUsed: { lexical: boolean; dense: boolean };
  /**
   * The dense lane is on but its index was still loading (the first search after the worker started):
   * these results are the lexical lane's alone. Asking again with `awaitDense` gives the hybrid answer.
   */
  denseLoading?: true;
  /**
   * Set when words the index does not know were searched as the nearest words it does:
   * "Showing results for `query`; search instead for `original`" (the same request with `exact`).
   */
  corrected?: { query: string; original: string };
  /**
   * Without `loose`: set when there are no results although sections hold some of the query's words (none
   * held enough of them; the same request with `loose` shows those). With `loose`: always set. Either way,
   * `missing` lists the words as typed that no stored section holds.
   */
  partial?: { missing: string[] };
  /**
   * Set when the query's only words were an address (src/query.ts addressedQuery): it was searched as `q`
   * (its page name's `words` on its `site`), with the page at the address first if it is stored and not
   * left out (`page`). The search boxes and the omnibox say so (addressNote).
   */
  address?: { site: string; words: string[]; q: string; page: 'first' | 'unsaved' | 'left-out' };
  /**
   * Forgets still in their undo window when the search ran: their pages are left out of this answer
   * (everything, after "forget everything"). The popup and the results page offer their undo beside it.
   */
  forgets?: PendingForget[];
  /**
   * Where the time went, in ms (for the benchmarks' keystroke breakdown; shown nowhere). Keys ending in
   * `At` are offsets from the search's start (the lanes overlap); the others are durations.
   */
  timings?: Record<string, number>;
}

export interface Stats {
  pages: number;
  chunks: number;
  pendingEmbeddings: number;
  sites: number;
  /** Bytes used by the extension's origin, when the browser reports it. */
  bytesUsed?: number;
  activeModel: string | null;
  embeddingError?: string;
  /** A model download under way. */
  modelDownload?: ModelDownload;
  /** Set after storage ran out and pages were forgotten to make room. */
  storageWarning?: string;
  /** Stored pages being cut into sections again after a chunker change (background/recut.ts). */
  recut?: { done: number; total: number };
}

export interface ModelStatusResponse {
  /** The model new sections are embedded with (null: the lane is off). */
  active: string | null;
  download: ModelDownload | null;
  /** Why search by meaning is paused, in words a person understands. */
  error?: string;
  /** Downloadable models whose files are stored in the browser. */
  cached: string[];
  /** Sections waiting for a vector from the active model, of all stored sections. */
  pending: number;
  chunks: number;
}

export interface SiteCount {
  site: string;
  pages: number;
}

export interface VerifyReport {
  ok: boolean;
  problems: string[];
  checked: { chunks: number; terms: number; vectors: number };
}

/**
 * What a "forget" covers. A range is local calendar days, inclusive at both ends, given as epoch ms:
 * `from` the start of the first day, `to` the start of the day after the last (the page computes both
 * in its own time zone, so a DST change or a non-UTC zone moves nothing). A page is in a range when
 * any of its visits is. A page is one stored page, by its URL as stored (src/url.ts normalizeStoredUrl).
 */
export type ForgetScope = { kind: 'page'; url: string } | { kind: 'site'; site: string } | { kind: 'range'; from: number; to: number } | { kind: 'all' };

/** Counted before anything is forgotten, for the confirmation's words. */
export interface ForgetPreview {
  pages: number;
  sites: number;
  /** A one-page forget: the page's title as stored. */
  title?: string;
  /** Earliest and latest visit of the pages counted (undefined when there are none). */
  firstVisit?: number;
  lastVisit?: number;
}

/** A forget held as a mark: the pages vanish from every surface at once and can be restored until `undoUntil`. */
export interface PendingForget {
  id: string;
  scope: ForgetScope;
  pages: number;
  /** A one-page forget: the page's title as stored (its words say which page). */
  title?: string;
  at: number;
  undoUntil: number;
}

export interface RetentionPreview {
  /** Pages the new settings would forget now (not visited for `retentionDays`, then over the storage cap). */
  pages: number;
  byAge: number;
  byStorage: number;
  /** The local day before which pages count as not visited (undefined when age is not limited). */
  cutoff?: number;
}

export interface ExportLine {
  kind: 'page' | 'chunk';
  [k: string]: unknown;
}

export interface Messages {
  'page/check': { req: Record<string, never>; res: CaptureCheckResponse };
  /** Records the content script's outbox nonce with the sender's page (see src/outbox.ts). */
  'page/hello': { req: { nonce: string }; res: Record<string, never> };
  'page/capture': { req: CapturePayload; res: CaptureResponse };
  /** The tab shows a PDF (sent by the content script in Chrome's viewer; the URL comes from the sender). */
  'page/pdf': { req: { sinceLoadMs?: number }; res: { outcome: string } };
  'dayone/status': { req: Record<string, never>; res: DayOneStatus };
  /** Imports the last `days` days of history as title-only entries (0: all); needs the history permission. */
  'history/import': { req: HistoryImportRequest; res: DayOneStatus };
  'history/stop': { req: Record<string, never>; res: DayOneStatus };
  /** Starts, pauses, resumes or cancels the backfill; `dailyCap` sets the pages fetched per day. */
  'backfill/control': { req: { action?: BackfillAction; dailyCap?: number }; res: DayOneStatus };
  'dayone/dismiss': { req: Record<string, never>; res: DayOneStatus };
  'pdf/notes-clear': { req: Record<string, never>; res: DayOneStatus };
  search: { req: SearchRequest; res: SearchResponse };
  stats: { req: Record<string, never>; res: Stats };
  sites: { req: Record<string, never>; res: SiteCount[] };
  'settings/get': { req: Record<string, never>; res: Settings };
  'settings/set': { req: Partial<Settings>; res: Settings };
  /** How many pages a forget would cover; changes nothing. */
  'forget/preview': { req: { scope: ForgetScope }; res: ForgetPreview };
  /** Marks the pages forgotten (hidden everywhere at once), purged when the undo window closes. */
  forget: { req: { scope: ForgetScope }; res: PendingForget };
  /** Restores a marked forget that has not been purged yet. */
  'forget/undo': { req: { id: string }; res: { pages: number } };
  /** Forgets whose undo window is still open. */
  'forget/pending': { req: Record<string, never>; res: PendingForget[] };
  'retention/preview': { req: { retentionDays: number; maxStorageMb: number }; res: RetentionPreview };
  /**
   * Starts an export: lists the pages (`pages`: how many; some may be forgotten before they are read),
   * which the background then reads a batch at a time as its parts are asked for ('export/part').
   */
  export: { req: { vectors?: boolean }; res: { token: string; pages: number } };
  /** Part `part` of an export (from 0, in order), the next part's number (null: the last) and the pages written out so far. */
  'export/part': { req: { token: string; part: number }; res: { text: string; next: number | null; pages: number } };
  /**
   * A part of an import file (the first one with no token): the background writes the pages it
   * completes and answers with the pages imported so far, the page lines read and the pages the file's
   * header lists (null: it does not say). 'import' ends it.
   */
  'import/part': { req: { token: string | null; text: string }; res: { token: string; pages: number; read: number; listed: number | null } };
  import: { req: { token: string }; res: { pages: number; skipped: number; vectors?: number; excluded?: number } };
  verify: { req: { repair?: boolean }; res: VerifyReport };
  open: { req: { url: string; newTab?: boolean }; res: { tabId: number | null } };
  /** The results page's parameters, handed over in memory (see background/tabs.ts searchPageUrl). */
  'search/handover': { req: { token: string }; res: Record<string, string> | null };
  'model/status': { req: Record<string, never>; res: ModelStatusResponse };
  /** Deletes a downloaded model's files and vectors; the built-in model takes over if it was active. */
  'model/remove': { req: { model: string }; res: { files: number; model: string } };
}

export type MessageType = keyof Messages;
export type Request<K extends MessageType> = Messages[K]['req'];
export type Response<K extends MessageType> = Messages[K]['res'];

export type Envelope = { [K in MessageType]: { type: K; payload: Request<K> } }[MessageType];

export type ErrorCode =
  | 'bad-request'
  | 'forbidden'
  | 'unknown-type'
  | 'too-large'
  | 'quota'
  | 'unavailable'
  /** A search replaced by a newer one from the same search box before it finished (its answer is not wanted). */
  | 'superseded'
  | 'internal';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

export type Reply<K extends MessageType> = { ok: true; data: Response<K> } | { ok: false; error: ErrorBody };

export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Message types only content scripts may send. */
export const CONTENT_MESSAGES: ReadonlySet<MessageType> = new Set<MessageType>(['page/check', 'page/hello', 'page/capture', 'page/pdf']);

/**
 * Sent by the worker to the content script of each tab showing a page a forget covers, before the page
 * is marked (`forgotten: true`), and again after an undo (`false`). The visit on screen is part of what
 * was forgotten, so the page is not saved again while it stays open (a content change or a
 * single-page-app step back to it); loading it again is a new visit and is saved.
 */
export interface PageForgottenNotice {
  type: 'page/forgotten';
  /** The page as stored (src/url.ts normalizeStoredUrl). */
  url: string;
  forgotten: boolean;
  /**
   * Which forget says so (its mark's id; HISTORY_FORGET for a deletion from the browser's history, never
   * undone). A tab saves its visit again only when every forget that covered it was undone.
   */
  forget: string;
}

/** The forget id of a deletion from the browser's history (no undo). */
export const HISTORY_FORGET = 'history';

export function isPageForgottenNotice(v: unknown): v is PageForgottenNotice {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return m.type === 'page/forgotten' && typeof m.url === 'string' && typeof m.forgotten === 'boolean' && typeof m.forget === 'string' && m.forget.length > 0 && m.forget.length <= 64;
}
