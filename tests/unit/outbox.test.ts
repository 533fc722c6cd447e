import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HELLO_GRACE_MS, OUTBOX_MAX_AGE_MS, isNonce, isOutboxEntry, isOutboxKey, judgeEntry, type OutboxEntry } from '../../src/outbox.js';

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
