/**
 * Does a class or id name page navigation? What `<nav>` and `role=navigation` say, for pages that say
 * it with a name: DocBook's `navheader`/`navfooter` (前へ 目次 次へ, Prev Up Next), Bootstrap's `navbar`,
 * WordPress's `nav-links`/`post-navigation`, `pagination`/`pager` link rows, and the camelCase, kebab
 * and snake names sites make of them (`topNav`, `site-nav`, `navBar`, `main_navigation`, `SideNav`).
 *
 * Names are read as words, not substrings: each class (or the id) is cut at `-`, `_`, `.`, `:` and
 * camelCase humps into tokens, so `canvas`, `unavailable`, `navy` or `pageRank` name nothing. A token
 * names navigation when it is `nav` or one of its common compounds (`navbar`, `topnav`, `navlinks`…),
 * `navigation`, `pagination`, `paginator` or `pager`. The last token is the name's head (`post-navigation`
 * is navigation; `navigation-guide`, `nav-example` are a guide and an example about it), so a name whose
 * head is a content word names content. Ids cut into more than three tokens are usually made from a
 * heading (`navigation-in-the-app`) and name nothing.
 *
 * The caller keeps the other half of the rule: an element that is or holds the page's `h1`, a main
 * landmark or an article is never dropped, whatever its name (content/extract.ts).
 */

/** `nav` alone or with a layout word before or after it, written as one word (`topnav`, `navbar`, `sidenavigation`). */
const NAV_TOKEN =
  /^(?:(?:top|side|sub|main|site|global|primary|secondary|mobile|page|local|docs?|book|left|right|footer|header|section|chapter|post|utility|quick|breadcrumb)?nav(?:s|bar|bars|igation|header|footer|panel|menu|links?|list|items?|tabs?|wrap|wrapper|container|box|area|block)?|(?:top|side|sub|main|site|global|primary|secondary|mobile|page|post|footer|header)?navigation|pagination|paginator|pager)$/;

/**
 * A table of contents, by name: `toc` alone or with a layout word (`tocframe`, `toc-wrapper`,
 * `sidebar-toc`), or the words "table of contents" (`table-of-contents`, `TableOfContents`). Not Sphinx's
 * `toctree`, which holds an index page's own list of its chapters.
 */
const CONTENTS_TOKEN = /^toc(?:frame|wrapper|container|sidebar|nav|list|box|panel|block|drawer)?$/;
const CONTENT_HEAD =
  /^(?:guides?|tutorials?|articles?|lessons?|chapters?|docs?|documentation|howtos?|faqs?|examples?|demos?|samples?|previews?|playground|showcase|stor(?:y|ies)|essays?|manual|course|overview|intro(?:duction)?|answers?|questions?|reference|readme)$/;

/** Cheap first test: most names have neither. */
const MAYBE = /nav|pag/i;
const MAYBE_CONTENTS = /toc|contents/i;
const SEPARATORS = /[-_.:]+/;
const HUMP = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])/;

/** The lower-cased tokens of one class or id (`topNavBar` → top, nav, bar; `site-nav__list` → site, nav, list). */
export function nameTokens(name: string): string[] {
  const out: string[] = [];
  for (const piece of name.split(SEPARATORS)) {
    if (!piece) continue;
    for (const t of piece.split(HUMP)) if (t) out.push(t.toLowerCase());
  }
  return out;
}

/** Whether one class name or id, cut into tokens, names navigation (see the header), or with `contents` a table of contents. */
function oneNames(name: string, isId: boolean, contents = false): boolean {
  if (!(contents ? MAYBE_CONTENTS : MAYBE).test(name)) return false;
  const tokens = nameTokens(name);
  if (!tokens.length || (isId && tokens.length > 3)) return false;
  const named = contents ? tokens.some((t) => CONTENTS_TOKEN.test(t)) || tokens.join(' ').includes('table of contents') : tokens.some((t) => NAV_TOKEN.test(t));
  if (!named) return false;
  return !CONTENT_HEAD.test(tokens[tokens.length - 1]!);
}

/**
 * Whether an element's class (any of its classes) or id names a table of contents (CONTENTS_TOKEN).
 * Kept apart from navigation: a page whose only text is its table of contents (a chapter's index page)
 * keeps it (content/pageCapture.ts).
 */
export function namesContents(cls: string | null, id: string): boolean {
  if (cls && MAYBE_CONTENTS.test(cls)) for (const c of cls.split(/\s+/)) if (c && oneNames(c, false, true)) return true;
  return !!id && oneNames(id.trim(), true, true);
}

/** Whether an element's class attribute (any of its classes) names navigation. */
export function classNamesNavigation(cls: string): boolean {
  if (!MAYBE.test(cls)) return false;
  for (const c of cls.split(/\s+/)) if (c && oneNames(c, false)) return true;
  return false;
}

/** Whether an element's id names navigation. */
export function idNamesNavigation(id: string): boolean {
  return oneNames(id.trim(), true);
}
