/**
 * The options page: what is stored, saving and privacy controls, forgetting, export/import, search by
 * meaning, advanced ranking (folded), and maintenance.
 *
 * Nothing here forgets data from one click (issue 16): every forget is counted first and said in words
 * ("Forget 1,204 pages from example.com, visited 3 Jan – 9 Feb"), confirmed in a dialog, and can then be
 * undone for a while (the background only marks the pages until the window closes). Retention changes
 * are previewed and applied only once confirmed. Forms that are not complete cannot be submitted.
 */
import { render } from 'preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ForgetPreview, ForgetScope, PendingForget, RetentionPreview, SiteCount, Stats, VerifyReport } from '../src/protocol.js';
import type { Settings } from '../src/settings.js';
import { MAX_RETENTION_DAYS, MAX_STORAGE_MB, normalizeSitePattern } from '../src/settings.js';
import { displayLocation, siteLabel } from '../src/url.js';
import { dayRange } from '../src/forget.js';
import browser from 'webextension-polyfill';
import { call } from './api.js';
import { exportedMessage, ExportStopped, exportToBlob, ImportStopped, importFromFile } from './transfer.js';
import { formatBytes, formatDay, formatDaySpan, plural } from './format.js';
import { ModelSettings } from './components/ModelSettings.js';
import { DayOneCard } from './components/DayOneCard.js';
import { PdfNotes } from './components/PdfNotes.js';
import { ConfirmDialog } from './components/ConfirmDialog.js';
import { UndoBar } from './components/UndoBar.js';

function useAsync<T>(load: () => Promise<T>, deps: unknown[]): [T | null, () => void] {
  const [value, setValue] = useState<T | null>(null);
  const [n, setN] = useState(0);
  useEffect(() => {
    load().then(setValue).catch(() => undefined);
  }, [...deps, n]);
  return [value, () => setN((x) => x + 1)];
}

/** "Forget 1,204 pages from example.com, visited 3 Jan – 9 Feb?" */
export function forgetQuestion(scope: ForgetScope, p: ForgetPreview): string {
  const n = plural(p.pages, 'page');
  const when = p.firstVisit !== undefined && p.lastVisit !== undefined ? `, visited ${formatDaySpan(p.firstVisit, p.lastVisit)}` : '';
  switch (scope.kind) {
    case 'page':
      return `Forget ${p.title ? `“${p.title}”` : displayLocation(scope.url)}${when}?`;
    case 'site':
      return `Forget ${n} from ${siteLabel(scope.site)}${when}?`;
    case 'range':
      return `Forget ${n} visited ${formatDay(scope.from) === formatDay(scope.to - 1) ? `on ${formatDay(scope.from)}` : `between the start of ${formatDay(scope.from)} and the end of ${formatDay(scope.to - 1)}`}${p.sites > 1 ? `, from ${plural(p.sites, 'site')}` : ''}?`;
    case 'all':
      return `Forget all ${n} Reread has saved, from ${plural(p.sites, 'site')}${when}?`;
  }
}

function confirmTitle(scope: ForgetScope): string {
  switch (scope.kind) {
    case 'page':
      return 'Forget this page?';
    case 'site':
      return `Forget ${siteLabel(scope.site)}?`;
    case 'range':
      return 'Forget these days?';
    case 'all':
      return 'Forget everything?';
  }
}

type Ask =
  | { kind: 'forget'; scope: ForgetScope; preview: ForgetPreview | null; extra?: string }
  | { kind: 'retention'; patch: Pick<Settings, 'retentionDays' | 'maxStorageMb'>; preview: RetentionPreview };

function Field({ id, label, children, hint }: { id: string; label: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

function Options() {
  const [stats, reloadStats] = useAsync<Stats>(() => call('stats', {}), []);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [sites, reloadSites] = useAsync<SiteCount[]>(() => call('sites', {}), []);
  const [pending, reloadPending] = useAsync<PendingForget[]>(() => call('forget/pending', {}), []);
  const [message, setMessage] = useState<string>('');
  const [newSite, setNewSite] = useState('');
  const [siteToForget, setSiteToForget] = useState('');
  const [rangeFrom, setRangeFrom] = useState('');
  const [rangeTo, setRangeTo] = useState('');
  const [retentionDays, setRetentionDays] = useState('');
  const [maxStorage, setMaxStorage] = useState('');
  const [report, setReport] = useState<VerifyReport | null>(null);
  const [ask, setAsk] = useState<Ask | null>(null);
  const [undoFocus, setUndoFocus] = useState<string | null>(null);
  /** An export stopped before its end (no file made): the outcome line offers to start it again. */
  const [exportStopped, setExportStopped] = useState(false);
  const messageRef = useRef<HTMLParagraphElement>(null);
  const statusRef = useRef<HTMLDivElement>(null);
  // The sticky status line's height (a message, undo bars) is kept clear at the top when focus scrolls:
  // on every change of what it shows, and when its height changes (a bar's text wraps, a bar goes).
  const fitStatus = () => {
    const el = statusRef.current;
    if (el) document.documentElement.style.scrollPaddingTop = el.classList.contains('is-shown') ? `${Math.ceil(el.getBoundingClientRect().height) + 8}px` : '';
  };
  useEffect(() => {
    const el = statusRef.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const seen = new ResizeObserver(fitStatus);
    seen.observe(el);
    return () => seen.disconnect();
  }, [settings !== null]);

  /** Reads the settings the page is drawn from; when the worker cannot answer, says so, and asks again. */
  const [loadError, setLoadError] = useState<string | null>(null);
  const loadSettings = () => {
    setLoadError(null);
    call('settings/get', {})
      .then((s) => {
        setSettings(s);
        setRetentionDays(String(s.retentionDays));
        setMaxStorage(String(s.maxStorageMb));
      })
      .catch((e: Error) => setLoadError(e.message));
  };
  useEffect(() => {
    loadSettings();
    const t = setInterval(reloadStats, 2000);
    return () => clearInterval(t);
  }, []);
  // A worker that was stopped wakes for the next message: asked again once, a moment later.
  useEffect(() => {
    if (!loadError || settings) return;
    const t = setTimeout(loadSettings, 1500);
    return () => clearTimeout(t);
  }, [loadError]);

  /** Stores a change; throws when the worker refused it (what is stored is shown again). */
  const store = async (patch: Partial<Settings>): Promise<void> => {
    // The choice shows at once. The radios and checkboxes are drawn from `settings`: until the worker
    // answered, any re-render (the counters every 2 s, the model status every second) put the old choice
    // back, so a model picked while the worker was busy jumped back to the previous one for a while.
    setSettings((s) => (s ? { ...s, ...patch } : s));
    try {
      setSettings(await call('settings/set', patch));
    } catch (e) {
      // Not saved: show what is stored again.
      call('settings/get', {}).then(setSettings, () => undefined);
      throw e;
    }
  };
  /** True once stored (false: the error is on screen). Inside `act`, `store`: its failure is the action's. */
  const save = async (patch: Partial<Settings>): Promise<boolean> => {
    try {
      await store(patch);
      setMessage('Saved.');
      return true;
    } catch (e) {
      setMessage((e as Error).message);
      return false;
    }
  };
  /** Counts, site lists and pending forgets are read again right after anything changes them. */
  const refresh = () => {
    reloadStats();
    reloadSites();
    reloadPending();
  };
  const act = async (what: string, fn: () => Promise<string>) => {
    setMessage(`${what}…`);
    setExportStopped(false);
    try {
      setMessage(await fn());
    } catch (e) {
      setMessage(`${what} failed: ${(e as Error).message}`);
    }
    refresh();
  };

  const startExport = () => {
    void act('Exporting', async () => {
      const withVectors = (document.querySelector('[data-testid="export-vectors"]') as HTMLInputElement | null)?.checked === true;
      let file;
      try {
        // In parts, never one string (popup/transfer.ts).
        file = await exportToBlob(call, withVectors, setMessage);
      } catch (e) {
        // Not "Exporting failed": the message says that no file was made and what to do.
        if (!(e instanceof ExportStopped)) throw e;
        setExportStopped(true);
        return e.message;
      }
      const a = document.createElement('a');
      a.href = URL.createObjectURL(file.blob);
      a.download = `reread-${new Date().toISOString().slice(0, 10)}.jsonl`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      return exportedMessage(file);
    });
  };

  /** Opens the confirmation with the count computed first (the dialog's button waits for it). */
  const askForget = (scope: ForgetScope, extra?: string) => {
    setAsk({ kind: 'forget', scope, preview: null, extra });
    call('forget/preview', { scope })
      .then((preview) => setAsk((a) => (a && a.kind === 'forget' && a.scope === scope ? { ...a, preview } : a)))
      .catch((e: Error) => {
        setAsk(null);
        setMessage(`Could not count the pages: ${e.message}`);
      });
  };
  const doForget = (scope: ForgetScope) => {
    setAsk(null);
    void act('Forgetting', async () => {
      const p = await call('forget', { scope });
      setUndoFocus(p.id);
      return `${plural(p.pages, 'page')} forgotten. Undo is available for ${Math.round((p.undoUntil - Date.now()) / 1000)} seconds.`;
    });
  };

  useEffect(fitStatus, [message, pending]);

  if (!settings)
    return loadError ? (
      <main class="options">
        <h1 class="brand">Reread options</h1>
        <p role="alert" data-testid="options-load-error">
          The options could not be read: {loadError}
        </p>
        <button type="button" data-testid="options-retry" onClick={loadSettings}>
          Try again
        </button>
      </main>
    ) : (
      <p role="status">Loading…</p>
    );
  const range = rangeFrom || rangeTo ? dayRange(rangeFrom, rangeTo) : null;
  const rangeError = range && 'error' in range ? range.error : null;
  const retentionChanged = retentionDays !== String(settings.retentionDays) || maxStorage !== String(settings.maxStorageMb);
  const retentionValid = /^\d+$/.test(retentionDays.trim()) && /^\d+$/.test(maxStorage.trim());
  // The worker takes at most these (src/settings.ts): a larger number is said here, not refused there.
  const retentionTooLarge = retentionValid && (Number(retentionDays) > MAX_RETENTION_DAYS || Number(maxStorage) > MAX_STORAGE_MB);
  const siteChoice = siteToForget || sites?.[0]?.site || '';

  return (
    <main class="options">
      <h1 class="brand">Reread options</h1>
      {/* The outcome line and the undo bars stay at the top of the window while it scrolls: a button
          near the bottom ("Forget this site", "Apply…") said what it did out of view. */}
      <div ref={statusRef} class={`options__status${message || (pending ?? []).length ? ' is-shown' : ''}`}>
        <p class="options__message" role="status" data-testid="options-message" tabIndex={-1} ref={messageRef}>
          {message}
        </p>
        {exportStopped && (
          <button type="button" data-testid="export-again" onClick={startExport}>
            Start the export again
          </button>
        )}
        {(pending ?? []).length > 0 && (
          <section aria-label="Undo" class="options__undo" data-testid="pending-forgets">
            {(pending ?? []).map((p) => (
              <UndoBar
                key={p.id}
                pending={p}
                focus={undoFocus === p.id}
                onDone={(_undone, msg) => {
                  // Restored, failed, or the time to undo is over: the line above says which.
                  setMessage(msg);
                  // The bar goes with its answer: focus would fall to the page's body. The message saying
                  // the outcome takes it, right where the bar was.
                  const a = document.activeElement;
                  if (!a || a === document.body || a.closest(`[data-forget="${p.id}"]`)) messageRef.current?.focus();
                  setUndoFocus(null);
                  refresh();
                }}
              />
            ))}
          </section>
        )}
      </div>

      <section aria-labelledby="h-stored">
        <h2 id="h-stored">What is stored</h2>
        {!stats && <p>Counting…</p>}
        {stats && (
          <dl class="stats">
            <dt>Pages</dt>
            <dd data-testid="stat-pages">{stats.pages}</dd>
            <dt>Sections</dt>
            <dd data-testid="stat-chunks">{stats.chunks}</dd>
            <dt>Sections still being read for search by meaning</dt>
            <dd data-testid="stat-pending-embeddings">{stats.pendingEmbeddings}</dd>
            <dt>Sites</dt>
            <dd data-testid="stat-sites">{stats.sites}</dd>
            <dt>Storage used</dt>
            <dd data-testid="stat-bytes-text">{stats.bytesUsed !== undefined ? formatBytes(stats.bytesUsed) : 'unknown'}</dd>
          </dl>
        )}
        <p class="hint">Space from forgotten pages is given back when the browser next tidies its database, which can take a while.</p>
        {stats?.recut && (
          <p role="status" data-testid="recut-progress">
            A new version of Reread cuts pages into sections differently: re-cutting stored pages,{' '}
            <progress max={stats.recut.total} value={stats.recut.done} aria-label="Pages re-cut" /> {stats.recut.done.toLocaleString()} of {stats.recut.total.toLocaleString()}. Search works meanwhile.
          </p>
        )}
        {stats?.storageWarning && (
          <p class="warn" data-testid="storage-warning">
            {stats.storageWarning}
          </p>
        )}
      </section>

      <DayOneCard where="options" />

      <PdfNotes />

      <section aria-labelledby="h-saving">
        <h2 id="h-saving">Saving pages</h2>
        <label class="check">
          <input type="checkbox" data-testid="pause" checked={settings.paused} onChange={(e) => void save({ paused: (e.target as HTMLInputElement).checked })} /> Pause saving new pages
        </label>
        <h3 id="h-never">Never save these sites</h3>
        <form
          class="row"
          aria-labelledby="h-never"
          onSubmit={(e) => {
            e.preventDefault();
            const site = normalizeSitePattern(newSite);
            if (!site) return setMessage('That is not a site name (example: news.example.com; “Local files” for PDFs opened from your computer).');
            setNewSite('');
            // Future captures stop at once; what is already stored is only forgotten if the user says so.
            void act('Excluding', async () => {
              await store({ excludedSites: settings.excludedSites.includes(site) ? settings.excludedSites : [...settings.excludedSites, site] });
              const preview = await call('forget/preview', { scope: { kind: 'site', site } });
              if (preview.pages) setAsk({ kind: 'forget', scope: { kind: 'site', site }, preview, extra: `${siteLabel(site)} will not be saved from now on. Its pages already saved can stay searchable, or be forgotten too.` });
              return `${siteLabel(site)} will not be saved from now on.`;
            });
          }}
        >
          <label for="exclude-input" class="visually-hidden">
            Site never to save
          </label>
          <input id="exclude-input" data-testid="exclude-input" placeholder="example.com" value={newSite} onInput={(e) => setNewSite((e.target as HTMLInputElement).value)} />
          <button type="submit" data-testid="exclude-add" disabled={!newSite.trim()}>
            Add
          </button>
        </form>
        <ul class="excluded" data-testid="excluded-list">
          {settings.excludedSites.map((s) => (
            <li key={s}>
              {siteLabel(s)}{' '}
              <button
                type="button"
                class="link"
                aria-label={`Remove ${siteLabel(s)} from this list`}
                onClick={() => {
                  // Its pages are saved again from now on (a bank, a mailbox): said in words, and the site
                  // is put back in the box, focused, so Enter undoes a slip (focus would fall to the page).
                  setNewSite(siteLabel(s));
                  document.getElementById('exclude-input')?.focus();
                  void save({ excludedSites: settings.excludedSites.filter((x) => x !== s) }).then((saved) => {
                    if (saved) setMessage(`${siteLabel(s)} will be saved from now on. To keep it excluded, press Add.`);
                  });
                }}
              >
                remove
              </button>
            </li>
          ))}
        </ul>
        <label class="check">
          <input
            type="checkbox"
            data-testid="follow-history"
            checked={settings.followHistoryDeletes}
            onChange={(e) => {
              const on = (e.target as HTMLInputElement).checked;
              void (async () => {
                // Asked only now, from this click: the history permission is optional.
                if (on && !(await browser.permissions.request({ permissions: ['history'] }).catch(() => false))) {
                  setMessage('Without access to history, Reread cannot follow your history deletions.');
                  return;
                }
                await save({ followHistoryDeletes: on });
              })();
            }}
          />{' '}
          When I clear browsing history, forget the same pages
        </label>

        <h3 id="h-retention">Keep for how long</h3>
        <form
          class="retention"
          aria-labelledby="h-retention"
          onSubmit={(e) => {
            e.preventDefault();
            if (!retentionChanged || !retentionValid) return;
            const patch = { retentionDays: Number(retentionDays), maxStorageMb: Number(maxStorage) };
            void act('Counting', async () => {
              const preview = await call('retention/preview', patch);
              if (!preview.pages) {
                await store(patch);
                return 'Saved. Nothing stored is forgotten by the new settings today.';
              }
              setAsk({ kind: 'retention', patch, preview });
              return '';
            });
          }}
        >
          <Field id="retention-days" label="Forget pages not visited for (days)" hint="0 keeps everything. Applied twice a day.">
            <input id="retention-days" type="number" min={0} max={MAX_RETENTION_DAYS} inputMode="numeric" aria-describedby="retention-days-hint" data-testid="retention-days" value={retentionDays} onInput={(e) => setRetentionDays((e.target as HTMLInputElement).value)} />
          </Field>
          <Field id="max-storage" label="Keep storage under (MB)" hint="0 sets no cap. Over the cap, the least recently visited pages go first.">
            <input id="max-storage" type="number" min={0} max={MAX_STORAGE_MB} inputMode="numeric" aria-describedby="max-storage-hint" data-testid="max-storage" value={maxStorage} onInput={(e) => setMaxStorage((e.target as HTMLInputElement).value)} />
          </Field>
          <div class="row">
            <button type="submit" data-testid="retention-apply" disabled={!retentionChanged || !retentionValid || retentionTooLarge}>
              Apply…
            </button>
            {retentionTooLarge && (
              <span class="hint" role="alert" data-testid="retention-too-large">
                At most {MAX_RETENTION_DAYS.toLocaleString('en')} days and {MAX_STORAGE_MB.toLocaleString('en')} MB.
              </span>
            )}
            {retentionChanged && (
              <button
                type="button"
                class="link"
                onClick={() => {
                  setRetentionDays(String(settings.retentionDays));
                  setMaxStorage(String(settings.maxStorageMb));
                }}
              >
                undo changes
              </button>
            )}
          </div>
        </form>
      </section>

      <section aria-labelledby="h-forget">
        <h2 id="h-forget">Forget</h2>
        <p class="hint">Each of these asks first, with the number of pages, and can be undone for 15 seconds after.</p>
        <div class="forget-block">
          <h3 id="h-forget-site">A site</h3>
          <div class="row">
            <label for="delete-site" class="visually-hidden">
              Site to forget
            </label>
            <select id="delete-site" data-testid="delete-site-select" value={siteChoice} disabled={!sites?.length} onChange={(e) => setSiteToForget((e.target as HTMLSelectElement).value)}>
              {!sites?.length && <option value="">No sites saved</option>}
              {(sites ?? []).map((s) => (
                <option key={s.site} value={s.site}>
                  {siteLabel(s.site)} ({plural(s.pages, 'page')})
                </option>
              ))}
            </select>
            <button type="button" data-testid="delete-site" disabled={!siteChoice} aria-describedby="h-forget-site" onClick={() => siteChoice && askForget({ kind: 'site', site: siteChoice })}>
              Forget this site…
            </button>
          </div>
        </div>
        <div class="forget-block">
          <h3 id="h-forget-range">Pages visited on some days</h3>
          <p class="hint" id="range-definition" data-testid="range-definition">
            Days are in your time zone, from the start of the first day to the end of the last. A page is forgotten if you visited it at any time in
            those days, even if you also visited it before or after.
          </p>
          <div class="row range">
            <div class="field">
              <label for="range-after">First day</label>
              <input type="date" id="range-after" data-testid="range-after" aria-describedby="range-definition" value={rangeFrom} onInput={(e) => setRangeFrom((e.target as HTMLInputElement).value)} />
            </div>
            <div class="field">
              <label for="range-before">Last day</label>
              <input type="date" id="range-before" data-testid="range-before" aria-describedby="range-definition" value={rangeTo} onInput={(e) => setRangeTo((e.target as HTMLInputElement).value)} />
            </div>
            <button type="button" data-testid="delete-range" disabled={!range || 'error' in range} onClick={() => range && !('error' in range) && askForget({ kind: 'range', from: range.from, to: range.to })}>
              Forget these days…
            </button>
          </div>
          {rangeError && (
            <p class="warn" data-testid="range-error">
              {rangeError}
            </p>
          )}
        </div>
        <div class="forget-block">
          <h3>Everything</h3>
          <button type="button" class="danger" data-testid="delete-all" disabled={!stats?.pages} onClick={() => askForget({ kind: 'all' })}>
            Forget everything…
          </button>
        </div>
      </section>

      <section aria-labelledby="h-transfer">
        <h2 id="h-transfer">Export and import</h2>
        <div class="row">
          <button
            type="button"
            data-testid="export"
            onClick={startExport}
          >
            Export all pages (.jsonl file)
          </button>
          <label class="check">
            <input type="checkbox" data-testid="export-vectors" /> Include search-by-meaning data (a larger file; importing it with the same model skips reading the pages again)
          </label>
        </div>
        <div class="field">
          <label for="import-file">Import a Reread export (.jsonl)</label>
          <input
            id="import-file"
            type="file"
            accept=".jsonl,application/x-ndjson,application/json"
            data-testid="import-file"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              const file = input.files?.[0];
              // Emptied at once, so that choosing the same file again (to finish an import that stopped) is a change too.
              input.value = '';
              if (file)
                void act('Importing', async () => {
                  // Read a slice at a time and imported as it arrives (popup/transfer.ts): a file of any size.
                  let r;
                  try {
                    r = await importFromFile(file, call, { progress: setMessage });
                  } catch (e) {
                    // Not "Importing failed": pages are in, and the message says how many and how to finish.
                    if (e instanceof ImportStopped) return e.message;
                    throw e;
                  }
                  // Pages of sites this profile never saves are left out, as capture leaves them out: said, not silent.
                  const left = r.excluded ? ` ${plural(r.excluded, 'page')} of sites you never save ${r.excluded === 1 ? 'was' : 'were'} left out.` : '';
                  return `Imported ${plural(r.pages, 'page')}${r.vectors ? `, with search-by-meaning data for ${plural(r.vectors, 'section')}` : ''}${r.skipped ? ` (${plural(r.skipped, 'line')} skipped)` : ''}.${left}`;
                });
            }}
          />
        </div>
      </section>

      <ModelSettings settings={settings} stats={stats} save={save} say={setMessage} />

      <section aria-labelledby="h-ranking">
        <h2 id="h-ranking">Ranking</h2>
        <details>
          <summary>Advanced ranking (for tinkering: the defaults were tuned on test collections)</summary>
          <p class="hint">
            Results combine two lists: pages found by their words (BM25) and pages found by their meaning. These numbers change how each list
            scores and how much each counts. Changes apply to the next search.
          </p>
          {(
            [
              ['k1', 'Word repetition (BM25 k1): how much a word counts again when repeated', 0, 3, 0.1],
              ['b', 'Length balance (BM25 b): how much long sections are held back', 0, 1, 0.05],
              ['rrfK', 'Fusion depth (k): higher lets lower-ranked results weigh more', 1, 200, 1],
              ['lexicalWeight', 'Weight of the “found by words” list', 0, 3, 0.1],
              ['denseWeight', 'Weight of the “found by meaning” list', 0, 3, 0.1],
            ] as const
          ).map(([key, label, min, max, step]) => (
            <div class="field ranking" key={key}>
              <label for={`ranking-${key}`}>{label}</label>
              <input
                id={`ranking-${key}`}
                type="number"
                min={min}
                max={max}
                step={step}
                data-testid={`ranking-${key}`}
                value={settings.ranking[key]}
                onChange={(e) => {
                  const field = e.target as HTMLInputElement;
                  const value = field.value.trim() === '' ? Number.NaN : Number(field.value);
                  // An emptied or out-of-range field is not saved (an empty one had been saved as 0).
                  if (!Number.isFinite(value) || value < min || value > max) {
                    field.value = String(settings.ranking[key]);
                    setMessage(`${label.split(' (')[0]!.split(':')[0]}: a number from ${min} to ${max}. It stays ${settings.ranking[key]}.`);
                    return;
                  }
                  void save({ ranking: { ...settings.ranking, [key]: value } });
                }}
              />
            </div>
          ))}
        </details>
      </section>

      <section aria-labelledby="h-maintenance">
        <h2 id="h-maintenance">Maintenance</h2>
        <div class="maintenance">
          <div class="maintenance__item">
            <h3>Check the index</h3>
            <p class="hint">Reads everything and reports anything inconsistent. Changes nothing.</p>
            <button
              type="button"
              data-testid="verify"
              onClick={() =>
                void act('Checking', async () => {
                  const r = await call('verify', {});
                  setReport(r);
                  return r.ok ? 'The index is consistent.' : `${plural(r.problems.length, 'problem')} found.`;
                })
              }
            >
              Check
            </button>
          </div>
          <div class="maintenance__item">
            <h3>Repair the index</h3>
            <p class="hint">Rebuilds the search index from the saved sections. Your pages are kept; it can take a while.</p>
            <button
              type="button"
              data-testid="repair"
              onClick={() =>
                void act('Repairing', async () => {
                  const r = await call('verify', { repair: true });
                  setReport(r);
                  return r.ok ? 'Nothing to repair.' : 'Repaired: the index was rebuilt from the stored sections.';
                })
              }
            >
              Repair
            </button>
          </div>
        </div>
        {report && (
          <pre class="report" data-testid="verify-report">
            {report.ok ? 'OK' : report.problems.join('\n')}
            {`\nchecked ${report.checked.chunks.toLocaleString()} sections, ${report.checked.terms.toLocaleString()} terms, ${report.checked.vectors.toLocaleString()} vectors`}
          </pre>
        )}
      </section>

      {ask?.kind === 'forget' && (
        <ConfirmDialog
          title={confirmTitle(ask.scope)}
          confirmLabel={ask.preview ? (ask.preview.pages ? `Forget ${plural(ask.preview.pages, 'page')}` : 'Nothing to forget') : 'Counting…'}
          busy={!ask.preview || ask.preview.pages === 0}
          onCancel={() => {
            setAsk(null);
            setMessage('Nothing was forgotten.');
          }}
          onConfirm={() => doForget(ask.scope)}
        >
          {ask.extra && <p>{ask.extra}</p>}
          <p data-testid="confirm-count">{ask.preview ? (ask.preview.pages ? forgetQuestion(ask.scope, ask.preview) : 'No saved page is in this range.') : 'Counting the pages…'}</p>
          {ask.scope.kind === 'range' && <p class="hint">A page counts if you visited it at any time in those days, in your time zone.</p>}
          <p class="hint">Their text, search index and search-by-meaning data are removed. You can undo for 15 seconds after.</p>
        </ConfirmDialog>
      )}
      {ask?.kind === 'retention' && (
        <ConfirmDialog
          title="Apply the new limits?"
          testId="confirm"
          confirmLabel={`Forget ${plural(ask.preview.pages, 'page')} and apply`}
          onCancel={() => {
            setAsk(null);
            setMessage('Nothing changed.');
          }}
          onConfirm={() => {
            const { patch } = ask;
            setAsk(null);
            void act('Applying', async () => {
              await store(patch);
              return `Applied. ${plural(ask.preview.pages, 'page')} will be forgotten now.`;
            });
          }}
        >
          <p data-testid="confirm-count">
            These settings forget {plural(ask.preview.pages, 'page')} now
            {ask.preview.byAge && ask.preview.cutoff !== undefined ? `: ${plural(ask.preview.byAge, 'page')} not visited since ${formatDay(ask.preview.cutoff)}` : ''}
            {ask.preview.byStorage ? `${ask.preview.byAge ? ', and' : ':'} about ${plural(ask.preview.byStorage, 'page')} visited least recently, to get under the storage cap` : ''}.
          </p>
          <p class="hint">This cannot be undone. Pages you visit again are saved again.</p>
        </ConfirmDialog>
      )}
    </main>
  );
}

const app = document.getElementById('app')!;
app.textContent = '';
render(<Options />, app);
