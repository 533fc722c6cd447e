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
import { normalizeUrl } from './url.js';

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

/**
 * A navigation the browser reported (webNavigation.onCommitted, top frame): the page's URL without its
 * fragment, and when. The background keeps these as long as hellos, for one purpose: vouching for an
 * entry whose hello never reached a running worker.
 *
 * Why: a message from a page that is gone before the stopped worker has started is dropped by the
 * browser (the sender must still exist when the worker takes the message), and that includes the hello.
 * A page left within the worker's start-up time (a few hundred ms on a loaded machine; measured: 1 to 3
 * pages of 200 in tests/e2e/reliability.test.ts, which stops the worker every 2-4 s) handed its capture
 * over with a hello that was never recorded, and the entry was refused. The navigation event does not
 * depend on the page still existing, so the browser's record of it stands in for the hello.
 */
export interface Sighting {
  url: string;
  at: number;
}

/** How long before its hand-over an entry's page may have been navigated to and still be vouched for. */
export const SIGHTING_WINDOW_MS = 30 * 60_000;
/** Clock slack between the page (the entry's `at`) and the worker (a sighting's `at`). */
const SIGHTING_SLACK_MS = 5_000;

/** The key pages are matched by: the normalised URL (no fragment, no tracking parameters), else null. */
export function sightingKey(url: string): string | null {
  return normalizeUrl(url);
}

/**
 * Which entries, whose hellos never came and whose grace is over, the recorded navigations vouch for.
 *
 * Each navigation can vouch for one page. Navigations are first matched to the hellos recorded for the
 * same URL (that page said hello, and its entry is filed through it), the latest navigation at or before
 * each hello. An entry is then matched to the latest unused navigation to its URL in the
 * SIGHTING_WINDOW_MS before its hand-over. If any entry of a URL finds none, every entry of that URL is
 * refused: more hello-less captures than unvouched visits means one of them was not written by the page
 * it names, and which one cannot be told.
 *
 * So a compromised renderer can file text under a URL only in the moment after a real visit to it whose
 * own page never got its hello through, and only instead of that page's capture.
 *
 * Returns, for each vouched entry (by index in `due`), the sighting used (by index in `sightings`).
 */
export function vouchByNavigation(due: readonly { url: string; at: number }[], sightings: readonly Sighting[], hellos: readonly { url: string; at: number }[]): Map<number, number> {
  const byKey = new Map<string, number[]>();
  sightings.forEach((s, i) => {
    const k = sightingKey(s.url);
    if (k) byKey.set(k, [...(byKey.get(k) ?? []), i]);
  });
  for (const list of byKey.values()) list.sort((a, b) => sightings[a]!.at - sightings[b]!.at);
  const used = new Set<number>();
  /** The latest unused sighting of `key` in [from, to]. */
  const take = (key: string, from: number, to: number): number | undefined => {
    const list = byKey.get(key) ?? [];
    for (let j = list.length - 1; j >= 0; j--) {
      const i = list[j]!;
      const at = sightings[i]!.at;
      if (at > to || used.has(i)) continue;
      if (at < from) return undefined;
      used.add(i);
      return i;
    }
    return undefined;
  };
  for (const h of [...hellos].sort((a, b) => a.at - b.at)) {
    const k = sightingKey(h.url);
    if (k) take(k, h.at - SIGHTING_WINDOW_MS, h.at + SIGHTING_SLACK_MS);
  }
  const vouched = new Map<number, number>();
  const refusedKeys = new Set<string>();
  const order = due.map((_, i) => i).sort((a, b) => due[a]!.at - due[b]!.at);
  for (const i of order) {
    const k = sightingKey(due[i]!.url);
    if (!k) continue;
    const s = take(k, due[i]!.at - SIGHTING_WINDOW_MS, due[i]!.at + SIGHTING_SLACK_MS);
    if (s === undefined) refusedKeys.add(k);
    else vouched.set(i, s);
  }
  for (const [i] of vouched) if (refusedKeys.has(sightingKey(due[i]!.url)!)) vouched.delete(i);
  return vouched;
}
