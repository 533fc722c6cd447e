/**
 * The one list of console messages from Reread that the Firefox tests allow. Every other error or
 * warning whose source is the add-on (its background page, its pages, its content scripts) fails the
 * test file that saw it (see `expectCleanConsole` in each file's afterAll).
 *
 * Each entry names the message, says why it is harmless, and why it cannot be fixed on our side.
 */

export interface ConsoleEntry {
  /** 'script': an error report (uncaught error, CSP report); 'console': console.warn/error; 'message': other. */
  kind: 'script' | 'console' | 'message';
  level: 'error' | 'warn' | 'info' | 'log' | 'debug' | string;
  message: string;
  source: string;
  category: string;
}

export interface AllowedMessage {
  match: (e: ConsoleEntry) => boolean;
  why: string;
}

export const ALLOWED_CONSOLE_MESSAGES: AllowedMessage[] = [
  {
    match: (e) => e.kind === 'script' && /^sendRemoveListener on closed conduit /.test(e.message) && /ConduitsChild\.sys\.mjs/.test(e.source),
    why:
      "Firefox's own code: when a background page is suspended, its listeners are removed after the page's " +
      'message channel (conduit) has already closed. Logged by ConduitsChild.sys.mjs, once per listener, after ' +
      'every suspension; nothing of ours runs then.',
  },
  {
    match: (e) =>
      e.kind === 'script' &&
      /^Promise (resolved|rejected) while context is inactive(: Could not establish connection\. Receiving end does not exist\.)?\s*$/.test(e.message) &&
      /\/(content|early)\.js:/.test(e.source),
    why:
      'Firefox reports an extension API promise that settles after its page went into the back-forward cache: a ' +
      'content script whose page was left while its hello or capture was being answered, or while the message was ' +
      'refused because the background page was being suspended ("Receiving end does not exist"; our code catches ' +
      'it and retries while the page lives). What the page had to hand over went to the outbox before it was left.',
  },
  {
    match: (e) => e.kind === 'script' && /^Promise (resolved|rejected) after context unloaded(: An unexpected error occurred)?\s*$/.test(e.message) && /\/background\.js:/.test(e.source),
    why:
      'The background page was suspended (the tests suspend it on purpose) while one of its promises was pending; ' +
      'Firefox reports it when it settles in the unloaded page, resolved or, for an API call the unloading cut off ' +
      '("An unexpected error occurred": seen for the capture gate written at start, clean-clone run of 2026-12-08), ' +
      'rejected. Work cut off this way is redone at the next start (the gate is written again at every start).',
  },
  {
    match: (e) =>
      e.kind === 'script' &&
      /^Promise rejected after context unloaded: Actor 'Conduits' destroyed before query 'RuntimeMessage' was resolved\s*$/.test(e.message) &&
      /\/(assets\/[\w-]+|content|early)\.js:/.test(e.source),
    why:
      'A page closed while one of its requests to the background was still unanswered: an extension page (the ' +
      'options page refreshes its counters; the tests close pages at once), or a web page left while its content ' +
      "script's capture was being sent (handed to the outbox as the page went). Firefox rejects the request after " +
      'the page is gone and reports it; there is no page left to handle it.',
  },
  {
    match: (e) => e.kind === 'script' && /^Promise resolved after context unloaded\s*$/.test(e.message) && /\/assets\/[\w-]+\.js:/.test(e.source),
    why:
      'The resolved twin of the entry above: an extension page (popup, options, its day-one card polling the ' +
      'import/backfill status) closed while the background was answering one of its requests; Firefox settles the ' +
      'promise after the page is gone and reports it. Nothing is left to handle the answer, and nothing is lost.',
  },
  {
    match: (e) => e.kind === 'script' && e.level === 'warn' && /^Script terminated by timeout at:/.test(e.message) && /\/content\.js:/.test(e.source),
    why:
      'Firefox stops the scripts a page is running when a navigation from outside the page (address bar, ' +
      'back/forward, automation) begins; that can hit the content script while it hands the capture over at ' +
      "pagehide. The hand-over is done at beforeunload, before such a navigation starts (content/main.ts), so " +
      'nothing is lost (tests/firefox/reliability.test.ts); the warning is the interruption itself.',
  },
  {
    match: (e) => e.kind === 'script' && e.level === 'warn' && /^An IndexedDB transaction that was not yet complete has been aborted due to page navigation\.$/.test(e.message) && /\/background\.js:/.test(e.source),
    why:
      'Logged when the background page is suspended (the tests suspend it on purpose) while a transaction is open. ' +
      'Writes are one transaction each, so an aborted one leaves nothing half-done, and the work is redone at the ' +
      'next start (captures from the outbox, embeddings from their queue).',
  },
];

export function isAllowedConsoleMessage(e: ConsoleEntry): boolean {
  return ALLOWED_CONSOLE_MESSAGES.some((a) => a.match(e));
}
