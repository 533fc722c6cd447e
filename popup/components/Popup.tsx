/**
 * The toolbar popup: the search box, plus two things about the current tab. "Forget this page" (shown
 * when the page is saved) forgets it at once, undoable for a while (the worker tells the page's tabs
 * not to save this visit again). "Never save this site" stops future captures at once and only then
 * asks, with the count, whether to forget what is already stored from the site (undoable too).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import type { ForgetPreview, ForgetScope, PendingForget } from '../../src/protocol.js';
import { normalizeStoredUrl, siteLabel, siteOf } from '../../src/url.js';
import { call } from '../api.js';
import { formatDaySpan, plural } from '../format.js';
import { SearchView } from './SearchView.js';
import { DayOneCard } from './DayOneCard.js';
import { ForgetWords, UndoBar } from './UndoBar.js';
import { fitPopupToFrame } from '../fitPopup.js';

type Exclusion =
  | { step: 'none' }
  /** A request under way (the site excluded, a forget asked): nothing can be clicked twice meanwhile. */
  | { step: 'working' }
  | { step: 'asking'; preview: ForgetPreview }
  | { step: 'undo'; pending: PendingForget }
  | { step: 'done'; message: string };

function question(site: string, p: ForgetPreview): string {
  const when = p.firstVisit !== undefined && p.lastVisit !== undefined ? ` (visited ${formatDaySpan(p.firstVisit, p.lastVisit)})` : '';
  return `${site} will not be saved from now on. Also forget the ${plural(p.pages, 'page')} already saved from it${when}?`;
}

/** The tab the popup was opened on, when it shows a page Reread could save. */
interface CurrentTab {
  id?: number;
  /** As stored (normalizeStoredUrl). */
  url: string;
  site: string;
}

export function Popup() {
  const [tab, setTab] = useState<CurrentTab | null>(null);
  const site = tab?.site ?? null;
  /** The current tab's page is saved: "Forget this page" is offered. */
  const [pageSaved, setPageSaved] = useState(false);
  /** Which of the two flows the notice below is about. */
  const [about, setAbout] = useState<'site' | 'page'>('site');
  const [excluded, setExcluded] = useState(false);
  /** Saving new pages is paused (Options): said at the top, with a way to resume, so it is never a surprise. */
  const [paused, setPaused] = useState(false);
  /** The site as shown ("Local files" for a PDF opened from disk). */
  const label = site ? siteLabel(site) : '';
  const [flow, setFlow] = useState<Exclusion>({ step: 'none' });
  const [storedVersion, setStoredVersion] = useState(0);
  const [searching, setSearching] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => (root.current ? fitPopupToFrame(root.current) : undefined), []);
  const onQueryChange = useCallback((q: string) => setSearching(q.trim() !== ''), []);
  useEffect(() => setStoredVersion((v) => v + 1), [flow.step]);
  // The button that asked goes once the site is excluded: focus moves to the question's safe answer.
  const firstButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (flow.step === 'asking') firstButton.current?.focus();
  }, [flow.step]);
  useEffect(() => {
    // activeTab: the popup may read the URL of the tab it was opened on.
    browser.tabs
      .query({ active: true, currentWindow: true })
      .then(([t]) => {
        const url = t?.url ? normalizeStoredUrl(t.url) : null;
        setTab(url ? { id: t?.id, url, site: siteOf(url) } : null);
      })
      .catch(() => setTab(null));
  }, []);
  // Asked again after every forget and undo (storedVersion).
  useEffect(() => {
    if (!tab) return;
    call('forget/preview', { scope: { kind: 'page', url: tab.url } })
      .then((p) => setPageSaved(p.pages > 0))
      .catch(() => setPageSaved(false));
  }, [tab, storedVersion]);
  useEffect(() => {
    call('settings/get', {})
      .then((s) => {
        setPaused(s.paused);
        if (site) setExcluded(s.excludedSites.includes(site));
      })
      .catch(() => undefined);
  }, [site]);
  /** Said (to screen readers, in the status line below) when saving resumes or could not. */
  const [resumed, setResumed] = useState('');
  const resume = async () => {
    try {
      const s = await call('settings/set', { paused: false });
      setPaused(s.paused);
      setResumed('Saving resumed: pages you open are saved again.');
      // The button goes with the notice: focus goes to the search box, not to the page.
      document.querySelector<HTMLInputElement>('.search__box input')?.focus();
    } catch (e) {
      setResumed(`Could not resume saving: ${(e as Error).message}`);
    }
  };

  /**
   * The question's buttons, the undo bar and "Never save …" go away with their answer, and focus would
   * fall to the page: the search box takes it then (not when focus was moved elsewhere meanwhile).
   */
  const refocus = () => {
    const a = document.activeElement;
    if (!a || a === document.body || a.closest('[data-testid="exclude-flow"], [data-testid="exclude-site"], [data-testid="forget-page"]')) document.querySelector<HTMLInputElement>('.search__box input')?.focus();
  };
  const exclude = async () => {
    if (!site) return;
    setAbout('site');
    setFlow({ step: 'working' });
    try {
      const s = await call('settings/get', {});
      if (!s.excludedSites.includes(site)) await call('settings/set', { excludedSites: [...s.excludedSites, site] });
      setExcluded(true);
      const preview = await call('forget/preview', { scope: { kind: 'site', site } });
      if (!preview.pages) refocus();
      setFlow(preview.pages ? { step: 'asking', preview } : { step: 'done', message: `${label} will not be saved from now on. Nothing from it was stored.` });
    } catch (e) {
      refocus();
      setFlow({ step: 'done', message: `Could not exclude ${label}: ${(e as Error).message}` });
    }
  };
  /**
   * Forgets now (the undo bar follows), or says why nothing was: `nothingLeft` when the scope held no
   * page by then (forgotten in another window, a retention pass), `failed` with an error.
   */
  const forget = async (scope: ForgetScope, nothingLeft: string, failed: string) => {
    setFlow({ step: 'working' });
    try {
      const pending = await call('forget', { scope });
      if (pending.pages) {
        setFlow({ step: 'undo', pending });
        return;
      }
      refocus();
      setFlow({ step: 'done', message: nothingLeft });
    } catch (e) {
      refocus();
      setFlow({ step: 'done', message: `${failed}: ${(e as Error).message}` });
    }
  };
  const forgetStored = () => (site ? forget({ kind: 'site', site }, `${label} will not be saved from now on. Nothing from it is stored any more.`, 'Could not forget') : undefined);
  const forgetPage = () => {
    if (!tab) return;
    setAbout('page');
    return forget({ kind: 'page', url: tab.url }, 'This page is no longer saved.', 'Could not forget this page');
  };

  const busy = flow.step === 'working' || flow.step === 'asking' || flow.step === 'undo';
  /** An undo in the search view's bar (a forget made before this popup opened): the tab's page may be saved again. */
  const restored = useCallback(() => setStoredVersion((v) => v + 1), []);

  return (
    <div class="popup" ref={root}>
      <main class="popup__main">
        <h1 class="visually-hidden">Reread</h1>
        {paused && (
          <section class="popup__paused" aria-label="Saving paused" data-testid="paused-notice">
            <p>Saving is paused: pages you open now are not saved.</p>
            {resumed && <p class="warn">{resumed}</p>}
            <button type="button" data-testid="resume-saving" onClick={() => void resume()}>
              Resume saving
            </button>
          </section>
        )}
        {/* The first-run card gives its room to results while the user searches. */}
        {!searching && <DayOneCard where="popup" />}
        <SearchView mode="popup" initialQuery="" storedVersion={storedVersion} onQueryChange={onQueryChange} shownForget={flow.step === 'undo' ? flow.pending.id : undefined} paused={paused} onRestored={restored} />
      </main>
      <p class="visually-hidden" role="status" data-testid="popup-live">
        {flow.step === 'done' ? flow.message : flow.step === 'asking' ? question(label, flow.preview) : flow.step === 'undo' ? (
          <>
            <ForgetWords f={flow.pending} /> Undo is available for {Math.round((flow.pending.undoUntil - flow.pending.at) / 1000)} seconds.
          </>
        ) : (
          resumed
        )}
      </p>
      {flow.step !== 'none' && flow.step !== 'working' && site && (
        <section class="popup__notice" aria-label={about === 'page' ? 'Forgetting this page' : `Saving ${label}`} data-testid="exclude-flow" data-about={about}>
          {flow.step === 'asking' && (
            <>
              <p data-testid="exclude-question">{question(label, flow.preview)}</p>
              <div class="row">
                <button type="button" class="danger-fill" data-testid="exclude-forget" onClick={() => void forgetStored()}>
                  Forget {plural(flow.preview.pages, 'page')}
                </button>
                <button
                  type="button"
                  ref={firstButton}
                  data-testid="exclude-keep"
                  onClick={() => {
                    refocus();
                    setFlow({ step: 'done', message: `${label} will not be saved from now on; what is stored from it stays searchable.` });
                  }}
                >
                  Keep them
                </button>
              </div>
            </>
          )}
          {flow.step === 'undo' && (
            <UndoBar
              pending={flow.pending}
              focus
              onDone={(undone, message) => {
                refocus();
                // Said once the forget is final, where it is true: the next visit is a new one.
                if (about === 'page' && !undone && !excluded && !paused) message = `${message} Opening this page again saves it again.`;
                setFlow({ step: 'done', message });
              }}
            />
          )}
          {flow.step === 'done' && <p data-testid="exclude-done">{flow.message}</p>}
        </section>
      )}
      <footer class="popup__footer">
        <a href="search.html" target="_blank" data-testid="open-full">
          Full results page
        </a>
        {/* One question or undo at a time: the footer's two actions wait while either is shown. */}
        {tab && pageSaved && !busy && (
          <button type="button" class="link popup__forget-page" data-testid="forget-page" onClick={() => void forgetPage()}>
            Forget this page
          </button>
        )}
        {site && !excluded && !busy && (
          <button type="button" class="link" data-testid="exclude-site" onClick={() => void exclude()}>
            Never save {label}
          </button>
        )}
        {site && excluded && <span data-testid="site-excluded">{label} is never saved</span>}
        <a href="options.html" target="_blank">
          Options
        </a>
      </footer>
    </div>
  );
}
