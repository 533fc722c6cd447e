/**
 * Rows of navigation links laid out as tables (texi2any's `<table class="header">`) are not content:
 * `isLinkRow` tells them from tables that are, and the capture leaves them out while the heading after
 * one still takes its wrapper's id (tests/unit/anchors.test.ts judges where such links land).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { isLinkRow } from '../../content/extract.js';
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
    expect(anchorOf('7.1 Queues')).toEqual({ id: 'Queues-1' });
    // No marker before this heading: the wrapper's id, across the navigation row. (Its parent, the
    // one-sentence "7.2 Priorities", is merged into it; anchors.test.ts judges where that one lands.)
    expect(anchorOf('7.2.1 Nice values')).toEqual({ id: 'Nice-values' });
    expect(chunks.some((c) => c.headingPath.includes('7.2 Priorities'))).toBe(true);
  });
});
