/**
 * The full results page: search.html?q=…&site=…&after=…&before=…&exclude=… (bookmarkable). URL filter
 * parameters are folded into the query's operators, which then drive everything.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { SearchView } from './components/SearchView.js';
import { call } from './api.js';

/**
 * Reload keeps the query typed here without putting it in the address bar: Chromium records extension
 * pages' addresses in its history, history.replaceState included (tests/e2e/privacy.test.ts), so the
 * query is kept in this tab's sessionStorage, for this page load's address only. To bookmark or share a
 * search, the page offers a link to it: following it is the user's choice.
 */
const TYPED_KEY = 'reread:typed';

function typedQuery(): string | null {
  try {
    const v = JSON.parse(sessionStorage.getItem(TYPED_KEY) ?? 'null') as { at: string; q: string } | null;
    return v && v.at === location.pathname + location.search && typeof v.q === 'string' ? v.q : null;
  } catch {
    return null;
  }
}

function searchLink(q: string): string {
  return q.trim() ? `search.html?${new URLSearchParams({ q: q.trim() }).toString()}` : 'search.html';
}

function ResultsPage({ initial, exclude }: { initial: string; exclude?: string }) {
  const [q, setQ] = useState(initial);
  // Saving paused: the first-run text and the nothing-saved answer say so instead of "browse as usual".
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    call('settings/get', {})
      .then((s) => setPaused(s.paused))
      .catch(() => undefined);
  }, []);
  const at = location.pathname + location.search;
  return (
    <main class="page">
      <header class="page__header">
        <h1 class="brand">Reread</h1>
        <nav class="page__nav" aria-label="Reread">
          {q.trim() && !exclude && (
            <a href={searchLink(q)} data-testid="search-link" title="A link to bookmark this search. Opening it puts the query in your browser history.">
              Link to this search
            </a>
          )}
          <a class="page__options" href="options.html">
            Options
          </a>
        </nav>
      </header>
      {exclude && <p class="page__note">Pages related to {exclude}</p>}
      <SearchView
        mode="page"
        initialQuery={initial}
        excludeUrl={exclude}
        paused={paused}
        onQueryChange={(typed) => {
          setQ(typed);
          try {
            sessionStorage.setItem(TYPED_KEY, JSON.stringify({ at, q: typed }));
          } catch {
            // Storage refused (quota, policy): reload then shows the query the page was opened with.
          }
        }}
      />
    </main>
  );
}

function initialQuery(params: URLSearchParams): string {
  let q = (params.get('q') ?? '').trim();
  for (const op of ['site', 'after', 'before'] as const) {
    const v = params.get(op)?.trim();
    if (v) q += ` ${op}:${/\s/.test(v) ? `"${v}"` : v}`;
  }
  return q.trim();
}

async function start(): Promise<void> {
  let params = new URLSearchParams(location.search);
  // Opened by the omnibox or the context menu: the parameters are handed over in memory (never in the
  // URL the tab was opened with, which the browser keeps in its history).
  const token = new URLSearchParams(location.hash.slice(1)).get('handover');
  if (token) {
    const got = await call('search/handover', { token }).catch(() => null);
    if (got) params = new URLSearchParams(got);
  }
  const exclude = params.get('exclude') ?? undefined;
  const app = document.getElementById('app')!;

  // Queries stay out of the address bar and the title: Chromium records both in its history,
  // history.replaceState included. (Bookmarkable links: a "copy link to this search" button instead.)
  if (token) history.replaceState(null, '', location.pathname);

  app.textContent = '';
  render(<ResultsPage initial={typedQuery() ?? initialQuery(params)} exclude={exclude} />, app);
}

void start();
