/**
 * The capture outbox: how a page that is being left hands its capture over when the background is not
 * running (Chrome stops an idle service worker; a message sent from a page that is going away is lost if
 * the worker is still starting). At `pagehide` the content script writes the capture into extension
 * session storage, which the browser commits whatever happens to the page or the worker; the background
 * files it when it starts and whenever an entry is added (a storage change wakes the worker).
 *
 * Storage cannot say who wrote an entry. So as the page starts loading, its content script sends the
 * background a random nonce in a `page/hello` message, where the browser names the sender; the
 * background records nonce -> sender URL in its own database (which no content script can read). An
 * entry carries the nonce and is filed under the URL recorded for it, by the same rule as a message (a
 * claimed URL only on that page's origin). An entry whose nonce was never recorded is refused.
 *
 * Threat model: session storage is readable and writable by every content script of Reread, so a
 * compromised renderer (code running in our isolated world) could read entries waiting to be filed —
 * the text of pages just left, for the moments until the worker files them — and reuse their nonces
 * while their hellos live (an hour at most) to file text under those pages' origins. Without the
 * outbox such a renderer can already file text under its own origin; nothing else is kept there.
 */
export const OUTBOX_PREFIX = 'outbox:';
/**
 * An entry whose hello has not been recorded yet is kept this long (the hello may still be waiting in
 * a worker that is starting), then refused.
 */
export const HELLO_GRACE_MS = 60_000;
/** Session storage does not outlive the browser session; hellos and entries older than this are dropped. */
export const OUTBOX_MAX_AGE_MS = 3600_000;

export interface OutboxEntry {
  nonce: string;
  /** The page's current URL (a single-page app may have moved on since its hello). */
  url: string;
  at: number;
  payload: unknown;
}

export function isNonce(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{32}$/.test(v);
}

export function isOutboxKey(key: string): boolean {
  return key.startsWith(OUTBOX_PREFIX) && key.length <= OUTBOX_PREFIX.length + 64;
}

/** Shape only; the nonce's record and the payload are checked by the background. */
export function isOutboxEntry(v: unknown): v is OutboxEntry {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return isNonce(e.nonce) && typeof e.url === 'string' && e.url.length <= 8192 && typeof e.at === 'number' && Number.isFinite(e.at) && typeof e.payload === 'object' && e.payload !== null;
}

export type EntryVerdict = 'file' | 'wait' | 'refuse';

/** What to do with an entry now, given the URL recorded for its nonce (null if none yet). */
export function judgeEntry(entry: OutboxEntry, recordedUrl: string | null, now: number): EntryVerdict {
  const age = now - entry.at;
  if (age > OUTBOX_MAX_AGE_MS) return 'refuse';
  if (recordedUrl) return 'file';
  return age < HELLO_GRACE_MS ? 'wait' : 'refuse';
}
