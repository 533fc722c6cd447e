/**
 * The `rr` omnibox keyword: suggestions as you type (the same query syntax as the popup), Enter on the
 * typed text opens the results page, Enter on a suggestion opens that page at its section.
 */
import browser from 'webextension-polyfill';
import { describe } from '../src/omnibox.js';
import type { Engine } from './engine.js';
import { openUrl, searchPageUrl, type Disposition } from './tabs.js';

export const MAX_SUGGESTIONS = 6;

/** Firefox shows descriptions as plain text; Chrome parses them as XML. */
const supportsMarkup = () => !browser.runtime.getURL('').startsWith('moz-extension:');

let latest = 0;

export function registerOmnibox(engine: Engine): void {
  if (!browser.omnibox) return;
  browser.omnibox.setDefaultSuggestion({ description: 'Search what you have read with Reread' });
  browser.omnibox.onInputChanged.addListener((text, suggest) => {
    const ticket = ++latest;
    void engine
      .search({ q: text, limit: MAX_SUGGESTIONS, box: 'omnibox' })
      .then((res) => {
        if (ticket !== latest) return; // a newer keystroke is already being answered
        const markup = supportsMarkup();
        suggest(
          res.results.slice(0, MAX_SUGGESTIONS).map((r) => ({
            content: r.href,
            description: describe(r.title, r.section, r.snippet, markup),
          })),
        );
      })
      .catch(() => {
        if (ticket === latest) suggest([]); // a superseded search's error clears nothing
      });
  });
  browser.omnibox.onInputEntered.addListener((text, disposition) => {
    const d = disposition as Disposition;
    // Our suggestions are result links: web pages, or local PDFs (file://) when file access is allowed.
    const isOurSuggestion = /^(?:https?|file):\/\//i.test(text.trim()) && !/\s/.test(text.trim());
    void openUrl(isOurSuggestion ? text.trim() : searchPageUrl({ q: text }), d);
  });
}
