/**
 * Section-accurate links on pages in the styles of the main documentation generators and article
 * layouts (tests/fixtures/anchors: Sphinx, DocBook, MkDocs, Docusaurus, Javadoc old and new, rustdoc,
 * MediaWiki, a blog post, a GitHub README). Each page is extracted (walkBlocks), cut (chunkBlocks) and
 * indexed as the extension does; a five-word span copied from a section, typed without quotes, must
 * give a first result whose link lands, in the page's own DOM, on that section's heading.
 * The e2e twin (tests/e2e/anchors.test.ts) runs the same expectations through the real extension.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { mainLandmark, walkBlocks } from '../../content/extract.js';
import { chunkBlocks } from '../../src/chunker.js';
import { MemorySource } from '../../src/memorySource.js';
import { search } from '../../src/search.js';
import { resolveLinkSection } from '../fixtures/anchors/resolveLink.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/anchors');
const expected = JSON.parse(fs.readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as { page: string; query: string; heading: string }[];
const PAGES = [...new Set(expected.map((e) => e.page))];
const url = (page: string) => `http://127.0.0.1/anchors/${page}`;

async function load(): Promise<{ src: MemorySource; docs: Map<string, Document> }> {
  const src = new MemorySource();
  const docs = new Map<string, Document>();
  for (const page of PAGES) {
    const { document } = parseHTML(fs.readFileSync(path.join(DIR, page), 'utf8'));
    const doc = document as unknown as Document;
    docs.set(page, doc);
    const walk = await walkBlocks(doc.body, { checkVisibility: false });
    const blocks = mainLandmark(walk)?.blocks ?? walk.blocks;
    src.addPage({ url: url(page), title: doc.title, chunks: chunkBlocks(blocks).chunks });
  }
  return { src, docs };
}

describe('result links land on the section holding the passage', () => {
  it.each(PAGES)('%s', async (page) => {
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
