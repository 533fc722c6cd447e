/**
 * Blocks -> sections: the one cut every capture path makes (the content script on the live page, the
 * backfill on a fetched page, a PDF's text, the background re-cutting a stored page). It runs the pure
 * chunker (src/chunker.ts) over the blocks as the background would accept them (normalizeBlocks, the
 * same code its validator runs), in steps: a caller that gives `pace` gets the work spread over short
 * tasks, the page's (or the worker's) own work running in between.
 */
import { chunkSteps, CHUNKER_VERSION, type Block, type Chunk } from './chunker.js';
import { normalizeSteps } from './validate.js';

export interface Pace {
  /** Resolves when the caller's thread has had time for other work. */
  yieldToPage: () => Promise<void>;
  /** A clock in milliseconds (performance.now in a browser). */
  now: () => number;
  /** Work between two yields, in milliseconds (default 5). */
  sliceMs?: number;
}

export interface Cut {
  /** The blocks as cut (and as the background stores them). */
  blocks: Block[];
  sections: Chunk[];
  /** The chunker that made the sections (CHUNKER_VERSION). */
  chunker: string;
  /** What the caps cut. */
  truncated: { chunks: number; chars: number };
}

/** Cuts blocks into sections; with `pace`, yields to the caller's thread every `sliceMs`. */
export async function cutSections(raw: readonly Block[], pace?: Pace): Promise<Cut> {
  const sliceMs = pace?.sliceMs ?? 5;
  let sliceStart = pace?.now() ?? 0;
  async function run<T>(steps: Generator<void, T>): Promise<T> {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (pace && pace.now() - sliceStart > sliceMs) {
        await pace.yieldToPage();
        sliceStart = pace.now();
      }
    }
  }
  const { blocks } = await run(normalizeSteps(raw));
  const cut = await run(chunkSteps(blocks));
  return { blocks, sections: cut.chunks, chunker: CHUNKER_VERSION, truncated: cut.truncated };
}
