/** One result: the page's best section, with up to two more sections of the same page. */
import type { ResultSection, SearchResult } from '../../src/protocol.js';
import type { SnippetSegment } from '../../src/snippet.js';
import { call } from '../api.js';
import { faviconUrl, relativeTime } from '../format.js';
import { KindNote } from './KindNote.js';

export function Snippet({ segments }: { segments: readonly SnippetSegment[] }) {
  // Page-derived text is only ever rendered as text nodes (Preact escapes it), never as HTML.
  return <>{segments.map((s, i) => (s.match ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}</>;
}

function LaneBadges({ lanes }: { lanes: ResultSection['lanes'] }) {
  return (
    <span class="lanes" data-testid="result-lanes">
      {lanes.lexical !== undefined && (
        <span class="lane lane--lexical" title={`Found by its words (rank ${lanes.lexical})`} data-lane="lexical">
          words
        </span>
      )}
      {lanes.dense !== undefined && (
        <span class="lane lane--dense" title={`Found by its meaning (rank ${lanes.dense})`} data-lane="dense">
          meaning
        </span>
      )}
    </span>
  );
}

function sectionPath(s: ResultSection, title: string): string {
  const path = s.headingPath[0] === title ? s.headingPath.slice(1) : s.headingPath;
  return path.join(' › ');
}

export interface ResultCardProps {
  result: SearchResult;
  index: number;
  selected: boolean;
  onOpen: (newTab: boolean) => void;
  onHover: () => void;
}

export function ResultCard({ result: r, index, selected, onOpen, onHover }: ResultCardProps) {
  const icon = faviconUrl(r.url);
  const click = (e: MouseEvent, href: string) => {
    // Plain clicks go through the background (switches to an open tab, jumps to the section);
    // modified clicks keep the browser's own behaviour.
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (href === r.href) onOpen(false);
    else void call('open', { url: href, newTab: false });
  };
  return (
    <li id={`result-${index}`} class={`result${selected ? ' result--selected' : ''}`} role="option" aria-selected={selected} data-testid="result" onMouseEnter={onHover}>
      <div class="result__head">
        {icon && <img class="result__icon" src={icon} alt="" width={16} height={16} />}
        <a class="result__title" data-testid="result-link" href={r.href} onClick={(e) => click(e, r.href)} title={r.url}>
          <span data-testid="result-title">{r.title || r.url}</span>
        </a>
      </div>
      <div class="result__section" data-testid="result-section">
        {sectionPath(r, r.title)}
      </div>
      <div class="result__meta">
        <span class="result__site" data-testid="result-site">{r.site}</span>
        <span class="result__date" title={new Date(r.lastVisit).toLocaleString()}>
          {relativeTime(r.lastVisit)}
        </span>
        <LaneBadges lanes={r.lanes} />
        <KindNote result={r} />
      </div>
      <p class="result__snippet" data-testid="result-snippet">
        <Snippet segments={r.snippet} />
      </p>
      {r.whyMatched.length > 0 && (
        <div class="result__why" data-testid="result-why">
          matched: {r.whyMatched.join(', ')}
        </div>
      )}
      {r.more.length > 0 && (
        <ul class="result__more" data-testid="result-more">
          {r.more.map((m) => (
            <li key={m.chunkId}>
              <a href={m.href} onClick={(e) => click(e, m.href)} data-testid="more-link">
                {sectionPath(m, r.title) || r.title}
              </a>
              <span class="result__more-snippet">
                {' — '}
                <Snippet segments={m.snippet} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
