/**
 * The messages between the service worker and the offscreen document that runs the embedding model
 * (Chrome). They travel over one runtime Port named EMBEDDER_PORT, opened by the worker; the document
 * accepts that port only from the worker itself (see offscreen/main.ts), and each side checks the shape
 * of everything it receives, since a port message is untyped JSON.
 */
import type { FileProgress } from '../../src/models.js';

export const EMBEDDER_PORT = 'reread-embedder';
export const OFFSCREEN_PAGE = 'offscreen.html';
/** Most texts in one embed request (the queue sends 16; queries 1). */
export const MAX_TEXTS = 64;
const MAX_TEXT_CHARS = 100_000;

export interface LoadConfig {
  allowRemote: boolean;
  remoteHost: string;
}

/** Worker -> document. */
export type HostRequest =
  | { id: number; op: 'hello' }
  | { id: number; op: 'load'; model: string; config: LoadConfig }
  | { id: number; op: 'embed'; model: string; texts: string[]; kind: 'query' | 'passage' }
  | { id: number; op: 'unload'; model: string };

export interface LoadResult {
  dim: number;
  /** Time the document spent loading (0 when it already had the model). */
  loadMs: number;
}

/** Document -> worker: a reply to one request, or download progress while a load runs. */
export type HostMessage =
  | { id: number; ok: true; data: LoadResult | (number[] | null)[] | null }
  | { id: number; ok: false; error: string }
  | { op: 'progress'; model: string; progress: FileProgress };

// owner/name as on the hub; no "." or ".." segment (the id becomes part of a URL path).
const MODEL_ID = /^[\w-][\w.-]*\/[\w-][\w.-]*$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The document's check of a request; null for anything malformed (ignored, never answered). */
export function parseHostRequest(v: unknown): HostRequest | null {
  if (!isObject(v) || typeof v.id !== 'number' || !Number.isSafeInteger(v.id)) return null;
  const id = v.id;
  if (v.op === 'hello') return { id, op: 'hello' };
  if (typeof v.model !== 'string' || !MODEL_ID.test(v.model)) return null;
  const model = v.model;
  switch (v.op) {
    case 'load': {
      const c = v.config;
      if (!isObject(c) || typeof c.allowRemote !== 'boolean' || typeof c.remoteHost !== 'string' || !/^https?:\/\//.test(c.remoteHost)) return null;
      return { id, op: 'load', model, config: { allowRemote: c.allowRemote, remoteHost: c.remoteHost } };
    }
    case 'embed': {
      const { texts, kind } = v;
      if (kind !== 'query' && kind !== 'passage') return null;
      if (!Array.isArray(texts) || texts.length > MAX_TEXTS || !texts.every((t) => typeof t === 'string' && t.length <= MAX_TEXT_CHARS)) return null;
      return { id, op: 'embed', model, texts: texts as string[], kind };
    }
    case 'unload':
      return { id, op: 'unload', model };
    default:
      return null;
  }
}

/** The worker's check of what the document sent; null for anything malformed. */
export function parseHostMessage(v: unknown): HostMessage | null {
  if (!isObject(v)) return null;
  if (v.op === 'progress') {
    const p = v.progress;
    if (typeof v.model !== 'string' || !isObject(p) || typeof p.status !== 'string') return null;
    const progress: FileProgress = { status: p.status };
    if (typeof p.file === 'string') progress.file = p.file;
    if (typeof p.loaded === 'number') progress.loaded = p.loaded;
    if (typeof p.total === 'number') progress.total = p.total;
    return { op: 'progress', model: v.model, progress };
  }
  if (typeof v.id !== 'number') return null;
  if (v.ok === false) return { id: v.id, ok: false, error: typeof v.error === 'string' ? v.error : 'the embedder failed' };
  if (v.ok !== true) return null;
  const d = v.data;
  if (d === null) return { id: v.id, ok: true, data: null };
  if (Array.isArray(d)) {
    if (!d.every((x) => x === null || (Array.isArray(x) && x.every((n) => typeof n === 'number')))) return null;
    return { id: v.id, ok: true, data: d as (number[] | null)[] };
  }
  if (isObject(d) && typeof d.dim === 'number' && typeof d.loadMs === 'number') return { id: v.id, ok: true, data: { dim: d.dim, loadMs: d.loadMs } };
  return null;
}
