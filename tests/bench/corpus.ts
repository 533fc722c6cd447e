/**
 * Benchmark corpora and queries.
 *
 * - `synthPages`: a deterministic generator of realistic pages of sections: a Zipf-shaped vocabulary
 *   (function words at the head, pseudo-words in the tail), page topics (bursty mid-frequency words),
 *   identifiers (snake_case, CamelCase, dotted paths, error codes), sites and visit dates.
 * - `pythonSections`: real sections of the Python manual, cut the way the extension cuts them
 *   (content/extract.ts walkBlocks, then src/chunker.ts chunkBlocks), cached under bench/.cache.
 * - `sampleQueries`: 1–4-word queries drawn from the indexed text (common, mid, rare terms, identifiers).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Rng, Zipf } from './rng.js';
import type { Block } from '../../src/chunker.js';
import type { CapturePayload } from '../../src/protocol.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CACHE = join(ROOT, 'bench/.cache');
export const PYTHON_DOCS = '/usr/share/doc/python3.11/html';

/** One indexed unit: what BM25 sees for a chunk (the page title folded in, as pageStore.indexedText does). */
export interface Doc {
  id: number;
  /** Index of the page the section belongs to (a page is written in one go, as the engine does). */
  page: number;
  /** Everything indexed as one text (title, heading path, body): what the peers index. */
  text: string;
  /** The parts Reread indexes (pageStore.indexedTerms): page title, chunk text, heading path. */
  title: string;
  chunkText: string;
  headingPath: string[];
  site: string;
  date: number;
}

export interface SynthSection {
  heading: string;
  /** Paragraphs of the section body. */
  paragraphs: string[];
}

export interface SynthPage {
  url: string;
  site: string;
  title: string;
  date: number;
  sections: SynthSection[];
}

const FUNCTION_WORDS = (
  'the of and to a in is that for it as with was on be by this are or from at an which not but have ' +
  'can has all their one more will if been when there also we they its other these so into only some ' +
  'than use each may such how what new used first two would most then any should between over about ' +
  'both after where through same while before does could them who under those because each very out'
).split(' ');

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'cl', 'dr', 'fl', 'gr', 'pl', 'pr', 'st', 'tr', 'sh', 'ch', 'th', 'qu', 'sp', 'sc', 'str', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y', 'ee', 'oa'];
const CODAS = ['', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'ng', 'rk', 'x', 'ct', 'nt', 'sh', 'rd'];
const SUFFIXES = ['', '', '', '', '', '', 'ing', 'ed', 'er', 'ion', 'able', 'ment', 'ness', 'ity', 'ly', 'ize', 'al', 'ive', 's', 'es'];

/** A pronounceable pseudo-word: 1–3 syllables and an English-looking suffix. */
function pseudoWord(rng: Rng): string {
  const r = rng.next();
  const syl = r < 0.5 ? 1 : r < 0.85 ? 2 : 3;
  let w = '';
  for (let i = 0; i < syl; i++) w += rng.pick(ONSETS) + rng.pick(VOWELS) + rng.pick(CODAS);
  return w + rng.pick(SUFFIXES);
}

export interface Vocabulary {
  words: string[];
  zipf: Zipf;
  identifiers: string[];
  identZipf: Zipf;
  sites: string[];
  siteZipf: Zipf;
}

/** Vocabulary of `size` words (function words first), `nIdent` identifiers and `nSites` sites. */
export function makeVocabulary(seed: number, size = 80_000, nIdent = 12_000, nSites = 600): Vocabulary {
  const rng = new Rng(seed);
  const seen = new Set<string>(FUNCTION_WORDS);
  const words = [...FUNCTION_WORDS];
  while (words.length < size) {
    const w = pseudoWord(rng);
    if (w.length < 2 || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  // Identifiers are built from content words (not function words), like real APIs.
  const content = (): string => words[FUNCTION_WORDS.length + Math.floor(Math.pow(rng.next(), 2) * 20_000)]!;
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  const identifiers: string[] = [];
  const idSeen = new Set<string>();
  while (identifiers.length < nIdent) {
    const kind = rng.int(6);
    const n = rng.range(2, 3);
    const parts = Array.from({ length: n }, content);
    let id: string;
    if (kind === 0) id = parts.join('_');
    else if (kind === 1) id = parts.map(cap).join('');
    else if (kind === 2) id = parts[0] + parts.slice(1).map(cap).join('');
    else if (kind === 3) id = Array.from({ length: rng.range(2, 4) }, content).join('.');
    else if (kind === 4) id = rng.pick(['ERR', 'E', 'EX', 'WARN', 'HTTP', 'SQL']) + (rng.chance(0.5) ? '_' : '') + rng.range(100, 9999);
    else id = parts.map((p) => p.toUpperCase()).join('_');
    if (idSeen.has(id)) continue;
    idSeen.add(id);
    identifiers.push(id);
  }
  const tlds = ['com', 'org', 'io', 'dev', 'net', 'co.uk', 'de'];
  const sites: string[] = ['github.com', 'stackoverflow.com', 'developer.mozilla.org', 'en.wikipedia.org', 'docs.python.org', 'news.ycombinator.com'];
  while (sites.length < nSites) {
    const s = (rng.chance(0.3) ? rng.pick(['docs', 'blog', 'www', 'wiki', 'dev']) + '.' : '') + content() + '.' + rng.pick(tlds);
    if (!sites.includes(s)) sites.push(s);
  }
  return { words, zipf: new Zipf(words.length, 1.05, 1.5), identifiers, identZipf: new Zipf(identifiers.length, 1.0), sites, siteZipf: new Zipf(sites.length, 1.1) };
}

const DAY = 86_400_000;
const EPOCH = Date.UTC(2024, 0, 1);

function sentence(rng: Rng, v: Vocabulary, topic: string[], pageIds: string[], minWords: number, maxWords: number): string {
  const n = rng.range(minWords, maxWords);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    if (r < 0.12) out.push(rng.pick(topic));
    else if (r < 0.14) out.push(rng.pick(pageIds));
    else if (r < 0.145) out.push(v.identifiers[v.identZipf.sample(rng)]!);
    else if (r < 0.155) out.push(rng.chance(0.5) ? String(rng.range(0, 2030)) : `${rng.range(1, 12)}.${rng.range(0, 20)}`);
    else out.push(v.words[v.zipf.sample(rng)]!);
  }
  out[0] = out[0]![0]!.toUpperCase() + out[0]!.slice(1);
  return out.join(' ') + '.';
}

/** Pages until `chunks` sections exist. `sectionsPerPage` is [min, max]. */
export function synthPages(v: Vocabulary, seed: number, chunks: number, sectionsPerPage: [number, number] = [5, 30]): SynthPage[] {
  return [...synthPageStream(v, seed, chunks, sectionsPerPage)];
}

/**
 * The same pages one at a time (for corpora too large to hold: the 1M-section benchmark). The last page
 * is cut short so that exactly `chunks` sections are made.
 */
export function* synthPageStream(v: Vocabulary, seed: number, chunks: number, sectionsPerPage: [number, number] = [5, 30]): Generator<SynthPage> {
  const rng = new Rng(seed);
  let total = 0;
  let n = 0;
  while (total < chunks) {
    const site = v.sites[v.siteZipf.sample(rng)]!;
    // A page's topic: ~30 mid-frequency words it repeats (burstiness), and a few identifiers.
    const topic = Array.from({ length: 30 }, () => v.words[200 + Math.floor(Math.pow(rng.next(), 1.5) * (v.words.length - 200))]!);
    const pageIds = Array.from({ length: 6 }, () => v.identifiers[v.identZipf.sample(rng)]!);
    const title = sentence(rng, v, topic, pageIds, 3, 8).replace(/\.$/, '');
    const nSec = Math.min(chunks - total, rng.range(sectionsPerPage[0], sectionsPerPage[1]));
    const sections: SynthSection[] = [];
    for (let s = 0; s < nSec; s++) {
      const heading = sentence(rng, v, topic, pageIds, 2, 6).replace(/\.$/, '');
      const target = rng.range(150, 300);
      const paragraphs: string[] = [];
      let words = 0;
      while (words < target) {
        const para: string[] = [];
        const pw = Math.min(target - words, rng.range(40, 110));
        let got = 0;
        while (got < pw) {
          const sn = sentence(rng, v, topic, pageIds, 6, 22);
          got += sn.split(' ').length;
          para.push(sn);
        }
        words += got;
        paragraphs.push(para.join(' '));
      }
      sections.push({ heading, paragraphs });
    }
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 60);
    yield { url: `https://${site}/${slug}-${n}`, site, title, date: EPOCH + Math.floor(rng.next() * 730 * DAY), sections };
    n++;
    total += nSec;
  }
}

/**
 * What the engine indexes for each section, as captured from toPayload(page): pageStore.indexedText
 * (the title, then the chunk text: heading path "Title > Heading", then the body).
 */
export function pagesToDocs(pages: readonly SynthPage[]): Doc[] {
  const docs: Doc[] = [];
  pages.forEach((p, page) => {
    for (const s of p.sections) {
      const chunkText = `${p.title} > ${s.heading}\n${s.paragraphs.join('\n')}`;
      docs.push({ id: docs.length + 1, page, text: `${p.title}\n${chunkText}`, title: p.title, chunkText, headingPath: [p.title, s.heading], site: p.site, date: p.date });
    }
  });
  return docs;
}

/** The payload a content script would send for this page (h1 title, h2 per section, paragraphs). */
export function toPayload(p: SynthPage): CapturePayload {
  const blocks: Block[] = [{ kind: 'heading', level: 1, text: p.title }];
  p.sections.forEach((s, i) => {
    blocks.push({ kind: 'heading', level: 2, text: s.heading, id: `s${i}` });
    for (const para of s.paragraphs) blocks.push({ kind: 'text', text: para });
  });
  return { title: p.title, lang: 'en', blocks };
}

// ---------------------------------------------------------------------------------------------
// Python manual

export interface PythonPage {
  path: string;
  title: string;
  blocks: Block[];
}

function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name.startsWith('_')) continue; // _sources, _static, _images
    if (statSync(p).isDirectory()) out.push(...htmlFiles(p));
    else if (name.endsWith('.html')) out.push(p);
  }
  return out.sort();
}

/** Every page of the manual as blocks (walkBlocks over linkedom's DOM), cached. */
export async function pythonPages(): Promise<PythonPage[]> {
  const cacheFile = join(CACHE, 'python-pages.json');
  if (existsSync(cacheFile)) return JSON.parse(readFileSync(cacheFile, 'utf8')) as PythonPage[];
  if (!existsSync(PYTHON_DOCS)) throw new Error(`${PYTHON_DOCS} missing: apt-get install python3.11-doc`);
  const { parseHTML } = await import('linkedom');
  const { walkBlocks } = await import('../../content/extract.js');
  const pages: PythonPage[] = [];
  for (const file of htmlFiles(PYTHON_DOCS)) {
    const path = relative(PYTHON_DOCS, file);
    if (/^(genindex|py-modindex|search|contents|index)/.test(path)) continue; // index and navigation pages
    const { document } = parseHTML(readFileSync(file, 'utf8'));
    const root = (document.querySelector('[role="main"]') ?? document.body) as unknown as Element;
    const res = await walkBlocks(root, { checkVisibility: false });
    const title = (document.title ?? '').replace(/\s+—\s+Python.*$/, '').trim();
    pages.push({ path, title, blocks: res.blocks });
  }
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(pages));
  return pages;
}

export async function pythonDocs(): Promise<{ docs: Doc[]; pages: number }> {
  const { chunkBlocks } = await import('../../src/chunker.js');
  const pages = await pythonPages();
  const docs: Doc[] = [];
  pages.forEach((p, page) => {
    for (const c of chunkBlocks(p.blocks).chunks) {
      docs.push({ id: docs.length + 1, page, text: p.title ? `${p.title}\n${c.text}` : c.text, title: p.title, chunkText: c.text, headingPath: c.headingPath, site: 'docs.python.org', date: EPOCH });
    }
  });
  return { docs, pages: pages.length };
}

// ---------------------------------------------------------------------------------------------
// Queries

export interface Query {
  text: string;
  /** Kinds of its words, e.g. "common+ident". */
  kind: string;
}

const IDENT = /[_.]|[a-z][A-Z]|\d/;

/**
 * 1–4-word queries from the documents' own words: each word common (df above 1% of docs), mid, rare
 * (df <= 0.05% of docs, at least 1) or an identifier, chosen by `df` (term -> document frequency).
 */
export function sampleQueries(docs: readonly Doc[], n: number, seed: number, df: (word: string) => number): Query[] {
  const rng = new Rng(seed);
  const N = docs.length;
  const out: Query[] = [];
  const want = ['common', 'mid', 'rare', 'ident'] as const;
  const weights = [0.3, 0.35, 0.15, 0.2];
  while (out.length < n) {
    const len = rng.range(1, 4);
    const words: string[] = [];
    const kinds: string[] = [];
    let tries = 0;
    while (words.length < len && tries++ < 2000) {
      let r = rng.next();
      let k = 0;
      while (k < 3 && r >= weights[k]!) r -= weights[k++]!;
      const kind = want[k]!;
      const doc = docs[rng.int(N)]!;
      const ws = doc.text.split(/\s+/);
      for (let attempt = 0; attempt < 40; attempt++) {
        const w = ws[rng.int(ws.length)]!.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '');
        if (w.length < 2 || words.includes(w)) continue;
        const isIdent = IDENT.test(w) && !/^\d+(\.\d+)?$/.test(w);
        if (kind === 'ident') {
          if (!isIdent) continue;
        } else {
          if (isIdent || /\d/.test(w)) continue;
          const f = df(w);
          if (f < 1) continue;
          if (kind === 'common' && f < 0.01 * N) continue;
          if (kind === 'mid' && (f >= 0.01 * N || f <= Math.max(1, 0.0005 * N))) continue;
          if (kind === 'rare' && f > Math.max(1, 0.0005 * N)) continue;
        }
        words.push(kind === 'ident' ? w : w.toLowerCase());
        kinds.push(kind);
        break;
      }
    }
    if (words.length) out.push({ text: words.join(' '), kind: kinds.join('+') });
  }
  return out;
}
