/**
 * The naive baseline (issue #13): what a plain search extension would do, written here from scratch and
 * sharing nothing with Reread's ranking. One record per heading section of the HTML (the ground truth's
 * sections, groundTruth.ts) holding page title + section text (its heading first); words as the
 * browser's Intl.Segmenter finds them, NFKC and lower-cased, no stemming, no stop words; BM25 with
 * k1 1.2, b 0.75 and Lucene's idf; no field boosts; results are sections, ungrouped (a page can appear
 * more than once), each linking to its heading's id, else to a text fragment of the heading.
 */
import { sectionHref } from '../../../src/url.js';
import type { CapturedPage } from './capture.js';

export const NAIVE_BM25 = { k1: 1.2, b: 0.75 };

let segmenter: Intl.Segmenter | undefined;

/** Longest piece handed to the segmenter at once (see `naiveTokens`). */
const PIECE = 2000;
const SPACE = /\s/;

/**
 * Words as `Intl.Segmenter` finds them. Long text goes to it in pieces of about 2,000 characters cut at
 * whitespace, which is always a word boundary, so the words are the same (compared on every section under
 * 200 kB of SQLite's documentation): V8's segmenter took 38 s over one 86 kB section of its opcode.html that it
 * cuts in milliseconds piece by piece.
 */
export function naiveTokens(text: string): string[] {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'word' });
  const out: string[] = [];
  const all = text.normalize('NFKC').toLowerCase();
  for (let from = 0; from < all.length; ) {
    let to = Math.min(all.length, from + PIECE);
    if (to < all.length) {
      // At the last whitespace in the piece, else the first after it: never inside a word.
      let cut = to;
      while (cut > from && !SPACE.test(all[cut]!)) cut--;
      if (cut === from) for (cut = to; cut < all.length && !SPACE.test(all[cut]!); cut++);
      to = cut;
    }
    for (const s of segmenter.segment(all.slice(from, to))) if (s.isWordLike) out.push(s.segment);
    from = to;
  }
  return out;
}

export interface NaiveRecord {
  file: string;
  url: string;
  href: string;
}

export interface NaiveHit extends NaiveRecord {
  score: number;
}

export class NaiveIndex {
  private readonly records: NaiveRecord[] = [];
  private readonly lens: number[] = [];
  private readonly postings = new Map<string, { ids: number[]; tfs: number[] }>();
  private avgLen = 0;

  constructor(pages: readonly CapturedPage[]) {
    let total = 0;
    for (const p of pages) {
      for (const s of p.gt.sections) {
        const id = this.records.length;
        const href = sectionHref(p.url, s.headingIds[0] ? { id: s.headingIds[0] } : { text: s.heading });
        this.records.push({ file: p.file, url: p.url, href });
        const tokens = naiveTokens(`${p.gt.title}\n${s.text}`);
        this.lens.push(tokens.length);
        total += tokens.length;
        const tf = new Map<string, number>();
        for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
        for (const [t, n] of tf) {
          let pl = this.postings.get(t);
          if (!pl) this.postings.set(t, (pl = { ids: [], tfs: [] }));
          pl.ids.push(id);
          pl.tfs.push(n);
        }
      }
    }
    this.avgLen = this.records.length ? total / this.records.length : 0;
  }

  get size(): number {
    return this.records.length;
  }

  search(query: string, k: number): NaiveHit[] {
    const N = this.records.length;
    const scores = new Map<number, number>();
    for (const term of new Set(naiveTokens(query))) {
      const pl = this.postings.get(term);
      if (!pl) continue;
      const df = pl.ids.length;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      pl.ids.forEach((id, i) => {
        const tf = pl.tfs[i]!;
        const norm = NAIVE_BM25.k1 * (1 - NAIVE_BM25.b + (NAIVE_BM25.b * this.lens[id]!) / this.avgLen);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (NAIVE_BM25.k1 + 1)) / (tf + norm));
      });
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([id, score]) => ({ ...this.records[id]!, score }));
  }
}
