import { capturedPageUrl } from '../../src/url.js';
/**
 * The message router (background/router.ts) with fake handlers: who may send what, where the page URL
 * comes from, how errors come back; and the shape checks of src/validate.ts on hostile payloads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRouter, type Context, type Handlers, type SenderInfo, type Validators } from '../../background/router.js';
import { CONTENT_MESSAGES, ProtocolError, type MessageType } from '../../src/protocol.js';
import { CAPTURE_LIMITS, validateCapture, validateObject, validateSearch } from '../../src/validate.js';

const EXT_ID = 'abcdefghijklmnopabcdefghijklmnop';
const EXT_ORIGIN = `chrome-extension://${EXT_ID}/`;

const TYPES: MessageType[] = [
  'page/check',
  'page/hello',
  'page/capture',
  'page/pdf',
  'search',
  'stats',
  'sites',
  'settings/get',
  'settings/set',
  'forget/preview',
  'forget',
  'forget/undo',
  'forget/pending',
  'retention/preview',
  'export',
  'export/part',
  'import/part',
  'import',
  'verify',
  'open',
  'dayone/status',
  'history/import',
  'history/stop',
  'backfill/control',
  'dayone/dismiss',
  'pdf/notes-clear',
];
const ADMIN = TYPES.filter((t) => !CONTENT_MESSAGES.has(t));

interface Call {
  type: MessageType;
  payload: unknown;
  ctx: Context;
}

/** A router whose handlers record what they got; `override` replaces handlers or validators. */
function setup(override: { handlers?: Partial<Record<MessageType, (p: unknown, c: Context) => Promise<unknown>>>; validators?: Partial<Record<MessageType, (p: unknown) => unknown>> } = {}) {
  const calls: Call[] = [];
  const handlers = {} as Record<MessageType, (p: unknown, c: Context) => Promise<unknown>>;
  const validators = {} as Record<MessageType, (p: unknown) => unknown>;
  for (const type of TYPES) {
    handlers[type] = async (payload, ctx) => {
      calls.push({ type, payload, ctx });
      return { handled: type };
    };
    validators[type] = (p) => validateObject(p, type);
  }
  // As in background/main.ts: messages without parameters are checked to be objects and passed on empty.
  for (const type of ['page/check', 'page/hello', 'stats', 'sites', 'settings/get', 'forget/pending'] as const) {
    validators[type] = (p) => {
      validateObject(p, type);
      return {};
    };
  }
  // The real shape checks for the two messages that carry page data or queries.
  validators['page/capture'] = (p) => validateCapture(p).payload;
  validators.search = validateSearch;
  Object.assign(handlers, override.handlers);
  Object.assign(validators, override.validators);
  const route = createRouter({ extensionId: EXT_ID, extensionOrigin: EXT_ORIGIN, handlers: handlers as unknown as Handlers, validators: validators as unknown as Validators });
  return { route, calls };
}

/** A content script in the top frame of a normal tab on `url`. */
const contentSender = (url = 'https://example.com/article', extra: Partial<SenderInfo> = {}): SenderInfo => ({
  id: EXT_ID,
  url,
  frameId: 0,
  tab: { id: 7, incognito: false, url },
  ...extra,
});
/** One of the extension's own pages (the popup has no tab; search.html and options.html run in tabs). */
const pageSender = (path = 'popup.html', tab = false): SenderInfo => ({
  id: EXT_ID,
  url: EXT_ORIGIN + path,
  ...(tab ? { frameId: 0, tab: { id: 3, incognito: false, url: EXT_ORIGIN + path } } : {}),
});

const capture = { title: 'A page', lang: 'en', blocks: [{ kind: 'text', text: 'Some words on the page.' }] };
const payloadFor = (type: MessageType): unknown => (type === 'page/capture' ? capture : type === 'search' ? { q: 'words' } : {});

type AnyReply = { ok: true; data: unknown } | { ok: false; error: { code: string; message: string } };
const codeOf = (r: unknown) => ((r as AnyReply).ok ? 'ok' : (r as { error: { code: string } }).error.code);

describe('router: message shape', () => {
  it.each([null, undefined, 'search', 42, true, [], ['search']])('refuses a non-object message (%j) with bad-request', async (m) => {
    const { route, calls } = setup();
    const r = await route(m, pageSender());
    // An array is an object: it has no type, so it is an unknown type.
    expect(codeOf(r)).toBe(Array.isArray(m) ? 'unknown-type' : 'bad-request');
    expect(calls).toEqual([]);
  });

  it.each([{}, { type: 'nope' }, { type: 42 }, { type: null }, { type: 'SEARCH' }, { type: 'search ' }, { type: '__proto__' }, { type: 'constructor' }, { type: 'hasOwnProperty' }, { type: 'toString' }])(
    'refuses an unknown type (%j) with unknown-type',
    async (m) => {
      const { route, calls } = setup();
      expect(codeOf(await route(m, pageSender()))).toBe('unknown-type');
      expect(calls).toEqual([]);
    },
  );

  it('answers every known type from the right sender with { ok: true, data }', async () => {
    const { route, calls } = setup();
    for (const type of TYPES) {
      const sender = CONTENT_MESSAGES.has(type) ? contentSender() : pageSender();
      expect(await route({ type, payload: payloadFor(type) }, sender)).toEqual({ ok: true, data: { handled: type } });
    }
    expect(calls.map((c) => c.type)).toEqual(TYPES);
  });

  it('keeps the error message of an unknown type short', async () => {
    const { route } = setup();
    const r = (await route({ type: 'x'.repeat(10_000) }, pageSender())) as { error: { message: string } };
    expect(r.error.message.length).toBeLessThan(100);
  });
});

describe('router: senders', () => {
  it('refuses messages from another extension, or with no extension id, whatever they ask', async () => {
    const { route, calls } = setup();
    for (const type of TYPES) {
      for (const id of ['otherextensionidotherextensionid', undefined, '']) {
        const base = CONTENT_MESSAGES.has(type) ? contentSender() : pageSender();
        const sender: SenderInfo = { ...base, url: base.url?.replace(EXT_ID, id ?? 'x') };
        if (id === undefined) delete sender.id;
        else sender.id = id;
        expect(codeOf(await route({ type, payload: payloadFor(type) }, sender)), `${type} from ${id}`).toBe('forbidden');
      }
    }
    // Our id with another extension's page URL is not one of our pages either.
    expect(codeOf(await route({ type: 'stats' }, { id: EXT_ID, url: 'chrome-extension://otherextensionidotherextensionid/popup.html' }))).toBe('forbidden');
    expect(calls).toEqual([]);
  });

  describe('content messages (page/check, page/hello, page/capture)', () => {
    const cases: [string, SenderInfo][] = [
      ['the popup (no tab)', pageSender('popup.html')],
      ['search.html in a tab', pageSender('search.html', true)],
      ['options.html in a tab', pageSender('options.html', true)],
      ['a sender without a tab', { id: EXT_ID, url: 'https://example.com/', frameId: 0 }],
      ['a tab without an id', { id: EXT_ID, url: 'https://example.com/', frameId: 0, tab: { incognito: false } }],
      ['a subframe', contentSender('https://ads.example.net/frame', { frameId: 3 })],
      ['an incognito tab', contentSender('https://example.com/', { tab: { id: 9, incognito: true, url: 'https://example.com/' } })],
      ['a file: page', contentSender('file:///home/me/notes.html')],
      ['a data: page', contentSender('data:text/html,<p>hi</p>')],
      ['about:blank', contentSender('about:blank')],
      ['a chrome: page', contentSender('chrome://settings/')],
      ['an ftp: page', contentSender('ftp://example.com/file.txt')],
      ['a javascript: URL', contentSender('javascript:alert(1)')],
      ['a sender without a URL', { id: EXT_ID, frameId: 0, tab: { id: 7, incognito: false } }],
      ['a sender with a garbage URL', contentSender('not a url')],
    ];
    it.each(cases)('refuses them from %s with forbidden', async (_name, sender) => {
      const { route, calls } = setup();
      for (const type of CONTENT_MESSAGES) expect(codeOf(await route({ type, payload: payloadFor(type) }, sender)), type).toBe('forbidden');
      expect(calls).toEqual([]);
    });

    it('accepts them from a content script in the top frame of a normal http(s) tab', async () => {
      const { route, calls } = setup();
      for (const url of ['https://example.com/a', 'http://127.0.0.1:8080/b', 'HTTPS://EXAMPLE.COM/C']) {
        expect(codeOf(await route({ type: 'page/capture', payload: capture }, contentSender(url)))).toBe('ok');
      }
      // frameId is optional (older browsers): a missing one is the top frame.
      expect(codeOf(await route({ type: 'page/check', payload: {} }, contentSender('https://example.com/', { frameId: undefined })))).toBe('ok');
      expect(calls.length).toBe(4);
    });

    it('takes the page URL from the sender, normalised (no fragment, tracking parameters or credentials), never from the payload', async () => {
      const { route, calls } = setup();
      const sender = contentSender('https://user:secret@example.com/post?id=3&utm_source=news&utm_medium=mail&fbclid=xyz&page=2#comments');
      const payload = { ...capture, url: 'https://bank.example/', pageUrl: 'https://bank.example/', sender: { url: 'https://bank.example/' } };
      expect(codeOf(await route({ type: 'page/capture', payload }, sender))).toBe('ok');
      expect(codeOf(await route({ type: 'page/check', payload: { url: 'https://bank.example/' } }, sender))).toBe('ok');
      for (const call of calls) expect(call.ctx.pageUrl).toBe('https://example.com/post?id=3&page=2');
      // The capture payload that reaches the handler has only the validated fields; a URL the page
      // names is honoured only on the sender's own origin (pushState), so bank.example is ignored.
      expect(Object.keys(calls[0]!.payload as object).sort()).toEqual(['blocks', 'lang', 'title', 'url']);
      expect(capturedPageUrl(calls[0]!.ctx.pageUrl!, (calls[0]!.payload as { url?: string }).url)).toBe('https://example.com/post?id=3&page=2');
      expect(capturedPageUrl('https://example.com/a', 'https://example.com/b?utm_source=x#top')).toBe('https://example.com/b');
      expect(capturedPageUrl('https://example.com/a', 'javascript:alert(1)')).toBe('https://example.com/a');
    });

    it("uses the sending frame's URL, not the tab's", async () => {
      const { route, calls } = setup();
      await route({ type: 'page/capture', payload: capture }, contentSender('https://example.com/now', { tab: { id: 7, incognito: false, url: 'https://example.com/before' } }));
      expect(calls[0]!.ctx.pageUrl).toBe('https://example.com/now');
    });
  });

  describe('admin messages (search, settings, delete, export, import, verify, open, ...)', () => {
    it('refuses every one from a content script with forbidden, without validating or handling it', async () => {
      let validated = 0;
      const validators = Object.fromEntries(
        ADMIN.map((t) => [
          t,
          () => {
            validated++;
            return {};
          },
        ]),
      );
      const { route, calls } = setup({ validators });
      for (const type of ADMIN) {
        for (const url of ['https://example.com/', 'http://evil.example/?q=' + EXT_ORIGIN, 'https://example.com/' + EXT_ORIGIN]) {
          expect(codeOf(await route({ type, payload: payloadFor(type) }, contentSender(url))), `${type} from ${url}`).toBe('forbidden');
        }
      }
      expect(validated).toBe(0);
      expect(calls).toEqual([]);
    });

    it('refuses them from a sender without a URL', async () => {
      const { route } = setup();
      for (const type of ADMIN) expect(codeOf(await route({ type, payload: payloadFor(type) }, { id: EXT_ID }))).toBe('forbidden');
    });

    it("accepts them from the extension's own pages, with or without a tab, and gives no page URL", async () => {
      const { route, calls } = setup();
      for (const sender of [pageSender('popup.html'), pageSender('search.html?q=x', true), pageSender('options.html', true)]) {
        expect(codeOf(await route({ type: 'search', payload: { q: 'x' } }, sender))).toBe('ok');
      }
      expect(calls.every((c) => c.ctx.pageUrl === null)).toBe(true);
    });

    it('checks the sender before the payload: a malformed request from a stranger is forbidden, not bad-request', async () => {
      const { route } = setup();
      expect(codeOf(await route({ type: 'search', payload: 42 }, contentSender()))).toBe('forbidden');
      expect(codeOf(await route({ type: 'page/capture', payload: 42 }, pageSender()))).toBe('forbidden');
      expect(codeOf(await route({ type: 'search', payload: 42 }, pageSender()))).toBe('bad-request');
      expect(codeOf(await route({ type: 'page/capture', payload: 42 }, contentSender()))).toBe('bad-request');
    });
  });
});

describe('router: errors', () => {
  it('turns a handler error into { ok: false, error: { code: internal } }', async () => {
    const { route } = setup({
      handlers: {
        stats: async () => {
          throw new Error('disk on fire');
        },
        sites: async () => {
          throw 'a string';
        },
        verify: () => Promise.reject(new TypeError('x is undefined')),
      },
    });
    expect(await route({ type: 'stats' }, pageSender())).toEqual({ ok: false, error: { code: 'internal', message: 'disk on fire' } });
    expect(await route({ type: 'sites' }, pageSender())).toEqual({ ok: false, error: { code: 'internal', message: 'a string' } });
    expect(await route({ type: 'verify' }, pageSender())).toEqual({ ok: false, error: { code: 'internal', message: 'x is undefined' } });
  });

  it('keeps the code of a ProtocolError, from handlers and validators alike', async () => {
    const codes = ['bad-request', 'forbidden', 'too-large', 'quota', 'unavailable', 'unknown-type', 'internal'] as const;
    for (const code of codes) {
      const { route } = setup({
        handlers: {
          stats: async () => {
            throw new ProtocolError(code, `handler ${code}`);
          },
        },
        validators: {
          sites: () => {
            throw new ProtocolError(code, `validator ${code}`);
          },
        },
      });
      expect(await route({ type: 'stats' }, pageSender())).toEqual({ ok: false, error: { code, message: `handler ${code}` } });
      expect(await route({ type: 'sites' }, pageSender())).toEqual({ ok: false, error: { code, message: `validator ${code}` } });
    }
  });

  it('reports a storage quota error as quota', async () => {
    const { route } = setup({
      handlers: {
        'page/capture': async () => {
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        },
      },
    });
    expect(codeOf(await route({ type: 'page/capture', payload: capture }, contentSender()))).toBe('quota');
  });

  it('turns a validator that throws something else into internal, and never calls the handler', async () => {
    const { route, calls } = setup({
      validators: {
        stats: () => {
          throw new RangeError('boom');
        },
      },
    });
    expect(codeOf(await route({ type: 'stats' }, pageSender()))).toBe('internal');
    expect(calls).toEqual([]);
  });
});

describe('validators: capture payloads', () => {
  const bad: [string, unknown][] = [
    ['undefined', undefined],
    ['null', null],
    ['a string', 'title'],
    ['an array', [capture]],
    ['no title', { lang: 'en', blocks: [] }],
    ['a numeric title', { title: 42, blocks: [] }],
    ['an object title', { title: { toString: 'x' }, blocks: [] }],
    ['a numeric lang', { title: 't', lang: 5, blocks: [] }],
    ['no blocks', { title: 't' }],
    ['blocks as an object', { title: 't', blocks: { 0: { kind: 'text', text: 'x' } } }],
    ['a null block', { title: 't', blocks: [null] }],
    ['a string block', { title: 't', blocks: ['text'] }],
    ['an unknown block kind', { title: 't', blocks: [{ kind: 'script', text: 'alert(1)' }] }],
    ['a block kind from the prototype', { title: 't', blocks: [{ kind: 'constructor', text: 'x' }] }],
    ['a block without text', { title: 't', blocks: [{ kind: 'text' }] }],
    ['a numeric block text', { title: 't', blocks: [{ kind: 'text', text: 42 }] }],
    ['a malformed block after good ones', { title: 't', blocks: [{ kind: 'text', text: 'ok' }, { kind: 'text', text: ['x'] }] }],
  ];
  it.each(bad)('refuses %s with bad-request', (_name, payload) => {
    expect(() => validateCapture(payload)).toThrow(ProtocolError);
    try {
      validateCapture(payload);
    } catch (e) {
      expect((e as ProtocolError).code).toBe('bad-request');
    }
  });

  it('refuses malformed captures through the router too', async () => {
    const { route, calls } = setup();
    for (const [, payload] of bad) expect(codeOf(await route({ type: 'page/capture', payload }, contentSender()))).toBe('bad-request');
    expect(calls).toEqual([]);
  });

  it('keeps only known fields, and cuts what is over the caps', () => {
    const { payload, truncatedChars } = validateCapture({
      title: '  A\n\ttitle  ' + 'x'.repeat(1000),
      lang: 'en',
      url: 'https://bank.example/',
      blocks: [
        { kind: 'heading', level: 99, text: 'H', id: 'a'.repeat(201), onclick: 'alert(1)' },
        { kind: 'heading', level: 3.4, text: 'H3', id: 'intro' },
        { kind: 'text', text: 'y'.repeat(CAPTURE_LIMITS.maxBlockChars + 10) },
        { kind: 'text', text: '' },
      ],
      extraction: { method: 'evil', retention: 7, visibleWords: -1, costMs: Infinity, longestTaskMs: 'x', tasks: -3 },
    });
    expect(Object.keys(payload).sort()).toEqual(['blocks', 'extraction', 'lang', 'title', 'url']);
    expect(payload.title.length).toBeLessThanOrEqual(CAPTURE_LIMITS.maxTitleChars);
    expect(payload.title.startsWith('A title')).toBe(true);
    expect(payload.blocks[0]).toEqual({ kind: 'heading', level: 2, text: 'H' });
    expect(payload.blocks[1]).toEqual({ kind: 'heading', level: 3, text: 'H3', id: 'intro' });
    expect(payload.blocks[2]!.text.length).toBe(CAPTURE_LIMITS.maxBlockChars);
    expect(payload.blocks.length).toBe(3);
    expect(truncatedChars).toBe(10);
    expect(payload.extraction).toEqual({ method: 'body', retention: 0, visibleWords: 0, costMs: 0, longestTaskMs: 0, tasks: 0 });
  });

  it('caps the number of blocks and the total characters of a page', () => {
    const many = validateCapture({ title: 't', blocks: Array.from({ length: CAPTURE_LIMITS.maxBlocks + 500 }, () => ({ kind: 'text', text: 'w' })) });
    expect(many.payload.blocks.length).toBe(CAPTURE_LIMITS.maxBlocks);
    const big = validateCapture({ title: 't', blocks: Array.from({ length: 15 }, () => ({ kind: 'text', text: 'z'.repeat(CAPTURE_LIMITS.maxBlockChars) })) });
    expect(big.payload.blocks.reduce((n, b) => n + b.text.length, 0)).toBe(CAPTURE_LIMITS.maxPageChars);
  });
});

describe('validators: search requests', () => {
  const bad: [string, unknown][] = [
    ['undefined', undefined],
    ['null', null],
    ['a string', 'q'],
    ['an array', ['q']],
    ['no q', {}],
    ['a numeric q', { q: 1 }],
    ['an array q', { q: ['a'] }],
    ['a numeric site', { q: 'a', site: 1 }],
    ['an object after', { q: 'a', after: {} }],
    ['a numeric before', { q: 'a', before: 5 }],
    ['a numeric excludeUrl', { q: 'a', excludeUrl: 5 }],
    ['a string limit', { q: 'a', limit: '10' }],
    ['a NaN limit', { q: 'a', limit: Number.NaN }],
    ['an infinite limit', { q: 'a', limit: Infinity }],
    ['a numeric box', { q: 'a', box: 5 }],
    ['a string loose', { q: 'a', loose: 'yes' }],
  ];
  it.each(bad)('refuses %s with bad-request', (_name, payload) => {
    let code: string | undefined;
    try {
      validateSearch(payload);
    } catch (e) {
      code = (e as ProtocolError).code;
    }
    expect(code).toBe('bad-request');
  });

  it('refuses malformed searches through the router too', async () => {
    const { route, calls } = setup();
    for (const [, payload] of bad) expect(codeOf(await route({ type: 'search', payload }, pageSender()))).toBe('bad-request');
    expect(calls).toEqual([]);
  });

  it('keeps known fields only, bounded', () => {
    expect(validateSearch({ q: 'x'.repeat(5000), limit: 1e9, extra: 'no', site: '', after: '7d' })).toEqual({ q: 'x'.repeat(2000), limit: 200, after: '7d' });
    expect(validateSearch({ q: 'a', limit: -5 }).limit).toBe(1);
    expect(validateSearch({ q: 'a', limit: 2.6 }).limit).toBe(3);
    expect(validateSearch({ q: 'a', box: 'popup-x1' }).box).toBe('popup-x1');
    expect(validateSearch({ q: 'a', box: 'b'.repeat(500) }).box).toBe('b'.repeat(64));
    expect(validateSearch({ q: 'a', loose: true }).loose).toBe(true);
    expect(validateSearch({ q: 'a', loose: false })).toEqual({ q: 'a' });
  });
});

describe('router: property-based', () => {
  const senders = fc.oneof(
    fc.constant(pageSender()),
    fc.constant(pageSender('options.html', true)),
    fc.constant(contentSender()),
    fc.constant(contentSender('https://example.com/#x', { frameId: 2 })),
    fc.record({
      id: fc.option(fc.constantFrom(EXT_ID, 'other', ''), { nil: undefined }),
      url: fc.option(fc.oneof(fc.webUrl(), fc.constantFrom(EXT_ORIGIN, EXT_ORIGIN + 'popup.html', 'about:blank', 'file:///x'), fc.string()), { nil: undefined }),
      frameId: fc.option(fc.integer({ min: -1, max: 5 }), { nil: undefined }),
      tab: fc.option(fc.record({ id: fc.option(fc.nat(), { nil: undefined }), incognito: fc.boolean(), url: fc.option(fc.webUrl(), { nil: undefined }) }), { nil: undefined }),
    }) as fc.Arbitrary<SenderInfo>,
  );
  /** Messages: arbitrary JSON, and envelopes with a real type and an arbitrary JSON payload. */
  const messages = fc.oneof(fc.jsonValue(), fc.record({ type: fc.constantFrom(...TYPES), payload: fc.jsonValue() }), fc.record({ type: fc.constantFrom(...TYPES), payload: fc.record({ title: fc.jsonValue(), lang: fc.jsonValue(), blocks: fc.array(fc.record({ kind: fc.constantFrom('text', 'heading', 'x'), text: fc.jsonValue(), level: fc.jsonValue(), id: fc.jsonValue() })), q: fc.jsonValue(), limit: fc.jsonValue() }, { requiredKeys: [] }) }));
  /** Not a string, and String() can convert it (the others are the known bug below). */
  const convertible = (t: unknown) => {
    if (typeof t === 'string') return false;
    try {
      String(t);
      return true;
    } catch {
      return false;
    }
  };
  const CODES = new Set(['bad-request', 'forbidden', 'unknown-type', 'too-large', 'quota', 'unavailable', 'internal']);

  it('never throws on arbitrary JSON from any sender, and always answers with an { ok } envelope', async () => {
    const { route } = setup();
    await fc.assert(
      fc.asyncProperty(messages, senders, async (m, sender) => {
        const r = (await route(m, sender)) as AnyReply;
        expect(typeof r.ok).toBe('boolean');
        if (r.ok) expect(Object.keys(r)).toEqual(['ok', 'data']);
        else {
          expect(Object.keys(r)).toEqual(['ok', 'error']);
          expect(CODES.has(r.error.code)).toBe(true);
          expect(typeof r.error.message).toBe('string');
          // The fake validators and handlers never fail with internal: an internal here would be the
          // router's own (see the known bug below, for types String() cannot convert).
          const t = (m as { type?: unknown } | null)?.type;
          if (typeof t !== 'object' || t === null) expect(r.error.code).not.toBe('internal');
        }
      }),
      { numRuns: 1500 },
    );
  }, 60_000);

  it('never lets a content message through without a top-frame http(s) tab, nor an admin message without an extension page', async () => {
    const { route, calls } = setup();
    await fc.assert(
      fc.asyncProperty(messages, senders, async (m, sender) => {
        calls.length = 0;
        await route(m, sender);
        for (const c of calls) {
          expect(sender.id).toBe(EXT_ID);
          if (CONTENT_MESSAGES.has(c.type)) {
            expect(sender.tab?.id).toBeTypeOf('number');
            expect(sender.tab?.incognito).toBe(false);
            expect(sender.frameId ?? 0).toBe(0);
            expect(c.ctx.pageUrl).toMatch(/^https?:\/\//);
          } else {
            expect(sender.url?.startsWith(EXT_ORIGIN)).toBe(true);
            expect(c.ctx.pageUrl).toBeNull();
          }
        }
      }),
      { numRuns: 1500 },
    );
  }, 60_000);

  it('captures and searches: arbitrary payloads are either refused with bad-request or come out well-formed', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (p) => {
        try {
          const { payload } = validateCapture(p);
          expect(typeof payload.title).toBe('string');
          for (const b of payload.blocks) expect(typeof b.text).toBe('string');
        } catch (e) {
          expect((e as ProtocolError).code).toBe('bad-request');
        }
        try {
          const s = validateSearch(p);
          expect(typeof s.q).toBe('string');
        } catch (e) {
          expect((e as ProtocolError).code).toBe('bad-request');
        }
      }),
      { numRuns: 3000 },
    );
  }, 60_000);

  it('answers unknown-type for any non-string type that converts to a string', async () => {
    const { route } = setup();
    await fc.assert(
      fc.asyncProperty(fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withBigInt: true, withDate: true, withTypedArray: true, withSparseArray: true }).filter(convertible), async (type) => {
        expect(codeOf(await route({ type }, pageSender()))).toBe('unknown-type');
      }),
      { numRuns: 2000 },
    );
  }, 60_000);
});

// Known bug (reported): when `type` is an object that String() cannot convert (`{ "toString": 1 }` is
// plain JSON; an object without a prototype where messages are structured-cloned), building the error
// message throws inside the router, and the answer is `internal` instead of `unknown-type`. The envelope
// is still right (nothing escapes). Remove `.fails` once fixed.
describe('router: unconvertible types', () => {
  it('answers unknown-type, not internal, for a type String() cannot convert', async () => {
    const { route } = setup();
    for (const type of [{ toString: 1 }, { toString: null, valueOf: null }, Object.create(null) as object]) {
      expect(codeOf(await route({ type }, pageSender()))).toBe('unknown-type');
    }
  });

  it('still answers with an envelope for them', async () => {
    const { route } = setup();
    for (const type of [{ toString: 1 }, Object.create(null) as object]) {
      const r = (await route({ type }, pageSender())) as AnyReply;
      expect(r.ok).toBe(false);
    }
  });
});
