import { describe, expect, it } from 'vitest';
import { clip, describe as describeSuggestion, omniboxEnter, suggestion, xmlEscape } from '../../src/omnibox.js';
import { addressSearch, parseQuery } from '../../src/query.js';

const addressQuery = (text: string): string | null => addressSearch(text)?.query ?? null;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('omnibox suggestion text', () => {
  it('cuts long text with an ellipsis, never inside an emoji', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('abcdefghijkl', 10)).toBe('abcdefghi…');
    // The cut fell between the two halves of 🐍: the popup drew "�…".
    const title = 'a'.repeat(88) + '🐍 snake';
    for (let n = 80; n < 95; n++) expect(clip(title, n)).not.toMatch(LONE_SURROGATE);
    expect(clip(title, 90)).toBe('a'.repeat(88) + '…');
    const d = describeSuggestion(title, 'Section', [{ text: '🐍'.repeat(100), match: false }], true);
    expect(d).not.toMatch(LONE_SURROGATE);
    expect(describeSuggestion(title, '', [{ text: 'x 🐍'.repeat(60), match: false }], false)).not.toMatch(LONE_SURROGATE);
  });

  it('escapes page text and marks the matched words', () => {
    const d = describeSuggestion('<b>Title</b> & co', '', [{ text: 'see ', match: false }, { text: '<img src=x>', match: true }], true);
    expect(d).toBe('&lt;b&gt;Title&lt;/b&gt; &amp; co <dim>—</dim> <dim>see <match>&lt;img src=x&gt;</match></dim>');
    expect(xmlEscape('a\u0001"\'')).toBe('a&quot;&apos;');
  });

  it('a passage an earlier suggestion shows is named, not repeated', () => {
    const r = { href: 'https://docs.example.net/fr/apt.html#policy', title: 'APT (fr)', section: 'Policy', snippet: [{ text: 'The policy command shows…', match: false }] };
    expect(suggestion(r, false)).toEqual({ content: r.href, description: 'APT (fr) › Policy — The policy command shows…' });
    expect(suggestion({ ...r, sameAs: { url: 'https://docs.example.net/en/apt.html', title: 'APT & <co>' } }, true)).toEqual({
      content: r.href,
      description: 'APT (fr) › Policy <dim>—</dim> <dim>Same text as “APT &amp; &lt;co&gt;” above.</dim>',
    });
  });
});

describe('an address typed after the keyword', () => {
  it('is searched as its site and its page name, never kept as an address', () => {
    expect(addressQuery('https://example.com/page')).toBe('page site:example.com');
    expect(addressQuery('  https://www.Example.com/  ')).toBe('site:example.com');
    expect(addressQuery('https://docs.python.org/3/library/json.html#json.dumps')).toBe('json site:docs.python.org');
    expect(addressQuery('https://example.org/blog/2024/05/how-to-undo-a-commit/')).toBe('how to undo a commit site:example.org');
    expect(addressQuery('https://example.org/docs/index.html')).toBe('docs site:example.org');
    expect(addressQuery('http://127.0.0.1:8080/Caf%C3%A9_cr%C3%A8me?x=1')).toBe('Café crème site:127.0.0.1');
    expect(addressQuery('file:///home/me/papers/attention-is-all.pdf')).toBe('attention is all site:local-files');
    // The query it makes reads as words and a site filter.
    const q = parseQuery(addressQuery('https://example.com/a/cats-and-dogs')!);
    expect(q.sites).toEqual(['example.com']);
    expect(q.text).toBe('cats and dogs');
    // Not a lone address: searched as typed.
    for (const text of ['cats', 'https://example.com/a b', 'example.com/page', 'site:example.com', 'javascript:alert(1)', 'https://']) expect(addressQuery(text), text).toBeNull();
  });

  it('Enter opens only an address that was offered as a suggestion for other typed text', () => {
    const offered = new Set(['https://example.com/cats#litter']);
    // The suggestion chosen while "litter" was typed.
    expect(omniboxEnter('https://example.com/cats#litter', { typed: 'litter', offered }, false)).toBe('open');
    // The same address typed (Enter on the typed text) is searched, as is any other address or text.
    expect(omniboxEnter('https://example.com/cats#litter', { typed: 'https://example.com/cats#litter', offered }, true)).toBe('search');
    expect(omniboxEnter('https://example.com/page', { typed: 'https://example.com/page', offered: new Set() }, false)).toBe('search');
    expect(omniboxEnter('https://evil.example/', { typed: 'litter', offered }, false)).toBe('search');
    expect(omniboxEnter('litter', { typed: 'litter', offered }, false)).toBe('search');
    // The worker stopped since (nothing remembered): only a page Reread has stored is opened.
    expect(omniboxEnter('https://example.com/cats#litter', null, true)).toBe('open');
    expect(omniboxEnter('https://example.com/page', null, false)).toBe('search');
    expect(omniboxEnter('javascript:alert(1)', null, true)).toBe('search');
  });
});
