/**
 * What keeping a page's extracted blocks would add to storage (issue #19: re-cutting stored pages after
 * a chunker change), per page, deflated as the sections record is (zlib deflate-raw, the format
 * CompressionStream writes):
 *   node --import tsx tests/bench/blocksCost.ts
 * Three layouts: the blocks in a record of their own beside the sections; the blocks in the same
 * deflate stream as the sections; and the blocks instead of the section texts (sections rebuilt by
 * running the chunker again when read; their metadata kept).
 */
import { deflateRawSync } from 'node:zlib';
import { chunkBlocks, type Block } from '../../src/chunker.js';
import { sectionsJson } from '../../background/sections.js';
import { makeVocabulary, pythonPages, synthPages, toPayload } from './corpus.js';
import { table } from './report.js';

function measure(pages: { blocks: Block[] }[]): string[] {
  let sections = 0;
  let blocksAlone = 0;
  let together = 0;
  let instead = 0;
  let text = 0;
  for (const p of pages) {
    const { chunks } = chunkBlocks(p.blocks);
    const s = sectionsJson(chunks);
    const b = JSON.stringify(p.blocks);
    const meta = JSON.stringify({ h: chunks.map((c) => c.headingPath), s: chunks.map((c) => c.section), a: chunks.map((c) => c.anchor) });
    text += chunks.reduce((n, c) => n + c.text.length, 0);
    sections += deflateRawSync(s).length;
    blocksAlone += deflateRawSync(b).length;
    together += deflateRawSync(`[${s},${b}]`).length;
    instead += deflateRawSync(`[${meta},${b}]`).length;
  }
  const kb = (x: number) => `${(x / pages.length / 1024).toFixed(2)} KB`;
  const plus = (x: number) => `+${((x - sections) / pages.length / 1024).toFixed(2)} KB (${(((x - sections) / sections) * 100).toFixed(0)}%)`;
  return [`${pages.length}`, kb(text), kb(sections), plus(sections + blocksAlone), plus(together), plus(instead)];
}

const synth = synthPages(makeVocabulary(1), 2, 52_000, [18, 22]).map((p) => ({ blocks: toPayload(p).blocks }));
const python = (await pythonPages()).map((p) => ({ blocks: p.blocks }));
console.log(
  table(
    ['corpus', 'pages', 'section text a page', 'sections record now', 'blocks in a record beside', 'blocks in the same record', 'blocks instead of section texts'],
    [
      ['synthetic (bench corpus)', ...measure(synth)],
      ['Python manual', ...measure(python)],
    ],
  ),
);
