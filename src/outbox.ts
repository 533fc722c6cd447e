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
 * Where entries live: extension session storage where content scripts may use it (Chrome, once the
 * background opened it to them with setAccessLevel); else extension local storage, which Firefox gives
 * content scripts (it has no storage.session in content scripts and no setAccessLevel: Bugzilla
 * 1724754). A storage change wakes the background in both browsers (measured in Firefox 153: a
 * suspended background page is started by a storage.local write), so an entry waits well under a
 * second; one written as the browser quits is filed at the next start, or refused once it is older than
 * OUTBOX_MAX_AGE_MS.
 *
 * Threat model: the outbox area is readable and writable by every content script of Reread, so a
 * compromised renderer (code running in our isolated world) could read entries waiting to be filed —
 * the text of pages just left, for the moments until the worker files them — and reuse their nonces
 * while their hellos live (an hour at most) to file text under those pages' origins. Without the
 * outbox such a renderer can already file text under its own origin; nothing else is kept there.
 *
 * In Firefox's storage.local, besides the above:
 * - Firefox runs a content script in the content process of its page, so "a compromised renderer" is
 *   any compromised web content process: it can call storage.local as our content script can.
 * - Local storage is on disk, not in memory: an entry not yet filed (the browser quit in the moment
 *   between a page's hand-over and the drain) stays on disk until the next start, where it is filed or,
 *   past OUTBOX_MAX_AGE_MS, refused and deleted. Nothing else of the outbox is kept: entries are deleted
 *   once filed, and a forgotten site, range or everything purges them from both areas.
 * - Such a process could also delete or overwrite entries waiting there (drop another page's capture,
 *   or replace its text under that page's URL while its hello lives) and fill the area with junk: an
 *   entry without a recorded hello is refused after HELLO_GRACE_MS, a malformed one at once, and
 *   neither is ever filed. It cannot read the index, the hellos (both in the background's IndexedDB),
 *   or file text under an origin the user did not visit in the last hour.
 * - The capture gate (pause, excluded sites) is mirrored in the same area for content scripts to read
 *   (src/captureGate.ts); that predates the outbox and is a hint only: the background checks every
 *   capture and hello against its own settings.
 */
export const OUTBOX_PREFIX = 'outbox:';
/**
 * An entry whose hello has not been recorded yet is kept this long (the hello may still be waiting in
 * a worker that is starting), then refused.
 */
export const HELLO_GRACE_MS = 60_000;
/**
 * Hellos and entries older than this are dropped: session storage does not outlive the browser session,
 * and local storage (Firefox) keeps nothing longer than this either.
 */
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
