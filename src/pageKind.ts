/**
 * What a stored page is, by how Reread got it. A page the user read in a tab (captured by the content
 * script) has no kind: that is the default and the rest of the index is built around it.
 *
 * - `title`: a title-only entry imported from the browser's history (title, URL, visit date; one small
 *   section of URL words). Searchable at once; replaced by the full page at the next real visit, or by
 *   the backfill.
 * - `fetched`: an imported entry whose page the backfill fetched (without cookies) and read with the
 *   same extractor and chunker as the content script.
 * - `pdf`: a PDF read in a tab, one section per outline entry or per page, linking to `#page=N`.
 */
export type PageKind = 'title' | 'fetched' | 'pdf';

export const PAGE_KINDS: ReadonlySet<string> = new Set<PageKind>(['title', 'fetched', 'pdf']);

export function isPageKind(v: unknown): v is PageKind {
  return typeof v === 'string' && PAGE_KINDS.has(v);
}
