/**
 * The search box and results, shared by the popup and the full results page (search.html).
 * Keyboard first: the box has focus, Up/Down move, Enter opens, Ctrl/Cmd+Enter opens in a new tab,
 * Esc clears. The typed query is the one source of truth: the filter controls rewrite its operators.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { PendingForget, SearchResponse, SearchResult, SiteCount, Stats } from '../../src/protocol.js';
import { addressedQuery, addressNote, exclusionsOnlyMessage, onlyExclusions, parseQuery, unreadDatesMessage, withoutFilters } from '../../src/query.js';
import browser from 'webextension-polyfill';
import { call } from '../api.js';
import { downloadText } from './ModelSettings.js';
import { flattenOptions, moreShown, optionId, ResultCard } from './ResultCard.js';
import { FirstRun } from './FirstRun.js';
import { UndoBar } from './UndoBar.js';
import { changedWords, formatMs, noMatchHeading, plural } from '../format.js';
import { FilterBar } from './FilterBar.js';

export interface SearchViewProps {
  mode: 'popup' | 'page';
  initialQuery: string;
  excludeUrl?: string;
  /** Called after every answered search (the page keeps the query for a reload). */
  onQueryChange?: (q: string) => void;
  /** Changed by the parent after something changed what is stored (a forget, an undo): counts are read again. */
  storedVersion?: number;
  /** A forget whose undo bar the parent shows itself (the popup's "Never save this site"). */
  shownForget?: string;
  /** Saving new pages is paused (the popup knows; the first-run card says so instead of "browse as usual"). */
  paused?: boolean;
  /** Called when one of this view's undo bars restored pages (the popup asks again whether its tab's page is saved). */
  onRestored?: () => void;
}

/** How often the counts are read again while nothing is saved or sections wait for search by meaning (see `watching`). */
const RECHECK_MS = 1500;

type Status = { kind: 'idle' } | { kind: 'searching' } | { kind: 'done'; response: SearchResponse } | { kind: 'error'; message: string };

export function SearchView({ mode, initialQuery, excludeUrl, onQueryChange, storedVersion = 0, shownForget, paused = false, onRestored }: SearchViewProps) {
  const [query, setQuery] = useState(initialQuery);
  const [status, setStatus] = useState<Status>(initialQuery.trim() ? { kind: 'searching' } : { kind: 'idle' });
  const [selected, setSelected] = useState(0);
  const [stats, setStats] = useState<Stats | null>(null);
  const [sites, setSites] = useState<SiteCount[]>([]);
  /**
   * Forgets that can still be undone (made here, in Options or in another window): offered here too, and
   * beside every answer while they hide pages from it (each answer says which: SearchResponse.forgets).
   */
  const [forgets, setForgets] = useState<PendingForget[]>([]);
  /** Forgets whose bar was answered here (undone, or its time up): an answer that was already on its way does not bring the bar back. */
  const answeredForgets = useRef(new Set<string>());
  const showForgets = (list: readonly PendingForget[]) => setForgets(list.filter((f) => f.undoUntil > Date.now() && !answeredForgets.current.has(f.id)));
  const [reloads, setReloads] = useState(0);
  const ticket = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const limit = mode === 'popup' ? 8 : 30;

  /**
   * Every keystroke searches at once, as this box (`box`): the worker stops the search this box asked
   * for before at its next step (answered `superseded`), so a keystroke never waits for the answer to the
   * one before it, and only the latest query's answer is shown.
   */
  const box = useMemo(() => `${mode}-${Math.random().toString(36).slice(2)}`, []);
  /** "Search instead for …": this query is searched as typed, without typo correction, until it changes. */
  const exactFor = useRef<string | null>(null);
  /** "Show pages with some of these words": this query is searched loose (any of its words) until it changes. */
  const looseFor = useRef<string | null>(null);
  const openHref = (href: string, newTab: boolean) => {
    void call('open', { url: href, newTab }).then(async () => {
      // A real popup closes once the result is open; popup.html opened as a tab stays.
      if (mode === 'popup' && !(await browser.tabs.getCurrent())) window.close();
    });
  };
  /**
   * Enter pressed before the answer to the typed query came (type, Enter at once: the search takes tens
   * of milliseconds, hundreds after the worker started): its first result opens once the answer comes.
   * Before, that Enter was lost, and nothing happened until it was pressed again.
   */
  const openWhenAnswered = useRef<{ q: string; newTab: boolean } | null>(null);
  const answered = (q: string, response: SearchResponse) => {
    const wanted = openWhenAnswered.current;
    if (!wanted || wanted.q !== q) return;
    openWhenAnswered.current = null;
    const first = response.results[0];
    if (first) openHref(first.href, wanted.newTab);
  };
  const run = useCallback(
    (q: string) => {
      const mine = ++ticket.current;
      if (openWhenAnswered.current?.q !== q) openWhenAnswered.current = null;
      if (!q.trim()) {
        setStatus({ kind: 'idle' });
        onQueryChange?.(q);
        return;
      }
      setStatus({ kind: 'searching' });
      const req = { q, limit, box, ...(excludeUrl ? { excludeUrl } : {}), ...(exactFor.current === q ? { exact: true } : {}), ...(looseFor.current === q ? { loose: true } : {}) };
      call('search', req)
        .then((response) => {
          if (mine !== ticket.current) return; // a newer keystroke owns the screen
          setStatus({ kind: 'done', response });
          showForgets(response.forgets ?? []);
          setSelected(0);
          onQueryChange?.(q);
          if (!response.denseLoading) answered(q, response);
          // The first search after the worker started answers by words alone while the meaning index
          // loads: ask once more, waiting for it, and the hybrid answer replaces this one (unless the
          // user typed on: a newer keystroke supersedes it in the worker and owns the screen here).
          if (response.denseLoading) {
            call('search', { ...req, awaitDense: true })
              .then((hybrid) => {
                if (mine !== ticket.current) return;
                setStatus({ kind: 'done', response: hybrid });
                answered(q, hybrid);
              })
              .catch(() => {
                // The meaning lane could not answer: what the words found is the answer, said as such.
                if (mine !== ticket.current) return;
                setStatus({ kind: 'done', response: wordsOnly(response) });
                answered(q, response);
              });
          }
        })
        .catch((e: unknown) => {
          if (mine !== ticket.current) return;
          openWhenAnswered.current = null;
          setStatus({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
        });
    },
    [limit, excludeUrl, onQueryChange],
  );

  useEffect(() => {
    input.current?.focus();
    if (initialQuery.trim()) run(initialQuery);
  }, []);
  useEffect(() => {
    call('stats', {}).then(setStats).catch(() => undefined);
    call('sites', {}).then(setSites).catch(() => undefined);
    call('forget/pending', {})
      .then(showForgets)
      .catch(() => undefined);
  }, [storedVersion, reloads]);
  // What is stored changed (a page forgotten from the popup, an undo here): the results shown are asked
  // again, once, so a forgotten page is not left on screen to open and a restored one comes back.
  const shownVersion = useRef(`${storedVersion}/${reloads}`);
  useEffect(() => {
    const now = `${storedVersion}/${reloads}`;
    if (shownVersion.current === now) return;
    shownVersion.current = now;
    if (query.trim()) run(query);
  }, [storedVersion, reloads]);
  // A forget this view learns of from an answer (made in Options or another window): the counts change with it.
  const forgetKey = forgets.map((f) => f.id).join(' ');
  useEffect(() => {
    if (forgetKey) call('stats', {}).then(setStats).catch(() => undefined);
  }, [forgetKey]);

  /** Nothing saved (a first run, or everything just forgotten): no site or date to narrow to, yet. */
  const nothingSaved = stats !== null && stats.pages === 0;
  /** Sections still being read for search by meaning: the line that says so counts down. */
  const embedding = (stats?.pendingEmbeddings ?? 0) > 0;
  /**
   * While nothing is saved, or while new sections are being read for search by meaning, the counts are
   * read again every few seconds: the first pages saved while this view is open (a page read in another
   * tab, the history imported from the card above it) bring the filters and the counts without reopening
   * it, and the "Reading N new sections" line counts down and goes. No polling otherwise; a forget or an
   * undo made here bumps `storedVersion`/`reloads` instead.
   */
  const watching = nothingSaved || embedding;
  useEffect(() => {
    if (!watching) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const later = () => {
      timer = setTimeout(() => {
        call('stats', {}).then(
          (s) => {
            if (!live) return;
            // Saved at last: the site list for the filters too.
            if (nothingSaved && s.pages > 0) call('sites', {}).then(setSites).catch(() => undefined);
            setStats(s);
            // This effect ends with `watching`; while it holds, read again.
            if (s.pages === 0 || s.pendingEmbeddings > 0) later();
          },
          () => {
            if (live) later();
          },
        );
      }, RECHECK_MS);
    };
    later();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [watching, nothingSaved]);

  const onInput = (q: string) => {
    setQuery(q);
    // Every keystroke searches at once (no debounce delay); the answer on screen is marked stale until
    // the latest query's answer comes.
    run(q);
  };

  const results: SearchResult[] = status.kind === 'done' ? status.response.results : [];
  const options = useMemo(() => flattenOptions(results, mode === 'popup'), [results]);
  // A later answer with fewer rows (the one with search by meaning, or after a forget) must not leave the
  // selection on a row that is gone: nothing highlighted, and Enter opening nothing.
  useEffect(() => {
    if (selected >= options.length && options.length) setSelected(options.length - 1);
  }, [options]);
  const move = (to: number) => setSelected(Math.max(0, Math.min(to, options.length - 1)));
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      move(selected + 1);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      move(selected - 1);
    } else if ((e.key === 'PageDown' || e.key === 'PageUp') && options.length) {
      e.preventDefault();
      move(selected + (e.key === 'PageDown' ? 5 : -5));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const o = options[selected];
      if (o) openHref(o.section.href, e.ctrlKey || e.metaKey);
      else if (status.kind === 'searching' && query.trim()) openWhenAnswered.current = { q: query, newTab: e.ctrlKey || e.metaKey };
    } else if (e.key === 'Escape' && query) {
      // Escape closes what typing opened (the list): it clears the box. With the box empty, the
      // browser's own Escape closes the popup.
      e.preventDefault();
      onInput('');
    }
  };

  useEffect(() => {
    if (status.kind === 'done') document.getElementById(optionId(selected))?.scrollIntoView?.({ block: 'nearest' });
  }, [selected, status]);

  const parsed = useMemo(() => parseQuery(query), [query]);
  /**
   * A query of an address is searched as its page name's words on its site (src/query.ts addressedQuery):
   * the filter controls and the no-results lines speak of that query; the answer says what became of the
   * page at the address (SearchResponse.address).
   */
  const addressed = useMemo(() => addressedQuery(query), [query]);
  const address = status.kind === 'done' ? status.response.address : undefined;
  const searchedText = addressed ? addressed.q : query;
  const searched = useMemo(() => (addressed ? parseQuery(addressed.q) : parsed), [addressed, parsed]);
  const shownForgets = forgets.filter((f) => f.id !== shownForget);
  /** Pages a pending forget leaves out of the answer on screen (said with "nothing matches"). */
  const forgottenPages = status.kind === 'done' ? (status.response.forgets ?? []).filter((f) => forgets.some((x) => x.id === f.id)).reduce((n, f) => n + f.pages, 0) : 0;
  /**
   * Nothing is left to search but what a pending forget hides ("forget everything", or the one site there
   * was): the forget note says why nothing matches, and hints about spelling and words do not fit.
   */
  const allForgotten = forgottenPages > 0 && status.kind === 'done' && ((status.response.forgets ?? []).some((f) => f.scope.kind === 'all' && forgets.some((x) => x.id === f.id)) || stats?.pages === 0);
  const forgottenNote = forgottenPages ? `${forgottenPages === 1 ? 'The page' : `The ${plural(forgottenPages, 'page')}`} you just forgot ${forgottenPages === 1 ? 'is' : 'are'} not searched; Undo brings ${forgottenPages === 1 ? 'it' : 'them'} back while there is time.` : '';
  /** `-python` alone: nothing to find pages by, which the answer says instead of "nothing matches". */
  const exclusionsOnly = useMemo(() => onlyExclusions(parsed), [parsed]);
  const hasFilters = searched.sites.length > 0 || searched.excludeSites.length > 0 || searched.after !== undefined || searched.before !== undefined;
  const dropFilters = () => {
    onInput(withoutFilters(searchedText));
    input.current?.focus();
  };

  // One polite live region, present from the start (a region inserted with its text is often not read):
  // what the search is doing, then how many pages it found.
  const announcement =
    status.kind === 'searching'
      ? 'Searching…'
      : status.kind === 'error'
        ? 'Reread could not finish this search.'
        : status.kind === 'done'
          ? results.length
            ? `${plural(results.length, 'page')} found. Use the up and down arrow keys to move through them, Enter to open.`
            : exclusionsOnly
              ? exclusionsOnlyMessage(exclusionsOnly)
              : `No pages match.${forgottenNote ? ` ${forgottenNote}` : ''}`
          : '';

  let optionStart = 0;
  return (
    <div class={`search search--${mode}`}>
      <div class="search__box">
        <input
          ref={input}
          type="search"
          data-testid="search-input"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={options.length > 0}
          aria-controls="results"
          aria-activedescendant={options.length ? optionId(selected) : undefined}
          aria-label="Search what you have read"
          aria-describedby="search-help"
          placeholder="Search what you have read…"
          value={query}
          onInput={(e) => onInput((e.target as HTMLInputElement).value)}
          onKeyDown={onKeyDown}
          autocomplete="off"
          spellcheck={false}
          // Words typed in Arabic or Hebrew run right to left in the box, as the page's own text does.
          dir="auto"
        />
        <p id="search-help" class={`search__help${mode === 'popup' && status.kind !== 'idle' ? ' visually-hidden' : ''}`}>
          {/* Nothing saved: site:/after: would narrow nothing, and there is no result to move to or open. */}
          {nothingSaved ? (
            <>
              Words you remember from a page, or <code>"exact words"</code>. Esc clears.
            </>
          ) : (
            <>
              Words, <code>"exact words"</code>, <code>site:example.com</code>, <code>after:7d</code>. ↑↓ move, Enter opens, Ctrl+Enter in a new tab, Esc clears.
            </>
          )}
        </p>
      </div>
      {/* An address's site shows as the site filter; a control changed turns the address into the query it was searched as. */}
      {!nothingSaved && <FilterBar query={searchedText} sites={sites} onChange={onInput} compact={mode === 'popup'} />}
      <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="live">
        {announcement}
      </div>
      {status.kind === 'searching' && (
        <div class="search__status" data-testid="searching">
          Searching…
        </div>
      )}
      {status.kind === 'error' && (
        <div class="search__error" data-testid="error">
          {/* A plain sentence first; the worker's own message (for a bug report) is kept, folded. */}
          <p data-testid="error-lead">Reread could not finish this search.</p>
          <button
            type="button"
            onClick={() => {
              run(query);
              input.current?.focus();
            }}
          >
            Try again
          </button>
          {/* Not a dead end: Options can check the index and rebuild it from the stored sections. */}
          <p class="search__error-help">
            If it keeps failing,{' '}
            <a href="options.html" target={mode === 'popup' ? '_blank' : undefined}>
              Options
            </a>{' '}
            can check the index and repair it (under Maintenance).
          </p>
          <details class="search__error-details">
            <summary>Details</summary>
            <code data-testid="error-detail">{status.message}</code>
          </details>
        </div>
      )}
      {/* Above the answer too: after "forget everything" a search finds nothing, and that is why. */}
      {shownForgets.length > 0 && (
        <div class="search__forgets">
          {shownForgets.map((f) => (
            <UndoBar
              key={f.id}
              pending={f}
              onDone={(undone) => {
                // The bar goes with its answer: focus on its Undo would fall to the page's body.
                const hadFocus = !!document.activeElement?.closest('[data-testid="undo-bar"]');
                answeredForgets.current.add(f.id);
                setForgets((all) => all.filter((x) => x.id !== f.id));
                if (undone) {
                  onRestored?.();
                  // The answer on screen left the restored pages out: asked again (the effect above).
                  setReloads((n) => n + 1);
                }
                if (hadFocus) input.current?.focus();
              }}
            />
          ))}
        </div>
      )}
      {/* Nothing stored because everything was just forgotten is not a first run: the undo bar says what happened. */}
      {status.kind === 'idle' && stats && stats.pages === 0 && !forgets.length && <FirstRun paused={paused} />}
      {status.kind === 'idle' && stats && stats.pages > 0 && (
        <div class="search__idle" data-testid="idle">
          <p>
            {plural(stats.pages, 'page')} from {plural(stats.sites, 'site')} saved on this computer. Type a few words you remember from one of them.
          </p>
        </div>
      )}
      {parsed.unreadDates && (
        <p class="search__meta" role="status" data-testid="unread-date">
          {unreadDatesMessage(parsed.unreadDates)}
        </p>
      )}
      {address && (
        <p class="search__meta" role="status" data-testid="address-note" data-page={address.page}>
          {addressNote(address, address.page)}
        </p>
      )}
      {/* With nothing found, the heading below names both the words typed and the correction tried. */}
      {status.kind === 'done' && status.response.corrected && results.length > 0 && (
        <p class="search__meta" role="status" data-testid="corrected">
          Showing results for{' '}
          <span data-testid="corrected-query">
            {changedWords(status.response.corrected.query, status.response.corrected.original).map((r, i) => (r.changed ? <strong key={i}>{r.text}</strong> : r.text))}
          </span>
          ;{' '}
          <button
            type="button"
            class="link"
            data-testid="search-exact"
            onClick={() => {
              exactFor.current = status.response.corrected!.original;
              run(status.response.corrected!.original);
              // This line goes with the answer: focus would fall to the page's body.
              input.current?.focus();
            }}
          >
            search instead for “{status.response.corrected.original}”
          </button>
        </p>
      )}
      {status.kind === 'done' && results.length > 0 && looseFor.current === query && status.response.partial && (
        <p class="search__meta" role="status" data-testid="loose-note">
          Pages with some of your words
          {status.response.partial.missing.length ? <>; none has {quoted(status.response.partial.missing)}</> : null}.
        </p>
      )}
      {status.kind === 'done' && results.length === 0 && status.response.denseLoading && !exclusionsOnly && (
        <p class="search__empty" data-testid="meaning-pending" role="status">
          No page has these words; still searching by meaning…
        </p>
      )}
      {status.kind === 'done' && results.length === 0 && exclusionsOnly && (
        // A query of exclusions alone finds nothing by design: said as such, not as "nothing matches"
        // with hints about spelling and filters.
        <div class="search__empty" data-testid="no-results" data-reason="exclusions-only">
          <p>
            <strong data-testid="no-results-heading">{exclusionsOnlyMessage(exclusionsOnly)}</strong>
          </p>
          <ul>
            <li>
              A minus leaves pages out of what the other words find, as in <code>tutorial {exclusionsOnly[0]}</code>.
            </li>
          </ul>
        </div>
      )}
      {status.kind === 'done' && results.length === 0 && nothingSaved && !forgets.length && !status.response.denseLoading && !exclusionsOnly && (
        // Nothing is stored at all (a first run): spelling and filter hints would send the person looking
        // for a mistake they did not make.
        <div class="search__empty" data-testid="no-results" data-reason="nothing-saved">
          <p>
            <strong data-testid="no-results-heading">Nothing is saved yet, so there is nothing to search.</strong>
          </p>
          <ul>
            <li>
              {paused
                ? 'Saving is paused: resume it, then pages you open are saved about a second after they load.'
                : 'Pages you open from now on are saved about a second after they load; search again once you have read a few.'}
            </li>
          </ul>
        </div>
      )}
      {status.kind === 'done' && results.length === 0 && !(nothingSaved && !forgets.length) && !status.response.denseLoading && !exclusionsOnly && (
        <div class="search__empty" data-testid="no-results">
          <p>
            <strong data-testid="no-results-heading">{noMatchHeading(searched, query, Date.now(), status.response.corrected ? parseQuery(status.response.corrected.query) : undefined)}</strong>
          </p>
          <ul>
            {forgottenNote && <li data-testid="forgotten-note">{forgottenNote}</li>}
            {status.response.partial && looseFor.current !== query && (
              <li data-testid="partial">
                No page has all of these words
                {status.response.partial.missing.length ? <>; none has {quoted(status.response.partial.missing)}</> : null}:{' '}
                <button
                  type="button"
                  class="link"
                  data-testid="search-loose"
                  onClick={() => {
                    looseFor.current = query;
                    run(query);
                    input.current?.focus();
                  }}
                >
                  show pages with some of them
                </button>
              </li>
            )}
            {hasFilters && addressed?.address.words.length ? (
              // The site is the address's, not a filter the person chose.
              <li>
                Pages on other sites may have these words:{' '}
                <button type="button" class="link" data-testid="drop-filters" onClick={dropFilters}>
                  search every site for “{addressed.address.words.join(' ')}”
                </button>
              </li>
            ) : hasFilters && !addressed ? (
              <li>
                The filters may be too narrow:{' '}
                <button type="button" class="link" data-testid="drop-filters" onClick={dropFilters}>
                  search without filters
                </button>
              </li>
            ) : null}
            {/* Everything searchable was just forgotten: the note above is the whole answer, no hint about words fits. */}
            {!allForgotten && (
              <>
                {!addressed && searched.text.trim().split(/\s+/).length > 2 && <li>Try fewer words: the ones you are surest the page used.</li>}
                <li data-testid="spelling-hint">
                  {forgottenNote
                    ? 'If you meant another page: check the spelling, or describe it in other words (search by meaning finds related words).'
                    : 'Check the spelling, or describe the page in other words (search by meaning finds related words).'}
                </li>
                {stats && stats.pendingEmbeddings > 0 && <li>{plural(stats.pendingEmbeddings, 'new section')} are still being read for search by meaning.</li>}
                {/* Not only pages visited since the install: tabs open then, and history imported by title (DayOneCard). */}
                <li>Reread finds the pages you opened since it was installed, and older ones by their title if you imported your history.</li>
              </>
            )}
          </ul>
        </div>
      )}
      {options.length > 0 && (
        <div id="results" class="results" role="listbox" aria-label="Results" data-testid="results">
          {results.map((r) => {
            const first = optionStart;
            optionStart += 1 + moreShown(r, mode === 'popup').length;
            return <ResultCard key={r.chunkId} result={r} firstOption={first} selected={selected} compact={mode === 'popup'} onOpen={openHref} onHover={setSelected} />;
          })}
        </div>
      )}
      {status.kind === 'done' && !(exclusionsOnly && !results.length) && (
        // The count and the time stay first, as "3 pages · 13 ms · …": tests/bench/browser.ts reads the
        // time from it. Which lists answered is in data-lanes for the tests (tests/shared/contract.ts).
        <div class="search__meta" data-testid="search-meta" data-lanes={lanesAnswered(status.response)}>
          {/* The popup reads fewer candidates than the results page: a full list is of the best pages, not of all ("8 pages" beside a results page of 12). */}
          {mode === 'popup' && results.length >= limit ? 'Top ' : ''}
          {plural(results.length, 'page')} · {formatMs(status.response.tookMs)} · {LANES_IN_WORDS[lanesAnswered(status.response)]}
        </div>
      )}
      {stats?.modelDownload && (
        <div class="search__progress" data-testid="model-download">
          {downloadText(stats.modelDownload)}
        </div>
      )}
      {stats?.storageWarning && (
        <div class="search__progress search__warn" data-testid="storage-warning">
          {stats.storageWarning}
        </div>
      )}
      {stats && stats.pendingEmbeddings > 0 && (
        <div class="search__progress" data-testid="embedding-progress">
          Reading {plural(stats.pendingEmbeddings, 'new section')} for search by meaning…
        </div>
      )}
    </div>
  );
}

/** Words as "none has …" lists them: “a”, “a” or “b”, “a”, “b” or “c”. */
function quoted(words: readonly string[]): string {
  const q = words.map((w) => `“${w}”`);
  return q.length < 2 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
}

/** Which lists answered: both, words alone, or words alone while the meaning index loads (asked again). */
type LanesAnswered = 'both' | 'words' | 'loading';

function lanesAnswered(response: SearchResponse): LanesAnswered {
  return response.lanesUsed.dense ? 'both' : response.denseLoading ? 'loading' : 'words';
}

const LANES_IN_WORDS: Record<LanesAnswered, string> = {
  both: 'searched by your words and their meaning',
  words: 'searched by your words',
  // "meaning is loading": what readers of the status line written before data-lanes wait on (the contract's resultsSettled did).
  loading: 'searched by your words; search by meaning is loading',
};

/** An answer marked as waiting for the meaning lane, as the final words-only answer it became. */
function wordsOnly(response: SearchResponse): SearchResponse {
  const settled = { ...response };
  delete settled.denseLoading;
  return settled;
}
