/**
 * The index format version: what the postings were built with (tokenizer options, field boost and a
 * revision number for changes to the tokenizer's code). A release that changes any of them would
 * otherwise search postings built one way with queries tokenized another; on the first start after
 * such a change the index is rebuilt from the stored chunks (verifyIndex's repair) and the version
 * recorded. Until then search answers from the old postings, which are merely less exact.
 */
import type { Engine } from './engine.js';
import { TOKENIZER } from '../src/indexing.js';
import { wordLikeByLetters } from '../src/tokenizer.js';
import { verifyIndex } from './verify.js';

/**
 * Bump when the tokenizer's code or indexSection change what a text is indexed as.
 * 2: fields (BM25F): tf codes with heading/context bits and body lengths, instead of title and
 *    heading words repeated three times.
 * 3: four fields: tf codes with heading, headings-above and title bits (body << 3); revision 2's codes
 *    (body << 2, heading and context bits) would be read as other fields.
 * 4: the stemmer takes -ing off a plural too (`settings` is indexed as `sett`, as `setting` is, not as
 *    `setting`).
 * 5: a long option keeps its dashes as a term of its own (`--only` is indexed as `--only` and `only`).
 * 6: an acronym is not cut before one lower-case letter or a digit (`URLs`, `IPv6` were `ur` `ls`,
 *    `i` `pv6`), and an acronym's plural is indexed as the acronym too (`APIs` as `apis` and `api`).
 *
 * Where the segmenter misjudges word-likeness (Firefox ESR 153: src/tokenizer.ts wordLikeByLetters), the
 * version also says so: indexes built before the tokenizer kept such segments by their letters are
 * rebuilt there, and only there (Chromium's indexes come out the same; it is not probed: lettersMayRule).
 */
export const INDEX_REVISION = 6;
export const INDEX_VERSION_KEY = 'indexVersion';

export function currentIndexVersion(): string {
  return JSON.stringify({ revision: INDEX_REVISION, tokenizer: TOKENIZER, ...(lettersMayRule() && wordLikeByLetters() ? { wordLike: 'letters' } : {}) });
}

/**
 * Only Firefox's segmenter is known to misjudge word-likeness; elsewhere the probe (which loads the
 * segmenter's Japanese dictionary: 10-30 ms) is not run at every start of the worker just to build this
 * string. The tokenizer asks it lazily, when it first meets a segment it would drop.
 */
function lettersMayRule(): boolean {
  return typeof navigator !== 'undefined' && /\bFirefox\//.test(navigator.userAgent);
}

/** Rebuilds the index if it was built by another version; returns whether it did. */
export async function ensureIndexVersion(engine: Engine): Promise<boolean> {
  const db = await engine.db();
  const want = currentIndexVersion();
  const have = await db.get('meta', INDEX_VERSION_KEY);
  if (have === want) return false;
  // A database without the record is new (empty: nothing to rebuild) or was built by the first
  // release, which had no record and built what INDEX_REVISION 1 builds.
  // (A repair rebuilds the index from the pages' sections, a schema-2 database's old records included:
  // it takes a migration's place when both are due.)
  const rebuild = have !== undefined || (INDEX_REVISION > 1 && (await db.count('pages')) > 0);
  if (rebuild) {
    const report = await verifyIndex(engine, true);
    if (report.problems.length) console.info(`reread: index rebuilt for a new version (${report.problems.length} differences)`);
    engine.lexical.invalidate('all');
  }
  await db.put('meta', want, INDEX_VERSION_KEY);
  return rebuild;
}
