/**
 * The search box and results, shared by the popup and the full results page (search.html).
 * Keyboard first: the box has focus, Up/Down move, Enter opens, Ctrl/Cmd+Enter opens in a new tab,
 * Esc clears. The typed query is the one source of truth: the filter controls rewrite its operators.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SearchResponse, SearchResult, SiteCount, Stats } from '../../src/protocol.js';
import { parseQuery } from '../../src/query.js';
import browser from 'webextension-polyfill';
import { call } from '../api.js';
import { downloadText } from './ModelSettings.js';
import { ResultCard } from './ResultCard.js';
import { FilterBar, setOperator } from './FilterBar.js';

export interface SearchViewProps {
  mode: 'popup' | 'page';
  initialQuery: string;
  excludeUrl?: string;
  /** Called after every answered search (the page mirrors the query into its URL). */
  onQueryChange?: (q: string) => void;
}

type Status = { kind: 'idle' } | { kind: 'searching' } | { kind: 'done'; response: SearchResponse } | { kind: 'error'; message: string };

export function SearchView({ mode, initialQuery, excludeUrl, onQueryChange }: SearchViewProps) {
  const [query, setQuery] = useState(initialQuery);
  const [status, setStatus] = useState<Status>(initialQuery.trim() ? { kind: 'searching' } : { kind: 'idle' });
  const [selected, setSelected] = useState(0);
  const [stats, setStats] = useState<Stats | null>(null);
  const [sites, setSites] = useState<SiteCount[]>([]);
  const ticket = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const limit = mode === 'popup' ? 8 : 30;

  /** One search at a time: keystrokes made while one runs leave only their latest query, run next. */
  const inFlight = useRef(false);
  const pending = useRef<string | null>(null);
  /** "Search instead for …": this query is searched as typed, without typo correction, until it changes. */
  const exactFor = useRef<string | null>(null);
  const run = useCallback(
    (q: string) => {
      const mine = ++ticket.current;
      if (!q.trim()) {
        pending.current = null;
        setStatus({ kind: 'idle' });
        onQueryChange?.(q);
        return;
      }
      setStatus({ kind: 'searching' });
      inFlight.current = true;
      call('search', { q, limit, ...(excludeUrl ? { excludeUrl } : {}), ...(exactFor.current === q ? { exact: true } : {}) })
        .finally(() => {
          inFlight.current = false;
          const next = pending.current;
          pending.current = null;
          if (next !== null) run(next);
        })
        .then((response) => {
          if (mine !== ticket.current) return; // a newer keystroke owns the screen
          setStatus({ kind: 'done', response });
          setSelected(0);
          onQueryChange?.(q);
        })
        .catch((e: unknown) => {
          if (mine !== ticket.current) return;
          setStatus({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
        });
    },
    [limit, excludeUrl, onQueryChange],
  );

  useEffect(() => {
    input.current?.focus();
    if (initialQuery.trim()) run(initialQuery);
    call('stats', {}).then(setStats).catch(() => undefined);
    call('sites', {}).then(setSites).catch(() => undefined);
  }, []);

  const onInput = (q: string) => {
    setQuery(q);
    // The first keystroke searches at once; while a search runs, the answer on screen is marked stale
    // and only the latest query waits for its turn (no fixed debounce delay on any keystroke).
    if (inFlight.current && q.trim()) {
      ticket.current++;
      setStatus({ kind: 'searching' });
      pending.current = q;
    } else run(q);
  };

  const results: SearchResult[] = status.kind === 'done' ? status.response.results : [];
  const open = (r: SearchResult | undefined, newTab: boolean) => {
    if (!r) return;
    void call('open', { url: r.href, newTab }).then(async () => {
      // A real popup closes once the result is open; popup.html opened as a tab stays.
      if (mode === 'popup' && !(await browser.tabs.getCurrent())) window.close();
    });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setSelected((s) => Math.min(s + 1, Math.max(0, results.length - 1)));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setSelected((s) => Math.max(0, s - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      open(results[selected], e.ctrlKey || e.metaKey);
    } else if (e.key === 'Escape' && query) {
      e.preventDefault();
      onInput('');
    }
  };

  useEffect(() => {
    document.getElementById(`result-${selected}`)?.scrollIntoView?.({ block: 'nearest' });
  }, [selected]);

  const parsed = useMemo(() => parseQuery(query), [query]);
  const hasFilters = parsed.sites.length > 0 || parsed.excludeSites.length > 0 || parsed.after !== undefined || parsed.before !== undefined;
  const dropFilters = () => {
    let q = query;
    for (const op of ['site', 'after', 'before']) q = setOperator(q, op, null);
    q = q.replace(/(^|\s)-site:\S+/g, ' ').replace(/\s+/g, ' ').trim();
    onInput(q);
  };

  return (
    <div class={`search search--${mode}`}>
      <div class="search__box">
        <input
          ref={input}
          type="search"
          data-testid="search-input"
          role="combobox"
          aria-expanded={results.length > 0}
          aria-controls="results"
          aria-activedescendant={results.length ? `result-${selected}` : undefined}
          aria-label="Search what you have read"
          placeholder="Search what you have read…   site:  after:7d  &quot;exact words&quot;"
          value={query}
          onInput={(e) => onInput((e.target as HTMLInputElement).value)}
          onKeyDown={onKeyDown}
          autocomplete="off"
          spellcheck={false}
        />
      </div>
      <FilterBar query={query} sites={sites} onChange={onInput} />
      {status.kind === 'searching' && (
        <div class="search__status" data-testid="searching" role="status">
          Searching…
        </div>
      )}
      {status.kind === 'error' && (
        <div class="search__error" role="alert" data-testid="error">
          Something went wrong: {status.message}
        </div>
      )}
      {status.kind === 'idle' && stats && stats.pages === 0 && <FirstRun />}
      {status.kind === 'done' && results.length === 0 && (
        <div class="search__empty" data-testid="no-results">
          <p>Nothing you have read matches “{query}”.</p>
          {hasFilters && (
            <button type="button" data-testid="drop-filters" onClick={dropFilters}>
              Search without filters
            </button>
          )}
        </div>
      )}
      {status.kind === 'done' && status.response.corrected && (
        <p class="search__meta" role="status" data-testid="corrected">
          Showing results for <strong>{status.response.corrected.query}</strong>;{' '}
          <button
            type="button"
            class="link"
            data-testid="search-exact"
            onClick={() => {
              exactFor.current = status.response.corrected!.original;
              run(status.response.corrected!.original);
            }}
          >
            search instead for “{status.response.corrected.original}”
          </button>
        </p>
      )}
      {results.length > 0 && (
        <ol id="results" class="results" role="listbox" aria-label="Results" data-testid="results">
          {results.map((r, i) => (
            <ResultCard key={r.chunkId} result={r} index={i} selected={i === selected} onOpen={(newTab) => open(r, newTab)} onHover={() => setSelected(i)} />
          ))}
        </ol>
      )}
      {status.kind === 'done' && (
        <div class="search__meta" data-testid="search-meta">
          {results.length} {results.length === 1 ? 'page' : 'pages'} · {status.response.tookMs} ms · {status.response.lanesUsed.dense ? 'keywords + meaning' : 'keywords'}
        </div>
      )}
      {stats?.modelDownload && (
        <div class="search__progress" data-testid="model-download">
          {downloadText(stats.modelDownload)}
        </div>
      )}
      {stats?.storageWarning && (
        <div class="search__progress" role="status" data-testid="storage-warning">
          {stats.storageWarning}
        </div>
      )}
      {stats && stats.pendingEmbeddings > 0 && (
        <div class="search__progress" data-testid="embedding-progress">
          Understanding {stats.pendingEmbeddings} new sections…
        </div>
      )}
    </div>
  );
}

function FirstRun() {
  return (
    <div class="firstrun" data-testid="first-run">
      <h2>Search everything you read</h2>
      <p>
        Reread keeps the text of pages you visit, cut into sections, and lets you find them again by the words they contain or by
        what they mean. Everything stays on this computer: nothing you read or search is ever sent anywhere.
      </p>
      <p>
        Browse as usual; pages appear here a second after they load. For better search by meaning, pick the stronger model in{' '}
        <a href="options.html" target="_blank">
          options
        </a>{' '}
        (a one-time 23 MB download).
      </p>
    </div>
  );
}
