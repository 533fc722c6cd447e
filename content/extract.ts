/**
 * DOM -> blocks. Reads the page, never changes it. Two extractors:
 * - `walkBlocks` over the live body, boilerplate removed (nav, site header/footer, asides, hidden and
 *   aria-hidden elements, cookie banners, scripts, styles, form controls, editable regions), in time
 *   slices so no task it runs takes long;
 * - Readability over a clone of the document, then the same walk over its article.
 * The caller keeps Readability's article only when it retains most of the cleaned body's text.
 */
import { Readability } from '@mozilla/readability';
import type { Block, BlockKind } from '../src/chunker.js';
import { countWords } from '../src/chunker.js';

export const EXTRACT_LIMITS = {
  maxChars: 2_000_000,
  maxBlocks: 20_000,
  maxNodes: 300_000,
  /** Readability is one synchronous call: only run it on pages small enough to stay under ~50 ms. */
  readabilityMaxElements: 3_000,
};

const SKIP_TAGS = new Set([
  'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'CANVAS', 'IFRAME', 'OBJECT', 'EMBED', 'VIDEO', 'AUDIO',
  'INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'BUTTON', 'NAV', 'ASIDE', 'FOOTER', 'DIALOG', 'MENU', 'HEAD', 'LINK', 'META',
]);
const SKIP_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar', 'toolbar', 'textbox', 'searchbox']);
const BOILERPLATE = /(?:^|[\s_-])(?:cookie|consent|gdpr|cmp-|onetrust|newsletter|subscribe-popup|share-?bar|breadcrumbs?|skip-?link|sidebar|sphinxsidebar|related|footer|masthead|site-?header|toc-?drawer)(?:$|[\s_-])/i;
const HEADINGS: Record<string, number> = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 };
const BLOCK_TAGS = new Set([
  'P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'LI', 'UL', 'OL', 'DL', 'DT', 'DD', 'BLOCKQUOTE', 'FIGURE', 'FIGCAPTION',
  'ADDRESS', 'DETAILS', 'SUMMARY', 'HR', 'BR', 'CAPTION', 'CENTER', 'HGROUP', 'HEADER', 'FORM', 'FIELDSET', 'LEGEND', 'BODY',
]);

export interface WalkOptions {
  /** Check computed visibility (live DOM only; a parsed or cloned document has no layout). */
  checkVisibility: boolean;
  /** Called between slices; resolve to continue (lets the page's own work run in between). */
  yieldToPage?: () => Promise<void>;
  /** Milliseconds of work per slice. */
  sliceMs?: number;
  now?: () => number;
}

export interface WalkResult {
  blocks: Block[];
  words: number;
  truncated: boolean;
  nodes: number;
}

function headingText(el: Element): string {
  // Sphinx and others append a permalink "¶" or "#" to headings.
  return (el.textContent ?? '').replace(/[¶#§🔗]\s*$/u, '').replace(/\s+/g, ' ').trim();
}

/** The id a link can jump to for this heading: its own, a named anchor inside, or its section's. */
function headingId(el: Element): string | undefined {
  if (el.id) return el.id;
  const inner = el.querySelector('[id], a[name]');
  if (inner) return inner.id || inner.getAttribute('name') || undefined;
  const parent = el.parentElement;
  if (parent && (parent.tagName === 'SECTION' || parent.tagName === 'DIV' || parent.tagName === 'ARTICLE') && parent.id && parent.firstElementChild === el) return parent.id;
  const prev = el.previousElementSibling;
  if (prev && prev.tagName === 'A' && (prev.id || prev.getAttribute('name')) && !prev.textContent?.trim()) return prev.id || prev.getAttribute('name') || undefined;
  return undefined;
}

function tableText(table: Element): string {
  const rows: string[] = [];
  for (const tr of Array.from(table.querySelectorAll('tr')).slice(0, 2000)) {
    const cells = Array.from(tr.children).map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean);
    if (cells.length) rows.push(cells.join(' | '));
  }
  return rows.join('\n');
}

function isSkipped(el: Element, opts: WalkOptions, insideMain: boolean): boolean {
  const tag = el.tagName;
  if (SKIP_TAGS.has(tag)) return true;
  if (tag === 'HEADER' && !insideMain) return true;
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true' || el.getAttribute('aria-modal') === 'true') return true;
  const role = el.getAttribute('role');
  if (role && SKIP_ROLES.has(role)) return true;
  if ((el as HTMLElement).isContentEditable && el.getAttribute('contenteditable') !== null) return true;
  const cls = typeof el.className === 'string' ? el.className : '';
  if ((cls || el.id) && BOILERPLATE.test(`${cls} ${el.id}`) && !insideMain) return true;
  if (opts.checkVisibility && BLOCK_TAGS.has(tag)) {
    const e = el as HTMLElement & { checkVisibility?: (o?: object) => boolean };
    if (e.checkVisibility && !e.checkVisibility({ visibilityProperty: true, opacityProperty: false })) return true;
  }
  return false;
}

/**
 * Walks `root` into blocks. Runs in slices of `sliceMs`, awaiting `yieldToPage` between them.
 */
export async function walkBlocks(root: Element, opts: WalkOptions): Promise<WalkResult> {
  const now = opts.now ?? (() => performance.now());
  const sliceMs = opts.sliceMs ?? 8;
  const blocks: Block[] = [];
  let chars = 0;
  let nodes = 0;
  let truncated = false;
  let buffer = '';
  let bufferKind: BlockKind = 'text';
  let pendingId: string | undefined;
  let sliceStart = now();

  const flush = () => {
    const text = buffer.replace(/\s+/g, ' ').trim();
    buffer = '';
    if (!text) return;
    push({ kind: bufferKind, text, ...(pendingId ? { id: pendingId } : {}) });
    pendingId = undefined;
    bufferKind = 'text';
  };
  const push = (b: Block) => {
    if (blocks.length >= EXTRACT_LIMITS.maxBlocks || chars + b.text.length > EXTRACT_LIMITS.maxChars) {
      truncated = true;
      return;
    }
    chars += b.text.length;
    blocks.push(b);
  };

  // Explicit stack instead of recursion: deeply nested hostile markup must not overflow the call stack.
  type Frame = { el: Element; child: ChildNode | null; insideMain: boolean; block: boolean };
  const stack: Frame[] = [{ el: root, child: root.firstChild, insideMain: false, block: true }];
  while (stack.length) {
    if (truncated || nodes > EXTRACT_LIMITS.maxNodes) {
      truncated = true;
      break;
    }
    if (opts.yieldToPage && now() - sliceStart > sliceMs) {
      await opts.yieldToPage();
      sliceStart = now();
    }
    const frame = stack[stack.length - 1]!;
    const node = frame.child;
    if (!node) {
      stack.pop();
      if (frame.block) flush();
      continue;
    }
    frame.child = node.nextSibling;
    nodes++;
    if (node.nodeType === 3) {
      buffer += node.nodeValue ?? '';
      continue;
    }
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    if (isSkipped(el, opts, frame.insideMain)) continue;
    const tag = el.tagName;
    const level = HEADINGS[tag];
    if (level) {
      flush();
      const text = headingText(el);
      if (text) push({ kind: 'heading', level, text, ...(headingId(el) ? { id: headingId(el)! } : {}) });
      continue;
    }
    if (tag === 'PRE') {
      flush();
      const text = (el.textContent ?? '').replace(/\s+$/, '');
      if (text.trim()) push({ kind: 'code', text, ...(el.id ? { id: el.id } : {}) });
      continue;
    }
    if (tag === 'TABLE') {
      flush();
      const text = tableText(el);
      if (text) push({ kind: 'table', text, ...(el.id ? { id: el.id } : {}) });
      continue;
    }
    const block = BLOCK_TAGS.has(tag);
    if (block) {
      flush();
      if (tag === 'LI' || tag === 'DD' || tag === 'DT') bufferKind = 'list';
      if (tag === 'BLOCKQUOTE') bufferKind = 'quote';
    }
    if (el.id && (block || !pendingId)) pendingId ??= el.id;
    if (tag === 'BR') {
      buffer += '\n';
      continue;
    }
    if (!block) buffer += ' ';
    const insideMain = frame.insideMain || tag === 'MAIN' || tag === 'ARTICLE' || el.getAttribute('role') === 'main';
    stack.push({ el, child: el.firstChild, insideMain, block });
  }
  flush();
  const words = blocks.reduce((n, b) => n + countWords(b.text), 0);
  return { blocks, words, truncated, nodes };
}

export interface ReadabilityResult {
  blocks: Block[];
  words: number;
  title: string;
}

/** Readability over a clone of the document (the live page is never touched). */
export async function readabilityBlocks(doc: Document): Promise<ReadabilityResult | null> {
  if (doc.getElementsByTagName('*').length > EXTRACT_LIMITS.readabilityMaxElements) return null;
  let article: { content?: string | null; title?: string | null } | null;
  try {
    const clone = doc.cloneNode(true) as Document;
    article = new Readability(clone, { maxElemsToParse: EXTRACT_LIMITS.readabilityMaxElements, keepClasses: false }).parse();
  } catch {
    return null;
  }
  if (!article?.content) return null;
  // DOMParser documents are inert: no scripts run, nothing loads.
  const parsed = new DOMParser().parseFromString(article.content, 'text/html');
  const res = await walkBlocks(parsed.body, { checkVisibility: false });
  return { blocks: res.blocks, words: res.words, title: article.title ?? '' };
}
