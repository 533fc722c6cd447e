/**
 * Section-accurate links on pages in the styles of the main documentation generators and article
 * layouts (tests/fixtures/anchors: Sphinx, DocBook, MkDocs, Docusaurus, Javadoc old and new, rustdoc,
 * MediaWiki, a blog post, a GitHub README, texi2any, Doxygen). Each page is extracted (walkBlocks), cut (chunkBlocks) and
 * indexed as the extension does; a five-word span copied from a section, typed without quotes, must
 * give a first result whose link lands, in the page's own DOM, on that section's heading.
 * The e2e twin (tests/e2e/anchors.test.ts) runs the same expectations through the real extension.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/memorySource.js';
import { capturePage } from '../eval/lib/capture.js';
import { search } from '../../src/search.js';
import { resolveLinkSection } from '../fixtures/anchors/resolveLink.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/anchors');
const expected = JSON.parse(fs.readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as { page: string; query: string; heading: string }[];
// Headings typed as the query (src/namedHeading.ts): the link lands on that heading.
const headings = JSON.parse(fs.readFileSync(path.join(DIR, 'headings.json'), 'utf8')) as { page: string; query: string; heading: string }[];
const PAGES = [...new Set([...expected, ...headings].map((e) => e.page))];
const url = (page: string) => `http://127.0.0.1/anchors/${page}`;

async function load(): Promise<{ src: MemorySource; docs: Map<string, Document> }> {
  const src = new MemorySource();
  const docs = new Map<string, Document>();
  for (const page of PAGES) {
    const html = fs.readFileSync(path.join(DIR, page), 'utf8');
    docs.set(page, parseHTML(html).document as unknown as Document);
    // As the content script picks the main content and the worker stores it (the evaluation's capture).
    const { stored } = await capturePage(html, url(page), 'en');
    if (stored) src.addPage({ url: url(page), title: stored.title, chunks: stored.chunks });
  }
  return { src, docs };
}

describe('a heading typed as the query links to that heading', () => {
  it.each(headings.map((e) => [e.query, e] as const))('%s', async (_, e) => {
    const { src, docs } = await load();
    const top = (await search(src, { q: e.query, limit: 5 })).results[0];
    expect(top?.url).toBe(url(e.page));
    expect(resolveLinkSection(docs.get(e.page)!, top!.href)).toBe(e.heading);
    // The card names the heading it links to.
    expect(top!.headingPath[top!.headingPath.length - 1]).toBe(e.heading);
  });
});

describe('result links land on the section holding the passage', () => {
  it.each([...new Set(expected.map((e) => e.page))])('%s', async (page) => {
    const { src, docs } = await load();
    const misses: string[] = [];
    for (const e of expected.filter((x) => x.page === page)) {
      const top = (await search(src, { q: e.query, limit: 5 })).results[0];
      if (top?.url !== url(page)) {
        misses.push(`"${e.query}": first result ${top?.url ?? 'none'}`);
        continue;
      }
      const landed = resolveLinkSection(docs.get(page)!, top.href);
      if (landed !== e.heading) misses.push(`"${e.query}": ${top.href} lands on ${JSON.stringify(landed)}, not ${JSON.stringify(e.heading)}`);
    }
    expect(misses).toEqual([]);
  });
});
