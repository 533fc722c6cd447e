/** The pure rules of day one (#14): open tabs, history entries, the backfill's policy, PDF sections. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planTabs } from '../../src/openTabs.js';
import { afterRead, narrowed, titleEntry, urlText } from '../../src/historyEntries.js';
import { checkBody, checkHead, dayKey, localNetworkAddress, pickNext } from '../../src/backfillPolicy.js';
import { pdfBlocks, type PdfPage } from '../../src/pdfSections.js';
import { chunkBlocks } from '../../src/chunker.js';
import { sectionHref } from '../../src/url.js';

describe('open tabs', () => {
  it('injects into normal web tabs that capture allows, later into loading or discarded ones, never incognito', () => {
    const plan = planTabs(
      [
        { id: 1, url: 'https://a.example/x', incognito: false, status: 'complete' },
        { id: 2, url: 'https://a.example/y', incognito: true, status: 'complete' },
        { id: 3, url: 'https://bank.example/', incognito: false, status: 'complete' },
        { id: 4, url: 'https://b.example/', incognito: false, status: 'loading' },
        { id: 5, url: 'https://c.example/', incognito: false, status: 'complete', discarded: true },
        { id: 6, url: 'chrome://settings', incognito: false, status: 'complete' },
        { id: 7, incognito: false, status: 'complete' },
      ],
      (url) => !url.includes('bank'),
    );
    expect(plan).toEqual({ now: [1], whenLoaded: [4, 5] });
  });
});

describe('history entries', () => {
  it('URL words: host and decoded path segments', () => {
    expect(urlText('https://www.example.org/docs/Caf%C3%A9_guide/page-2.html?q=1')).toBe('example.org › docs › Café guide › page-2.html');
  });
  it('keeps http(s) only, never excluded sites, normalises the URL, titles fall back to the site', () => {
    expect(titleEntry({ url: 'ftp://x.example/a', lastVisitTime: 5 }, [])).toBeNull();
    expect(titleEntry({ url: 'https://mail.bank.example/a', lastVisitTime: 5 }, ['bank.example'])).toBeNull();
    expect(titleEntry({ url: 'https://x.example/a?utm_source=y#frag', title: '  A\n title ', lastVisitTime: 5, visitCount: 0 }, [])).toEqual({ url: 'https://x.example/a', site: 'x.example', title: 'A title', text: 'x.example › a', lastVisit: 5, visitCount: 1 });
    expect(titleEntry({ url: 'https://x.example/', lastVisitTime: 5 }, [])!.title).toBe('x.example');
  });
  it('a read that says it holds a window whole does, in Chromium\'s order and in Firefox\'s (property)', () => {
    // A small history: each address with its visits; a read of [start, cursor) answered as each browser does.
    const history = fc.array(fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 4 }), { maxLength: 30 });
    fc.assert(
      fc.property(history, fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 6 }), fc.boolean(), (visits, from, span, limit, firefox) => {
        const cursor = from + span;
        const w = { from, cursor };
        let start = from;
        for (let reads = 0; ; reads++) {
          // Chromium: by the latest visit inside the window; Firefox: by the last visit of all, the end included.
          const inWindow = visits.map((v, id) => ({ id, last: Math.max(...v), latestIn: Math.max(-Infinity, ...v.filter((t) => t >= start && (firefox ? t <= cursor : t < cursor))) })).filter((a) => a.latestIn > -Infinity);
          const answer = inWindow.sort((a, b) => (firefox ? b.last - a.last : b.latestIn - a.latestIn)).slice(0, limit);
          const step = afterRead(w, start, answer.map((a) => a.last), limit);
          const got = new Set(answer.map((a) => a.id));
          const holds = (lo: number) => visits.every((v, id) => got.has(id) || !v.some((t) => t >= lo && t < cursor));
          if (step.step === 'complete') {
            expect(holds(start)).toBe(true);
            return;
          }
          if (step.step === 'cut') {
            expect(step.next).toBeGreaterThan(start);
            expect(step.next).toBeLessThan(cursor);
            expect(holds(step.next)).toBe(true);
            return;
          }
          if (step.step === 'whole') {
            expect(cursor - start).toBeLessThanOrEqual(1);
            return;
          }
          // Narrowing ends: each step halves what is left at least.
          const next = narrowed(w, start, answer.map((a) => (a.latestIn < cursor ? a.latestIn : a.last)));
          expect(next).toBeGreaterThan(start);
          expect(next).toBeLessThan(cursor);
          // Firefox refuses a search whose start is not a whole number of milliseconds.
          expect(Number.isInteger(next)).toBe(true);
          expect(cursor - next <= (cursor - start) / 2 || next === cursor - 1).toBe(true);
          expect(reads).toBeLessThan(10);
          start = next;
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('backfill policy', () => {
  const head = (o: Partial<Parameters<typeof checkHead>[0]>) => checkHead({ status: 200, contentType: 'text/html; charset=utf-8', url: 'https://a.example/p', finalUrl: 'https://a.example/p', ...o });
  it('reads only successful HTML answers that stayed on the site, and spots login walls', () => {
    expect(head({})).toBeNull();
    expect(head({ status: 404 })).toBe('http-error');
    expect(head({ status: 401 })).toBe('login-wall');
    expect(head({ contentType: 'application/pdf' })).toBe('not-html');
    expect(head({ finalUrl: 'https://a.example/login?next=/p' })).toBe('login-wall');
    expect(head({ finalUrl: 'https://accounts.b.example/signin' })).toBe('login-wall');
    expect(head({ finalUrl: 'https://other.example/p' })).toBe('redirected');
    expect(head({ finalUrl: 'https://a.example/p/' })).toBeNull();
    expect(checkBody({ words: 80, hasPasswordField: true })).toBe('login-wall');
    expect(checkBody({ words: 10, hasPasswordField: false })).toBe('too-little-text');
    expect(checkBody({ words: 800, hasPasswordField: true })).toBeNull();
  });
  it('never two requests to one host, at most the limit in all (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 50 })), { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (q, inFlight) => {
        const queue = q.map(([h, p]) => `https://h${h}.example/${p}`);
        const busy = new Set(['h0.example']);
        const picks = pickNext(queue, busy, inFlight, 3);
        const hosts = picks.map((u) => new URL(u).host);
        expect(new Set(hosts).size).toBe(hosts.length);
        expect(hosts).not.toContain('h0.example');
        expect(picks.length + inFlight).toBeLessThanOrEqual(Math.max(3, inFlight));
      }),
    );
  });
  it('days are local calendar days', () => {
    expect(dayKey(new Date(2026, 0, 2, 23, 59).getTime())).toBe('2026-01-02');
  });
});

describe('addresses on the user\'s own network (not fetched again by the backfill)', () => {
  it('loopback, private, shared and link-local addresses, one-label names and local suffixes', () => {
    for (const url of ['http://localhost:3000/', 'http://app.localhost/', 'http://127.0.0.1/', 'http://127.8.9.1/', 'http://10.1.2.3/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.0.1/reboot', 'http://169.254.1.1/', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://[::1]/', 'http://[fd12:3456::1]/', 'http://[fe80::1]/', 'http://[::ffff:192.168.1.1]/', 'http://router/', 'http://NAS./', 'http://printer.local/', 'http://fritz.box.home.arpa/', 'http://wiki.corp/', 'http://git.internal/', 'http://media.lan/']) {
      expect(localNetworkAddress(url), url).toBe(true);
    }
  });
  it('public addresses are not', () => {
    for (const url of ['https://docs.python.org/3/', 'http://172.32.0.1/', 'http://172.15.0.1/', 'http://8.8.8.8/', 'http://100.128.0.1/', 'http://[2001:db8::1]/', 'https://localhost.example.com/', 'https://local.example/', 'https://xn--bcher-kva.de/', 'not a url']) {
      expect(localNetworkAddress(url), url).toBe(false);
    }
  });
});

describe('PDF sections', () => {
  const lines = (n: number, words: string) => Array.from({ length: 6 }, (_, i) => ({ text: `${words} line ${i} on page ${n} with several ordinary words in it`, y: 700 - i * 16 }));
  const pages: PdfPage[] = [1, 2, 3, 4].map((n) => ({ n, lines: lines(n, `p${n}`) }));

  it('one section per outline entry, headings from the outline, each page anchored page=N', () => {
    const blocks = pdfBlocks(pages, [
      { title: 'Intro', level: 1, page: 1, top: 752 },
      { title: 'Methods', level: 1, page: 2, top: 752 },
      { title: 'Mapping', level: 2, page: 3, top: 752 },
      { title: 'Results', level: 1, page: 4, top: 752 },
    ]);
    const { chunks } = chunkBlocks(blocks);
    const where = (word: string) => chunks.find((c) => c.text.includes(word));
    expect(where('p3 line')!.headingPath).toEqual(['Methods', 'Mapping']);
    expect(sectionHref('https://x.example/a.pdf', where('p3 line')!.anchor)).toBe('https://x.example/a.pdf#page=3');
    expect(sectionHref('https://x.example/a.pdf', where('p1 line')!.anchor)).toBe('https://x.example/a.pdf#page=1');
  });

  it('an entry starting mid-page splits the page at its height; a page continuing a section is its own section', () => {
    const blocks = pdfBlocks(pages.slice(0, 2), [
      { title: 'First', level: 1, page: 1, top: 752 },
      { title: 'Second', level: 1, page: 1, top: 700 - 3 * 16 + 2 },
    ]);
    const { chunks } = chunkBlocks(blocks, { maxWords: 300, minWords: 5, overlap: 0, maxChunks: 100, maxChunkChars: 6000, maxHeadingChars: 200 });
    const first = chunks.find((c) => c.section === 'First')!;
    expect(first.text).toContain('p1 line 2');
    expect(first.text).not.toContain('p1 line 3');
    const seconds = chunks.filter((c) => c.section === 'Second');
    expect(seconds.map((c) => c.anchor.id)).toEqual(['page=1', 'page=2']);
  });

  it('without an outline: a section per page named by its number', () => {
    const { chunks } = chunkBlocks(pdfBlocks(pages.slice(0, 2), []));
    expect(chunks.map((c) => [c.section, c.anchor.id])).toEqual([
      ['Page 1', 'page=1'],
      ['Page 2', 'page=2'],
    ]);
  });

  it('mends words hyphenated across lines', () => {
    const blocks = pdfBlocks([{ n: 1, lines: [{ text: 'a carto-', y: 700 }, { text: 'graphy lesson', y: 684 }] }], []);
    expect(blocks.find((b) => b.kind === 'text')!.text).toBe('a cartography lesson');
  });
});

describe('reader protocol (what the offscreen document accepts from the worker)', async () => {
  const { parseReaderRequest, parseReaderReply } = await import('../../background/reader/readerProtocol.js');
  it('accepts web addresses (and local files for PDFs only), with a known operation and credentials', () => {
    expect(parseReaderRequest({ id: 1, op: 'html', url: 'https://a.example/p' })).toEqual({ id: 1, op: 'html', url: 'https://a.example/p' });
    expect(parseReaderRequest({ id: 2, op: 'pdf', url: 'http://a.example/x.pdf', credentials: 'include' })).toMatchObject({ op: 'pdf', credentials: 'include' });
    expect(parseReaderRequest({ id: 4, op: 'pdf', url: 'file:///home/ann/x.pdf', credentials: 'omit' })).toMatchObject({ op: 'pdf', url: 'file:///home/ann/x.pdf' });
    for (const bad of [
      { id: 1, op: 'html', url: 'file:///etc/passwd' },
      { id: 1, op: 'html', url: 'chrome://settings' },
      { id: 1, op: 'pdf', url: 'chrome://settings', credentials: 'omit' },
      { id: 1, op: 'pdf', url: 'filesystem:chrome-extension://x/a.pdf', credentials: 'omit' },
      { id: 1, op: 'pdf', url: 'https://a.example/x.pdf', credentials: 'same-origin' },
      { id: 1.5, op: 'html', url: 'https://a.example/' },
      { id: 1, op: 'eval', url: 'https://a.example/' },
      { id: 1, op: 'html', url: 'https://a.example/' + 'x'.repeat(9000) },
      null,
      'html',
    ])
      expect(parseReaderRequest(bad), JSON.stringify(bad)?.slice(0, 60)).toBeNull();
    expect(parseReaderReply({ id: 3, ok: false, error: 'x'.repeat(900) })).toEqual({ id: 3, ok: false, error: 'x'.repeat(500) });
    expect(parseReaderReply({ id: 3, ok: true, data: 'nope' })).toBeNull();
  });
});
