/**
 * Capture as the extension does it, in Node: each page parsed by linkedom and read by the content
 * script's capture step `captureDocument` (content/pageCapture.ts: `walkBlocks` with no visibility
 * check, as for any parsed document; the main landmark, else Readability on small pages, else the
 * cleaned body; the title; the sections cut by the chunker), and dropped like the worker drops it when
 * `tooLittleText`. The ground truth (groundTruth.ts) is derived from the same parsed page,
 * independently of all that.
 *
 * The result is cached in .cache/eval/, keyed by the code that produced it (the import closure of this
 * file: extractor, chunker, ground truth, and package-lock.json for linkedom's and Readability's
 * versions) and the pages' bytes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { captureDocument } from '../../../content/pageCapture.js';
import { chunkBlocks, type Chunk, type ChunkerOptions } from '../../../src/chunker.js';
import { tooLittleText } from '../../../src/indexing.js';
import { codeHash } from './codeHash.js';
import { pageUrl, type CorpusDef } from './corpora.js';
import { parseDocument } from './dom.js';
import { groundTruthOf, type GtPage } from './groundTruth.js';
import { CACHE_DIR } from './paths.js';

export interface CapturedPage {
  file: string;
  url: string;
  /** The page's language (its `lang`, else the corpus's layout says). */
  lang: string;
  gt: GtPage;
  /** What the extension stores, or null when it would skip the page (too little text). */
  stored: { title: string; chunks: Chunk[]; method: string } | null;
}

export interface LoadedCorpus {
  def: CorpusDef;
  pages: CapturedPage[];
  /** The cache key (code + pages). */
  key: string;
  fromCache: boolean;
  seconds: number;
}

export async function capturePage(html: string, url: string, fallbackLang: string): Promise<Omit<CapturedPage, 'file'>> {
  const doc = parseDocument(html);
  const gt = groundTruthOf(doc, fallbackLang);
  const got = await captureDocument(doc, { live: false, fallbackTitle: new URL(url).hostname, url });
  if (!got) return { url, lang: gt.lang || fallbackLang, gt, stored: null };
  const { title, lang, blocks } = got.payload;
  // The shipped cut, unless a what-if chunker is asked for (then the same blocks, cut with its options).
  const chunks = Object.keys(CHUNKER_WHAT_IF).length ? chunkBlocks(blocks, CHUNKER_WHAT_IF).chunks : got.payload.sections;
  const stored = tooLittleText(title, chunks) ? null : { title, chunks, method: got.extraction.method };
  return { url, lang: lang || gt.lang || fallbackLang, gt, stored };
}

/**
 * WHAT-IF chunker options (JSON in REREAD_EVAL_CHUNKER, e.g. '{"minWords":0}' to merge no section):
 * part of the cache key; a run with them is not the shipped configuration.
 */
export const CHUNKER_WHAT_IF: Partial<ChunkerOptions> = JSON.parse(process.env.REREAD_EVAL_CHUNKER ?? '{}') as Partial<ChunkerOptions>;

type Serialized = Omit<CapturedPage, 'gt'> & { gt: Omit<GtPage, 'idLanding'> & { idLanding: [string, number | null][] } };

/** Every page of a corpus, captured; from the cache when the code and the pages are unchanged. */
export async function loadCorpus(def: CorpusDef, opts: { cache?: boolean; log?: (s: string) => void } = {}): Promise<LoadedCorpus> {
  const t0 = Date.now();
  const files = def.files();
  if (!files.length) throw new Error(`corpus ${def.name}: no pages under ${def.root} (apt-get install ${def.packages.join(' ')})`);
  const h = createHash('sha256').update(codeHash(['tests/eval/lib/capture.ts'])).update(JSON.stringify(CHUNKER_WHAT_IF));
  const htmls = files.map((f) => fs.readFileSync(path.join(def.root, f)));
  files.forEach((f, i) => h.update(f).update('\0').update(htmls[i]!));
  const key = h.digest('hex').slice(0, 16);
  const cacheFile = path.join(CACHE_DIR, `corpus-${def.name}-${key}.json`);
  const useCache = opts.cache !== false;
  if (useCache && fs.existsSync(cacheFile)) {
    const raw = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as Serialized[];
    const pages = raw.map((p) => ({ ...p, gt: { ...p.gt, idLanding: new Map(p.gt.idLanding) } }));
    return { def, pages, key, fromCache: true, seconds: (Date.now() - t0) / 1000 };
  }
  const pages: CapturedPage[] = [];
  for (const [i, f] of files.entries()) {
    const page = await capturePage(htmls[i]!.toString('utf8'), pageUrl(def, f), def.lang(f));
    pages.push({ file: f, ...page });
    if (opts.log && (i + 1) % 100 === 0) opts.log(`  ${def.name}: captured ${i + 1}/${files.length} pages`);
  }
  if (useCache) {
    // Old entries of this corpus were made by other code or other pages: drop them.
    if (fs.existsSync(CACHE_DIR) && !process.env.REREAD_EVAL_CHUNKER) for (const old of fs.readdirSync(CACHE_DIR)) if (old.startsWith(`corpus-${def.name}-`)) fs.rmSync(path.join(CACHE_DIR, old));
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    const ser: Serialized[] = pages.map((p) => ({ ...p, gt: { ...p.gt, idLanding: [...p.gt.idLanding] } }));
    fs.writeFileSync(cacheFile, JSON.stringify(ser));
  }
  return { def, pages, key, fromCache: false, seconds: (Date.now() - t0) / 1000 };
}
