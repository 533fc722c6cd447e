/**
 * The `rr` omnibox keyword: suggestions as you type (the same query syntax as the popup), Enter on the
 * typed text opens the results page, Enter on a suggestion opens that page at its section. An address
 * typed after the keyword is searched as the popup and the results page search one (its site and page
 * name, the page at the address first: src/query.ts `addressedQuery`), and the line above the
 * suggestions says so; it is never opened.
 */
import browser from 'webextension-polyfill';
import { omniboxEnter, suggestion, xmlEscape } from '../src/omnibox.js';
import { addressNote, exclusionsOnlyMessage, onlyExclusions, parseQuery, unreadDatesMessage } from '../src/query.js';
import { normalizeStoredUrl } from '../src/url.js';
import type { Engine } from './engine.js';
import { openUrl, searchPageUrl, type Disposition } from './tabs.js';

export const MAX_SUGGESTIONS = 6;

const DEFAULT_LINE = 'Search what you have read with Reread';

/** Firefox shows descriptions as plain text; Chrome parses them as XML. */
const supportsMarkup = () => !browser.runtime.getURL('').startsWith('moz-extension:');

let latest = 0;

/** The text typed after the keyword and the suggestions offered for it (null: none since the worker started). */
let seen: { typed: string; offered: Set<string> } | null = null;

export function registerOmnibox(engine: Engine): void {
  if (!browser.omnibox) return;
  // The line above the suggestions. For a query of exclusions alone (`rr -python`), what the popup and
  // the results page say too: add a word (there is nothing to suggest).
  let defaultLine = DEFAULT_LINE;
  const setDefaultLine = (line: string) => {
    if (line === defaultLine) return;
    defaultLine = line;
    browser.omnibox.setDefaultSuggestion({ description: supportsMarkup() ? xmlEscape(line) : line });
  };
  browser.omnibox.setDefaultSuggestion({ description: DEFAULT_LINE });
  browser.omnibox.onInputStarted.addListener(() => {
    seen = null;
  });
  browser.omnibox.onInputCancelled.addListener(() => {
    seen = null;
  });
  browser.omnibox.onInputChanged.addListener((text, suggest) => {
    const ticket = ++latest;
    // Until this text's suggestions come, Enter on it searches (nothing was offered for it).
    const now = { typed: text, offered: new Set<string>() };
    seen = now;
    const parsed = parseQuery(text);
    const exclusions = onlyExclusions(parsed);
    // A date filter that names no day is searched as words: said here as the search boxes say it.
    setDefaultLine(exclusions ? exclusionsOnlyMessage(exclusions) : parsed.unreadDates ? unreadDatesMessage(parsed.unreadDates) : DEFAULT_LINE);
    void engine
      .search({ q: text, limit: MAX_SUGGESTIONS, box: 'omnibox' })
      .then((res) => {
        if (ticket !== latest) return; // a newer keystroke is already being answered
        // An address: what it was searched as ("Searching docs.python.org for “json”, …"), as the search boxes say.
        if (res.address) setDefaultLine(addressNote(res.address, res.address.page));
        const markup = supportsMarkup();
        const suggestions = res.results.slice(0, MAX_SUGGESTIONS).map((r) => suggestion(r, markup));
        for (const s of suggestions) now.offered.add(s.content);
        suggest(suggestions);
      })
      .catch(() => {
        if (ticket === latest) suggest([]); // a superseded search's error clears nothing
      });
  });
  browser.omnibox.onInputEntered.addListener((text, disposition) => {
    const d = disposition as Disposition;
    const was = seen;
    seen = null;
    void (async () => {
      // Our suggestions are result links: web pages, or local PDFs (file://) when file access is allowed.
      // An address is opened only if it was one of them (or, the worker having stopped since, a stored page).
      const url = was ? null : normalizeStoredUrl(text.trim());
      const stored = !!url && !!(await engine.pages.get(url).catch(() => undefined)) && !engine.pages.isHidden(url);
      if (omniboxEnter(text, was, stored) === 'open') return openUrl(text.trim(), d);
      return openUrl(searchPageUrl({ q: text }), d);
    })().catch((e: unknown) => console.warn('reread: omnibox', e));
  });
}
