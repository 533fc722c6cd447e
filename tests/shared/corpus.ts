/** Generated pages the Chromium and Firefox suites both visit (served from FixtureServer routes). */

/** A small deterministic PRNG so a failure can be replayed. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const TOPICS = ['rivers and their deltas', 'medieval castles', 'sourdough baking', 'orbital mechanics', 'jazz harmony', 'tidal pools', 'bookbinding', 'glacier retreat'];

/**
 * Page `i` of the reliability corpus: three sections by heading; the word `relword{i}x` appears only
 * in its second section, so a search for it names exactly this page.
 */
export function reliabilityPage(i: number): string {
  const topic = TOPICS[i % TOPICS.length]!;
  const sections = [0, 1, 2]
    .map(
      (s) => `<h2 id="s${s}">Part ${s + 1} on ${topic}</h2>
<p>This section ${s + 1} of page ${i} discusses ${topic} at some length, with enough ordinary words to make a proper section for the index. ${s === 1 ? `The marker relword${i}x appears only here.` : ''} Readers return to notes like these when they want to find a detail again.</p>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><title>Notes ${i} on ${topic}</title></head><body><article><h1>Notes ${i}</h1>${sections}</article></body></html>`;
}

/** A short page about `word` (title "{prefix} {word}"), long enough to be captured. */
export function wordPage(prefix: string, word: string): string {
  return `<!doctype html><html lang="en"><head><title>${prefix} ${word}</title></head><body><article><h1>${prefix} ${word}</h1><p>A page about ${word} with enough ordinary words to be worth keeping in the index for later.</p><p>More words about ${word} so the page is not skipped as too short by the capture rules.</p></article></body></html>`;
}
