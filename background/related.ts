/** Builds a "find related pages" query from a stored page's own sections. */
import { topTerms } from '../src/moreLikeThis.js';
import { tokenize } from '../src/tokenizer.js';
import type { Engine } from './engine.js';
import { indexedText, TOKENIZER } from '../src/indexing.js';
import { pageSections } from './sections.js';

export async function relatedQuery(engine: Engine, url: string): Promise<string> {
  const db = await engine.db();
  const page = await db.get('pages', url);
  if (!page) return '';
  const sections = (await pageSections(db, [page])).get(url) ?? [];
  const terms = sections.flatMap((c) => tokenize(indexedText(page.title, c.text), TOKENIZER)); // unboosted: a query, not an index
  // Keep only whole words (not identifier parts) so the query reads naturally; df from the index.
  const distinct = [...new Set(terms)].slice(0, 2000);
  const postings = await engine.lexical.postings(distinct);
  const stats = await engine.lexical.corpusStats();
  return topTerms(terms, (t) => postings.get(t)?.ids.length ?? 1, stats.N, 12).join(' ');
}
