/**
 * Judging what the user sees. A result list is the pages in the order shown (Reread's result cards; the
 * naive baseline's sections, a page counted at its first appearance) and, per result, the link it opens.
 * - Page level: nDCG@10 (linear gains, the grades), MRR@10, Recall@10 over the judged pages.
 * - Section level: the link lands (groundTruth.ts `landing`) on a target section of the query:
 *   hit@1 for the first result's link, MRR@10 over the first ten results' links.
 * - Off-topic queries: whether the list is empty (the no-results screen).
 */
import type { CapturedPage } from './capture.js';
import { landing } from './groundTruth.js';
import { mrrAt, ndcgAt, recallAt } from './metrics.js';
import type { EvalQuery } from './queries.js';

export interface Shown {
  /** Page file (corpus-relative path). */
  file: string;
  href: string;
}

export interface QueryScore {
  id: string;
  ndcg10: number;
  mrr10: number;
  recall10: number;
  /** null when the query has no target section. */
  sectionHit1: number | null;
  sectionMrr10: number | null;
  /** Results shown (the whole list, up to the limit asked). */
  results: number;
  /** 1-based rank of the first relevant page (0: not in the top 10). */
  firstRelevant: number;
  /** Where the first result's link landed: `file § heading`, for the failure listings. */
  landed: string;
}

export const METRICS = ['ndcg10', 'mrr10', 'recall10', 'sectionHit1', 'sectionMrr10'] as const;
export type MetricName = (typeof METRICS)[number];

export interface PageLookup {
  byFile: Map<string, CapturedPage>;
  /** file -> (section key -> index) */
  keys: Map<string, Map<string, number>>;
}

export function pageLookup(pages: readonly CapturedPage[]): PageLookup {
  return {
    byFile: new Map(pages.map((p) => [p.file, p])),
    keys: new Map(pages.map((p) => [p.file, new Map(p.gt.sections.map((s) => [s.key, s.index]))])),
  };
}

/** Checks that every judged page and section exists; returns the problems. */
export function checkQueries(queries: readonly EvalQuery[], look: PageLookup): string[] {
  const out: string[] = [];
  for (const q of queries) {
    for (const f of Object.keys(q.relevant)) if (!look.byFile.has(f)) out.push(`${q.id}: no page ${f}`);
    for (const s of q.sections ?? []) if (look.keys.get(s.file)?.get(s.key) === undefined) out.push(`${q.id}: no section ${s.key} in ${s.file}`);
  }
  return out;
}

function landsOn(look: PageLookup, shown: Shown, q: EvalQuery): boolean {
  const page = look.byFile.get(shown.file);
  if (!page || !q.sections?.length) return false;
  const hash = shown.href.indexOf('#');
  const at = hash < 0 ? null : landing(page.gt, shown.href.slice(hash + 1));
  if (at === null) return false;
  return q.sections.some((s) => s.file === shown.file && look.keys.get(s.file)?.get(s.key) === at);
}

function describeLanding(look: PageLookup, shown: Shown | undefined): string {
  if (!shown) return '(no results)';
  const page = look.byFile.get(shown.file);
  const hash = shown.href.indexOf('#');
  const frag = hash < 0 ? '' : shown.href.slice(hash + 1);
  const at = page && frag ? landing(page.gt, frag) : null;
  const heading = at === null ? (frag ? `#${decodeURIComponent(frag).slice(0, 40)} lands nowhere` : 'top of page') : page!.gt.sections[at]!.heading.slice(0, 60);
  return `${shown.file} § ${heading}`;
}

export function judge(q: EvalQuery, shown: readonly Shown[], look: PageLookup): QueryScore {
  const pages: string[] = [];
  for (const s of shown) if (!pages.includes(s.file)) pages.push(s.file);
  const rel = new Map(Object.entries(q.relevant));
  let sectionHit1: number | null = null;
  let sectionMrr10: number | null = null;
  if (q.sections?.length) {
    sectionHit1 = shown[0] && landsOn(look, shown[0], q) ? 1 : 0;
    sectionMrr10 = 0;
    for (let i = 0; i < Math.min(10, shown.length); i++) {
      if (landsOn(look, shown[i]!, q)) {
        sectionMrr10 = 1 / (i + 1);
        break;
      }
    }
  }
  const mrr = mrrAt(pages, rel, 10);
  return {
    id: q.id,
    ndcg10: ndcgAt(pages, rel, 10),
    mrr10: mrr,
    recall10: recallAt(pages, rel, 10),
    sectionHit1,
    sectionMrr10,
    results: shown.length,
    firstRelevant: mrr ? Math.round(1 / mrr) : 0,
    landed: describeLanding(look, shown[0]),
  };
}

export interface Cell {
  n: number;
  ndcg10: number;
  mrr10: number;
  recall10: number;
  /** Queries with a target section, and the section metrics over them. */
  nSection: number;
  sectionHit1: number;
  sectionMrr10: number;
  /** Off-topic: share of queries answered with no results. */
  noResults: number;
}

export function aggregate(scores: readonly QueryScore[]): Cell {
  const n = scores.length;
  const mean = (f: (s: QueryScore) => number, xs: readonly QueryScore[] = scores) => (xs.length ? xs.reduce((a, s) => a + f(s), 0) / xs.length : 0);
  const withSection = scores.filter((s) => s.sectionHit1 !== null);
  return {
    n,
    ndcg10: mean((s) => s.ndcg10),
    mrr10: mean((s) => s.mrr10),
    recall10: mean((s) => s.recall10),
    nSection: withSection.length,
    sectionHit1: mean((s) => s.sectionHit1!, withSection),
    sectionMrr10: mean((s) => s.sectionMrr10!, withSection),
    noResults: mean((s) => (s.results === 0 ? 1 : 0)),
  };
}
