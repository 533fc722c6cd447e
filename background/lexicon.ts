/**
 * The words of the bundled word-vector model (models/reread/glove-100d, 50,000 English words): a query
 * word among them that the index lacks is a real word the pages do not use ("bread"), not a typo to
 * correct into one they do ("break"). Read from the extension's own files once, on the first query
 * with a word the index does not know.
 */
import browser from 'webextension-polyfill';
import { lexiconOf } from '../src/spelling.js';
import { traced } from './bootTrace.js';

let words: Promise<ReadonlySet<string> | null> | null = null;

export function bundledLexicon(): Promise<ReadonlySet<string> | null> {
  words ??= traced('lexicon fetch', (async () => {
    const res = await fetch(browser.runtime.getURL('models/reread/glove-100d/tokenizer.json'));
    return lexiconOf(await res.json());
  })()).catch(() => {
    words = null; // try again next time
    return null;
  });
  return words;
}
