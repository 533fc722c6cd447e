/** User settings: defaults, and validation of anything read from storage or sent by a page. */
import { DEFAULT_BM25 } from './bm25.js';
import { DEFAULT_RRF_K } from './rrf.js';
import { LOCAL_FILES_SITE } from './url.js';

export interface Settings {
  paused: boolean;
  /** Hosts never captured (subdomains included). */
  excludedSites: string[];
  /** Pages not visited for this many days are forgotten; 0 keeps everything. */
  retentionDays: number;
  /** Soft cap on stored data, in MB; the oldest pages go first. 0 = no cap. */
  maxStorageMb: number;
  /** Dense lane on/off (off: lexical only, for low-end machines). */
  denseEnabled: boolean;
  /** Active embedding model id (see models.ts). */
  model: string;
  /** Let the extension download the chosen model from the Hugging Face hub. */
  allowModelDownload: boolean;
  /** Where downloadable models come from: the Hugging Face hub or a mirror in its URL layout. */
  modelMirror: string;
  /** Forget pages when the browser's history is cleared (needs the optional `history` permission). */
  followHistoryDeletes: boolean;
  ranking: {
    k1: number;
    b: number;
    rrfK: number;
    /** Multipliers on the model's calibrated lane weights. */
    lexicalWeight: number;
    denseWeight: number;
  };
  /**
   * Which ranking defaults these settings were saved under (RANKING_DEFAULTS). The worker saves every
   * setting together, so an earlier default stored this way was never chosen by the user unless the
   * stored record says so: see migrateStoredSettings.
   */
  rankingDefaults: number;
}

/**
 * Ranking defaults, numbered: 1 had BM25 k1 1.5; 2 has k1 1.2 (issue #13: better on every class of the
 * evaluation's tuning corpora, tests/eval/README.md).
 */
export const RANKING_DEFAULTS = 2;
const FORMER_K1: Record<number, number> = { 1: 1.5 };

/**
 * Stored settings as the worker reads them: settings saved under earlier ranking defaults (no
 * `rankingDefaults`: version 1) that still hold that version's default k1 get today's (the value was
 * written along with some other setting, not chosen). Any other value is the user's and stays.
 */
export function migrateStoredSettings(stored: unknown): unknown {
  if (!stored || typeof stored !== 'object') return stored;
  const s = stored as Record<string, unknown>;
  const version = typeof s.rankingDefaults === 'number' ? s.rankingDefaults : 1;
  const ranking = s.ranking && typeof s.ranking === 'object' ? (s.ranking as Record<string, unknown>) : null;
  if (version >= RANKING_DEFAULTS || !ranking || ranking.k1 !== FORMER_K1[version]) return stored;
  const { k1: _former, ...rest } = ranking;
  return { ...s, ranking: rest };
}

export const DEFAULT_MODEL_MIRROR = 'https://huggingface.co/';

/**
 * A model mirror: any https origin (and path), or plain http only on this machine (a local mirror,
 * and the tests). Returned with a trailing slash, as transformers.js's remoteHost wants; null if refused.
 */
export function normalizeModelMirror(v: string): string | null {
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    return null;
  }
  const local = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && local))) return null;
  if (url.username || url.password || url.search || url.hash) return null;
  const out = url.origin + url.pathname;
  return out.endsWith('/') ? out : out + '/';
}

export const DEFAULT_EXCLUDED_SITES: readonly string[] = [
  // Webmail, banking and password managers: private by nature.
  'mail.google.com',
  'outlook.live.com',
  'outlook.office.com',
  'mail.yahoo.com',
  'mail.proton.me',
  'paypal.com',
  'chase.com',
  'bankofamerica.com',
  'wellsfargo.com',
  '1password.com',
  'bitwarden.com',
  'lastpass.com',
  'accounts.google.com',
  'login.microsoftonline.com',
];

/** The most days a page may go unvisited before it is forgotten (100 years), and the largest storage cap. */
export const MAX_RETENTION_DAYS = 36_500;
export const MAX_STORAGE_MB = 1_000_000;

export const DEFAULT_SETTINGS: Readonly<Settings> = {
  paused: false,
  excludedSites: [...DEFAULT_EXCLUDED_SITES],
  retentionDays: 0,
  maxStorageMb: 0,
  denseEnabled: true,
  model: 'reread/glove-100d',
  allowModelDownload: false,
  modelMirror: DEFAULT_MODEL_MIRROR,
  followHistoryDeletes: false,
  ranking: { k1: DEFAULT_BM25.k1, b: DEFAULT_BM25.b, rrfK: DEFAULT_RRF_K, lexicalWeight: 1, denseWeight: 1 },
  rankingDefaults: RANKING_DEFAULTS,
};

function num(v: unknown, min: number, max: number, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : fallback;
}

function bool(v: unknown, fallback: boolean): boolean {
  return typeof v === 'boolean' ? v : fallback;
}

export function normalizeSitePattern(s: string): string | null {
  // Local files are one site (src/url.ts): a file address or the name people see both mean it.
  if (/^\s*file:/i.test(s) || /^\s*local[ -]files\s*$/i.test(s)) return LOCAL_FILES_SITE;
  const v = s.trim().toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/[/?#].*$/, '').replace(/:\d+$/, '').replace(/^www\./, '').replace(/^\*\./, '');
  return /^[a-z0-9.-]+$/.test(v) && v.length <= 253 && !v.startsWith('.') ? v : null;
}

/** Merges `patch` over `base`, dropping anything malformed. Never throws. */
export function mergeSettings(base: Settings, patch: unknown): Settings {
  const p = (patch && typeof patch === 'object' ? patch : {}) as Record<string, unknown>;
  const r = (p.ranking && typeof p.ranking === 'object' ? p.ranking : {}) as Record<string, unknown>;
  const sites = Array.isArray(p.excludedSites)
    ? [...new Set(p.excludedSites.filter((x): x is string => typeof x === 'string').map(normalizeSitePattern).filter((x): x is string => !!x))].slice(0, 5000)
    : base.excludedSites;
  return {
    paused: bool(p.paused, base.paused),
    excludedSites: sites,
    retentionDays: Math.round(num(p.retentionDays, 0, MAX_RETENTION_DAYS, base.retentionDays)),
    maxStorageMb: Math.round(num(p.maxStorageMb, 0, MAX_STORAGE_MB, base.maxStorageMb)),
    denseEnabled: bool(p.denseEnabled, base.denseEnabled),
    model: typeof p.model === 'string' && /^[\w.-]+\/[\w.-]+$/.test(p.model) ? p.model : base.model,
    allowModelDownload: bool(p.allowModelDownload, base.allowModelDownload),
    modelMirror: (typeof p.modelMirror === 'string' && p.modelMirror.length <= 500 && normalizeModelMirror(p.modelMirror)) || base.modelMirror,
    followHistoryDeletes: bool(p.followHistoryDeletes, base.followHistoryDeletes),
    ranking: {
      k1: num(r.k1, 0, 10, base.ranking.k1),
      b: num(r.b, 0, 1, base.ranking.b),
      rrfK: num(r.rrfK, 1, 1000, base.ranking.rrfK),
      lexicalWeight: num(r.lexicalWeight, 0, 10, base.ranking.lexicalWeight),
      denseWeight: num(r.denseWeight, 0, 10, base.ranking.denseWeight),
    },
    // Always today's: what is merged is valid under the current defaults (stored records are migrated first).
    rankingDefaults: RANKING_DEFAULTS,
  };
}
