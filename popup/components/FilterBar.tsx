/**
 * Filter controls (site, date presets, custom range) that read from and write to the typed query's
 * operators, so the box and the controls never disagree.
 */
import type { SiteCount } from '../../src/protocol.js';
import { isoDate, parseQuery } from '../../src/query.js';
import { siteLabel } from '../../src/url.js';

/**
 * Replaces every `op:value` in the query by `op:value` (or removes them when value is null). A bare `op:`
 * (half typed) goes too: picking a site after typing `json site:` gave `json site: site:example.com`.
 */
export function setOperator(q: string, op: string, value: string | null, negatedToo = false): string {
  const re = new RegExp(`(^|\\s)${negatedToo ? '-?' : ''}${op}:(?:"[^"]*"|\\S*)`, 'gi');
  const stripped = q.replace(re, ' ').replace(/\s+/g, ' ').trim();
  return value ? `${stripped} ${op}:${value}`.trim() : stripped;
}

const PRESETS: { label: string; after: string | null }[] = [
  { label: 'Any time', after: null },
  { label: 'Today', after: 'today' },
  { label: '7 days', after: '7d' },
  { label: '30 days', after: '30d' },
];

/** `compact` (the popup): no custom range inputs, which the results page and `after:`/`before:` offer. */
export function FilterBar({ query, sites, onChange, compact = false }: { query: string; sites: SiteCount[]; onChange: (q: string) => void; compact?: boolean }) {
  const parsed = parseQuery(query);
  const site = parsed.sites[0] ?? '';
  // A chip is pressed for `after:` alone; any other bound (`before:`, or a negated one: `-before:X` is
  // after:X) leaves none pressed, "Any time" included, while it filters.
  const bounds = [...query.matchAll(/(?:^|\s)(-?)(after|before):(\S+)/gi)];
  const afterRaw = bounds.length === 1 && !bounds[0]![1] && bounds[0]![2]!.toLowerCase() === 'after' ? bounds[0]![3]!.toLowerCase() : null;
  const preset = !bounds.length ? null : afterRaw !== null && PRESETS.some((p) => p.after === afterRaw) ? afterRaw : 'custom';
  const siteOptions = site && !sites.some((s) => s.site === site) ? [{ site, pages: 0 }, ...sites] : sites;
  return (
    <div class="filters" data-testid="filters">
      <label class="filters__site">
        <span class="visually-hidden">Site</span>
        <select data-testid="filter-site" value={site} onChange={(e) => onChange(setOperator(query, 'site', (e.target as HTMLSelectElement).value || null))}>
          <option value="">All sites</option>
          {siteOptions.slice(0, 200).map((s) => (
            <option value={s.site} key={s.site}>
              {siteLabel(s.site)}
              {s.pages ? ` (${s.pages})` : ''}
            </option>
          ))}
        </select>
      </label>
      <div class="filters__dates" role="group" aria-label="Visited">
        {PRESETS.map((p) => (
          <button
            type="button"
            key={p.label}
            class={`chip${preset === p.after ? ' chip--on' : ''}`}
            aria-pressed={preset === p.after}
            data-testid={`date-${p.after ?? 'any'}`}
            onClick={() => onChange(setOperator(setOperator(query, 'before', null, true), 'after', p.after, true))}
          >
            {p.label}
          </button>
        ))}
        {!compact && (
        <label class="filters__range">
          {/* Shown, not only read out: two bare mm/dd/yyyy boxes did not say which end of the range is which. */}
          <span>From</span>
          <input type="date" data-testid="filter-after" value={parsed.after !== undefined ? isoDate(parsed.after) : ''} onChange={(e) => onChange(setOperator(setOperator(query, '-before', null), 'after', (e.target as HTMLInputElement).value || null))} />
        </label>
        )}
        {!compact && (
        <label class="filters__range">
          <span>Before</span>
          <input type="date" data-testid="filter-before" value={parsed.before !== undefined ? isoDate(parsed.before) : ''} onChange={(e) => onChange(setOperator(setOperator(query, '-after', null), 'before', (e.target as HTMLInputElement).value || null))} />
        </label>
        )}
      </div>
    </div>
  );
}
