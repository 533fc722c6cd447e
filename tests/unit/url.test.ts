import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayLocation, fileNameOf, LOCAL_FILES_SITE, normalizeFileUrl, normalizeStoredUrl, normalizeUrl, sectionHref, siteLabel, siteMatches, siteOf } from '../../src/url.js';
import { normalizeSitePattern } from '../../src/settings.js';

describe('normalizeUrl', { timeout: 30_000 }, () => {
  it('drops the fragment and credentials', () => {
    expect(normalizeUrl('https://user:pw@example.com/a/b#section-2')).toBe('https://example.com/a/b');
  });

  it('drops tracking parameters, keeps the others in order', () => {
    expect(normalizeUrl('https://example.com/p?id=7&utm_source=news&utm_medium=email&fbclid=abc&lang=en&gclid=1&ref_src=twsrc')).toBe('https://example.com/p?id=7&lang=en');
    expect(normalizeUrl('https://example.com/?UTM_Campaign=x')).toBe('https://example.com/');
    expect(normalizeUrl('https://example.com/?%75tm_source=x&a=1')).toBe('https://example.com/?a=1');
  });

  it('keeps the parameters it keeps byte for byte', () => {
    expect(normalizeUrl('https://example.com/wiki?title=Main%20Page&utm_source=x')).toBe('https://example.com/wiki?title=Main%20Page');
    expect(normalizeUrl('https://example.com/search?q=a+b&flag')).toBe('https://example.com/search?q=a+b&flag');
    expect(normalizeUrl('https://example.com/?a=1&a=2&b=%2B')).toBe('https://example.com/?a=1&a=2&b=%2B');
  });

  it('normalises host case, default ports and an empty query', () => {
    expect(normalizeUrl('HTTPS://Example.COM:443/x?')).toBe('https://example.com/x');
    expect(normalizeUrl('http://example.com:80')).toBe('http://example.com/');
    expect(normalizeUrl('http://example.com:8080/')).toBe('http://example.com:8080/');
  });

  it('refuses what is not an http(s) URL', () => {
    for (const u of ['', 'not a url', 'chrome://settings', 'file:///etc/passwd', 'javascript:alert(1)', 'about:blank', 'data:text/html,x', 'chrome-extension://abc/x.html']) {
      expect(normalizeUrl(u)).toBeNull();
    }
  });

  it('is idempotent and never throws (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
          fc.tuple(fc.webUrl(), fc.array(fc.tuple(fc.constantFrom('utm_source', 'fbclid', 'q', 'id', 'gclid', 'page'), fc.string()), { maxLength: 5 })).map(
            ([u, ps]) => `${u}?${ps.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`,
          ),
          fc.string(),
        ),
        (u) => {
          const n = normalizeUrl(u);
          if (n === null) return;
          expect(normalizeUrl(n)).toBe(n);
          const url = new URL(n);
          expect(url.hash).toBe('');
          for (const k of url.searchParams.keys()) expect(k).not.toMatch(/^(utm_|fbclid$|gclid$)/i);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('siteOf / siteMatches', () => {
  it('siteOf drops www. and lowercases', () => {
    expect(siteOf('https://WWW.Example.com:8443/x')).toBe('example.com');
    expect(siteOf('garbage')).toBe('');
  });

  it('siteMatches a site and its subdomains only', () => {
    expect(siteMatches('docs.python.org', 'python.org')).toBe(true);
    expect(siteMatches('python.org', 'python.org')).toBe(true);
    expect(siteMatches('python.org', 'www.python.org')).toBe(true);
    expect(siteMatches('docs.python.org', '*.python.org')).toBe(true);
    expect(siteMatches('notpython.org', 'python.org')).toBe(false);
    expect(siteMatches('python.org.evil.com', 'python.org')).toBe(false);
    expect(siteMatches('python.org', '')).toBe(false);
  });
});

describe('sectionHref', () => {
  const url = 'https://example.com/page';

  it('uses the heading id', () => {
    expect(sectionHref(url, { id: 'install notes', text: 'Install' })).toBe(`${url}#install%20notes`);
  });

  it('falls back to a text fragment with - , & encoded, at most 8 words', () => {
    const href = sectionHref(url, { text: '  Step-by-step: cats, dogs & birds one two three four five ' });
    expect(href).toBe(`${url}#:~:text=Step%2Dby%2Dstep%3A%20cats%2C%20dogs%20%26%20birds%20one%20two%20three`);
    expect(decodeURIComponent(href.split('#:~:text=')[1]!)).toBe('Step-by-step: cats, dogs & birds one two three');
  });

  it('falls back to the page URL', () => {
    expect(sectionHref(url, undefined)).toBe(url);
    expect(sectionHref(url, {})).toBe(url);
    expect(sectionHref(url, { text: '   ' })).toBe(url);
  });
});

describe('local files (file:// PDFs)', () => {
  it('normalizeUrl stays web-only; normalizeFileUrl keeps a file without fragment or query', () => {
    expect(normalizeUrl('file:///home/ann/a.pdf')).toBeNull();
    expect(normalizeFileUrl('file:///home/ann/My%20notes.pdf#page=3')).toBe('file:///home/ann/My%20notes.pdf');
    expect(normalizeFileUrl('file:///C:/Users/ann/a.pdf?x=1')).toBe('file:///C:/Users/ann/a.pdf');
    expect(normalizeFileUrl('file://server/share/a.pdf')).toBe('file://server/share/a.pdf');
    for (const bad of ['https://a.example/a.pdf', 'file:///', 'chrome://settings', 'not a url', '']) expect(normalizeFileUrl(bad), bad).toBeNull();
    expect(normalizeStoredUrl('https://a.example/x#y')).toBe('https://a.example/x');
    expect(normalizeStoredUrl('file:///tmp/a.pdf#page=2')).toBe('file:///tmp/a.pdf');
    expect(normalizeStoredUrl('javascript:alert(1)')).toBeNull();
  });

  it('every file is on the one site "Local files", which exclusions and site: match like any site', () => {
    expect(siteOf('file:///home/ann/a.pdf')).toBe(LOCAL_FILES_SITE);
    expect(siteOf('file://server/share/a.pdf')).toBe(LOCAL_FILES_SITE);
    expect(siteLabel(LOCAL_FILES_SITE)).toBe('Local files');
    expect(siteLabel('example.com')).toBe('example.com');
    expect(siteMatches(siteOf('file:///x.pdf'), LOCAL_FILES_SITE)).toBe(true);
    expect(siteMatches(siteOf('file:///x.pdf'), 'files')).toBe(false);
    // What a user types to exclude it, or a file address pasted in, means that site.
    for (const typed of ['Local files', 'local-files', ' local files ', 'file:///home/ann/a.pdf']) expect(normalizeSitePattern(typed), typed).toBe(LOCAL_FILES_SITE);
    expect(normalizeSitePattern(LOCAL_FILES_SITE)).toBe(LOCAL_FILES_SITE);
  });

  it('shows a file by its name, and its folder with the home folder as ~ (no account name on screen)', () => {
    expect(fileNameOf('file:///home/ann/Papers/My%20notes.pdf')).toBe('My notes.pdf');
    expect(displayLocation('file:///home/ann/Papers/My%20notes.pdf')).toBe('~/Papers/My notes.pdf');
    expect(displayLocation('file:///Users/ann/a.pdf')).toBe('~/a.pdf');
    expect(displayLocation('file:///root/a.pdf')).toBe('~/a.pdf');
    expect(displayLocation('file:///C:/Users/ann/Desktop/a.pdf')).toBe('~/Desktop/a.pdf');
    expect(displayLocation('file:///tmp/a.pdf')).toBe('/tmp/a.pdf');
    expect(displayLocation('file:///home/annex')).toBe('~');
    expect(displayLocation('https://a.example/home/ann/x')).toBe('https://a.example/home/ann/x');
  });

  it('never shows the account name of a home folder (property)', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9._-]{2,12}$/);
    const rest = fc.array(fc.stringMatching(/^[A-Za-z0-9 ._-]{1,10}$/), { maxLength: 4 });
    fc.assert(
      fc.property(name, rest, fc.constantFrom('/home/', '/Users/', '/C:/Users/'), (user, parts, root) => {
        const url = 'file://' + encodeURI(root + user + (parts.length ? '/' + parts.join('/') : ''));
        const shown = displayLocation(url);
        expect(shown.startsWith('~')).toBe(true);
        expect(shown.slice(1).split('/').includes(user) && !parts.includes(user)).toBe(false);
      }),
    );
  });
});
