/** Says how Reread got a result that was not read in a tab: a title from history, a page read later, a PDF. */
import type { SearchResult } from '../../src/protocol.js';
import './dayone.css';

export function KindNote({ result }: { result: Pick<SearchResult, 'kind' | 'lastVisit'> }) {
  if (!result.kind) return null;
  if (result.kind === 'title')
    return (
      <span class="kind-note" data-testid="result-kind" data-kind="title" title="Only its title and address, from your browser history: Reread never read this page">
        from history, not read by Reread
      </span>
    );
  if (result.kind === 'fetched')
    return (
      <span class="kind-note" data-testid="result-kind" data-kind="fetched" title="Fetched from the site later, without your cookies">
        read from the site later
      </span>
    );
  return (
    <span class="kind-note" data-testid="result-kind" data-kind="pdf">
      PDF
    </span>
  );
}
