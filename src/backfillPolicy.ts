/**
 * The backfill's rules, pure: which fetched answers are worth reading, which URL goes next (one request
 * per host at a time, a few in all), and the daily cap.
 */
import { siteOf } from './url.js';

/** Requests in flight at once, across hosts. */
export const MAX_IN_FLIGHT = 3;
/** A page's HTML is read up to this size; bigger answers stay title-only. */
export const MAX_HTML_BYTES = 5 * 1024 * 1024;
export const FETCH_TIMEOUT_MS = 20_000;
/** Fewer words than this of main text: the page stays title-only (a shell, a consent wall, an app). */
export const MIN_BACKFILL_WORDS = 40;
/** Default pages fetched per day; the user can change it (Options). */
export const DEFAULT_DAILY_CAP = 2000;

export type SkipReason = 'http-error' | 'login-wall' | 'not-html' | 'too-large' | 'too-little-text' | 'redirected' | 'network' | 'excluded' | 'local-network';

export const SKIP_LABELS: Record<SkipReason, string> = {
  'http-error': 'the site answered with an error',
  'login-wall': 'the page asks to sign in',
  'not-html': 'not a web page',
  'too-large': 'too large',
  'too-little-text': 'too little text',
  redirected: 'sent to another address',
  network: 'could not be reached',
  excluded: 'excluded site',
  'local-network': 'on your own network or computer',
};

/** Names a network keeps to itself (RFC 6762 `.local`, RFC 8375 `.home.arpa`, and the usual private suffixes). */
const LOCAL_SUFFIX = /(?:^|\.)(?:localhost|local|lan|home|internal|intranet|corp|home\.arpa)$/i;

/**
 * Whether an address names a machine on the user's own network or computer: loopback, private, shared
 * (CGNAT) and link-local IPv4, IPv6 loopback, unique-local and link-local, a name of one label (`router`,
 * `nas`) or a local suffix. The backfill does not fetch these again: a router's or a development server's
 * page answers a GET with an action as often as with a page (`/reboot`, `/logout`), and the user's own
 * visit was captured when it happened. Decided by the address as written (a public name that resolves to
 * a private address is not known here).
 */
export function localNetworkAddress(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  if (host.startsWith('[')) {
    const v6 = host.slice(1, -1);
    if (v6 === '::1' || v6 === '::') return true;
    if (/^f[cd][0-9a-f]{0,2}:/.test(v6) || /^fe[89ab][0-9a-f]?:/.test(v6)) return true;
    // An IPv4 address mapped into IPv6 (`[::ffff:192.168.1.1]`, which URL writes `[::ffff:c0a8:101]`).
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (!mapped) return false;
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return privateIPv4(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return privateIPv4(host);
  return !host.includes('.') || LOCAL_SUFFIX.test(host);
}

function privateIPv4(host: string): boolean {
  const [a, b] = host.split('.').map(Number) as [number, number];
  return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
}

const LOGIN_PATH = /(?:^|[/._-])(?:log-?in|sign-?in|signon|auth|authenticate|sso|oauth2?|session|accounts?)(?:$|[/._?-])/i;

export interface FetchedHead {
  status: number;
  contentType: string;
  /** The URL asked for, and where redirects ended. */
  url: string;
  finalUrl: string;
}

/** Before reading the body: is this answer a page to read? */
export function checkHead(h: FetchedHead): SkipReason | null {
  if (h.status === 401 || h.status === 403 || h.status === 407) return 'login-wall';
  if (h.status < 200 || h.status >= 300) return 'http-error';
  if (h.finalUrl !== h.url) {
    let from: URL, to: URL;
    try {
      from = new URL(h.url);
      to = new URL(h.finalUrl);
    } catch {
      return 'redirected';
    }
    if (siteOf(to.href) !== siteOf(from.href)) return LOGIN_PATH.test(to.pathname) ? 'login-wall' : 'redirected';
    if (LOGIN_PATH.test(to.pathname) && !LOGIN_PATH.test(from.pathname)) return 'login-wall';
  }
  const type = h.contentType.split(';')[0]!.trim().toLowerCase();
  if (type !== 'text/html' && type !== 'application/xhtml+xml') return 'not-html';
  return null;
}

/** After extraction: a page that asks for a password and says little else is a login wall. */
export function checkBody(b: { words: number; hasPasswordField: boolean }): SkipReason | null {
  if (b.hasPasswordField && b.words < 300) return 'login-wall';
  if (b.words < MIN_BACKFILL_WORDS) return 'too-little-text';
  return null;
}

/**
 * The next URLs to fetch from `queue` (in order), given the hosts with a request in flight: never two
 * at once to one host, at most `maxInFlight` in all.
 */
export function pickNext(queue: readonly string[], busyHosts: ReadonlySet<string>, inFlight: number, maxInFlight = MAX_IN_FLIGHT): string[] {
  const out: string[] = [];
  const hosts = new Set(busyHosts);
  for (const url of queue) {
    if (inFlight + out.length >= maxInFlight) break;
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      continue;
    }
    if (hosts.has(host)) continue;
    hosts.add(host);
    out.push(url);
  }
  return out;
}

/** The local calendar day (the daily cap resets at midnight). */
export function dayKey(now: number): string {
  const d = new Date(now);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Milliseconds until the next local midnight (when a capped backfill goes on). */
export function msToMidnight(now: number): number {
  const d = new Date(now);
  d.setHours(24, 0, 0, 0);
  return d.getTime() - now;
}
