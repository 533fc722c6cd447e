/**
 * The words of the bundled word-vector model (models/reread/glove-100d, 50,000 English words): a query
 * word among them that the index lacks is a real word the pages do not use ("bread"), not a typo to
 * correct into one they do ("break"); a query word among them is English, and gets no German forms.
 * Read from the extension's own files once, on the first query that needs it: the sorted word list the
 * build writes (scripts/lexicon.mjs), looked up by binary search, or the tokenizer file if a build
 * lacks the list.
 */
import browser from 'webextension-polyfill';
import { lexiconOf, SortedLexicon, type Lexicon } from '../src/spelling.js';
import { traced } from './bootTrace.js';

let words: Promise<Lexicon | null> | null = null;

export function bundledLexicon(): Promise<Lexicon | null> {
  words ??= traced('lexicon fetch', (async () => {
    const list = await fetch(browser.runtime.getURL('models/reread/glove-100d/lexicon.txt')).catch(() => null);
    if (list?.ok) return new SortedLexicon(await list.text());
    const res = await fetch(browser.runtime.getURL('models/reread/glove-100d/tokenizer.json'));
    return lexiconOf(await res.json());
  })()).catch(() => {
    words = null; // try again next time
    return null;
  });
  return words;
}
