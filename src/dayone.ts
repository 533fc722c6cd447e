/**
 * Day one: what the first-run card and Options show about the history import, the backfill and PDFs.
 * Shared by the background (which keeps these records) and the pages (which render them).
 */
import type { SkipReason } from './backfillPolicy.js';

/** Days of history offered by default; 0 means all of it. */
export const DEFAULT_HISTORY_DAYS = 90;
export const MAX_HISTORY_DAYS = 36_500;

export interface HistoryImportStatus {
  state: 'idle' | 'running' | 'done' | 'stopped' | 'error';
  /** Days asked for (0: all). */
  days: number;
  /** Oldest visit time imported; entries visited in [from, cursor) are still to come. */
  from: number;
  cursor: number;
  startedAt: number;
  finishedAt?: number;
  /** Title-only entries stored. */
  imported: number;
  /** History items read (stored, already known, excluded or not web pages). */
  seen: number;
  error?: string;
}

export type BackfillAction = 'start' | 'pause' | 'resume' | 'cancel';

export interface BackfillStatus {
  state: 'idle' | 'running' | 'paused' | 'capped' | 'done' | 'cancelled';
  /** Pages to read in this run (M), read so far (N = stored + skipped). */
  total: number;
  done: number;
  stored: number;
  skipped: number;
  /** Why pages stayed title-only, counted. */
  reasons: Partial<Record<SkipReason, number>>;
  dailyCap: number;
  /** Pages fetched on `day` (local date), against the cap. */
  day: string;
  today: number;
  /** When this run started, and how many pages were stored as read from their site before it. */
  startedAt: number;
  fetchedBefore: number;
}

export type PdfProblem = 'encrypted' | 'no-text' | 'broken' | 'too-large' | 'not-pdf' | 'unreachable' | 'capped';

export const PDF_PROBLEM_LABELS: Record<PdfProblem, string> = {
  encrypted: 'it is password-protected, so its text cannot be read',
  'no-text': 'it has no text layer (a scan?), so there is nothing to search',
  broken: 'it could not be read (damaged or unsupported)',
  'too-large': 'it is larger than Reread reads (50 MB)',
  'not-pdf': 'the address did not answer with a PDF when Reread fetched it again',
  unreachable: 'Reread could not fetch it again',
  capped: 'only its first pages were read',
};

/** A PDF that was not (fully) read, shown in Options until dismissed. */
export interface PdfNote {
  url: string;
  title: string;
  at: number;
  problem: PdfProblem;
  detail?: string;
}

export interface DayOneStatus {
  /** The optional `history` permission is granted. */
  historyPermission: boolean;
  /** The user closed the first-run card (it stays in Options). */
  dismissed: boolean;
  history: HistoryImportStatus;
  backfill: BackfillStatus;
  /** Title-only entries stored now. */
  titleOnly: number;
  /**
   * Pages from the history stored now and not read in a tab since: title-only entries and those the
   * backfill read. What "N pages from your history" says once the import is over (`history.imported` is
   * what the import stored, which a forget since does not lower).
   */
  fromHistory: number;
  /** Of those, the ones "Read these pages now" would fetch (not tried and left title-only before). */
  toRead: number;
  pdfNotes: PdfNote[];
}

export interface HistoryImportRequest {
  days: number;
  /** Asked from the popup before the permission prompt: start once the permission is granted. */
  whenGranted?: boolean;
}
