/**
 * A page's sections record as stored (background/sections.ts) in its two forms, side by side over the
 * same pages: texts written out (what pages without kept blocks store) and texts as references into the
 * blocks kept beside them (issue 17; the texts-written-out record is read without its blocks, as before). Prints the bytes a page (z, b) and the time to read a page's
 * sections back (unpackSections: inflate, parse, spell the texts), interleaved form by form, page by page.
 *   node --import tsx tests/bench/sectionRead.ts [--corpus=python|synthetic] [--pages=120] [--rounds=5]
 */
import { cutSections } from '../../src/sections.js';
import { packBlocks, packSections, unpackSections } from '../../background/sections.js';
import { makeVocabulary, pythonPages, synthPages, toPayload } from './corpus.js';
import type { Block } from '../../src/chunker.js';

const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const corpus = arg('corpus', 'python');
const n = Number(arg('pages', '120'));
const rounds = Number(arg('rounds', '5'));

let raw: Block[][];
if (corpus === 'python') {
  const all = await pythonPages();
  const step = Math.max(1, Math.floor(all.length / n));
  raw = all.filter((_, i) => i % step === 0).slice(0, n).map((p) => p.blocks);
} else raw = synthPages(makeVocabulary(11), 12, n * 21).slice(0, n).map((p) => toPayload(p).blocks);

const pages = [];
const bytes = { text: 0, literal: 0, refs: 0, blocks: 0 };
let packMs = 0;
for (const [i, r] of raw.entries()) {
  const cut = await cutSections(r);
  if (!cut.sections.length) continue;
  const page = { url: `p${i}`, chunkIds: cut.sections.map((_, k) => k) };
  const b = await packBlocks(cut.blocks);
  const literal = await packSections(cut.sections);
  const t0 = performance.now();
  const refs = await packSections(cut.sections, cut.blocks);
  packMs += performance.now() - t0;
  const back = await unpackSections({ z: refs, b }, page);
  if (back.some((s, k) => s.text !== cut.sections[k]!.text)) throw new Error(`page ${i}: texts do not read back`);
  bytes.text += cut.sections.reduce((m, c) => m + c.text.length, 0);
  bytes.literal += literal.byteLength;
  bytes.refs += refs.byteLength;
  bytes.blocks += b.byteLength;
  pages.push({ page, b, literal, refs });
}

const times = { literal: [] as number[], refs: [] as number[] };
for (let round = 0; round < rounds; round++) {
  for (const p of pages) {
    for (const form of round % 2 ? (['refs', 'literal'] as const) : (['literal', 'refs'] as const)) {
      const t = performance.now();
      await unpackSections(form === 'refs' ? { z: p.refs, b: p.b } : { z: p.literal }, p.page);
      times[form].push(performance.now() - t);
    }
  }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
const kb = (v: number) => +(v / pages.length / 1024).toFixed(2);
const ms = (xs: number[]) => ({ p50: +q(xs, 0.5).toFixed(3), p95: +q(xs, 0.95).toFixed(3), mean: +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3) });
const out = {
  corpus,
  pages: pages.length,
  textKBPerPage: kb(bytes.text),
  blocksKBPerPage: kb(bytes.blocks),
  literal: { zKBPerPage: kb(bytes.literal), recordKBPerPage: kb(bytes.literal + bytes.blocks), readMs: ms(times.literal) },
  refs: { zKBPerPage: kb(bytes.refs), recordKBPerPage: kb(bytes.refs + bytes.blocks), readMs: ms(times.refs), packMsMean: +(packMs / pages.length).toFixed(3) },
};
console.table({ literal: { ...out.literal, readMs: undefined, p50: out.literal.readMs.p50, p95: out.literal.readMs.p95 }, refs: { ...out.refs, readMs: undefined, p50: out.refs.readMs.p50, p95: out.refs.readMs.p95 } });
console.log(JSON.stringify(out));
