/**
 * The full results page: search.html?q=…&site=…&after=…&before=…&exclude=… (bookmarkable). URL filter
 * parameters are folded into the query's operators, which then drive everything.
 */
import { render } from 'preact';
import { SearchView } from './components/SearchView.js';

function initialQuery(params: URLSearchParams): string {
  let q = (params.get('q') ?? '').trim();
  for (const op of ['site', 'after', 'before'] as const) {
    const v = params.get(op)?.trim();
    if (v) q += ` ${op}:${/\s/.test(v) ? `"${v}"` : v}`;
  }
  return q.trim();
}

const params = new URLSearchParams(location.search);
const exclude = params.get('exclude') ?? undefined;
const app = document.getElementById('app')!;

function mirror(q: string): void {
  const u = new URL(location.href);
  u.search = '';
  if (q) u.searchParams.set('q', q);
  if (exclude) u.searchParams.set('exclude', exclude);
  history.replaceState(null, '', u);
  document.title = q ? `${q} – Reread` : 'Reread';
}

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
    <SearchView mode="page" initialQuery={initialQuery(params)} excludeUrl={exclude} onQueryChange={mirror} />
  </main>,
  app,
);
