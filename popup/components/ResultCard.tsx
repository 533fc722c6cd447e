/**
 * One result: a page, as a group of options — its best section first, then up to two more sections of
 * the same page.
 *
 * Why this pattern (issue 18): the search box is a combobox that owns a listbox, and the arrow keys
 * move `aria-activedescendant` through the options while focus stays in the box. Screen readers
 * (NVDA, JAWS, VoiceOver, ChromeVox) announce an active option's name and its position as the user
 * types and moves; a listbox of groups tells them which page a section belongs to. An option may hold
 * no interactive content (axe `nested-interactive`: the nested links and buttons of the old cards were
 * announced as one blob and could not be reached), so every section a card links to is an option of
 * its own, and nothing else in a card is a control. Each option is the link itself (`<a role=option>`,
 * allowed by ARIA in HTML), so the mouse keeps what links give it: middle-click, Ctrl-click, "copy link".
 * An option's name is its whole visible text, in reading order (title, section, site, date, how it was
 * found, snippet): a shorter name through aria-labelledby would differ from what is seen (WCAG 2.5.3,
 * axe `label-content-name-mismatch`), and a sighted speech-input user says what they see.
 * A plain list of links with roving focus was the other candidate; it loses typing-while-moving, which is
 * what a search-as-you-type box is for.
 */
import type { ResultSection, SearchResult } from '../../src/protocol.js';
import type { SnippetSegment } from '../../src/snippet.js';
import { faviconUrl, relativeTime } from '../format.js';
import { KindNote } from './KindNote.js';
import { displayLocation, siteLabel } from '../../src/url.js';
import { sameTextName } from '../../src/sameText.js';

export function Snippet({ segments }: { segments: readonly SnippetSegment[] }) {
  // Page-derived text is only ever rendered as text nodes (Preact escapes it), never as HTML. An empty
  // segment is not drawn (an empty <mark> would still paint its padding as a yellow sliver).
  return <>{segments.map((s, i) => (!s.text ? null : s.match ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}</>;
}

function LaneBadges({ lanes }: { lanes: ResultSection['lanes'] }) {
  return (
    // Hidden from screen readers: the option's text already says it in words (lanesInWords), and a
    // second, terser "words meaning" after it was read as noise. The tooltips say it in plain words (the
    // lane's internal rank meant nothing to a reader).
    <span class="lanes" data-testid="result-lanes" aria-hidden="true">
      {lanes.lexical !== undefined && (
        <span class="lane lane--lexical" title="Found by the words you typed" data-lane="lexical">
          words
        </span>
      )}
      {lanes.dense !== undefined && (
        <span class="lane lane--dense" title="Found by meaning: similar wording" data-lane="dense">
          meaning
        </span>
      )}
    </span>
  );
}

/**
 * A section's heading path as a row shows it on one line: the deepest heading, where the link lands and
 * what tells two sections of a page apart ("6.6.2. Recommandations … › Traduction" and "… › Relecture" were
 * cut to the same words), with its parent when another row of the card has the same deepest heading
 * ("open() › Example", "close() › Example"); `above` is the rest of the path, for screen readers.
 */
export function shortPath(path: readonly string[], others: readonly (readonly string[])[] = []): { shown: string; above: string } {
  const last = path[path.length - 1] ?? '';
  const clash = others.some((o) => o !== path && o[o.length - 1] === last);
  const keep = clash && path.length > 1 ? 2 : 1;
  return { shown: path.slice(-keep).join(' › '), above: path.slice(0, -keep).join(' › ') };
}

/** The section's heading path without the page's own heading when the title already says it. */
export function sectionPath(s: ResultSection, title: string): string {
  return pathBelowTitle(s, title).join(' › ');
}

/** `sectionPath`'s headings, as a list. */
export function pathBelowTitle(s: ResultSection, title: string): string[] {
  const first = s.headingPath[0];
  const t = title.trim().toLowerCase();
  return first !== undefined && t && (t === first.trim().toLowerCase() || t.startsWith(first.trim().toLowerCase())) ? s.headingPath.slice(1) : [...s.headingPath];
}

/** Why a section was found, in words for a screen reader (the badges say it visually). */
function lanesInWords(lanes: ResultSection['lanes']): string {
  if (lanes.lexical !== undefined && lanes.dense !== undefined) return 'found by its words and its meaning';
  if (lanes.dense !== undefined) return 'found by its meaning';
  return 'found by its words';
}

/** The options of the list in order: every result's sections, best first. */
export interface OptionRef {
  result: SearchResult;
  section: ResultSection;
}

/** The extra sections a card shows: all of them on the results page, one in the popup (room for 4+ pages). */
export function moreShown(r: SearchResult, compact: boolean): ResultSection[] {
  return compact ? r.more.slice(0, 1) : r.more;
}

export function flattenOptions(results: readonly SearchResult[], compact: boolean): OptionRef[] {
  return results.flatMap((r) => [{ result: r, section: r as ResultSection }, ...moreShown(r, compact).map((m) => ({ result: r, section: m }))]);
}

export const optionId = (n: number): string => `option-${n}`;

export interface ResultCardProps {
  result: SearchResult;
  /** Index of the card's first option in the whole list. */
  firstOption: number;
  selected: number;
  onOpen: (href: string, newTab: boolean) => void;
  onHover: (option: number) => void;
  compact: boolean;
}

export function ResultCard({ result: r, firstOption, selected, onOpen, onHover, compact }: ResultCardProps) {
  const icon = faviconUrl(r.url);
  const base = optionId(firstOption);
  const click = (e: MouseEvent, href: string) => {
    // Plain clicks go through the background (switches to an open tab, jumps to the section);
    // modified clicks keep the browser's own behaviour.
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    onOpen(href, false);
  };
  const path = sectionPath(r, r.title);
  const paths = [r, ...moreShown(r, compact)].map((x) => pathBelowTitle(x, r.title));
  const short = shortPath(paths[0]!, paths);
  const rows = paths.slice(1).map((p) => shortPath(p, paths));
  // A local file's path is not shown with the account name in it (src/url.ts displayLocation).
  const title = r.title || displayLocation(r.url);
  const same = r.sameAs ? sameTextName(r, r.sameAs, displayLocation) : null;
  return (
    <div class="result" role="group" aria-labelledby={`${base}-title`} data-testid="result">
      <a
        id={base}
        class={`result__main${selected === firstOption ? ' is-active' : ''}`}
        role="option"
        aria-selected={selected === firstOption}
        tabIndex={-1}
        href={r.href}
        title={displayLocation(r.url)}
        data-testid="result-link"
        onClick={(e) => click(e, r.href)}
        onMouseMove={() => selected !== firstOption && onHover(firstOption)}
      >
        <span class="result__head">
          {icon && <img class="result__icon" src={icon} alt="" width={16} height={16} />}
          {/* The whole title on hover: one line, it is often cut (the option's own tooltip is the address).
              Page text takes its own direction (dir="auto" here and on every piece of page text below): in
              this left-to-right page an Arabic or Hebrew title's final "!" or "?" was drawn at its start. */}
          <span class="result__title" id={`${base}-title`} data-testid="result-title" title={title} dir="auto">
            {title}
          </span>
        </span>
        {!compact && (
          <span class="result__section" id={`${base}-section`} data-testid="result-section" dir="auto">
            {path}
          </span>
        )}
        <span class="result__meta" id={`${base}-meta`}>
          {/* One line holds section, site, date and lanes: the heading the link lands on, the whole path on hover. */}
          {compact && path && (
            <span class="result__section" data-testid="result-section" dir="auto" title={path}>
              {short.above && <span class="visually-hidden">{short.above} › </span>}
              {short.shown}
            </span>
          )}
          <span class="result__site" data-testid="result-site">
            {siteLabel(r.site)}
          </span>
          <span class="result__date" title={new Date(r.lastVisit).toLocaleString()}>
            {relativeTime(r.lastVisit)}
          </span>
          <span class="visually-hidden">, {lanesInWords(r.lanes)}.</span>
          <LaneBadges lanes={r.lanes} />
          <KindNote result={r} />
        </span>
        {same ? (
          // The passage is an earlier card's word for word (a translation's untranslated section, another
          // version's address): said instead of repeated. The name is isolated (a right-to-left title), the
          // quotes stay outside it.
          <span class="result__same" id={`${base}-snippet`} data-testid="result-same">
            Same text as {same.quoted ? <>“<bdi>{same.name}</bdi>”</> : <bdi>{same.name}</bdi>} above.
          </span>
        ) : (
          <span class={`result__snippet${compact ? ' result__snippet--clamp' : ''}`} id={`${base}-snippet`} data-testid="result-snippet" dir="auto">
            <Snippet segments={r.snippet} />
          </span>
        )}
        {r.whyMatched.length > 0 && !compact && (
          <span class="result__why" data-testid="result-why">
            matched: {r.whyMatched.join(', ')}
          </span>
        )}
      </a>
      {moreShown(r, compact).length > 0 && (
        <div class="result__more" data-testid="result-more">
          {moreShown(r, compact).map((m, i) => {
            const n = firstOption + 1 + i;
            const id = optionId(n);
            return (
              <a
                key={m.chunkId}
                id={id}
                class={`result__more-item${selected === n ? ' is-active' : ''}`}
                role="option"
                aria-selected={selected === n}
                tabIndex={-1}
                href={m.href}
                data-testid="more-link"
                onClick={(e) => click(e, m.href)}
                onMouseMove={() => selected !== n && onHover(n)}
              >
                <span class="visually-hidden" id={`${id}-also`}>
                  Also on this page:{rows[i]!.above ? ` ${rows[i]!.above} ›` : ''}
                </span>
                <span id={`${id}-label`} class="result__more-label" dir="auto" title={sectionPath(m, r.title) || undefined}>
                  {/* A section with no heading of its own below the title is the page's opening text: the
                      title again here read as a second link to the same thing. */}
                  {rows[i]!.shown || 'Top of the page'}
                </span>
                <span class="result__more-snippet" id={`${id}-snippet`}>
                  <span aria-hidden="true">{' — '}</span>
                  <bdi>
                    <Snippet segments={m.snippet} />
                  </bdi>
                </span>
              </a>
            );
          })}
        </div>
      )}
    </div>
  );
}
