import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classNamesNavigation, idNamesNavigation, namesContents, nameTokens } from '../../src/navigationNames.js';
import { hostileText } from './arbitraries.js';

describe('names of page navigation (src/navigationNames.ts)', () => {
  it('cuts names into words at separators and camelCase humps', () => {
    expect(nameTokens('topNavBar')).toEqual(['top', 'nav', 'bar']);
    expect(nameTokens('c-site-nav__list--open')).toEqual(['c', 'site', 'nav', 'list', 'open']);
    expect(nameTokens('NAVBar')).toEqual(['nav', 'bar']);
    expect(nameTokens('main_navigation2')).toEqual(['main', 'navigation', '2']);
  });

  it('recognises navigation in any case style, by class or id', () => {
    const nav = ['topNav', 'site-nav', 'navBar', 'sidebar-nav', 'main_navigation', 'NavBar', 'SideNav', 'paginationWrapper', 'navheader', 'navfooter', 'nav-links', 'post-navigation', 'pager', 'globalnav', 'js-topnav-toggle', 'md-nav__list', 'nav', 'mobileNavMenu', 'page-navigation', 'sideNav2'];
    for (const n of nav) {
      expect(classNamesNavigation(n), n).toBe(true);
      expect(idNamesNavigation(n), n).toBe(true);
    }
    // Any one class of several.
    expect(classNamesNavigation('navbar navbar-expand-lg fixed-top')).toBe(true);
    expect(classNamesNavigation('container topNav')).toBe(true);
  });

  it('does not read navigation into words that only contain its letters, nor into content about it', () => {
    const content = ['canvas', 'canvas-wrap', 'unavailable', 'navy', 'navy-history', 'knave', 'navigate', 'caravan', 'pageRank', 'page', 'pages-list', 'paged', 'pageant', 'navigation-guide', 'NavigationTutorial', 'nav-example', 'navigation_docs', 'pagination-demo', 'sailing-navigation-overview'];
    for (const n of content) {
      expect(classNamesNavigation(n), n).toBe(false);
      expect(idNamesNavigation(n), n).toBe(false);
    }
    // An id made from a heading ("Navigation in the app") is a section's, not a menu's.
    expect(idNamesNavigation('navigation-in-the-app')).toBe(false);
    expect(classNamesNavigation('')).toBe(false);
    expect(idNamesNavigation('  ')).toBe(false);
  });

  it('names a table of contents apart from navigation, but not an index page\'s own list of chapters (toctree)', () => {
    for (const n of ['toc', 'tocframe', 'toc-wrapper', 'sidebar-toc', 'TableOfContents', 'table-of-contents', 'docs-toc', 'md-toc__list', 'tocNav']) {
      expect(namesContents(n, ''), n).toBe(true);
      expect(namesContents(null, n), n).toBe(true);
      expect(classNamesNavigation(n) && !/nav/i.test(n), n).toBe(false);
    }
    expect(namesContents('chapter toc', '')).toBe(true);
    for (const n of ['toctree-wrapper', 'tocs-example', 'toc-tutorial', 'contents', 'stock', 'protocol', 'tocsin', 'table-contents', 'doctoc-guide', '']) {
      expect(namesContents(n, ''), n).toBe(false);
      expect(namesContents(null, n), n).toBe(false);
    }
  });

  const LAYOUT = ['top', 'side', 'main', 'site', 'mobile', 'global', 'footer', 'header', 'js', 'c', 'primary'];
  const NAV = ['nav', 'navbar', 'navigation', 'pagination', 'pager', 'navmenu', 'navlinks'];
  const AFTER = ['', 'bar', 'menu', 'list', 'toggle', 'wrapper', 'item', 'open', 'inner', 'links'];
  const join = (words: string[], style: number) => {
    const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
    if (style === 0) return words.join('-');
    if (style === 1) return words.join('_');
    if (style === 2) return words.map((w, i) => (i ? cap(w) : w)).join('');
    return words.map(cap).join('');
  };

  it('names navigation for any layout word + nav word + layout word, in any case style (property)', () => {
    fc.assert(
      fc.property(fc.subarray(LAYOUT, { maxLength: 1 }), fc.constantFrom(...NAV), fc.constantFrom(...AFTER), fc.integer({ min: 0, max: 3 }), (before, nav, after, style) => {
        const name = join([...before, nav, ...(after ? [after] : [])], style);
        expect(classNamesNavigation(name), name).toBe(true);
        expect(classNamesNavigation(`wrapper ${name} is-active`), name).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never names navigation for names made of content words, whatever their letters (property)', () => {
    const WORDS = ['canvas', 'unavailable', 'navy', 'knave', 'page', 'pageant', 'article', 'body', 'main', 'content', 'caravan', 'navigate', 'rank', 'wrap', 'guide', 'avatar', 'pages', 'paging'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 3 }), (words, style) => {
        const name = join(words, style);
        expect(classNamesNavigation(name), name).toBe(false);
        expect(idNamesNavigation(name), name).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('a name whose head is a content word is content, whatever comes before (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAV), fc.constantFrom('guide', 'tutorial', 'example', 'docs', 'overview', 'article'), fc.integer({ min: 0, max: 3 }), (nav, head, style) => {
        expect(classNamesNavigation(join([nav, head], style))).toBe(false);
      }),
    );
  });

  it('never throws on hostile names (property)', () => {
    fc.assert(
      fc.property(hostileText(200), (s) => {
        expect(typeof classNamesNavigation(s)).toBe('boolean');
        expect(typeof idNamesNavigation(s)).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });
});
