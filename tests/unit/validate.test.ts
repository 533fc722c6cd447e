import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPageForgottenNotice, ProtocolError } from '../../src/protocol.js';
import { CAPTURE_LIMITS, optionalNumber, requiredString, validateCapture, validateObject, validateSearch } from '../../src/validate.js';

const badRequest = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).code).toBe('bad-request');
    return;
  }
  throw new Error('expected a bad-request');
};

describe('validateCapture', { timeout: 30_000 }, () => {
  it('passes a good payload through, cleaning the title', () => {
    const { payload, truncatedChars } = validateCapture({
      title: '  A \n title ',
      lang: 'en',
      blocks: [
        { kind: 'heading', text: 'Intro', level: 1, id: 'intro' },
        { kind: 'text', text: 'Hello' },
        { kind: 'code', text: 'x = 1' },
      ],
      extraction: { method: 'readability', retention: 0.8, visibleWords: 120.4, costMs: 3, longestTaskMs: 2, tasks: 4.2 },
    });
    expect(payload).toEqual({
      title: 'A title',
      lang: 'en',
      blocks: [
        { kind: 'heading', text: 'Intro', level: 1, id: 'intro' },
        { kind: 'text', text: 'Hello' },
        { kind: 'code', text: 'x = 1' },
      ],
      extraction: { method: 'readability', retention: 0.8, visibleWords: 120, costMs: 3, longestTaskMs: 2, tasks: 4 },
    });
    expect(truncatedChars).toBe(0);
  });

  it('rejects malformed payloads and blocks', () => {
    badRequest(() => validateCapture(null));
    badRequest(() => validateCapture([]));
    badRequest(() => validateCapture({ blocks: [] }));
    badRequest(() => validateCapture({ title: 't', blocks: 'x' }));
    badRequest(() => validateCapture({ title: 't', blocks: [null] }));
    badRequest(() => validateCapture({ title: 't', blocks: [{ kind: 'script', text: 'x' }] }));
    badRequest(() => validateCapture({ title: 't', blocks: [{ kind: 'text', text: 5 }] }));
    badRequest(() => validateCapture({ title: 't', blocks: [{ kind: 'text' }] }));
    badRequest(() => validateCapture({ title: 't', lang: 3, blocks: [] }));
    badRequest(() => validateCapture({ title: 't', blocks: [{ kind: 'text', text: 'ok' }, ['text', 'x']] }));
  });

  it('caps titles, blocks, block text and page text', () => {
    const big = 'x'.repeat(CAPTURE_LIMITS.maxBlockChars + 10);
    const r = validateCapture({ title: 't'.repeat(1000), lang: 'en'.repeat(40), blocks: [{ kind: 'text', text: big }] });
    expect(r.payload.title).toHaveLength(CAPTURE_LIMITS.maxTitleChars);
    expect(r.payload.lang.length).toBeLessThanOrEqual(35);
    expect(r.payload.blocks[0]!.text).toHaveLength(CAPTURE_LIMITS.maxBlockChars);
    expect(r.truncatedChars).toBe(10);

    const blocks = Array.from({ length: 12 }, () => ({ kind: 'text', text: 'y'.repeat(CAPTURE_LIMITS.maxBlockChars) }));
    const page = validateCapture({ title: 't', blocks });
    const total = page.payload.blocks.reduce((n, b) => n + b.text.length, 0);
    expect(total).toBe(CAPTURE_LIMITS.maxPageChars);
    expect(page.truncatedChars).toBe(12 * CAPTURE_LIMITS.maxBlockChars - CAPTURE_LIMITS.maxPageChars);

    const many = validateCapture({ title: 't', blocks: Array.from({ length: CAPTURE_LIMITS.maxBlocks + 50 }, () => ({ kind: 'list', text: 'z' })) });
    expect(many.payload.blocks).toHaveLength(CAPTURE_LIMITS.maxBlocks);
    expect(many.truncatedChars).toBe(50);
  });

  it('defaults bad heading levels and drops bad ids and empty blocks', () => {
    const { payload } = validateCapture({
      title: 't',
      blocks: [
        { kind: 'heading', text: 'A', level: 9 },
        { kind: 'heading', text: 'B', level: '1' },
        { kind: 'heading', text: 'C', level: 3.4 },
        { kind: 'text', text: 'D', id: 'x'.repeat(500) },
        { kind: 'text', text: '' },
      ],
    });
    expect(payload.blocks).toEqual([
      { kind: 'heading', text: 'A', level: 2 },
      { kind: 'heading', text: 'B', level: 2 },
      { kind: 'heading', text: 'C', level: 3 },
      { kind: 'text', text: 'D' },
    ]);
  });

  it('either returns a payload within the caps or throws bad-request (property)', () => {
    const block = fc.oneof(
      fc.record({ kind: fc.constantFrom('heading', 'text', 'code', 'table', 'list', 'quote'), text: fc.string(), level: fc.anything(), id: fc.anything() }, { requiredKeys: ['kind', 'text'] }),
      fc.anything(),
    );
    const payload = fc.oneof(
      fc.record({ title: fc.oneof(fc.string(), fc.anything()), lang: fc.oneof(fc.string(), fc.anything()), blocks: fc.oneof(fc.array(block, { maxLength: 10 }), fc.anything()), extraction: fc.anything() }, { requiredKeys: [] }),
      fc.anything(),
    );
    fc.assert(
      fc.property(payload, (v) => {
        let r;
        try {
          r = validateCapture(v);
        } catch (e) {
          expect(e).toBeInstanceOf(ProtocolError);
          return;
        }
        expect(typeof r.payload.title).toBe('string');
        // What was kept plus what was cut is what was sent.
        const sent = (v as { blocks: unknown[] }).blocks.reduce((n: number, b) => n + (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text.length : 0), 0);
        expect(r.payload.blocks.reduce((n, b) => n + b.text.length, 0) + r.truncatedChars).toBe(sent);
        expect(r.payload.title.length).toBeLessThanOrEqual(CAPTURE_LIMITS.maxTitleChars);
        for (const b of r.payload.blocks) {
          expect(typeof b.text).toBe('string');
          expect(b.text.length).toBeGreaterThan(0);
          if (b.level !== undefined) expect(b.level >= 1 && b.level <= 6).toBe(true);
        }
        const ex = r.payload.extraction;
        if (ex) {
          expect(['readability', 'body', 'merged']).toContain(ex.method);
          expect(ex.retention >= 0 && ex.retention <= 1).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("a capture's page view id", () => {
  const base = { title: 'T', lang: 'en', blocks: [{ kind: 'text', text: 'Hello' }] };
  it('is kept when it is 32 hex digits, absent when not sent, refused in any other shape', () => {
    const id = '0123456789abcdef'.repeat(2);
    expect(validateCapture({ ...base, capture: id }).payload.capture).toBe(id);
    expect('capture' in validateCapture(base).payload).toBe(false);
    for (const bad of ['', 'x'.repeat(32), id.toUpperCase(), id + '0', id.slice(1), 42, null, { id }, [id]]) {
      expect(() => validateCapture({ ...base, capture: bad }), JSON.stringify(bad)).toThrow(ProtocolError);
    }
  });
});

describe('validateSearch and helpers', () => {
  it('validates a search request', () => {
    expect(validateSearch({ q: 'x', site: 'a.com', after: '7d', limit: 1000.4 })).toEqual({ q: 'x', site: 'a.com', after: '7d', limit: 200 });
    expect(validateSearch({ q: 'x', limit: 0 }).limit).toBe(1);
    expect(validateSearch({ q: 'y'.repeat(5000) }).q).toHaveLength(2000);
    badRequest(() => validateSearch({}));
    badRequest(() => validateSearch({ q: 'x', limit: Number.NaN }));
    badRequest(() => validateSearch({ q: 'x', site: 3 }));
    badRequest(() => validateSearch('q'));
  });

  it('validateObject, optionalNumber, requiredString', () => {
    expect(validateObject(undefined, 'stats')).toEqual({});
    badRequest(() => validateObject([1], 'stats'));
    expect(optionalNumber(null, 'n')).toBeUndefined();
    expect(optionalNumber(3, 'n')).toBe(3);
    badRequest(() => optionalNumber(Number.POSITIVE_INFINITY, 'n'));
    expect(requiredString('abc', 's', 2)).toBe('ab');
    badRequest(() => requiredString(undefined, 's'));
  });
});

describe('isPageForgottenNotice', () => {
  it('takes a notice that names its page, its state and the forget that says so; nothing else', () => {
    const ok = { type: 'page/forgotten', url: 'https://example.com/a', forgotten: true, forget: 'lq3k-abc123' };
    expect(isPageForgottenNotice(ok)).toBe(true);
    expect(isPageForgottenNotice({ ...ok, forgotten: false, forget: 'history' })).toBe(true);
    for (const bad of [null, 'page/forgotten', { ...ok, type: 'page/capture' }, { ...ok, url: 5 }, { ...ok, forgotten: 'yes' }, { ...ok, forget: undefined }, { ...ok, forget: '' }, { ...ok, forget: 'x'.repeat(65) }]) expect(isPageForgottenNotice(bad)).toBe(false);
  });
});
