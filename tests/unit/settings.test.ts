import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, mergeSettings, migrateStoredSettings, normalizeSitePattern, RANKING_DEFAULTS, type Settings } from '../../src/settings.js';

const base = (): Settings => structuredClone(DEFAULT_SETTINGS) as Settings;

function expectValid(s: Settings) {
  expect(typeof s.paused).toBe('boolean');
  expect(typeof s.denseEnabled).toBe('boolean');
  expect(typeof s.allowModelDownload).toBe('boolean');
  expect(typeof s.followHistoryDeletes).toBe('boolean');
  expect(Number.isInteger(s.retentionDays) && s.retentionDays >= 0 && s.retentionDays <= 36500).toBe(true);
  expect(Number.isInteger(s.maxStorageMb) && s.maxStorageMb >= 0 && s.maxStorageMb <= 1_000_000).toBe(true);
  expect(s.model).toMatch(/^[\w.-]+\/[\w.-]+$/);
  const r = s.ranking;
  expect(r.k1 >= 0 && r.k1 <= 10).toBe(true);
  expect(r.b >= 0 && r.b <= 1).toBe(true);
  expect(r.rrfK >= 1 && r.rrfK <= 1000).toBe(true);
  expect(r.lexicalWeight >= 0 && r.lexicalWeight <= 10).toBe(true);
  expect(r.denseWeight >= 0 && r.denseWeight <= 10).toBe(true);
  expect(Array.isArray(s.excludedSites)).toBe(true);
  expect(s.excludedSites.length).toBeLessThanOrEqual(5000);
  expect(new Set(s.excludedSites).size).toBe(s.excludedSites.length);
  for (const p of s.excludedSites) expect(normalizeSitePattern(p)).toBe(p);
}

describe('mergeSettings', { timeout: 30_000 }, () => {
  it('applies a valid patch', () => {
    const s = mergeSettings(base(), { paused: true, retentionDays: 30.4, ranking: { k1: 2, b: 0.5 }, excludedSites: ['https://www.Bank.com/login', 'bank.com', '*.corp.example'] });
    expect(s.paused).toBe(true);
    expect(s.retentionDays).toBe(30);
    expect(s.ranking).toEqual({ ...DEFAULT_SETTINGS.ranking, k1: 2, b: 0.5 });
    expect(s.excludedSites).toEqual(['bank.com', 'corp.example']);
  });

  it('keeps the base value for anything out of range or of the wrong type', () => {
    const s = mergeSettings(base(), {
      paused: 'yes',
      retentionDays: -1,
      maxStorageMb: Number.POSITIVE_INFINITY,
      model: '../../etc/passwd',
      ranking: { k1: 11, b: Number.NaN, rrfK: 0, lexicalWeight: '1', denseWeight: -0.1 },
      excludedSites: 'bank.com',
    });
    expect(s).toEqual(DEFAULT_SETTINGS);
  });

  it('never throws on garbage, and always yields valid settings (property)', () => {
    const value = fc.oneof(fc.anything({ maxDepth: 2 }), fc.double(), fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
    const patch = fc.oneof(
      fc.anything({ maxDepth: 3, withNullPrototype: true, withTypedArray: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withSparseArray: true }),
      fc.record(
        {
          paused: value,
          excludedSites: fc.oneof(value, fc.array(fc.oneof(fc.string(), fc.webUrl(), fc.domain(), value), { maxLength: 20 })),
          retentionDays: value,
          maxStorageMb: value,
          denseEnabled: value,
          model: fc.oneof(value, fc.constantFrom('reread/glove-100d', 'x/y', 'a b/c')),
          allowModelDownload: value,
          followHistoryDeletes: value,
          ranking: fc.oneof(value, fc.record({ k1: value, b: value, rrfK: value, lexicalWeight: value, denseWeight: value }, { requiredKeys: [] })),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(patch, (p) => {
        const s = mergeSettings(base(), p);
        expectValid(s);
        // Merging is idempotent: the result validates as its own patch.
        expect(mergeSettings(base(), s)).toEqual(s);
      }),
      { numRuns: 1000 },
    );
  });

  it('caps the exclusion list', () => {
    const many = Array.from({ length: 6000 }, (_, i) => `site${i}.example`);
    expect(mergeSettings(base(), { excludedSites: many }).excludedSites).toHaveLength(5000);
  });
});

describe('normalizeSitePattern', () => {
  it.each([
    ['https://www.Example.com/path?q#x', 'example.com'],
    ['*.example.com', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['  mail.google.com ', 'mail.google.com'],
  ])('%s -> %s', (input, want) => {
    expect(normalizeSitePattern(input)).toBe(want);
  });

  it.each(['', 'exa mple.com', '.example.com', 'a'.repeat(254), 'ex@mple.com', '日本.jp'])('refuses %s', (input) => {
    expect(normalizeSitePattern(input)).toBeNull();
  });
});

describe('migrateStoredSettings: settings saved under earlier ranking defaults', () => {
  const load = (stored: unknown) => mergeSettings(base(), migrateStoredSettings(stored));

  it('moves a stored k1 that was the former default (1.5, saved along with other settings) to today\'s', () => {
    const old = { paused: true, ranking: { k1: 1.5, b: 0.75, rrfK: 60, lexicalWeight: 1, denseWeight: 1 } };
    const s = load(old);
    expect(DEFAULT_SETTINGS.ranking.k1).not.toBe(1.5);
    expect(s.ranking.k1).toBe(DEFAULT_SETTINGS.ranking.k1);
    expect(s.paused).toBe(true);
    expect(s.rankingDefaults).toBe(RANKING_DEFAULTS);
    expect(old.ranking.k1).toBe(1.5); // the stored record is not modified in place
  });

  it("keeps a k1 the user chose: another value under the old defaults, or 1.5 saved under today's", () => {
    expect(load({ ranking: { k1: 2, b: 0.5 } }).ranking).toEqual({ ...DEFAULT_SETTINGS.ranking, k1: 2, b: 0.5 });
    const chosen = mergeSettings(base(), { ranking: { k1: 1.5 } });
    expect(chosen.rankingDefaults).toBe(RANKING_DEFAULTS);
    expect(load(structuredClone(chosen)).ranking.k1).toBe(1.5);
  });

  it('never throws on garbage', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 3 }), (v) => {
        expect(() => load(v)).not.toThrow();
      }),
    );
    for (const v of [null, undefined, 1, 'x', [], { ranking: null }, { ranking: 'k1' }, { rankingDefaults: 'x', ranking: { k1: 1.5 } }]) expect(() => load(v)).not.toThrow();
  });
});
