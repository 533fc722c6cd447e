/**
 * The posting codecs side by side (src/postings.ts): the varint codec (schema 3's first, still read) and
 * the packed one, over the postings a corpus gives as merges leave them (each term's blocks of
 * BLOCK_SIZE, then its last, partial block): stored bytes (blockValue: what IndexedDB is given, without
 * its key), decode speed (a term's blocks into one list, what a query's read does, lengths looked up as
 * the reader does), encode speed (a whole block), and a merge's append to a term's last block. Node, no
 * IndexedDB; the codecs interleaved round by round so load hits them alike.
 *   node --import tsx tests/bench/postingsCodec.ts [--corpus=synthetic|python] [--sections=100000] [--rounds=7]
 * Synthetic pages are the scale benchmark's (same vocabulary, seed and 18–22 sections a page), so
 * `--sections=1000000` gives the postings of its 1M-section index.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkBlocks } from '../../src/chunker.js';
import { TOKENIZER } from '../../src/indexing.js';
import { appendToBlock, BLOCK_SIZE, blockFromValue, blockValue, decodeBlocks, encodeBlock, encodeVarintBlock, type EncodedBlock, type PostingEntry } from '../../src/postings.js';
import { sectionPostings } from '../../background/pageStore.js';
import { makeVocabulary, pythonPages, synthPageStream, toPayload } from './corpus.js';
import { machine, num, RESULTS, table } from './report.js';

const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const corpus = arg('corpus', 'synthetic');
const sections = Number(arg('sections', '100000'));
const rounds = Number(arg('rounds', '7'));
const started = machine();

interface Totals {
  bytes: number;
  fullBytes: number;
}
const codecs = { varint: encodeVarintBlock, packed: encodeBlock } as const;
type Codec = keyof typeof codecs;
const totals: Record<Codec, Totals> = { varint: { bytes: 0, fullBytes: 0 }, packed: { bytes: 0, fullBytes: 0 } };
let entries = 0;
let fullEntries = 0;
let blocks = 0;
let pages = 0;
let textChars = 0;

/** Terms kept whole for timing: every 40th term seen (common and rare alike), all its blocks. */
const sampled = new Map<string, PostingEntry[][]>();
let termsSeen = 0;
const sampleEvery = 40;
/** Postings kept for timing at most (the 1M run would hold millions otherwise). */
const SAMPLE_MAX = 2_000_000;
let sampledEntries = 0;

function emit(term: string, list: PostingEntry[]): void {
  for (const c of Object.keys(codecs) as Codec[]) {
    const bytes = blockValue(codecs[c](list)).length;
    totals[c].bytes += bytes;
    if (list.length === BLOCK_SIZE) totals[c].fullBytes += bytes;
  }
  entries += list.length;
  blocks++;
  if (list.length === BLOCK_SIZE) fullEntries += list.length;
  if (sampledEntries < SAMPLE_MAX) {
    const kept = sampled.get(term);
    if (kept) {
      kept.push(list);
      sampledEntries += list.length;
    }
  }
}

const open = new Map<string, PostingEntry[]>();
let id = 1;
function addPage(title: string, blocksIn: Parameters<typeof chunkBlocks>[0]): void {
  for (const c of chunkBlocks(blocksIn).chunks) {
    textChars += c.text.length;
    for (const [term, tf] of sectionPostings(title, c, TOKENIZER).tfs) {
      let l = open.get(term);
      if (!l) {
        open.set(term, (l = []));
        if (termsSeen++ % sampleEvery === 0) sampled.set(term, []);
      }
      l.push({ id, tf, len: 0 });
      if (l.length === BLOCK_SIZE) {
        emit(term, l);
        open.set(term, []);
      }
    }
    id++;
  }
  pages++;
}

const t0 = performance.now();
if (corpus === 'python') for (const p of await pythonPages()) addPage(p.title, p.blocks);
else for (const p of synthPageStream(makeVocabulary(1), 424242, sections, [18, 22])) addPage(toPayload(p).title, toPayload(p).blocks);
for (const [term, l] of open) if (l.length) emit(term, l);
const buildS = (performance.now() - t0) / 1000;

// Timing: the sampled terms' blocks, stored and read back in each codec.
const lenOf = (x: number) => x & 1023; // the reader looks each id's length up; any cheap lookup will do
const stored: Record<Codec, EncodedBlock[][]> = { varint: [], packed: [] };
for (const lists of sampled.values()) {
  if (!lists.length) continue;
  for (const c of Object.keys(codecs) as Codec[]) stored[c].push(lists.map((l) => { const b = codecs[c](l); return blockFromValue(b.first, blockValue(b)); }));
}
const sampledLists = [...sampled.values()].filter((l) => l.length);
const sampleEntries = sampledLists.reduce((n, ls) => n + ls.reduce((m, l) => m + l.length, 0), 0);
// Appends as a merge makes them: a term's last block holding 256 entries takes 8 more.
const appendCases = sampledLists.flatMap((ls) => ls.filter((l) => l.length === BLOCK_SIZE).map((l) => ({ head: l.slice(0, 256), more: l.slice(256, 264) }))).slice(0, 2000);
const appendFrom: Record<Codec, EncodedBlock[]> = { varint: appendCases.map((a) => codecs.varint(a.head)), packed: appendCases.map((a) => codecs.packed(a.head)) };

const times: Record<string, number[]> = {};
/** CPU time of the process (user + system), not wall time: other work on a shared machine inflates it less. */
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const time = (name: string, f: () => number) => {
  const t = cpuMs();
  let sink = f();
  const ms = cpuMs() - t;
  (times[name] ??= []).push(ms);
  if (sink === -1) sink = 0; // keep the work observable
  return sink;
};
for (let r = 0; r < rounds; r++) {
  for (const c of (r % 2 ? ['packed', 'varint'] : ['varint', 'packed']) as Codec[]) {
    time(`decode ${c}`, () => stored[c].reduce((n, term) => n + decodeBlocks(term, lenOf).ids.length, 0));
    time(`encode ${c}`, () => sampledLists.reduce((n, ls) => n + ls.reduce((m, l) => m + codecs[c](l).data.length, 0), 0));
    time(`append to a ${c} block`, () => appendFrom[c].reduce((n, b, i) => n + appendToBlock(b, appendCases[i]!.more).length, 0));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const nsPerEntry = (name: string) => (median(times[name]!) * 1e6) / sampleEntries;
const usPerAppend = (name: string) => (median(times[name]!) * 1e3) / Math.max(1, appendCases.length);
const ended = machine();

const kbPage = (b: number) => b / pages / 1024;
console.log(`${corpus}: ${num(pages)} pages, ${num(id - 1)} sections, ${num(open.size)} terms, ${num(entries)} postings in ${num(blocks)} blocks (${((fullEntries / entries) * 100).toFixed(0)}% of postings in full blocks), ${(textChars / pages / 1024).toFixed(1)} KB of section text a page; built in ${buildS.toFixed(0)} s. Load average ${started.loadAvg.join(' ')} at the start, ${ended.loadAvg.join(' ')} at the end.`);
console.log(
  table(
    ['codec', 'bytes an entry', 'in full blocks', 'KB a page (values)', 'decode ns/entry', 'encode ns/entry', 'append 8 to 256 (µs)'],
    (Object.keys(codecs) as Codec[]).map((c) => [
      c,
      (totals[c].bytes / entries).toFixed(3),
      fullEntries ? (totals[c].fullBytes / fullEntries).toFixed(3) : '–',
      kbPage(totals[c].bytes).toFixed(2),
      nsPerEntry(`decode ${c}`).toFixed(2),
      nsPerEntry(`encode ${c}`).toFixed(2),
      usPerAppend(`append to a ${c} block`).toFixed(2),
    ]),
  ),
);
console.log(`Timing over ${num(sampledLists.length)} terms (every ${sampleEvery}th, all their blocks, ${num(sampleEntries)} postings), CPU time, median of ${rounds} rounds; append: ${num(appendCases.length)} cases.`);
const out = {
  command: `node --import tsx tests/bench/postingsCodec.ts --corpus=${corpus}${corpus === 'synthetic' ? ` --sections=${sections}` : ''} --rounds=${rounds}`,
  date: new Date().toISOString(),
  machine: { ...ended, loadAvgStart: started.loadAvg },
  corpus,
  pages,
  sections: id - 1,
  terms: open.size,
  postings: entries,
  blocks,
  fullBlockShare: +(fullEntries / entries).toFixed(3),
  textBytesPerPage: Math.round(textChars / pages),
  codecs: Object.fromEntries(
    (Object.keys(codecs) as Codec[]).map((c) => [
      c,
      {
        bytesPerEntry: +(totals[c].bytes / entries).toFixed(3),
        fullBlockBytesPerEntry: fullEntries ? +(totals[c].fullBytes / fullEntries).toFixed(3) : null,
        valueKBPerPage: +kbPage(totals[c].bytes).toFixed(2),
        decodeNsPerEntry: +nsPerEntry(`decode ${c}`).toFixed(2),
        encodeNsPerEntry: +nsPerEntry(`encode ${c}`).toFixed(2),
        appendUs: +usPerAppend(`append to a ${c} block`).toFixed(2),
      },
    ]),
  ),
};
writeFileSync(join(RESULTS, `postings-codec-${corpus}${corpus === 'synthetic' ? `-${sections}` : ''}.json`), JSON.stringify(out, null, 1) + '\n');
