/**
 * The two evaluation sets, as items (what one lane hit is: a SciFact document, a Python-manual chunk),
 * the unit judged (document, page) and queries with graded judgments, split into train and held-out.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { MIN_PAGE_WORDS } from '../../../src/indexing.js';
import { walkBlocks } from '../../../content/extract.js';
import { chunkBlocks, countWords } from '../../../src/chunker.js';
import { classifyQuery, type QueryClass } from '../../../src/hybrid.js';
import { CACHE_DIR, PYTHON_DOC_DIR, ROOT, SCIFACT_DIR } from './paths.js';

export interface Item {
  /** The judged unit this item belongs to (SciFact document id, page path). */
  doc: string;
  /** What the extension indexes and embeds: title + '\n' + chunk text (background/pageStore.ts). */
  text: string;
  /** Title and heading path: the field a BM25F-style boost would weigh up. */
  fields: string;
}

export type Split = 'train' | 'test';

export interface Query {
  id: string;
  text: string;
  /** The class reported (the set's label; classifyQuery's for SciFact, which has none). */
  label: QueryClass;
  /** What the extension's classifier says (drives the fusion weights). */
  auto: QueryClass;
  relevant: Map<string, number>;
  split: Split;
}

export interface Dataset {
  name: 'scifact' | 'python';
  items: Item[];
  queries: Query[];
  /** How each split is named in the report. */
  splitNames: Record<Split, string>;
}

function readJsonl<T>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
}

function readQrels(file: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d || s === undefined) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

export function loadSciFact(): Dataset {
  const corpus = readJsonl<{ _id: string; title: string; text: string }>(path.join(SCIFACT_DIR, 'corpus.jsonl'));
  const items = corpus.map((d) => ({ doc: d._id, text: d.title ? `${d.title}\n${d.text}` : d.text, fields: d.title }));
  const texts = new Map(readJsonl<{ _id: string; text: string }>(path.join(SCIFACT_DIR, 'queries.jsonl')).map((q) => [q._id, q.text]));
  const queries: Query[] = [];
  for (const split of ['train', 'test'] as const) {
    for (const [id, relevant] of readQrels(path.join(SCIFACT_DIR, 'qrels', `${split}.tsv`))) {
      const text = texts.get(id);
      if (text === undefined) throw new Error(`SciFact query ${id} has judgments but no text`);
      const cls = classifyQuery(text);
      queries.push({ id, text, label: cls, auto: cls, relevant, split });
    }
  }
  return { name: 'scifact', items, queries, splitNames: { train: 'train (809)', test: 'test (300)' } };
}

interface PythonQuery {
  id: string;
  class: QueryClass;
  query: string;
  relevant: Record<string, number>;
}

function htmlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('_')) walk(p); // _static, _sources, _images: not pages
      } else if (e.name.endsWith('.html')) out.push(path.relative(dir, p).split(path.sep).join('/'));
    }
  };
  walk(dir);
  return out;
}

/** Extracts one page as the content script does (walkBlocks, no layout) and chunks it. */
async function extractPage(html: string): Promise<{ title: string; chunks: { text: string; heading: string }[] }> {
  const { document, DOMParser, Node } = parseHTML(html);
  const g = globalThis as Record<string, unknown>;
  g.DOMParser ??= DOMParser;
  g.Node ??= Node;
  const body = document.body as unknown as Element;
  const res = await walkBlocks(body, { checkVisibility: false });
  const { chunks } = chunkBlocks(res.blocks);
  const title = (document.title || '').trim() || res.blocks.find((b) => b.kind === 'heading')?.text || '';
  return { title, chunks: chunks.map((c) => ({ text: c.text, heading: c.headingPath.join(' > ') })) };
}

export async function loadPythonManual(): Promise<Dataset> {
  const files = htmlFiles(PYTHON_DOC_DIR);
  if (!files.length) throw new Error(`no HTML under ${PYTHON_DOC_DIR} (apt-get install python3.11-doc)`);
  // Extraction takes ~15 s; cache it, keyed by the extractor's and chunker's code and the pages.
  const h = createHash('sha256');
  for (const f of ['content/extract.ts', 'src/chunker.ts']) h.update(fs.readFileSync(path.join(ROOT, f)));
  for (const f of files) h.update(f).update(String(fs.statSync(path.join(PYTHON_DOC_DIR, f)).size));
  const cacheFile = path.join(CACHE_DIR, `python-pages-${h.digest('hex').slice(0, 16)}.json`);
  let items: Item[];
  if (fs.existsSync(cacheFile)) items = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as Item[];
  else {
    items = [];
    for (const f of files) {
      const page = await extractPage(fs.readFileSync(path.join(PYTHON_DOC_DIR, f), 'utf8'));
      // The engine skips pages with too little text (background/engine.ts MIN_PAGE_WORDS).
      const words = page.chunks.reduce((n, c) => n + countWords(c.text), 0);
      if (words < MIN_PAGE_WORDS && countWords(page.title) + words < MIN_PAGE_WORDS) continue;
      for (const c of page.chunks) {
        items.push({ doc: f, text: page.title ? `${page.title}\n${c.text}` : c.text, fields: `${page.title}\n${c.heading}` });
      }
    }
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    fs.writeFileSync(cacheFile, JSON.stringify(items));
  }
  const raw = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/eval/python-manual-queries.json'), 'utf8')) as PythonQuery[];
  const queries = raw.map((q) => ({
    id: q.id,
    text: q.query,
    label: q.class,
    auto: classifyQuery(q.query),
    relevant: new Map(Object.entries(q.relevant)),
    // Deterministic halves: odd ids tune, even ids are held out.
    split: (Number(q.id.replace(/\D/g, '')) % 2 === 1 ? 'train' : 'test') as Split,
  }));
  return { name: 'python', items, queries, splitNames: { train: 'odd ids (39)', test: 'even ids (39)' } };
}
