/**
 * The section store's bytes and CPU, format 1 (sections and kept blocks in two deflate streams) beside
 * format 2 (one stream, background/sections.ts packPage), over the same pages, as the product writes
 * them (CompressionStream, zlib's level 6): bytes a page, compress (capture) and read (unpackSections,
 * what search's section reads cost) per page, interleaved page by page so load hits both alike. With
 * reference figures for what else was weighed (issue 17), on the format-2 JSON:
 *   - zlib level 9, brotli 11 (no browser stream offers brotli to an extension; its figure is a bound),
 *   - a per-page word codec (each distinct word spelled once, deflated, then each word as its ideal
 *     code from the page's own counts: a lower bound for any per-page word dictionary),
 *   - a dictionary shared by all pages (each word's ideal code from the counts of every page before it,
 *     new words spelled): the gain a shared dictionary could bring, before its costs (forget, growth).
 * Synthetic pages are the scale part's (same vocabulary and seed, 18–22 sections).
 *   node --import tsx tests/bench/textCodecs.ts [--pages=300] [--rounds=3] [--out=bench/results/text-codecs.json]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { brotliCompressSync, constants, deflateRawSync } from 'node:zlib';
import type { Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { packBlocks, packPage, packSections, pageJson, unpackSections } from '../../background/sections.js';
import { makeVocabulary, pythonPages, ROOT, synthPageStream, toPayload } from './corpus.js';

const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const n = Number(arg('pages', '300'));
const rounds = Number(arg('rounds', '3'));
const out = resolve(ROOT, arg('out', 'bench/results/text-codecs.json'));

const WORD = /[\p{L}\p{N}_]+|[^\p{L}\p{N}_]+/gu;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function corpus(name: string): Promise<Block[][]> {
  if (name === 'python') return (await pythonPages()).filter((_, i) => i % 2 === 0).slice(0, n).map((p) => p.blocks);
  const pages: Block[][] = [];
  for (const p of synthPageStream(makeVocabulary(1), 424242, n * 20, [18, 22])) pages.push(toPayload(p).blocks);
  return pages.slice(0, n);
}

const results: Record<string, unknown> = {};
for (const name of ['synthetic', 'python']) {
  const pages = [];
  for (const raw of await corpus(name)) {
    const cut = await cutSections(raw);
    if (cut.sections.length) pages.push({ cut, page: { url: 'https://x.example/', chunkIds: cut.sections.map((_, i) => i + 1) } });
  }
  const row = { chars: [] as number[], v1: [] as number[], v2: [] as number[], zlib9: [] as number[], brotli11: [] as number[], wordPerPage: [] as number[], wordShared: [] as number[] };
  const global = new Map<string, number>();
  let globalTotal = 0;
  for (const { cut } of pages) {
    row.chars.push(cut.blocks.reduce((k, b) => k + b.text.length + 1, -1));
    const v1 = (await packSections(cut.sections, cut.blocks)).byteLength + (await packBlocks(cut.blocks)).byteLength;
    const json = pageJson(cut.sections, cut.blocks);
    row.v1.push(v1);
    row.v2.push((await packPage(cut.sections, cut.blocks)).byteLength);
    row.zlib9.push(deflateRawSync(json, { level: 9, memLevel: 9 }).byteLength + 2);
    row.brotli11.push(brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).byteLength + 2);
    // Word codecs on the page's block text (what holds the words); the rest of the record as format 2 stores it is left out of both.
    const toks = cut.blocks.map((b) => b.text).join('\n').match(WORD) ?? [];
    const counts = new Map<string, number>();
    for (const t of toks) counts.set(t, (counts.get(t) ?? 0) + 1);
    let bits = 0;
    for (const c of counts.values()) bits -= c * Math.log2(c / toks.length);
    row.wordPerPage.push(bits / 8 + deflateRawSync([...counts.keys()].join('\0')).byteLength);
    let sharedBits = 0;
    const fresh: string[] = [];
    for (const t of toks) {
      const c = global.get(t) ?? 0;
      sharedBits -= Math.log2((c + 0.5) / (globalTotal + 0.5 * (global.size + 1)));
      if (!c) fresh.push(t);
      global.set(t, c + 1);
      globalTotal++;
    }
    row.wordShared.push(sharedBits / 8 + deflateRawSync(fresh.join('\0')).byteLength);
  }
  // The shared dictionary's figure is taken on the second half only (the first half builds its counts).
  const half = (xs: number[]) => xs.slice(Math.floor(xs.length / 2));
  // CPU, interleaved page by page (format 1 then 2, or 2 then 1, alternating).
  const enc = { v1: [] as number[], v2: [] as number[] };
  const dec = { v1: [] as number[], v2: [] as number[] };
  const stored = await Promise.all(pages.map(async ({ cut }) => ({ v1: { z: await packSections(cut.sections, cut.blocks), b: await packBlocks(cut.blocks) }, v2: { z: await packPage(cut.sections, cut.blocks) } })));
  for (let r = 0; r < rounds; r++) {
    for (const [k, { cut, page }] of pages.entries()) {
      const order = (k + r) % 2 ? (['v1', 'v2'] as const) : (['v2', 'v1'] as const);
      for (const f of order) {
        let t = performance.now();
        if (f === 'v1') await Promise.all([packSections(cut.sections, cut.blocks), packBlocks(cut.blocks)]);
        else await packPage(cut.sections, cut.blocks);
        enc[f].push(performance.now() - t);
        t = performance.now();
        await unpackSections(stored[k]![f], page);
        dec[f].push(performance.now() - t);
      }
    }
  }
  const v1 = mean(row.v1);
  const kb = (x: number) => Math.round(x);
  results[name] = {
    pages: pages.length,
    textCharsPerPage: kb(mean(row.chars)),
    bytesPerPage: {
      format1: kb(v1),
      format2: kb(mean(row.v2)),
      format2Zlib9: kb(mean(row.zlib9)),
      format2Brotli11: kb(mean(row.brotli11)),
    },
    format2VsFormat1: +(mean(row.v2) / v1).toFixed(4),
    wordCodecsOnBlockText: {
      deflateOfBlockText: kb(mean(pages.map(({ cut }) => deflateRawSync(cut.blocks.map((b) => b.text).join('\n')).byteLength))),
      perPageDictionaryLowerBound: kb(mean(row.wordPerPage)),
      sharedDictionarySecondHalf: kb(mean(half(row.wordShared))),
      deflateOfBlockTextSecondHalf: kb(mean(half(pages.map(({ cut }) => deflateRawSync(cut.blocks.map((b) => b.text).join('\n')).byteLength)))),
    },
    compressMsPerPage: { format1: { median: +median(enc.v1).toFixed(3), mean: +mean(enc.v1).toFixed(3) }, format2: { median: +median(enc.v2).toFixed(3), mean: +mean(enc.v2).toFixed(3) } },
    readMsPerPage: { format1: { median: +median(dec.v1).toFixed(3), mean: +mean(dec.v1).toFixed(3) }, format2: { median: +median(dec.v2).toFixed(3), mean: +mean(dec.v2).toFixed(3) } },
  };
}

type R = { pages: number; textCharsPerPage: number; bytesPerPage: Record<string, number>; format2VsFormat1: number; wordCodecsOnBlockText: Record<string, number>; compressMsPerPage: Record<string, { median: number; mean: number }>; readMsPerPage: Record<string, { median: number; mean: number }> };
console.log('\nSection store bytes a page (sections record + kept blocks), CompressionStream as the product writes');
console.log('corpus      pages  text chars  format 1 B  format 2 B  2/1     zlib 9 B  brotli 11 B');
for (const [name, r] of Object.entries(results) as [string, R][])
  console.log(`${name.padEnd(11)} ${String(r.pages).padStart(5)}  ${String(r.textCharsPerPage).padStart(10)}  ${String(r.bytesPerPage.format1).padStart(10)}  ${String(r.bytesPerPage.format2).padStart(10)}  ${r.format2VsFormat1.toFixed(3)}  ${String(r.bytesPerPage.format2Zlib9).padStart(8)}  ${String(r.bytesPerPage.format2Brotli11).padStart(11)}`);
console.log('\nCPU per page (ms, median / mean, interleaved): compress (capture), read (unpackSections)');
for (const [name, r] of Object.entries(results) as [string, R][])
  console.log(`${name.padEnd(11)} compress ${r.compressMsPerPage.format1!.median} / ${r.compressMsPerPage.format1!.mean} -> ${r.compressMsPerPage.format2!.median} / ${r.compressMsPerPage.format2!.mean};  read ${r.readMsPerPage.format1!.median} / ${r.readMsPerPage.format1!.mean} -> ${r.readMsPerPage.format2!.median} / ${r.readMsPerPage.format2!.mean}`);
console.log('\nWord codecs on the blocks\' text (B a page): deflate, per-page dictionary (lower bound), shared dictionary (second half of the pages; deflate on the same half)');
for (const [name, r] of Object.entries(results) as [string, R][]) {
  const w = r.wordCodecsOnBlockText;
  console.log(`${name.padEnd(11)} deflate ${w.deflateOfBlockText}, per-page dictionary >= ${w.perPageDictionaryLowerBound}, shared dictionary ~${w.sharedDictionarySecondHalf} (deflate ${w.deflateOfBlockTextSecondHalf})`);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ generatedAt: new Date().toISOString(), command: `node --import tsx tests/bench/textCodecs.ts --pages=${n} --rounds=${rounds}`, results }, null, 1) + '\n');
