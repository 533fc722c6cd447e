/**
 * A timeline of the worker's first moments: module evaluation, the database opening, each whole-store
 * load and each part of the first searches, stamped in epoch milliseconds (performance.timeOrigin +
 * now) so a benchmark can line them up with a keystroke in an extension page (tests/bench/browser.ts
 * afterRestart). Bounded: the first MAX events of a worker's life, then nothing (a push per event).
 */
export interface TraceEvent {
  what: string;
  /** Start, epoch ms. */
  at: number;
  /** Duration, for spans. */
  ms?: number;
}

const MAX = 400;
const events: TraceEvent[] = [];
const clock = () => performance.timeOrigin + performance.now();

export function mark(what: string): void {
  if (events.length < MAX) events.push({ what, at: clock() });
}

/** Records how long `p` takes (from now); returns `p` itself. */
export function traced<T>(what: string, p: Promise<T>): Promise<T> {
  if (events.length >= MAX) return p;
  const at = clock();
  const done = () => {
    if (events.length < MAX) events.push({ what, at, ms: clock() - at });
  };
  p.then(done, done);
  return p;
}

/** The worker's start (its time origin) and the events so far. */
export function bootTrace(): { origin: number; events: TraceEvent[] } {
  return { origin: performance.timeOrigin, events: [...events] };
}
