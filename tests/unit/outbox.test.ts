import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HELLO_GRACE_MS, OUTBOX_MAX_AGE_MS, isNonce, isOutboxEntry, isOutboxKey, judgeEntry, SIGHTING_WINDOW_MS, vouchByNavigation, type OutboxEntry } from '../../src/outbox.js';

const entry = (over: Partial<OutboxEntry> = {}): OutboxEntry => ({ nonce: 'ab'.repeat(16), url: 'https://example.org/a', at: 1_000_000, payload: { title: 't', blocks: [] }, ...over });

describe('outbox entries', () => {
  it('accepts only 32 lowercase hex digits as a nonce', () => {
    expect(isNonce('0123456789abcdef'.repeat(2))).toBe(true);
    for (const bad of ['', 'ab', 'AB'.repeat(16), 'g'.repeat(32), 'a'.repeat(33), 42, null]) expect(isNonce(bad), String(bad)).toBe(false);
  });

  it('checks the shape of an entry and never throws on anything', () => {
    expect(isOutboxEntry(entry())).toBe(true);
    expect(isOutboxEntry({ ...entry(), payload: null })).toBe(false);
    expect(isOutboxEntry({ ...entry(), at: Number.NaN })).toBe(false);
    expect(isOutboxEntry({ ...entry(), url: 'x'.repeat(9000) })).toBe(false);
    fc.assert(fc.property(fc.anything(), (v) => typeof isOutboxEntry(v) === 'boolean'));
  });

  it('recognises outbox keys only', () => {
    expect(isOutboxKey('outbox:' + 'a'.repeat(40))).toBe(true);
    expect(isOutboxKey('captureGate')).toBe(false);
    expect(isOutboxKey('outbox:' + 'a'.repeat(100))).toBe(false);
  });

  it('files an entry with a recorded hello, waits for a late hello, then refuses', () => {
    const e = entry();
    expect(judgeEntry(e, 'https://example.org/a', e.at + 5)).toBe('file');
    expect(judgeEntry(e, null, e.at + 5)).toBe('wait');
    expect(judgeEntry(e, null, e.at + HELLO_GRACE_MS + 1)).toBe('refuse');
    expect(judgeEntry(e, 'https://example.org/a', e.at + OUTBOX_MAX_AGE_MS + 1)).toBe('refuse');
  });
});

describe('vouching for an entry whose hello never came, by the navigations the browser reported', () => {
  const A = 'https://example.org/a';
  const B = 'https://example.org/b';
  const t = 10_000_000;

  it('vouches for the one hello-less entry of a visit, whatever its fragment or tracking parameters', () => {
    expect([...vouchByNavigation([{ url: A + '#part', at: t }], [{ url: A + '?utm_source=x', at: t - 300 }], [])]).toEqual([[0, 0]]);
  });

  it('does not vouch without a visit to that URL in the window before the hand-over', () => {
    expect(vouchByNavigation([{ url: A, at: t }], [{ url: B, at: t - 300 }], []).size).toBe(0);
    expect(vouchByNavigation([{ url: A, at: t }], [{ url: A, at: t - SIGHTING_WINDOW_MS - 1 }], []).size).toBe(0);
    // A visit after the hand-over (beyond the clock slack) is another page.
    expect(vouchByNavigation([{ url: A, at: t }], [{ url: A, at: t + 60_000 }], []).size).toBe(0);
    // Not a page URL at all.
    expect(vouchByNavigation([{ url: 'javascript:alert(1)', at: t }], [{ url: 'javascript:alert(1)', at: t - 1 }], []).size).toBe(0);
  });

  it('does not let a visit whose own page said hello vouch for another capture of that URL', () => {
    // The page of the visit said hello (its own entry files through it): a second, hello-less entry naming
    // the same URL was written by someone else.
    expect(vouchByNavigation([{ url: A, at: t }], [{ url: A, at: t - 500 }], [{ url: A, at: t - 450 }]).size).toBe(0);
    // Two visits, one hello: the other visit vouches for one entry.
    expect([...vouchByNavigation([{ url: A, at: t }], [{ url: A, at: t - 90_000 }, { url: A, at: t - 500 }], [{ url: A, at: t - 89_990 }])]).toEqual([[0, 1]]);
  });

  it('refuses every hello-less entry of a URL when there are more of them than unvouched visits', () => {
    const due = [{ url: A, at: t }, { url: A, at: t + 10 }, { url: B, at: t }];
    const v = vouchByNavigation(due, [{ url: A, at: t - 300 }, { url: B, at: t - 300 }], []);
    expect([...v]).toEqual([[2, 1]]);
  });

  it('never uses a visit twice, and never vouches for more entries of a URL than there were visits to it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ u: fc.constantFrom(A, B, A + '#x'), at: fc.integer({ min: 0, max: 100_000 }) }), { maxLength: 8 }),
        fc.array(fc.record({ u: fc.constantFrom(A, B), at: fc.integer({ min: 0, max: 100_000 }) }), { maxLength: 8 }),
        fc.array(fc.record({ u: fc.constantFrom(A, B), at: fc.integer({ min: 0, max: 100_000 }) }), { maxLength: 4 }),
        (d, s, h) => {
          const due = d.map((x) => ({ url: x.u, at: x.at }));
          const sightings = s.map((x) => ({ url: x.u, at: x.at }));
          const v = vouchByNavigation(due, sightings, h.map((x) => ({ url: x.u, at: x.at })));
          const used = [...v.values()];
          expect(new Set(used).size).toBe(used.length);
          for (const [i, j] of v) {
            expect(due[i]!.url.split('#')[0]).toBe(sightings[j]!.url);
            expect(sightings[j]!.at).toBeLessThanOrEqual(due[i]!.at + 5_000);
          }
          for (const url of [A, B]) {
            const vouched = [...v.keys()].filter((i) => due[i]!.url.split('#')[0] === url).length;
            expect(vouched).toBeLessThanOrEqual(sightings.filter((x) => x.url === url).length);
            // All or none of a URL's entries.
            if (vouched) expect(vouched).toBe(due.filter((x) => x.url.split('#')[0] === url).length);
          }
        },
      ),
    );
  });
});
