import { describe, expect, it } from 'vitest';
import { setOperator } from '../../popup/components/FilterBar.js';

describe('setOperator: the filter controls rewrite the typed query', () => {
  it('replaces or removes an operator with its value', () => {
    expect(setOperator('json site:a.com', 'site', 'b.org')).toBe('json site:b.org');
    expect(setOperator('json after:7d before:2024-01-01', 'after', null)).toBe('json before:2024-01-01');
    expect(setOperator('json after:"last week"', 'after', 'today')).toBe('json after:today');
    // An exclusion is not the operator.
    expect(setOperator('json -site:a.com', 'site', 'b.org')).toBe('json -site:a.com site:b.org');
  });

  it('replaces a bare, half-typed operator instead of keeping it beside the new one', () => {
    // Picking a site after typing "json site:" gave "json site: site:example.com"; "json after:" and a date
    // chip gave "json after: after:7d", where the bare "after:" is searched as a word.
    expect(setOperator('json site:', 'site', 'example.com')).toBe('json site:example.com');
    expect(setOperator('json after: more', 'after', '7d')).toBe('json more after:7d');
    expect(setOperator('site: json', 'site', null)).toBe('json');
  });
});
