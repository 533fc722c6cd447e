/**
 * The full results page: search.html?q=…&site=…&after=…&before=…&exclude=… (bookmarkable). URL filter
 * parameters are folded into the query's operators, which then drive everything.
 */
import { render } from 'preact';
import { SearchView } from './components/SearchView.js';
import { call } from './api.js';

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
  render(
    <main class="page">
      <header class="page__header">
        <h1 class="brand">Reread</h1>
        <a class="page__options" href="options.html">
          Options
        </a>
      </header>
      {exclude && <p class="page__note">Pages related to {exclude}</p>}
      <SearchView mode="page" initialQuery={initialQuery(params)} excludeUrl={exclude} />
    </main>,
    app,
  );
}

void start();
