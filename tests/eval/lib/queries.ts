/**
 * Query sets: `tests/eval/queries/<corpus>.auto.json` (written by `npm run eval:queries`, a fixed seed
 * per corpus and class) and `<corpus>.manual.json` (written by hand from sampled sections; see the
 * README). Every query names its relevant pages (graded) and, where it has one, the section(s) its
 * answer is in.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CorpusName } from './corpora.js';
import { ROOT } from './paths.js';

export const CLASSES = ['span', 'typo', 'heading', 'identifier', 'natural', 'topical', 'offtopic'] as const;
export type QueryClass = (typeof CLASSES)[number];

export const CLASS_INFO: Record<QueryClass, string> = {
  span: 'remembered phrase: 5 words (10 characters in CJK) copied from a random section, no quotes',
  typo: 'the same spans with one typo in a word of 6+ letters',
  heading: 'a section heading, numbering dropped',
  identifier: 'a name taken from a definition (Sphinx signature, option, config key, Javadoc method)',
  natural: 'a question paraphrasing a sampled section without its distinctive words (hand-written)',
  topical: 'a short topical phrase (2-4 words) for a sampled section (hand-written)',
  offtopic: 'an off-topic question: the right answer is no results',
};

export interface SectionRef {
  file: string;
  /** The ground-truth section's key (groundTruth.ts): its first heading id, else `h:<heading>`. */
  key: string;
}

export interface EvalQuery {
  id: string;
  class: QueryClass;
  q: string;
  lang: string;
  /** page file -> grade (2: the answer, 1: also relevant). Empty for off-topic queries. */
  relevant: Record<string, number>;
  /** The section(s) a first result should link to; a hit on any counts. */
  sections?: SectionRef[];
  /** Where the query came from (the sampled section, the span's source paragraph...). */
  source?: string;
  /** For typo variants: the query it was made from. */
  of?: string;
}

export interface QueryFile {
  corpus: CorpusName;
  /** How the file was made (command, seed, package versions). */
  procedure: string;
  packages?: Record<string, string>;
  queries: EvalQuery[];
}

export const QUERY_DIR = path.join(ROOT, 'tests/eval/queries');

export function queryFile(corpus: CorpusName, kind: 'auto' | 'manual'): string {
  return path.join(QUERY_DIR, `${corpus}.${kind}.json`);
}

export function loadQueries(corpus: CorpusName): { queries: EvalQuery[]; files: QueryFile[] } {
  const files: QueryFile[] = [];
  for (const kind of ['auto', 'manual'] as const) {
    const f = queryFile(corpus, kind);
    if (fs.existsSync(f)) files.push(JSON.parse(fs.readFileSync(f, 'utf8')) as QueryFile);
  }
  const queries = files.flatMap((f) => f.queries);
  const ids = new Set<string>();
  for (const q of queries) {
    if (ids.has(q.id)) throw new Error(`duplicate query id ${q.id}`);
    ids.add(q.id);
    if (!CLASSES.includes(q.class)) throw new Error(`query ${q.id}: unknown class ${q.class}`);
  }
  return { queries, files };
}
