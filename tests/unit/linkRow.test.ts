/**
 * Headings' ids on the pages of two more generators (issue #13, links that land on the section):
 * - texi2any: rows of navigation links laid out as tables (`<table class="header">`) are not content;
 *   `isLinkRow` tells them from tables that are, and the capture leaves them out while the heading after
 *   one still takes its wrapper's id (tests/unit/anchors.test.ts judges where such links land).
 * - Doxygen (no landmarks, so Readability picks the article): an id inside a heading
 *   (`<h1><a class="anchor" id>`) or just before it survives into Readability's copy of the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { headingIdsFromPage, isLinkRow, mainContent, walkBlocks } from '../../content/extract.js';
import type { Block } from '../../src/chunker.js';
import { emptyDocument, installDomGlobals, parseDocument } from '../eval/lib/dom.js';
import { capturePage } from '../eval/lib/capture.js';

const table = (inner: string) => parseHTML(`<!doctype html><html><body><table>${inner}</table></body></html>`).document.querySelector('table')!;

describe('isLinkRow', () => {
  it('is a row of links with only brackets, pipes and spaces between them', () => {
    expect(isLinkRow(table('<tr><td>[<a href="#a"> &lt;&lt; </a>]</td><td>[<a href="#b"> Up </a>]</td><td> &nbsp; </td><td>[<a href="t.html">Contents</a>]</td></tr>'))).toBe(true);
    expect(isLinkRow(table('<tr><td><a href="p.html">Previous</a> | <a href="n.html">Next</a></td></tr>'))).toBe(true);
  });

  it('is not a table with a word outside its links, one link only, more than three rows or 400 characters', () => {
    expect(isLinkRow(table('<tr><td><a href="a.html">open</a></td><td>Opens a file</td></tr><tr><td><a href="c.html">close</a></td></tr>'))).toBe(false);
    expect(isLinkRow(table('<tr><td>[<a href="#a">Up</a>]</td><td>[<a href="#b"> &lt; </a>]</td></tr>'))).toBe(false);
    const rows = ['a', 'b', 'c', 'd'].map((x) => `<tr><td><a href="#${x}">Section ${x}</a></td><td><a href="#${x}2">More ${x}</a></td></tr>`).join('');
    expect(isLinkRow(table(rows))).toBe(false);
    expect(isLinkRow(table(`<tr><td>${'<a href="#x">word</a> '.repeat(100)}</td></tr>`))).toBe(false);
  });
});

describe('a texi2any page', () => {
  it('is captured without its navigation rows, each section linked by its wrapper or marker id', async () => {
    const html = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/anchors/texinfo.html'), 'utf8');
    const { stored } = await capturePage(html, 'http://127.0.0.1/anchors/texinfo.html', 'en');
    expect(stored).toBeTruthy();
    const chunks = stored!.chunks;
    expect(chunks.filter((c) => /\[ ?(?:<<|Up|Contents|Index) ?\]/.test(c.text)).map((c) => c.text.slice(0, 80))).toEqual([]);
    const anchorOf = (heading: string) => chunks.find((c) => c.section === heading)?.anchor;
    expect(anchorOf('7.1 Queues')).toEqual({ id: 'Queues-1', above: [{ depth: 0, id: 'Job-Scheduling-1' }] });
    // No marker before this heading: the wrapper's id, across the navigation row. (Its parent, the
    // one-sentence "7.2 Priorities", is merged into it; anchors.test.ts judges where that one lands.)
    expect(anchorOf('7.2.1 Nice values')).toEqual({ id: 'Nice-values', above: [{ depth: 0, id: 'Job-Scheduling-1' }, { depth: 1, id: 'Priorities' }] });
    expect(chunks.some((c) => c.headingPath.includes('7.2 Priorities'))).toBe(true);
  });
});

describe("Readability's article keeps each heading's id", () => {
  const page = (body: string) =>
    parseDocument(`<!doctype html><html><head><title>Someprog: Troubleshooting</title></head><body><div id="top"><div id="projectname">Someprog</div></div>
      <div id="doc-content"><div class="header"><div class="title">Troubleshooting</div></div><div class="contents"><div class="textblock">${body}</div></div></div></body></html>`);
  const prose = (s: string) => `<p>${s.repeat(4)}</p>`;

  it('an id inside or before a heading is the id its article heading links by, not its text or a wrapper', async () => {
    installDomGlobals();
    const doc = page(
      `<h1><a class="anchor" id="knowproblems"></a>Known Problems</h1>${prose('Doxygen is not a real compiler and it can and will not detect errors in your code. ')}
      <span id="help-marker"></span><h1>How to Help</h1>${prose('The development of this tool depends on your input, so say what you think of it. ')}
      <h2><a class="anchor" id="social"></a>Examples</h2>${prose('Mail the list with what you tried, what you saw and what you expected to see there. ')}`,
    );
    const walk = await walkBlocks(doc.body as unknown as Element, { checkVisibility: false, mirror: emptyDocument() });
    const { blocks } = await mainContent(walk, { title: 'Someprog: Troubleshooting', readability: true });
    expect(blocks.filter((b) => b.kind === 'heading').map((b) => [b.text, b.id])).toEqual([
      ['Known Problems', 'knowproblems'],
      ['How to Help', 'help-marker'],
      // An id Readability would read as a sign of page furniture ("social") does not cost the heading.
      ['Examples', 'social'],
    ]);
  });

  it('matches headings in document order, so a heading text used twice gets the id of its own place', () => {
    const h = (text: string, id?: string): Block => ({ kind: 'heading', level: 2, text, ...(id ? { id } : {}) });
    const article = [h('Examples'), h('Usage'), h('Examples'), h('Not on the page')];
    headingIdsFromPage(article, [h('Examples', 'sidebar-examples'), h('Intro', 'intro'), h('Examples', 'ex-1'), h('Usage'), h('Examples', 'ex-2')]);
    // The first "Examples" of the article is the page's first one still ahead: the order decides.
    expect(article.map((b) => b.id)).toEqual(['sidebar-examples', undefined, 'ex-2', undefined]);
  });
});

describe('a marker just after a heading', () => {
  const headingIds = async (body: string) => {
    installDomGlobals();
    const doc = parseDocument(`<!doctype html><html><head><title>T</title></head><body><main>${body}</main></body></html>`);
    const walk = await walkBlocks(doc.body as unknown as Element, { checkVisibility: false, mirror: emptyDocument() });
    return walk.blocks.filter((b) => b.kind === 'heading').map((b) => [b.text, b.id]);
  };
  const prose = '<p>The text of this member, long enough to be a section of its own on any page like this one.</p>';

  it('is the heading’s permalink (GitHub), unless a heading follows it: then it is that heading’s (Doxygen)', async () => {
    expect(await headingIds(`<div class="markdown-heading"><h2>Install</h2><a id="user-content-install" class="anchor" href="#install"></a></div>${prose}`)).toEqual([['Install', 'user-content-install']]);
    // Doxygen's member documentation: a group heading without an id, then each member's marker and heading.
    expect(
      await headingIds(
        `<h2 class="groupheader">Friends And Related Function Documentation</h2>\n<a id="ae3c243f"></a>\n<h2 class="memtitle"><span class="permalink"><a href="#ae3c243f">◆ </a></span>strcmp</h2>${prose}` +
          `<a id="a5c07384"></a><a id="a5c07384-old"></a><h2 class="memtitle">stringDebug()</h2>${prose}`,
      ),
    ).toEqual([
      ['Friends And Related Function Documentation', undefined],
      ['◆ strcmp', 'ae3c243f'],
      ['stringDebug()', 'a5c07384-old'],
    ]);
  });
});

describe('a page without landmarks: the rows of links before its first heading', () => {
  // httpd's manual (and sqlite's, Exim's, the Debian Handbook's banner): no main landmark, no article
  // Readability keeps, so the whole body is the content; its menu and breadcrumb were the first section.
  const page = `<!doctype html><html><head><title>mod_alias</title></head><body>
    <div id="page-header"><p class="menu"><a href="/mod/">Modules</a> | <a href="/dir">Directives</a> | <a href="/faq">FAQ</a> | <a href="/glossary">Glossary</a> | <a href="/sitemap">Sitemap</a></p>
    <p class="apache">Apache HTTP Server Version 2.4</p></div>
    <div id="path"><a href="/">Apache</a> &gt; <a href="/httpd">HTTP Server</a> &gt; <a href="/docs">Documentation</a> &gt; <a href="/mod/">Modules</a></div>
    <div id="page-content"><h1>Apache Module mod_alias</h1>
    <p>The directives contained in this module allow for manipulation and control of URLs as requests arrive at the server.</p>
    <h2 id="alias">Alias Directive</h2><p>The Alias directive allows documents to be stored in the local filesystem other than under the DocumentRoot.</p>
    <p><a href="/a">ScriptAlias</a> | <a href="/b">Redirect</a> | <a href="/c">RedirectMatch</a></p></div></body></html>`;

  it('leaves out the menu and the breadcrumb, keeps the line that is not links and the rows after the heading', async () => {
    const { stored } = await capturePage(page, 'http://127.0.0.1/mod_alias.html', 'en');
    const text = stored!.chunks.map((c) => c.text).join('\n');
    expect(text).not.toContain('Glossary');
    expect(text).not.toContain('Documentation');
    expect(text).toContain('Apache HTTP Server Version 2.4');
    expect(text).toContain('The Alias directive allows');
    expect(text).toContain('RedirectMatch');
  });
});
