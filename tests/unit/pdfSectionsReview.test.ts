/**
 * PDF capture: src/pdfSections.ts, pure. Each test failed on the code it was written
 * against (main 3d73cde).
 * - Page bookkeeping: pages before the outline's first entry (a title page, a preface, the contents,
 *   an abstract) get no heading of their own, so they are one section whose windows run across page
 *   breaks; a window starting on page 1 holds words of page 2 and links to `#page=1`.
 * - Bounds: joinLines grows a string and tests it against a regular expression at every line, which
 *   copies the whole paragraph each time; one page whose text is one long paragraph (a data dump, a
 *   word list, a page of a catalogue with even line spacing) takes time quadratic in its size.
 */
import { describe, expect, it } from 'vitest';
import { chunkBlocks } from '../../src/chunker.js';
import { pdfBlocks, type PdfPage } from '../../src/pdfSections.js';
import { sectionHref } from '../../src/url.js';

const prose = (p: number, i: number) => `Line ${i} of page ${p} holds ordinary words about reading documents here.`;

describe('front matter before the first outline entry', () => {
  it('no section runs across a page break: each links to the one page its words are on', () => {
    // Four preface pages of ~450 words (a title page, a preface, the contents); the outline starts on page 5.
    const pages: PdfPage[] = [1, 2, 3, 4, 5].map((n) => ({ n, lines: Array.from({ length: n <= 4 ? 39 : 20 }, (_, i) => ({ text: prose(n, i), y: 740 - i * 16 })) }));
    const { chunks } = chunkBlocks(pdfBlocks(pages, [{ title: 'Chapter 1', level: 1, page: 5, top: 752 }]));
    // Each section: the pages its words come from, and the page its link opens.
    const spans = chunks.map((c) => ({ pages: [...new Set([...c.text.matchAll(/of page (\d+)/g)].map((m) => Number(m[1])))], href: sectionHref('https://x.example/book.pdf', c.anchor) }));
    // With real pdf.js and the search (review34c scratch run): a word 8 lines into page 2 was found in a
    // section that began on page 1 and opened at #page=1.
    expect(spans.filter((s) => s.pages.length !== 1 || s.href !== `https://x.example/book.pdf#page=${s.pages[0]}`)).toEqual([]);
  });
});

describe('a page whose text is one long paragraph', () => {
  it('is cut in time linear in its size: 30,000 evenly spaced lines (1.1 MB) well under 5 s', () => {
    // A hang guard, not a speed test: a linear join takes ~50 ms here; the quadratic one took 19 s (30,000 lines) and 34 s (40,000).
    const lines = Array.from({ length: 30_000 }, (_, i) => ({ text: `entry ${i} of the catalogue lists a part`, y: 100_000 - i * 2 }));
    const t = performance.now();
    const blocks = pdfBlocks([{ n: 1, lines }], []);
    const ms = performance.now() - t;
    expect(blocks.filter((b) => b.kind === 'text').map((b) => b.text.length).reduce((a, b) => a + b, 0)).toBeGreaterThan(1_000_000);
    expect(ms).toBeLessThan(5000);
  }, 120_000);
});
