/**
 * The testing contract of the extension pages (search.html, popup.html), read the same way in Chromium
 * (Playwright) and Firefox (puppeteer-core). The two functions run inside the page: they are passed to
 * `page.evaluate` / `waitForFunction` and must not use anything from this module.
 */

export interface ResultRow {
  href: string;
  title: string;
  section: string;
  snippet: string;
  lanes: string[];
}

/**
 * True once the answer for the current query is on screen (results, "no results" or an error). An answer
 * by words alone while the meaning index loads (the status line's data-lanes="loading") is not it:
 * the page asks again and the answer of both lanes replaces it (on a loaded machine the first search
 * after a stop can take this path even on a small profile).
 */
export function resultsSettled(): boolean {
  return (
    !document.querySelector('[data-testid="searching"]') &&
    document.querySelector('[data-testid="search-meta"]')?.getAttribute('data-lanes') !== 'loading' &&
    !!(document.querySelector('[data-testid="result"]') || document.querySelector('[data-testid="no-results"]') || document.querySelector('[data-testid="error"]'))
  );
}

/** The results on screen, in order. */
export function readResultRows(): ResultRow[] {
  return [...document.querySelectorAll('[data-testid="result"]')].map((el) => ({
    href: (el.querySelector('[data-testid="result-link"]') as HTMLAnchorElement).href,
    title: el.querySelector('[data-testid="result-title"]')?.textContent ?? '',
    section: el.querySelector('[data-testid="result-section"]')?.textContent ?? '',
    snippet: el.querySelector('[data-testid="result-snippet"]')?.textContent ?? '',
    lanes: [...el.querySelectorAll('[data-lane]')].map((l) => l.getAttribute('data-lane') ?? ''),
  }));
}

/** The options page's counters (data-testid="stat-…"), as numbers; null until they are shown. */
export function readStatCounters(): { pages: number; chunks: number; pendingEmbeddings: number } | null {
  const read = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.trim();
  const pages = read('stat-pages');
  if (pages === undefined || pages === '') return null;
  return { pages: Number(pages), chunks: Number(read('stat-chunks')), pendingEmbeddings: Number(read('stat-pending-embeddings')) };
}
