/**
 * The first-run card, in the popup and in Options: "Search your browsing history from before Reread"
 * (titles first, with the user's consent for the history permission), then "Read these pages now" (the
 * backfill, which contacts each site again: said where it is started), with progress for both.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import { DEFAULT_HISTORY_DAYS, MAX_HISTORY_DAYS, type BackfillAction, type DayOneStatus } from '../../src/dayone.js';
import { SKIP_LABELS, type SkipReason } from '../../src/backfillPolicy.js';
import { call } from '../api.js';
import './dayone.css';

const n = (x: number) => x.toLocaleString();

export function useDayOne(): [DayOneStatus | null, (s: DayOneStatus) => void] {
  const [status, setStatus] = useState<DayOneStatus | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const s = await call('dayone/status', {}).catch(() => null);
      if (!live) return;
      if (s) setStatus(s);
      const busy = s && (s.history.state === 'running' || s.backfill.state === 'running');
      timer = setTimeout(() => void poll(), busy ? 700 : 3000);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  return [status, setStatus];
}

/** The history import's progress as a share of the time range it covers. */
function importShare(s: DayOneStatus['history']): number {
  const span = s.startedAt - (s.from || s.startedAt - 365 * 86_400_000);
  return span > 0 ? Math.max(0, Math.min(1, (s.startedAt - s.cursor) / span)) : 0;
}

/**
 * The popup's room is for results: there the card is one line (the question, or the progress of what
 * runs) until the user opens it; Options shows it whole.
 */
function CompactCard({ status, onOpen, onDismiss }: { status: DayOneStatus; onOpen: () => void; onDismiss: () => void }) {
  const h = status.history;
  const b = status.backfill;
  let text: string;
  let action = 'Set it up';
  let testId = 'dayone-compact-text';
  if (h.state === 'running') text = `Importing your history: ${n(h.imported)} pages so far.`;
  else if (b.state === 'running' || b.state === 'paused' || b.state === 'capped') {
    text = `Reading history pages: ${n(b.done)} of ${n(Math.max(b.total, b.done))}, ${n(b.stored)} stored, ${n(b.skipped)} skipped${b.state === 'paused' ? ' (paused)' : b.state === 'capped' ? ' (daily limit reached)' : ''}.`;
    action = 'Details';
    testId = 'dayone-backfill-progress';
  } else if (h.state === 'idle' || (h.state !== 'done' && !h.imported)) text = 'Search your browsing history from before Reread?';
  else {
    text = `${n(status.titleOnly)} pages from your history are searchable by title.`;
    action = 'Read them now…';
  }
  const busy = h.state === 'running' || b.state === 'running';
  return (
    <section class="dayone dayone--compact" aria-label="Your history from before Reread" data-testid="dayone-card" data-compact="true">
      <p data-testid={testId}>{text}</p>
      {/* Announced when it starts and ends, not at every count. */}
      <p class="visually-hidden" aria-live="polite">
        {h.state === 'running' ? 'Importing your history.' : b.state === 'running' ? 'Reading the pages.' : ''}
      </p>
      <button type="button" class="link" data-testid="dayone-open" onClick={onOpen}>
        {action}
      </button>
      {!busy && (
        <button type="button" class="link" data-testid="dayone-dismiss" onClick={onDismiss}>
          Not now
        </button>
      )}
    </section>
  );
}

export function DayOneCard({ where }: { where: 'popup' | 'options' }) {
  const [status, setStatus] = useDayOne();
  const [days, setDays] = useState(DEFAULT_HISTORY_DAYS);
  const [all, setAll] = useState(false);
  const [cap, setCap] = useState<number | null>(null);
  const [error, setError] = useState('');
  const [open, setOpen] = useState(false);
  // "Set it up" is gone once the card opens: its heading takes focus, or focus would fall to the page.
  const heading = useRef<HTMLHeadingElement>(null);
  // A layout effect: focus moves in the same task as the card opens (with a plain effect it moved a frame
  // later, and a busy machine could see the button gone and focus on the page's body in between).
  useLayoutEffect(() => {
    if (open) heading.current?.focus();
  }, [open]);
  if (!status) return null;
  const h = status.history;
  const b = status.backfill;
  const running = h.state === 'running' || b.state === 'running';
  if (where === 'popup' && status.dismissed && !running) return null;
  // The popup shows the card until both steps are behind the user; Options always does.
  if (where === 'popup' && h.state === 'done' && (b.state === 'done' || b.state === 'cancelled') && !status.titleOnly) return null;
  /** "Not now" (popup only) removes the card with its button: focus goes to the search box, not to the page. */
  const dismiss = async () => {
    setStatus(await call('dayone/dismiss', {}));
    document.querySelector<HTMLInputElement>('.search__box input')?.focus();
  };
  if (where === 'popup' && !open) return <CompactCard status={status} onOpen={() => setOpen(true)} onDismiss={() => void dismiss()} />;
  const id = (s: string) => `dayone-${where}-${s}`;

  const importHistory = async () => {
    setError('');
    const want = all ? 0 : Math.max(1, Math.min(MAX_HISTORY_DAYS, Math.round(days) || DEFAULT_HISTORY_DAYS));
    // Asked for now, from this click (the permission is optional). The popup can close when the
    // browser shows its prompt: the background then starts the import once the permission is added.
    const granted = browser.permissions.request({ permissions: ['history'] }).catch(() => false);
    await call('history/import', { days: want, whenGranted: true }).catch(() => undefined);
    if (!(await granted)) {
      setError('Without access to your history, Reread cannot import it. Nothing was read.');
      return;
    }
    try {
      setStatus(await call('history/import', { days: want }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const backfill = async (action: BackfillAction) => {
    setError('');
    try {
      setStatus(await call('backfill/control', { action, ...(cap !== null ? { dailyCap: cap } : {}) }));
      keepFocus();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  /** After an action whose button goes away (Stop, Pause, Resume, Cancel, Read now): focus stays in the card. */
  const keepFocus = () =>
    setTimeout(() => {
      const at = document.activeElement;
      if (!at || at === document.body || !at.isConnected) heading.current?.focus();
    }, 0);
  const stopImport = async () => {
    setStatus(await call('history/stop', {}));
    keepFocus();
  };

  const importing = h.state === 'running';
  const imported = h.state === 'done' || h.state === 'stopped' || h.imported > 0;
  const reasons = Object.entries(b.reasons) as [SkipReason, number][];
  return (
    <section class="dayone" aria-labelledby={id('title')} data-testid="dayone-card">
      <h2 id={id('title')} ref={heading} tabIndex={-1}>
        Search your browsing history from before Reread
      </h2>
      {!importing && !imported && (
        <>
          <p>
            Reread can add the pages in your browser history — their titles, addresses and visit dates — so you can search them now. They are marked “from history, not read by Reread” until you read them again. Nothing leaves your computer; excluded sites are left out.
          </p>
          <div class="dayone__row">
            <label for={id('days')}>Last</label>
            <input id={id('days')} type="number" min={1} max={MAX_HISTORY_DAYS} value={days} disabled={all} data-testid="dayone-days" onInput={(e) => setDays(Number((e.target as HTMLInputElement).value))} />
            <span>days</span>
            <label>
              <input type="checkbox" checked={all} data-testid="dayone-all" onChange={(e) => setAll((e.target as HTMLInputElement).checked)} /> all of it
            </label>
          </div>
          <div class="dayone__row">
            <button type="button" class="primary" data-testid="dayone-import" onClick={() => void importHistory()}>
              Search my history
            </button>
            {where === 'popup' && (
              <button type="button" class="link" data-testid="dayone-dismiss" onClick={() => void dismiss()}>
                Not now
              </button>
            )}
          </div>
        </>
      )}
      {/* What a screen reader is told: each change of state, not every count (polled twice a second). */}
      <p class="visually-hidden" aria-live="polite" data-testid="dayone-live">
        {importing ? 'Importing your history.' : h.state === 'done' ? 'Your history is imported.' : h.state === 'stopped' ? 'The history import stopped.' : ''}
        {b.state === 'running' ? ' Reading the pages.' : b.state === 'paused' ? ' Reading paused.' : b.state === 'capped' ? ' The daily limit is reached.' : b.state === 'done' ? ' The pages are read.' : ''}
      </p>
      {importing && (
        <div>
          <p data-testid="dayone-import-progress">
            Importing your history: {n(h.imported)} pages so far{h.cursor && h.cursor <= h.startedAt ? `, back to ${new Date(h.cursor).toLocaleDateString()}` : ''}.
          </p>
          <progress max={1} value={importShare(h)} aria-label="History import progress" />
          <div class="dayone__row">
            <button type="button" data-testid="dayone-import-stop" onClick={() => void stopImport()}>
              Stop
            </button>
          </div>
        </div>
      )}
      {!importing && imported && (
        <p data-testid="dayone-import-done">
          {/* The pages there now: forgetting some of them since lowers it (h.imported is what the import stored). */}
          {n(status.fromHistory)} pages from your history {h.days ? `(last ${n(h.days)} days)` : ''} are searchable by title and address{h.state === 'stopped' ? ' (import stopped)' : ''}.
        </p>
      )}
      {h.state === 'error' && h.error && <p class="warn">{h.error}</p>}

      {imported && (
        <>
          <h3>Read these pages now</h3>
          {(b.state === 'idle' || b.state === 'done' || b.state === 'cancelled') && (
            <>
              {status.toRead > 0 || !status.titleOnly ? (
                <p class="dayone__warn" data-testid="dayone-backfill-warning">
                  This contacts each site again: Reread fetches the {n(status.toRead)} pages that are title-only from their sites, without your cookies (pages that need you signed in stay title-only), a few at a time, and indexes their text on this computer.
                </p>
              ) : (
                <p data-testid="dayone-backfill-none">Every title-only page was tried; why each was left title-only is said below.</p>
              )}
              <div class="dayone__row">
                <label for={id('cap')}>At most</label>
                <input id={id('cap')} type="number" min={1} max={100000} value={cap ?? b.dailyCap} data-testid="dayone-cap" onInput={(e) => setCap(Number((e.target as HTMLInputElement).value))} />
                <span>pages a day</span>
              </div>
              <div class="dayone__row">
                <button type="button" class="primary" data-testid="dayone-backfill-start" disabled={!status.toRead} onClick={() => void backfill('start')}>
                  Read these pages now
                </button>
              </div>
            </>
          )}
          {(b.state === 'running' || b.state === 'paused' || b.state === 'capped' || b.done > 0) && (
            <div>
              <p data-testid="dayone-backfill-progress">
                {n(b.done)} of {n(Math.max(b.total, b.done))}, {n(b.stored)} stored, {n(b.skipped)} skipped
                {b.state === 'paused' ? ' — paused' : b.state === 'capped' ? ` — the daily limit (${n(b.dailyCap)}) is reached; it goes on tomorrow` : b.state === 'done' ? ' — done' : b.state === 'cancelled' ? ' — cancelled' : ''}
              </p>
              {(b.state === 'running' || b.state === 'paused' || b.state === 'capped') && <progress max={Math.max(1, b.total)} value={b.done} aria-label="Pages read" />}
              {reasons.length > 0 && <p class="dayone__note">Left title-only: {reasons.map(([r, c]) => `${SKIP_LABELS[r] ?? r} (${n(c)})`).join(', ')}.</p>}
              <div class="dayone__row">
                {b.state === 'running' && (
                  <button type="button" data-testid="dayone-backfill-pause" onClick={() => void backfill('pause')}>
                    Pause
                  </button>
                )}
                {(b.state === 'paused' || b.state === 'capped') && (
                  <button type="button" data-testid="dayone-backfill-resume" onClick={() => void backfill('resume')}>
                    Resume
                  </button>
                )}
                {(b.state === 'running' || b.state === 'paused' || b.state === 'capped') && (
                  <button type="button" data-testid="dayone-backfill-cancel" onClick={() => void backfill('cancel')}>
                    Cancel
                  </button>
                )}
              </div>
            </div>
          )}
        </>
      )}
      {error && (
        <p class="warn" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
