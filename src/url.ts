/** URL normalisation: one page, one key, whatever fragment or tracking parameters it was reached with. */

const TRACKING_PARAMS = /^(?:utm_[a-z_]+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|mc_cid|mc_eid|igshid|yclid|twclid|_hsenc|_hsmi|mkt_tok|ref_src|__s|vero_id|oly_anon_id|oly_enc_id|s_cid)$/i;

/** Returns the normalised URL, or null when it is not an http(s) URL worth indexing. */
export function normalizeUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  // Filter the raw `name=value` pairs rather than re-serialising through URLSearchParams, which would
  // rewrite the parameters kept (`%20` -> `+`, `?page` -> `?page=`) and so change the URL we link to.
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair && !TRACKING_PARAMS.test(paramName(pair)));
  url.search = kept.length ? `?${kept.join('&')}` : '';
  return url.toString();
}

function paramName(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = (eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Local files (`file://`, today only PDFs opened from the user's disk, in Chromium with file access
 * allowed) have no host: they are all one site, this one. It passes as a site name everywhere a site
 * goes (filters, `site:local-files`, exclusions, forgetting); users see it as "Local files" (siteLabel).
 */
export const LOCAL_FILES_SITE = 'local-files';

/**
 * A local file's URL as stored: `file:` only, no fragment, no query, no user info. Null for anything
 * else. Kept apart from normalizeUrl, which stays web-only: every other path (content scripts, history,
 * the backfill) must keep refusing files.
 */
export function normalizeFileUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'file:' || url.pathname.length < 2) return null;
  url.hash = '';
  url.search = '';
  return url.toString();
}

/** A web page's or a local file's URL as stored (normalizeUrl, else normalizeFileUrl). */
export function normalizeStoredUrl(input: string): string | null {
  return normalizeUrl(input) ?? normalizeFileUrl(input);
}

export function isFileUrl(url: string): boolean {
  return /^file:/i.test(url);
}

/** The site of a URL: its host without a leading `www.` (and without the port for default ports); LOCAL_FILES_SITE for a file. */
export function siteOf(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === 'file:') return LOCAL_FILES_SITE;
    // `mail.google.com.` (a fully qualified name, which browsers load) is the site `mail.google.com`.
    return u.hostname.replace(/\.+$/, '').replace(/^www\./, '').toLowerCase();
  } catch {
    return '';
  }
}

/** A site as people read it: "Local files" for files, else the host name. */
export function siteLabel(site: string): string {
  return site === LOCAL_FILES_SITE ? 'Local files' : site;
}

/** A file's name from its URL (the last path segment, decoded). */
export function fileNameOf(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
    try {
      return decodeURIComponent(last);
    } catch {
      return last;
    }
  } catch {
    return '';
  }
}

/**
 * Where a result lives, for its tooltip: the URL for a web page; for a local file its path with the
 * home folder written `~` (`/home/NAME`, `/Users/NAME`, `C:/Users/NAME`): the folder helps tell two
 * files apart, the account name is not shown on screen (a screen share or a screenshot of results).
 */
export function displayLocation(url: string): string {
  if (!isFileUrl(url)) return url;
  let path: string;
  try {
    const u = new URL(url);
    path = decodeURIComponent(u.pathname);
    if (u.host) path = `//${u.host}${path}`;
  } catch {
    return fileNameOf(url);
  }
  return path
    .replace(/^\/(home|Users)\/[^/]+(?=\/|$)/, '~')
    .replace(/^\/root(?=\/|$)/, '~')
    .replace(/^\/([A-Za-z]:)\/(?:Users|Documents and Settings)\/[^/]+(?=\/|$)/i, '~');
}

/**
 * A site as typed in a `site:` filter (or the site control's value), as pages store theirs (`siteOf`): an
 * address pasted whole is cut to its host (no scheme, path, user, port or trailing dot), `www.` goes, and a
 * name in any script becomes its ASCII form (`bücher.de` is stored as `xn--bcher-kva.de`).
 */
export function siteFilter(value: string): string {
  let v = value
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^[^@]*@/, '')
    .replace(/:\d*$/, '')
    .replace(/\.+$/, '');
  if (/[^\x00-\x7f]/.test(v)) {
    try {
      v = new URL(`http://${v}/`).hostname;
    } catch {
      // Not a host name: searched as typed, matching nothing.
    }
  }
  return v.replace(/^www\./, '');
}

/** True when `site` is `pattern` or a subdomain of it (`docs.python.org` matches `python.org`). */
export function siteMatches(site: string, pattern: string): boolean {
  const p = pattern.toLowerCase().replace(/^www\./, '').replace(/^\*\./, '').replace(/\.+$/, '');
  if (!p) return false;
  const host = site.toLowerCase().replace(/\.+$/, '');
  return host === p || host.endsWith('.' + p);
}

/**
 * The link that jumps back to a section: the heading's id when it has one, else a text fragment
 * (`#:~:text=`) built from the heading text, else the bare page URL.
 */
export function sectionHref(url: string, anchor: { id?: string; text?: string } | undefined): string {
  // A PDF section (src/pdfSections.ts): the viewer's own `#page=N` fragment, not an element id.
  if (anchor?.id && /^page=\d{1,6}$/.test(anchor.id)) return `${url}#${anchor.id}`;
  if (anchor?.id) return url + '#' + encodeURIComponent(anchor.id);
  if (anchor?.text) {
    const words = anchor.text.trim().split(/\s+/).slice(0, 8).join(' ');
    if (words) return url + '#:~:text=' + encodeTextFragment(words);
  }
  return url;
}

function encodeTextFragment(s: string): string {
  // `-`, `&` and `,` have meaning inside text directives and must be percent-encoded.
  return encodeURIComponent(s).replace(/-/g, '%2D').replace(/,/g, '%2C').replace(/&/g, '%26');
}

/**
 * The URL a capture is filed under: the page may name its current URL (a single-page app's pushState
 * does not update the sender's URL), but only on the sender's own origin; otherwise the sender's.
 */
export function capturedPageUrl(senderUrl: string, claimed?: string): string {
  const c = claimed ? normalizeUrl(claimed) : null;
  if (!c) return senderUrl;
  try {
    return new URL(c).host === new URL(senderUrl).host && new URL(c).protocol === new URL(senderUrl).protocol ? c : senderUrl;
  } catch {
    return senderUrl;
  }
}
