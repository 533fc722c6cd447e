/**
 * What the search filters and quoted words answer (review, session 33: each test failed before its fix): site: as the
 * address bar shows a site, quoted words as words, one apostrophe, relative dates on DST days, negated date bounds.
 */
import { describe, expect, it } from 'vitest';
import type { VNode } from 'preact';
import { search } from '../../src/search.js';
import { parseQuery } from '../../src/query.js';
import { FilterBar } from '../../popup/components/FilterBar.js';
import { h, p, source } from './pagesSource.js';

const urls = (r: { results: { url: string }[] }) => r.results.map((x) => x.url);

describe('site: with an internationalised domain, as the address bar shows it', () => {
  // Stored under its host as the URL parser gives it (punycode); people type the name they read.
  const pages = [
    { url: 'https://xn--bcher-kva.de/katalog', title: 'Katalog', blocks: [h(1, 'Katalog'), p('Romane und Krimis im Katalog der Buchhandlung.')] },
    { url: 'https://other.test/romane', title: 'Romane', blocks: [h(1, 'Romane'), p('Romane anderswo.')] },
  ];
  it('site:bücher.de finds the pages read on bücher.de', async () => {
    expect(urls(await search(source(pages), { q: 'romane site:bücher.de' }))).toEqual(['https://xn--bcher-kva.de/katalog']);
  });
  it('-site:bücher.de leaves them out', async () => {
    expect(urls(await search(source(pages), { q: 'romane -site:bücher.de' }))).toEqual(['https://other.test/romane']);
  });
});

describe('site: with a port', () => {
  const pages = [{ url: 'http://localhost:8080/docs', title: 'Local docs', blocks: [h(1, 'Local docs'), p('Widget docs served from a dev server.')] }];
  it('site:localhost:8080 (or the address pasted) finds the page read at localhost:8080', async () => {
    expect(urls(await search(source(pages), { q: 'widget site:localhost:8080' }))).toEqual(['http://localhost:8080/docs']);
    expect(urls(await search(source(pages), { q: 'widget site:http://localhost:8080/docs' }))).toEqual(['http://localhost:8080/docs']);
  });
});

describe('"exact words" are words, not any run of characters', () => {
  const pages = [
    { url: 'https://a.test/login', title: 'Auth', blocks: [h(1, 'Auth'), p('You must log in to change the widget settings.')] },
    { url: 'https://a.test/dialog', title: 'Dialog', blocks: [h(1, 'Dialog'), p('The widget dialog includes a checkbox.')] },
    { url: 'https://a.test/concat', title: 'Strings', blocks: [h(1, 'Strings'), p('In python you concatenate strings with plus.')] },
  ];
  it('"log in" does not match "dialog includes"', async () => {
    expect(urls(await search(source(pages), { q: 'widget "log in"' }))).toEqual(['https://a.test/login']);
  });
  it('"cat" does not match "concatenate"', async () => {
    expect(urls(await search(source(pages), { q: 'python "cat"' }))).toEqual([]);
  });
});

describe('an apostrophe typed straight matches a page’s typographic one (and the other way round)', () => {
  const pages = [
    { url: 'https://a.test/curly', title: 'Guide', blocks: [h(1, 'Guide'), p('Don’t panic when the kettle whistles.')] },
    { url: 'https://a.test/straight', title: 'Notes', blocks: [h(1, 'Notes'), p("Won't boil: the kettle is broken.")] },
  ];
  it('"don\'t panic" finds the page that writes “Don’t panic” (unquoted it does)', async () => {
    expect(urls(await search(source(pages), { q: "don't panic" }))).toEqual(['https://a.test/curly']);
    expect(urls(await search(source(pages), { q: '"don\'t panic"' }))).toEqual(['https://a.test/curly']);
  });
  it('"won’t boil" (a phone keyboard’s apostrophe) finds the page that writes "Won\'t boil"', async () => {
    expect(urls(await search(source(pages), { q: '"won’t boil"' }))).toEqual(['https://a.test/straight']);
  });
  it('-"don\'t" leaves out the page that writes “Don’t”', async () => {
    expect(urls(await search(source(pages), { q: 'kettle -"don\'t"' }))).toEqual(['https://a.test/straight']);
  });
});

describe('after:7d on a day whose midnight does not exist (DST starting at 00:00)', () => {
  it('starts at the midnight of the day seven days before, as after:<that day> does', () => {
    const tz = process.env.TZ;
    process.env.TZ = 'America/Santiago';
    try {
      // Chile's clocks went from 00:00 to 01:00 on 2024-09-08; 2024-09-01 had its midnight.
      const noon = new Date(2024, 8, 8, 12).getTime();
      expect(parseQuery('after:2024-09-01', noon).after).toBe(new Date(2024, 8, 1).getTime());
      // A visit at 00:30 on 2024-09-01 was left out of after:7d (its bound was 01:00).
      expect(parseQuery('after:7d', noon).after).toBe(parseQuery('after:2024-09-01', noon).after);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });
});

describe('the date chips and a negated bound (-after:X is before:X, -before:X is after:X)', () => {
  /** The FilterBar's button with this test id (the component calls no hooks: its tree is built directly). */
  const button = (tree: VNode, id: string): VNode<{ onClick: () => void; 'aria-pressed': boolean }> | undefined => {
    const props = tree.props as { 'data-testid'?: string; children?: unknown };
    if (props['data-testid'] === id) return tree as VNode<{ onClick: () => void; 'aria-pressed': boolean }>;
    const kids = ([] as unknown[]).concat(props.children ?? []).flat(3);
    for (const k of kids) {
      if (k && typeof k === 'object' && 'props' in k) {
        const found = button(k as VNode, id);
        if (found) return found;
      }
    }
    return undefined;
  };
  it('"Any time" is not shown pressed while -before: still filters, and pressing it drops every bound', () => {
    const query = 'kettle -before:2024-01-01';
    expect(parseQuery(query).after).toBeDefined();
    let next = query;
    const tree = FilterBar({ query, sites: [], onChange: (q) => (next = q) }) as VNode;
    const any = button(tree, 'date-any')!;
    expect(any.props['aria-pressed']).toBe(false);
    any.props.onClick();
    const q = parseQuery(next);
    expect([q.after, q.before]).toEqual([undefined, undefined]);
  });
});
