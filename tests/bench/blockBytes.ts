/**
 * Bytes a page's kept blocks add (issue 19: what the background keeps to re-cut a page), next to the
 * section texts every page already stores, as the extension packs them (background/sectionTexts.ts:
 * deflate-raw of the JSON; today background/sections.ts), over the Python manual and synthetic pages. Also what one deflate stream
 * holding both would take (the sections repeat the blocks' words), for the storage layout to weigh; and
 * the same for the record as stored since the texts refer to the blocks (`packSections(sections, blocks)`),
 * with the blocks at zlib's level 9 beside CompressionStream's (which takes no level: zlib's default, 6).
 *   node --import tsx tests/bench/blockBytes.ts [--pages=500] [--out=bench/results/block-bytes.json]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { deflateRawSync } from 'node:zlib';
import { blocksJson, packBlocks, packSections, sectionsJson } from '../../background/sections.js';
import { makeVocabulary, pythonPages, ROOT, synthPages, toPayload } from './corpus.js';

const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const n = Number(arg('pages', '500'));
const out = resolve(ROOT, arg('out', 'bench/results/block-bytes.json'));

async function deflate(s: string): Promise<number> {
  const res = new Response(new Blob([s]).stream().pipeThrough(new CompressionStream('deflate-raw')));
  return (await res.arrayBuffer()).byteLength;
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const results: Record<string, unknown> = {};
for (const name of ['python', 'synthetic']) {
  const pages: Block[][] =
    name === 'python' ? (await pythonPages()).slice(0, n).map((p) => p.blocks) : synthPages(makeVocabulary(11), 12, n * 21).slice(0, n).map((p) => toPayload(p).blocks);
  const rows: { chars: number; texts: number; blocks: number; both: number; refs: number; refsBoth: number; blocksL6: number; blocksL9: number }[] = [];
  for (const raw of pages) {
    const cut = await cutSections(raw);
    if (!cut.sections.length) continue;
    const texts = cut.sections.map((c) => c.text);
    rows.push({
      chars: cut.blocks.reduce((k, b) => k + b.text.length, 0),
      texts: (await packSections(cut.sections)).byteLength,
      blocks: (await packBlocks(cut.blocks)).byteLength,
      both: await deflate(JSON.stringify([texts, cut.blocks.map((b) => [b.kind, b.text, b.id ?? ''])])),
      refs: (await packSections(cut.sections, cut.blocks)).byteLength,
      refsBoth: await deflate(sectionsJson(cut.sections, cut.blocks) + blocksJson(cut.blocks)),
      blocksL6: deflateRawSync(blocksJson(cut.blocks), { level: 6 }).byteLength,
      blocksL9: deflateRawSync(blocksJson(cut.blocks), { level: 9 }).byteLength,
    });
  }
  const col = (k: keyof (typeof rows)[number]) => rows.map((r) => r[k]);
  results[name] = {
    pages: rows.length,
    textChars: { mean: Math.round(mean(col('chars'))), median: q(col('chars'), 0.5) },
    sectionTextsBytes: { mean: Math.round(mean(col('texts'))), median: q(col('texts'), 0.5) },
    blocksBytes: { mean: Math.round(mean(col('blocks'))), median: q(col('blocks'), 0.5), p95: q(col('blocks'), 0.95) },
    blocksOverTexts: Math.round((mean(col('blocks')) / mean(col('texts'))) * 100) / 100,
    oneStreamBytes: { mean: Math.round(mean(col('both'))), savedVsTwo: Math.round(mean(col('texts')) + mean(col('blocks')) - mean(col('both'))) },
    // As stored now: the sections record's texts refer to the blocks.
    sectionsRecordBytes: { mean: Math.round(mean(col('refs'))) },
    oneStreamAsStoredBytes: { mean: Math.round(mean(col('refsBoth'))), savedVsTwo: Math.round(mean(col('refs')) + mean(col('blocks')) - mean(col('refsBoth'))) },
    blocksZlibLevel6Bytes: Math.round(mean(col('blocksL6'))),
    blocksZlibLevel9Bytes: Math.round(mean(col('blocksL9'))),
  };
}

console.log('\nBytes per page kept to re-cut it (deflate-raw, as stored), beside its section texts');
console.log('corpus      pages  text chars (mean)  section texts B (mean)  blocks B (mean / median / p95)  blocks/texts  one stream for both B (saves)');
for (const [name, r] of Object.entries(results) as [string, { pages: number; textChars: { mean: number }; sectionTextsBytes: { mean: number }; blocksBytes: { mean: number; median: number; p95: number }; blocksOverTexts: number; oneStreamBytes: { mean: number; savedVsTwo: number } }][]) {
  console.log(
    `${name.padEnd(11)} ${String(r.pages).padStart(5)}  ${String(r.textChars.mean).padStart(17)}  ${String(r.sectionTextsBytes.mean).padStart(22)}  ${`${r.blocksBytes.mean} / ${r.blocksBytes.median} / ${r.blocksBytes.p95}`.padStart(30)}  ${String(r.blocksOverTexts).padStart(12)}  ${`${r.oneStreamBytes.mean} (${r.oneStreamBytes.savedVsTwo})`.padStart(28)}`,
  );
}
console.log('\nAs stored since the texts refer to the blocks: sections record B (mean), one stream for record and blocks B (saves), blocks at zlib level 6 / 9 B');
for (const [name, r] of Object.entries(results) as [string, { sectionsRecordBytes: { mean: number }; oneStreamAsStoredBytes: { mean: number; savedVsTwo: number }; blocksZlibLevel6Bytes: number; blocksZlibLevel9Bytes: number; blocksBytes: { mean: number } }][]) {
  console.log(`${name.padEnd(11)} record ${r.sectionsRecordBytes.mean}, one stream ${r.oneStreamAsStoredBytes.mean} (saves ${r.oneStreamAsStoredBytes.savedVsTwo}), blocks CompressionStream ${r.blocksBytes.mean} / zlib 6 ${r.blocksZlibLevel6Bytes} / zlib 9 ${r.blocksZlibLevel9Bytes}`);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ generatedAt: new Date().toISOString(), results }, null, 1));
