/**
 * "Forgot 12 pages from example.com. Undo" — shown while a forget can still be undone (the pages are
 * only marked until then: see background/forget.ts). Announced politely; the Undo button takes focus
 * when `focus` is set (after a confirmation dialog closes, it is the next thing a person may want).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PendingForget } from '../../src/protocol.js';
import { call } from '../api.js';
import { plural } from '../format.js';
import { displayLocation, siteLabel } from '../../src/url.js';

/** A title or address as a forget's words quote it: long ones are cut at a word. */
function clip(s: string, max = 80): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)).trimEnd()}…`;
}

/**
 * `forgetWords` on screen: a page's title (or address) in its own bidi isolate, so a title written right to
 * left, or holding a direction override, cannot reorder the words said around it.
 */
export function ForgetWords({ f }: { f: Pick<PendingForget, 'scope' | 'pages' | 'title'> }) {
  if (f.scope.kind !== 'page' || !f.pages) return <>{forgetWords(f)}</>;
  const named = f.title ? clip(f.title) : clip(displayLocation(f.scope.url));
  return (
    <>
      Forgot {f.title ? '“' : ''}
      <bdi>{named}</bdi>
      {f.title ? '”' : ''}.
    </>
  );
}

export function forgetWords(f: Pick<PendingForget, 'scope' | 'pages' | 'title'>): string {
  const n = plural(f.pages, 'page');
  switch (f.scope.kind) {
    case 'page':
      return f.pages ? `Forgot ${f.title ? `“${clip(f.title)}”` : clip(displayLocation(f.scope.url))}.` : 'That page was not saved.';
    case 'site':
      return `Forgot ${n} from ${siteLabel(f.scope.site)}.`;
    case 'range':
      return `Forgot ${n} visited in the chosen days.`;
    case 'all':
      return `Forgot all ${n}.`;
  }
}

export function UndoBar({ pending, onDone, focus = false }: { pending: PendingForget; onDone: (undone: boolean, message: string) => void; focus?: boolean }) {
  const [now, setNow] = useState(Date.now());
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focus) button.current?.focus();
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const left = Math.max(0, Math.ceil((pending.undoUntil - now) / 1000));
  useEffect(() => {
    // The final outcome, not what was said while it could still be undone.
    if (left === 0) onDone(false, `${forgetWords(pending)} This can no longer be undone.`);
  }, [left === 0]);
  const undo = async () => {
    try {
      const r = await call('forget/undo', { id: pending.id });
      onDone(true, `Restored ${plural(r.pages, 'page')}.`);
    } catch (e) {
      onDone(false, `Could not undo: ${(e as Error).message}`);
    }
  };
  return (
    <div class="undo" data-testid="undo-bar" data-forget={pending.id}>
      <span>
        <ForgetWords f={pending} /> <span class="undo__left">({left} s to undo)</span>
      </span>
      <button type="button" ref={button} data-testid="undo" onClick={() => void undo()}>
        Undo
      </button>
    </div>
  );
}
