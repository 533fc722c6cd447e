/**
 * The capture step on a parsed document (what the backfill does with a fetched page, DOMParser in the
 * offscreen document or background page): the same function the content script runs on the live page,
 * and what it returns is what the background accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { chunkBlocks, CHUNKER_VERSION } from '../../src/chunker.js';
import { validateCapture } from '../../src/validate.js';
import { captureDocument, pageLanguage } from '../../content/pageCapture.js';
import { partAt } from '../../src/search.js';
import { tooLittleText } from '../../src/indexing.js';
import { parseDocument } from '../eval/lib/dom.js';
import { parseQuery } from '../../src/query.js';

const words = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`).join(' ');

describe('captureDocument on a parsed page', () => {
  it('extracts the main content, cuts it like the background would, and the background accepts it as sent', async () => {
    const { document } = parseHTML(`<!doctype html><html lang="en"><head><title>Fetched page</title></head><body>
      <nav>Home | About | Contact</nav>
      <main><h1 id="top">Fetched page</h1><p>${words(60, 'intro')}.</p>
      <h2 id="usage">Usage</h2><p>${words(500, 'use')}.</p><pre id="ex">x = 1\n  y = 2</pre></main>
      <footer>Copyright</footer></body></html>`);
    // linkedom has no DOMImplementation (browsers do): the sanitised copy for Readability comes from it.
    Object.defineProperty(document, 'implementation', { value: { createHTMLDocument: () => parseHTML('<!doctype html><html><head></head><body></body></html>').document } });
    let yields = 0;
    const got = (await captureDocument(document as unknown as Document, { live: false, fallbackTitle: 'example.com', yieldToPage: async () => void yields++ }))!;
    expect(got.payload.title).toBe('Fetched page');
    expect(got.payload.lang).toBe('en');
    expect(got.payload.chunker).toBe(CHUNKER_VERSION);
    expect(got.payload.blocks.map((b) => b.text).join(' ')).not.toMatch(/Home \| About|Copyright/);
    expect(got.payload.sections).toEqual(chunkBlocks(got.payload.blocks).chunks);
    expect(got.payload.sections.map((s) => s.anchor.id)).toContain('usage');
    expect(yields).toBeGreaterThan(0);
    const { payload } = validateCapture(JSON.parse(JSON.stringify(got.payload)));
    expect(payload.sections).toEqual(got.payload.sections);
  });

  it('returns null for a document without a body', async () => {
    const doc = { body: null } as unknown as Document;
    expect(await captureDocument(doc, { live: false, fallbackTitle: 'x' })).toBeNull();
  });
});

/** Captures a page as the backfill and the evaluation do (parsed, no layout; Readability on small pages): its sections' texts. */
async function sectionsOf(html: string): Promise<string[]> {
  const got = await captureDocument(parseDocument(html), { live: false, fallbackTitle: 'example.com' });
  return got ? got.payload.sections.map((s) => s.text) : [];
}
const HARD = join(import.meta.dirname, '../fixtures/hard');

/** A DocBook XSL chapter page (maint-guide's shape): the chapter's id on an empty `<a id>` inside its h1. */
function docbookChapter(): string {
  const sentence = (w: string) => `The ${w} step needs a clean tree, a signed changelog and a quiet afternoon before ${w} begins.`;
  const sect = (id: string, title: string, w: string) =>
    `<div class="section"><div class="titlepage"><div><div><h2 class="title" style="clear: both"><a id="${id}"></a>${title}</h2></div></div></div>
    <p>${Array.from({ length: 6 }, () => sentence(w)).join(' ')}</p><p>${Array.from({ length: 5 }, () => sentence(w)).join(' ')}</p></div>`;
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter 6. Building the package</title>
<meta name="generator" content="DocBook XSL Stylesheets Vsnapshot"/></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">Chapter 6. Building the package</th></tr>
<tr><td align="left"><a accesskey="p" href="dother.en.html">Prev</a></td><th width="60%" align="center"> </th><td align="right"><a accesskey="n" href="checkit.en.html">Next</a></td></tr></table><hr/></div>
<div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="build"></a>Chapter 6. Building the package</h1></div></div></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">
<dt><span class="section"><a href="build.en.html#completebuild">6.1. Complete (re)build</a></span></dt>
<dt><span class="section"><a href="build.en.html#autobuilder">6.2. Autobuilder</a></span></dt></dl></div>
<p>The rewrite of this tutorial with updated contents and more practical examples is available as a separate guide for maintainers of packages.</p>
<p>We should now be ready to build the package from its pristine sources with the ravelquill helper.</p>
${sect('completebuild', '6.1. Complete (re)build', 'thornbuild')}
${sect('autobuilder', '6.2. Autobuilder', 'buildd')}
</div>
<div class="navfooter"><hr/><table width="100%" summary="Navigation footer"><tr><td align="left"><a accesskey="p" href="dother.en.html">Prev</a></td><td align="right"><a accesskey="n" href="checkit.en.html">Next</a></td></tr></table></div>
</body></html>`;
}

describe('soft hyphens a hyphenation script put into the text are no part of its words', () => {
  it('stores "Konfiguration" whole, in headings and paragraphs, and a query copied with them reads the word whole', async () => {
    const shy = (w: string) => w.replace(/(?<=[aeiouy])(?=[^aeiouy])/g, '\u00ad');
    const { document } = parseHTML(`<!doctype html><html lang="de"><head><title>Handbuch</title></head><body><main>
      <h1 id="top">${shy('Konfiguration')} des Systems</h1><p>${shy('Die Konfigurationsdatei liegt unter etc und wird beim Systemstart gelesen')}. ${words(60, 'text')}.</p></main></body></html>`);
    Object.defineProperty(document, 'implementation', { value: { createHTMLDocument: () => parseHTML('<!doctype html><html><head></head><body></body></html>').document } });
    const got = (await captureDocument(document as unknown as Document, { live: false, fallbackTitle: 'example.com', yieldToPage: async () => undefined }))!;
    const text = got.payload.blocks.map((b) => b.text).join(' ');
    expect(text).toContain('Konfiguration des Systems');
    expect(text).toContain('Konfigurationsdatei liegt');
    expect(text).not.toContain('\u00ad');
    expect(parseQuery(shy('Konfigurationsdatei')).text).toBe('Konfigurationsdatei');
  });
});

describe('a DocBook chapter introduction links to the chapter heading (issue #13)', () => {
  it("keeps the chapter's h1 that Readability drops as the page title, so its introduction has a heading and the h1's inner <a id>", async () => {
    const got = (await captureDocument(parseDocument(docbookChapter()), { live: false, fallbackTitle: 'example.com' }))!;
    // Small enough for Readability: the path that lost the chapter heading.
    expect(got.extraction.method).toBe('merged');
    const intro = got.payload.sections.find((s) => s.text.includes('ravelquill'))!;
    expect(intro.headingPath).toEqual(['Chapter 6. Building the package']);
    expect(intro.anchor).toEqual({ id: 'build' });
    // The sections keep their own ids, under the chapter.
    const build = got.payload.sections.find((s) => s.text.includes('thornbuild'))!;
    expect(build.headingPath).toEqual(['Chapter 6. Building the package', '6.1. Complete (re)build']);
    expect(build.anchor).toEqual({ id: 'completebuild', above: [{ depth: 0, id: 'build' }] });
    expect(got.payload.sections.find((s) => s.text.includes('buildd'))!.anchor).toEqual({ id: 'autobuilder', above: [{ depth: 0, id: 'build' }] });
    // Navigation stays out.
    expect(got.payload.sections.map((s) => s.text).join('\n')).not.toMatch(/Prev|Next/);
  });
});

describe('page navigation is not content (content/extract.ts NAVIGATION)', () => {
  it('leaves a DocBook navheader and navfooter out of every section and keeps the chapter', async () => {
    const texts = await sectionsOf(readFileSync(join(HARD, 'docbook-nav.html'), 'utf8'));
    const all = texts.join('\n');
    // The nav rows: link labels (前へ 次へ, Prev Up Next) and the neighbours' titles, which are plain cells.
    for (const nav of ['前へ', '次へ', 'Prev', 'Next', 'ハシバミ選択', 'ヤマセミ利用', 'ホーム']) expect(all).not.toContain(nav);
    // The chapter: its table of contents and both sections, each with its own words.
    expect(texts.some((t) => t.includes('4.2. ツグミソウの花は何色ですか?') && t.includes('4.1.'))).toBe(true);
    expect(texts.some((t) => t.includes('quillbramble'))).toBe(true);
    expect(texts.some((t) => t.includes('snowmarrow'))).toBe(true);
  });

  it('keeps a heading whose id is made from a word the site chrome also uses (AsciiDoc `_footer`)', async () => {
    const para = (w: string) => `<div class="paragraph"><p>The ${w} record follows the last block; readers check its ${w} checksum before trusting any ${w} offset it gives.</p></div>`;
    const html = `<!doctype html><html lang="en"><head><title>reftable</title></head><body><div id="header"><h1>reftable</h1></div>
      <div id="content"><div class="sect1"><h2 id="_format">Format</h2><div class="sectionbody">${para('format')}
      <div class="sect2"><h3 id="_footer">Footer</h3>${para('footer')}</div>
      <div class="sect2"><h3 id="_related_tables">Related tables</h3>${para('related')}</div>
      <div class="sect2"><h3><a id="_sidebar"></a>Sidebar layout</h3>${para('sidebar')}</div></div></div></div>
      <div id="footer"><div id="footer-text">Last updated 2023-01-01 12:00:00 UTC</div></div></body></html>`;
    const got = (await captureDocument(parseDocument(html), { live: false, fallbackTitle: 'example.com' }))!;
    const paths = got.payload.sections.map((s) => s.headingPath.join(' > '));
    for (const h of ['Footer', 'Related tables', 'Sidebar layout']) expect(paths.some((p) => p.endsWith(h)) || got.payload.sections.some((s) => s.parts?.some((q) => q.headingPath.at(-1) === h))).toBe(true);
    const all = got.payload.sections.map((s) => s.text).join('\n');
    expect(all).toContain('The footer record follows');
    // The page's own footer (a div whose id says so, outside the content) is still left out.
    expect(all).not.toContain('Last updated');
  });

  it("keeps a table of contents page's contents (a page of links is still a page)", async () => {
    const all = (await sectionsOf(readFileSync(join(HARD, 'docbook-toc.html'), 'utf8'))).join('\n');
    for (const entry of ['1. 定義と概要', '1.2. 名前の由来は? (wrenwhistle)', '4.2. ツグミソウの花は何色ですか?']) expect(all).toContain(entry);
    expect(all).not.toContain('ハシバミ定義');
    expect(all).not.toMatch(/次へ|Next/);
  });

  it('leaves out navigation named in camelCase, kebab or snake case, by class or id (src/navigationNames.ts)', async () => {
    const all = (await sectionsOf(readFileSync(join(HARD, 'nav-names.html'), 'utf8'))).join('\n');
    // topNav, site-nav, navBar, sidebar-nav, main_navigation, paginationWrapper, id SideNav: each row's own word.
    for (const nav of ['quarrelwick', 'brindlefen', 'tattersloe', 'mottlegrass', 'gorsepuddle', 'wimbleshank', 'flinderbrook']) expect(all).not.toContain(nav);
    for (const kept of ['Marsh orchids of the lowlands', 'fenwhistle', 'reedlantern']) expect(all).toContain(kept);
  });

  it('keeps content whose class only looks like navigation: canvas, unavailable, navigation-guide, navy, an article, the h1 wrapper', async () => {
    const all = (await sectionsOf(readFileSync(join(HARD, 'nav-lookalikes.html'), 'utf8'))).join('\n');
    for (const kept of ['hollowmere', 'saltgrove', 'brackwater', 'ferncaster', 'glimmerstone', 'quillmarsh']) expect(all).toContain(kept);
  });

  it('never drops a wrapper that holds the page because its class mentions navigation', async () => {
    const body = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const all = (
      await sectionsOf(`<!doctype html><html lang="en"><head><title>T</title></head><body><div class="page nav-open">
        <div class="pagination"><a href="/1">1</a> <a href="/2">2</a> <a href="/3">older posts</a></div>
        <h1>Gentian meadows</h1><p>${body} gentianwort.</p></div></body></html>`)
    ).join('\n');
    expect(all).toContain('gentianwort');
    expect(all).not.toContain('older posts');
  });
});

describe('what a page shows on request is content (content/extract.ts COLLAPSED)', () => {
  it('reads the body of a closed <details> and what hidden="until-found" holds from a parsed page too; hidden, form values and menus stay out', async () => {
    // The page the e2e test captures live (tests/e2e/capture.test.ts): a parsed page has no style sheet,
    // so what CSS hides is not judged here, only the markup's own rules.
    const all = (await sectionsOf(readFileSync(join(HARD, 'collapsed.html'), 'utf8'))).join('\n');
    for (const kept of ['hivestoreword', 'admonitionword', 'guardfittingword', 'entranceclearword', 'untilfoundword']) expect(all, kept).toContain(kept);
    for (const out of ['ariadetailsword', 'detailsinputword', 'detailstextareaword', 'detailsbuttonword', 'plainhiddenword', 'dropdownmenuword']) expect(all, out).not.toContain(out);
  });
});

describe("a site's name above the page is no heading of it (content/extract.ts namesSite)", () => {
  /** The sections' heading paths of a page captured at `url` (as the backfill and the evaluation do). */
  async function pathsAt(html: string, url?: string): Promise<{ path: string[]; text: string }[]> {
    const got = (await captureDocument(parseDocument(html), { live: false, fallbackTitle: 'example.com', ...(url ? { url } : {}) }))!;
    return got.payload.sections.map((s) => ({ path: s.headingPath, text: s.text }));
  }
  const exim = () => readFileSync(join(HARD, 'site-header.html'), 'utf8');
  const blog = () => readFileSync(join(HARD, 'blog-permalink.html'), 'utf8');

  it("leaves out a heading that is one link to the site's root, before the content (Exim's specification)", async () => {
    for (const url of ['https://www.example.org/doc/spec_html/site-header.html', 'https://exim.reread.test/site-header.html']) {
      const sections = await pathsAt(exim(), url);
      expect(sections.find((s) => s.text.includes('acltestword'))?.path, url).toEqual(['Chapter 43 - Access control lists', '1. Testing ACLs']);
      for (const s of sections) expect(s.text, url).not.toContain('Example Internet Mailer');
    }
  });

  it('keeps a heading that links to its own page (a blog post\'s permalink), and a link to the root once the content has begun', async () => {
    for (const url of ['https://blog.example/hard/this-post/', 'https://blog.example/hard/this-post/#comments']) {
      const sections = await pathsAt(blog(), url);
      expect(sections.find((s) => s.text.includes('coldframeword'))?.path, url).toEqual(['Wintering bees in a cold frame']);
      expect(sections.find((s) => s.text.includes('ventilationword'))?.path, url).toEqual(['Wintering bees in a cold frame', 'Ventilation']);
      // The blog's name (a link to its home, before the post) is not a heading.
      for (const s of sections) expect(s.path, url).not.toContain('Hive Notes');
      expect(sections.find((s) => s.text.includes('backpostsword'))?.path.at(-1), url).toBe('Back to all posts');
    }
  });

  it("keeps it on the root page itself, and wherever the page's address is not known", async () => {
    const home = exim().replace('href="http://www.example.org"', 'href="/"');
    for (const url of ['https://www.example.org/', 'https://example.org/index.html', undefined]) {
      const sections = await pathsAt(home, url);
      expect(sections.find((s) => s.text.includes('acltestword'))?.path, String(url)).toEqual(['Example Internet Mailer', 'Chapter 43 - Access control lists', '1. Testing ACLs']);
    }
  });

  it('keeps a heading that is a link to another page that is not a root, or that holds more than the link', async () => {
    for (const [from, to] of [
      ['href="http://www.example.org"', 'href="http://www.example.org/docs/"'],
      ['href="http://www.example.org"', 'href="http://www.example.org/?lang=en"'],
      ['>Example Internet Mailer</a>', '>Example</a> Internet Mailer'],
    ] as const) {
      const sections = await pathsAt(exim().replace(from, to), 'https://www.example.org/doc/spec_html/site-header.html');
      expect(sections.find((s) => s.text.includes('acltestword'))?.path[0], to).toBe('Example Internet Mailer');
    }
  });
});

describe("a <details> summary heads its answer's section (content/extract.ts summaryHeading)", () => {
  /** A page captured as the backfill and the evaluation do it (no layout: a closed <details> is one without `open`). */
  async function cut(file: string, url?: string) {
    return (await captureDocument(parseDocument(readFileSync(join(HARD, file), 'utf8')), { live: false, fallbackTitle: 'example.com', ...(url ? { url } : {}) }))!.payload;
  }
  /**
   * Where a result for `word` links, as search's present() picks it: the merged sub-section the word
   * falls in (partAt), else the section's own heading path and anchor.
   */
  function at(payload: Awaited<ReturnType<typeof cut>>, word: string): { path: string[]; anchor: { id?: string; text?: string } } {
    const c = payload.sections.find((s) => s.text.includes(word));
    if (!c) throw new Error(`${word} is in no section`);
    const part = partAt(c, c.text.indexOf(word));
    const { id, text } = part ? part.anchor : c.anchor;
    return { path: part ? part.headingPath : c.headingPath, anchor: { ...(id ? { id } : {}), ...(text ? { text } : {}) } };
  }
  const paths = (payload: Awaited<ReturnType<typeof cut>>) => payload.sections.flatMap((s) => [s.headingPath, ...(s.parts ?? []).map((p) => p.headingPath)]);

  it('a hand-written FAQ: each answer is a section under its question, linked by its first words when closed', async () => {
    const page = await cut('faq-details.html');
    const shipping = ['Hive Supplies help', 'Orders and shipping'];
    // A closed answer opens only for a link to words inside it (Chromium 156, Firefox ESR 153): its first words.
    expect(at(page, 'parcelwaitword')).toEqual({ path: [...shipping, 'How long does delivery take?'], anchor: { text: 'Parcels within the country arrive in two to' } });
    // A short answer merges into the section above it and keeps its own link there.
    expect(at(page, 'abroadbeesword')).toEqual({ path: [...shipping, 'Do you ship live bees abroad?'], anchor: { text: 'No: live colonies travel only within the country,' } });
    // Closed with an id: the id would land on the closed question, so the answer's words again.
    expect(at(page, 'trackingnumberword')).toEqual({ path: [...shipping, 'Where is my tracking number?'], anchor: { text: 'The tracking number is in the second email' } });
    // Open: nothing to open, its id.
    expect(at(page, 'shippingcostword')).toEqual({ path: [...shipping, 'What does shipping cost?'], anchor: { id: 'faq-cost' } });
    // A few words of answer: no heading; the question stays a line of the section it sits in.
    expect(at(page, 'changeorderword').path).toEqual(shipping);
    expect(paths(page).some((p) => p.includes('Can I change my order?'))).toBe(false);
    // After the questions, the section around them goes on (linked by its own words: its heading has no id).
    expect(at(page, 'stuckwriteword')).toEqual({ path: shipping, anchor: { text: 'Still stuck after reading these? Write to the' } });
    // A question inside an answer is one level further down.
    expect(at(page, 'brokensmokerword').path).toEqual(['Hive Supplies help', 'Returns', 'How do I return a smoker that does not work?', 'What if it arrived broken?']);
    expect(at(page, 'returnsmokerword').path).toEqual(['Hive Supplies help', 'Returns', 'How do I return a smoker that does not work?']);
    const heading = (text: string) => page.blocks.find((b) => b.kind === 'heading' && b.text === text);
    expect(heading('How long does delivery take?')).toEqual({ kind: 'heading', level: 3, text: 'How long does delivery take?', folded: true });
    expect(heading('What does shipping cost?')).toEqual({ kind: 'heading', level: 3, text: 'What does shipping cost?', id: 'faq-cost' });
    // The background accepts the blocks and the sections as sent (folded headings included).
    const { payload } = validateCapture(JSON.parse(JSON.stringify(page)));
    expect(payload.blocks).toEqual(page.blocks);
    expect(payload.sections).toEqual(page.sections);
  });

  it('MkDocs Material: "??? question" admonitions (closed <details>) and "???+ note" (open) under headings with ids', async () => {
    const page = await cut('mkdocs-details.html');
    expect(at(page, 'sharedscaleword')).toEqual({ path: ['Configuration', 'Sensors', 'Can a scale be shared by two hives?'], anchor: { text: 'Yes, when it sits under a board that' } });
    expect(at(page, 'broodprobeword')).toEqual({ path: ['Configuration', 'Sensors', 'Thermometers in the brood nest'], anchor: { text: 'A probe pushed between the frames of the' } });
    expect(at(page, 'renamehiveword')).toEqual({ path: ['Configuration', 'Sensors', 'Note'], anchor: { text: 'Note' } });
    // Text after the notes is the section's own again, linked by its heading's id.
    expect(at(page, 'unlistedsensorword')).toEqual({ path: ['Configuration', 'Sensors'], anchor: { id: 'sensors' } });
    expect(at(page, 'alertsword')).toEqual({ path: ['Configuration', 'Alerts'], anchor: { id: 'alerts' } });
  });

  it('a GitHub README: a folded part with a name is a section; "Click to expand" names no section', async () => {
    const page = await cut('readme-details.html');
    expect(at(page, 'windowsbuildword')).toEqual({ path: ['beecount', 'Installation', 'Building on Windows'], anchor: { text: 'Install the Visual Studio build tools and Python' } });
    expect(at(page, 'raspicameraword')).toEqual({ path: ['beecount', 'Installation'], anchor: { id: 'user-content-installation' } });
    expect(at(page, 'usagecountword').path).toEqual(['beecount', 'Usage']);
    expect(paths(page).some((p) => p.includes('Click to expand'))).toBe(false);
  });

  it("rustdoc: a heading inside a toggle's summary stays the heading, once; the toggles' own labels head nothing", async () => {
    const page = await cut('rustdoc-toggles.html');
    const h1 = 'Struct hivelib::colony::Hive';
    expect(at(page, 'hivetopdocword').path).toEqual([h1]);
    expect(at(page, 'hivevariantsword').path).toEqual([h1]);
    expect(at(page, 'hivenewword')).toEqual({ path: [h1, 'Implementations', 'impl Hive', 'pub fn new(name: &str) -> Hive'], anchor: { id: 'method.new' } });
    expect(at(page, 'hiveweightword').path).toEqual([h1, 'Implementations', 'impl Hive', 'pub fn weight(&self) -> f32']);
    expect(page.blocks.filter((b) => b.kind === 'heading' && b.text.startsWith('pub fn new')).length).toBe(1);
    for (const label of ['Expand description', 'Show 4 variants']) expect(paths(page).some((p) => p.includes(label)), label).toBe(false);
    // A <details> in the documentation itself is a section like any other (code only: no words to link by).
    expect(at(page, 'swarmexampleword').path).toEqual([h1, 'Examples', 'Potential swarming example']);
  });

  it('menus made of <details> (lists of links, role=menu, navigation) head nothing', async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `<li><a href="/p${i}">Frames and foundation sheets, part ${i}</a></li>`).join('');
    const html = `<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Shop</h1>
      <p>Everything a beekeeper needs in one place, sent the same day; the word shopintroword marks this introduction.</p>
      <details><summary>Hive parts</summary><ul>${links(6)}</ul></details>
      <details><summary>Account</summary><ul role="menu"><li role="menuitem"><a href="/login">Sign in to see your orders and your saved hives</a></li></ul></details>
      <div role="tree"><details><summary>Catalogue</summary><p>Brood boxes, supers, frames, foundation, feeders and smokers, with treeword among them.</p></details></div>
      </main></body></html>`;
    const got = (await captureDocument(parseDocument(html), { live: false, fallbackTitle: 'example.com' }))!.payload;
    expect(got.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(['Shop']);
    expect(got.sections.map((s) => s.text).join('\n')).toContain('treeword');
  });
});

describe("a project's name above the page, linking to the project's home folder, is no heading of it (content/extract.ts namesSite 'home')", () => {
  async function pathsAt(html: string, url: string): Promise<{ path: string[]; text: string }[]> {
    const got = (await captureDocument(parseDocument(html), { live: false, fallbackTitle: 'example.com', url }))!;
    return got.payload.sections.map((s) => ({ path: s.headingPath, text: s.text }));
  }
  const project = () => readFileSync(join(HARD, 'project-home.html'), 'utf8');
  const inside = 'https://user.github.io/hard/beecount/docs/install.html';

  it('leaves out a heading that is one link to a folder above the page on its host (GitHub Pages, /docs/), when a heading follows it', async () => {
    for (const html of [project(), project().replace('href="/hard/beecount/"', 'href="../"'), project().replace('href="/hard/beecount/"', 'href="../index.html"')]) {
      const sections = await pathsAt(html, inside);
      expect(sections.find((s) => s.text.includes('installintroword'))?.path).toEqual(['Installing beecount']);
      expect(sections.find((s) => s.text.includes('frompipword'))?.path).toEqual(['Installing beecount', 'From pip']);
      for (const s of sections) expect(s.path).not.toContain('beecount');
    }
  });

  it("keeps a heading linking to a folder above the page when it heads the page's text (a chapter's own heading)", async () => {
    // `<h2><a href="../">Installing beecount</a></h2>` over its text: the heading of the section, not the site's name.
    const chapter = project()
      .replace(/<div class="top">.*<\/div>/, '')
      .replace('<h2 id="installing">Installing beecount</h2>', '<h2 id="installing"><a href="../">Installing beecount</a></h2>');
    const sections = await pathsAt(chapter, 'https://user.github.io/hard/beecount/install/windows.html');
    expect(sections.find((s) => s.text.includes('installintroword'))?.path).toEqual(['Installing beecount']);
    expect(sections.find((s) => s.text.includes('frompipword'))?.path).toEqual(['Installing beecount', 'From pip']);
  });

  it("keeps it on the project's home page itself, for a folder on another host, and for a folder that is not above the page", async () => {
    const cases: [string, string][] = [
      [project(), 'https://user.github.io/hard/beecount/'],
      [project(), 'https://user.github.io/hard/beecount/index.html'],
      [project().replace('href="/hard/beecount/"', 'href="https://other.example/hard/beecount/"'), inside],
      [project().replace('href="/hard/beecount/"', 'href="/hard/otherproject/"'), inside],
    ];
    for (const [html, url] of cases) {
      const sections = await pathsAt(html, url);
      expect(sections.find((s) => s.text.includes('installintroword'))?.path, url).toEqual(['beecount', 'Installing beecount']);
    }
  });
});

describe('a DocBook sidebar in the running text is captured; a site sidebar beside the content is not', () => {
  // Publican's shape (the Debian Administrator's Handbook): no main landmark, paragraphs as <div class="para">,
  // a TIP box as <div class="sidebar"> between them; beside the content a site's own sidebar (prose, but no paragraph beside it).
  const para = (w: string) => `<div class="para">The ${w} command reads the list of sources and fetches what changed since the last run of ${w}.</div>`;
  const page = `<!doctype html><html><head><title>6.2. apt Commands</title></head><body>
    <div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="sect.apt-get"></a>6.2. apt Commands</h2></div></div></div>
    ${para('update')}<a id="id-1" class="indexterm"></a>
    <div class="sidebar"><a id="sidebar.pdiff"></a><div class="titlepage"><div><div><p class="title"><strong>TIP Incremental updates</strong></p></div></div></div>
    <div class="para">Diff files between two versions of the package lists make each weekly download about ten times smaller.</div></div>
    ${para('upgrade')}${para('install')}
    <div class="sidebar related"><p>Related reading: the package lists, the sources, what changed since the last run of update.</p></div>
    ${para('remove')}</div>
    <div class="sidebar"><p>About the authors: two Debian developers who have written about the system for twenty years.</p></div>
    </body></html>`;
  it('keeps the box between paragraphs, drops the site sidebar beside the content and a sidebar also named boilerplate', async () => {
    const text = (await sectionsOf(page)).join(' ');
    expect(text).toContain('TIP Incremental updates');
    expect(text).toContain('Diff files between two versions');
    expect(text).not.toContain('About the authors');
    expect(text).not.toContain('Related reading');
  });
});


describe('Japanese and Chinese pages are judged by their characters, not their spaces', () => {
  // Japanese is written without spaces: by spaces a paragraph of 80 characters was one "word", so a box between
  // two such paragraphs was not "in running text", a main landmark of long paragraphs lost to a menu of short links,
  // and a short page was "too little text" to keep.
  const ja = (topic: string) =>
    `<div class="para">${topic}のコマンドはソースの一覧を読み、前回の実行以降に変わったものをすべて取得します。これには数分かかることがあります。</div>`;
  it('keeps a DocBook sidebar between Japanese paragraphs', async () => {
    const page = `<!doctype html><html lang="ja"><head><title>6.2. apt コマンド</title></head><body>
      <div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="sect.apt-get"></a>6.2. apt コマンド</h2></div></div></div>
      ${ja('更新')}
      <div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong>TIP 差分による更新</strong></p></div></div></div>
      <div class="para">パッケージ一覧の二つの版の差分ファイルは、毎週のダウンロードをおよそ十分の一にします。</div></div>
      ${ja('アップグレード')}${ja('インストール')}</div>
      <div class="sidebar"><p>About the authors: two Debian developers who have written about the system for twenty years.</p></div>
      </body></html>`;
    const text = (await sectionsOf(page)).join(' ');
    expect(text).toContain('TIP 差分による更新');
    expect(text).toContain('差分ファイルは');
    expect(text).not.toContain('About the authors');
  });

  it('takes a main landmark of Japanese paragraphs over a menu of short links beside it', async () => {
    const menu = ['ホーム', '製品', '価格', 'ブログ', '会社', '採用', 'お問い合わせ', 'ヘルプ', '規約', '方針', '地図', '英語']
      .map((w) => `<li><a href="/${encodeURIComponent(w)}">${w}</a></li>`).join('');
    const page = `<!doctype html><html lang="ja"><head><title>設定ファイルの書き方</title></head><body>
      <div class="menu"><ul>${menu}</ul></div><div class="promo"><p>新製品</p><p>春の割引</p><p>無料体験</p></div>
      <main><h1>設定ファイルの書き方</h1>${ja('設定')}${ja('保存')}${ja('読み込み')}</main></body></html>`;
    const text = (await sectionsOf(page)).join(' ');
    expect(text).toContain('設定のコマンドは');
    expect(text).not.toContain('お問い合わせ');
    expect(text).not.toContain('春の割引');
  });

  it('keeps a short Japanese page that an English page of as much text would be kept for', () => {
    // The worker's and the evaluation's floor (src/indexing.ts): 12 words, Japanese by its characters.
    expect(tooLittleText('Note', [{ text: 'A short note on the weather in Tokyo: rain until Friday, then clear skies.' }])).toBe(false);
    expect(tooLittleText('メモ', [{ text: '東京の天気についての短いメモです。金曜日まで雨が続き、その後は晴れるでしょう。' }])).toBe(false);
    expect(tooLittleText('メモ', [{ text: '東京は雨。' }])).toBe(true);
    expect(tooLittleText('Note', [{ text: 'Rain in Tokyo.' }])).toBe(true);
  });
});

describe('tables of contents', () => {
  const doc = (html: string) => {
    const { document } = parseHTML(html);
    Object.defineProperty(document, 'implementation', { value: { createHTMLDocument: () => parseHTML('<!doctype html><html><head></head><body></body></html>').document } });
    return document as unknown as Document;
  };
  const toc = (n: number) => `<ul class="toc">${Array.from({ length: n }, (_, i) => `<li><a href="s${i}.html">${i + 1}. Chapter about topic${i} and more</a></li>`).join('')}</ul>`;

  it('a table of contents beside the text (Texinfo\'s #tocframe) is no part of the page', async () => {
    const got = (await captureDocument(doc(`<!doctype html><html><head><title>Adding text</title></head><body><div id="main"><h3 id="adding-text">3.1.5 Adding text</h3><p>${words(80, 'prose')}.</p></div><div id="tocframe"><h4 class="toc_header">Learning Manual</h4>${toc(40)}</div></body></html>`), { live: false, fallbackTitle: 'x' }))!;
    const text = got.payload.sections.map((s) => s.text).join(' ');
    expect(text).toContain('prose79');
    expect(text).not.toContain('topic12');
    expect(got.payload.sections.map((s) => s.headingPath.join(' > '))).toEqual(['3.1.5 Adding text']);
  });

  it('a page whose only text is its table of contents (a chapter\'s index page) keeps it, so the page is kept', async () => {
    // Texinfo's chapter node: the heading alone in #main, the manual's contents beside it.
    const html = `<!doctype html><html><head><title>Next</title></head><body><div id="main"><h2 id="ch8">8 Next</h2></div><div id="tocframe">${toc(6)}</div></body></html>`;
    const got = (await captureDocument(doc(html), { live: false, fallbackTitle: 'x' }))!;
    expect(tooLittleText(got.payload.title, got.payload.sections)).toBe(false);
    expect(got.payload.sections.map((s) => s.text).join(' ')).toContain('topic3');
    // A chapter's own table of contents (under its title, in its container) stays with it, as before.
    const docbook = `<!doctype html><html><head><title>Chapter 8. Next steps</title></head><body><div class="chapter"><div class="titlepage"><h1 id="ch8">Chapter 8. Next steps</h1></div><div class="toc"><p><b>Table of Contents</b></p>${toc(6)}</div><p>${words(60, 'body')}.</p></div></body></html>`;
    const kept = (await captureDocument(doc(docbook), { live: false, fallbackTitle: 'x' }))!;
    expect(kept.payload.sections.map((s) => s.text).join(' ')).toContain('topic3');
  });

  it("a table of contents of the page's own sections (a one-page DocBook manual's) is left out; the sections it names stay", async () => {
    const page = (n: number, listed = n) => {
      const own = `<div class="toc"><p><b>Table of Contents</b></p><dl class="toc">${Array.from({ length: listed }, (_, i) => `<dt><span class="sect1"><a href="#s${i}">${i + 1}. Chapter about topic${i} and more</a></span></dt>`).join('')}</dl></div>`;
      const body = Array.from({ length: n }, (_, i) => `<div class="sect1"><h2 class="title" id="s${i}">${i + 1}. Chapter about topic${i} and more</h2><p>${words(40, `body${i}x`)}.</p></div>`).join('');
      return `<!doctype html><html><head><title>Manual</title></head><body><div class="article"><div class="titlepage"><h1 class="title">The Manual</h1><p>Publish date: 2024-01-31</p></div>${own}${body}</div></body></html>`;
    };
    const n = 12;
    const html = page(n);
    const got = (await captureDocument(doc(html), { live: false, fallbackTitle: 'x', url: 'https://example.org/manual.html' }))!;
    const texts = got.payload.sections.map((s) => s.text);
    // Each chapter's title is in its own section only: no section lists them all.
    expect(texts.filter((t) => t.includes('topic3 and more'))).toHaveLength(1);
    expect(texts.join(' ')).not.toContain('Table of Contents');
    for (let i = 0; i < n; i++) expect(texts.some((t) => t.includes(`body${i}x39`))).toBe(true);
    // Linked by the page's full address (DocBook's chunked output links "manual.html#s3"): the same.
    const full = html.replace(/href="#/g, 'href="manual.html#');
    const again = (await captureDocument(doc(full), { live: false, fallbackTitle: 'x', url: 'https://example.org/manual.html' }))!;
    expect(again.payload.sections.map((s) => s.text).filter((t) => t.includes('topic3 and more'))).toHaveLength(1);
    // Links to other pages (a chapter's contents of its section pages) keep it, as above; so do fewer than eight own links.
    // Judged on its first thousand links: 1,000 own ones then 4,000 to other pages read as the page's own contents.
    const many = `<div class="toc">${Array.from({ length: 5000 }, (_, i) => `<a href="${i < 1000 ? '#s' : 'other.html#s'}${i}">entry${i}</a> `).join('')}</div>`;
    const huge = (await captureDocument(doc(html.replace('<div class="toc">', `${many}<div class="toc">`)), { live: false, fallbackTitle: 'x', url: 'https://example.org/manual.html' }))!;
    expect(huge.payload.sections.map((s) => s.text).join(' ')).not.toContain('entry4999');
    const short = page(n, 7);
    const kept = (await captureDocument(doc(short), { live: false, fallbackTitle: 'x', url: 'https://example.org/manual.html' }))!;
    expect(kept.payload.sections.map((s) => s.text).join(' ')).toContain('Table of Contents');
  });
});

describe("the page's language (pageLanguage)", () => {
  const lang = (html: string) => pageLanguage(parseHTML(html).document as unknown as Document);
  it("reads the root's lang, else xml:lang, else the language its title heading is written in", () => {
    expect(lang('<html lang="fr"><body><div lang="de"><h1>Titel</h1></div></body></html>')).toBe('fr');
    expect(lang('<html xml:lang="ja"><body><h1>題</h1></body></html>')).toBe('ja');
    // DocBook XHTML (the Debian Edu manual): the language on the div that holds the book.
    expect(lang('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="article" lang="de"><div class="titlepage"><h2 class="title">Handbuch</h2></div><p>Text</p></div></body></html>')).toBe('de');
    // A language switcher's link says nothing about the page; nothing at all: ''.
    expect(lang('<html><body><a lang="de" href="/de/">Deutsch</a><h1>Title</h1></body></html>')).toBe('');
    expect(lang('<html><body><p>No heading</p></body></html>')).toBe('');
  });
});

describe('entries headed without a heading element (RDoc Darkfish methods: content/extract.ts entryHeading)', () => {
  const doc = parseDocument;
  const method = (id: string, calls: string[], body: string) =>
    `<div id="${id}" class="method-detail">${calls.map((c) => `<div class="method-heading"><span class="method-callseq">${c}</span></div>`).join('')}<div class="method-description">${body}</div></div>`;
  const page = `<!doctype html><html lang="en"><head><title>class String - Ruby</title></head><body><main>
    <h1 id="class-String">class String</h1><p>${words(60, 'intro')}.</p>
    <section id="public-instance-method-details" class="method-section"><header><h3>Public Instance Methods</h3></header>
    ${method('method-i-center', ['center(size, pad_string = \' \') → new_string'], `<p>${words(40, 'centre')}.</p><h4 id="method-i-center-label-Examples">Examples</h4><p>${words(30, 'centreexample')}.</p>`)}
    ${method('method-i-gsub', ['gsub(pattern, replacement) → new_string', 'gsub(pattern) {|match| ... } → new_string'], `<p>${words(120, 'substitute')}.</p>`)}
    ${method('method-i-upcase', ['upcase(*options) → string'], `<p>${words(90, 'uppercase')}.</p>`)}
    </section></main></body></html>`;

  it('makes each method a section under its kind, headed by its call forms and linked by its id', async () => {
    const got = (await captureDocument(doc(page), { live: false, fallbackTitle: 'x' }))!;
    const heading = (b: { kind: string; text: string; id?: string; level?: number }) => `${b.level} ${b.text} #${b.id ?? ''}`;
    expect(got.payload.blocks.filter((b) => b.kind === 'heading').map(heading)).toEqual([
      '1 class String #class-String',
      '3 Public Instance Methods #public-instance-method-details',
      "4 center(size, pad_string = ' ') → new_string #method-i-center",
      // A heading element inside a method goes below it (the page's h4, the method's level).
      '5 Examples #method-i-center-label-Examples',
      '4 gsub(pattern, replacement) → new_string; gsub(pattern) {|match| ... } → new_string #method-i-gsub',
      '4 upcase(*options) → string #method-i-upcase',
    ]);
    // gsub's text is under gsub, not under center's "Examples" (where it was, linked 2 methods above it).
    const all = [...got.payload.sections.flatMap((s) => [{ path: s.headingPath, id: s.anchor?.id, text: s.text }])];
    const gsub = all.find((s) => s.text.includes('substitute119'))!;
    expect(gsub.path.at(-1)).toMatch(/^gsub\(pattern, replacement\)/);
    expect(gsub.id).toBe('method-i-gsub');
    expect(all.find((s) => s.text.includes('uppercase89'))!.id).toBe('method-i-upcase');
  });

  it('keeps a method of one line a section of its own (an entry is never merged into the section above it)', async () => {
    const short = page.replace('</section>', `${method('method-i-chr', ['chr → string'], '<p>Returns the first character.</p>')}${method('method-i-size', ['size → integer'], '<p>Returns the count of characters.</p>')}</section>`);
    const got = (await captureDocument(doc(short), { live: false, fallbackTitle: 'x' }))!;
    expect(got.payload.blocks.filter((b) => b.entry).map((b) => b.id)).toEqual(['method-i-center', 'method-i-gsub', 'method-i-upcase', 'method-i-chr', 'method-i-size']);
    // The background accepts the flag and cuts the same.
    const { payload } = validateCapture(JSON.parse(JSON.stringify(got.payload)));
    expect(payload.blocks.filter((b) => b.entry).length).toBe(5);
    expect(payload.sections).toEqual(got.payload.sections);
    const sections = payload.sections ?? [];
    for (const id of ['method-i-chr', 'method-i-size']) {
      const own = sections.filter((s) => s.anchor.id === id);
      expect(own.map((s) => s.headingPath.at(-1))).toEqual([id === 'method-i-chr' ? 'chr → string' : 'size → integer']);
    }
    expect(sections.find((s) => s.anchor.id === 'method-i-chr')!.text).toContain('Returns the first character.');
    expect(sections.flatMap((s) => s.parts ?? []).map((x) => x.anchor.id)).not.toContain('method-i-chr');
  });

  it('puts a heading inside a method below it, and the methods after it under their kind (File.new\'s "Examples", an h3)', async () => {
    const file = `<!doctype html><html lang="en"><head><title>class File - Ruby</title></head><body><main>
      <h1 id="class-File">class File</h1><p>${words(60, 'intro')}.</p>
      <section class="method-section"><header><h3 id="public-class-methods">Public Class Methods</h3></header>
      ${method('method-c-new', ['new(filename, mode="r") → file'], `<p>${words(40, 'opens')}.</p><h3 id="method-c-new-label-Examples">Examples</h3><p>${words(30, 'example')}.</p>`)}
      ${method('method-c-open', ['open(filename, mode="r") → file'], `<p>${words(40, 'block')}.</p><h2 id="method-c-open-label-Open+Mode">Open Mode</h2><p>${words(30, 'mode')}.</p><h3 id="method-c-open-label-IO+Open+Mode">IO Open Mode</h3><p>${words(30, 'iomode')}.</p>`)}
      ${method('method-c-owned-3F', ['owned?(file_name) → true or false'], `<p>${words(30, 'owner')}.</p>`)}
      </section></main></body></html>`;
    const got = (await captureDocument(doc(file), { live: false, fallbackTitle: 'x' }))!;
    const pathOf = (word: string) => got.payload.sections!.find((s) => s.text.includes(word))!.headingPath;
    expect(pathOf('example29')).toEqual(['class File', 'Public Class Methods', 'new(filename, mode="r") → file', 'Examples']);
    expect(pathOf('block39')).toEqual(['class File', 'Public Class Methods', 'open(filename, mode="r") → file']);
    // An h2 and an h3 inside one method keep their order below it.
    expect(pathOf('mode29')).toEqual(['class File', 'Public Class Methods', 'open(filename, mode="r") → file', 'Open Mode']);
    expect(pathOf('iomode29')).toEqual(['class File', 'Public Class Methods', 'open(filename, mode="r") → file', 'Open Mode', 'IO Open Mode']);
    expect(pathOf('owner29')).toEqual(['class File', 'Public Class Methods', 'owned?(file_name) → true or false']);
  });

  it('re-opens the heading a <details> sat in before the next summary, when a heading inside its body closed it', async () => {
    const faq = `<!doctype html><html lang="en"><head><title>FAQ</title></head><body><main>
      <h1 id="top">Help</h1><p>${words(30, 'intro')}.</p>
      <h2 id="faq">Questions</h2><p>${words(30, 'faq')}.</p>
      <details><summary>How long does delivery take?</summary><p>${words(30, 'long')}.</p><h2 id="inner">Tracking</h2><p>${words(30, 'track')}.</p></details>
      <details><summary>Is delivery free?</summary><p>${words(30, 'free')}.</p></details>
      </main></body></html>`;
    const got = (await captureDocument(doc(faq), { live: false, fallbackTitle: 'x' }))!;
    const pathOf = (word: string) => got.payload.sections!.find((s) => s.text.includes(word))!.headingPath;
    expect(pathOf('track29')).toEqual(['Help', 'Tracking']);
    expect(pathOf('free29')).toEqual(['Help', 'Questions', 'Is delivery free?']);
  });

  it('leaves entries alone whose lines hold a heading element, or that have no id, and reads a Bootstrap panel as a heading', async () => {
    const body = (inner: string) => `<!doctype html><html><head><title>t</title></head><body><main><h2 id="top">Top</h2>${inner}</main></body></html>`;
    const headings = async (inner: string) => (await captureDocument(doc(body(inner)), { live: false, fallbackTitle: 'x' }))!.payload.blocks.filter((b) => b.kind === 'heading').map((b) => `${b.level} ${b.text}`);
    expect(await headings(`<div id="a"><div class="card-heading"><h3>Real heading</h3></div><p>${words(30, 'a')}.</p></div>`)).toEqual(['2 Top', '3 Real heading']);
    expect(await headings(`<div><div class="method-heading">no id</div><p>${words(30, 'b')}.</p></div>`)).toEqual(['2 Top']);
    expect(await headings(`<div id="p1" class="panel"><div class="panel-heading">Panel title</div><div class="panel-body"><p>${words(30, 'c')}.</p></div></div>`)).toEqual(['2 Top', '3 Panel title']);
    // A class that only ends in the letters (subheading) is no heading.
    expect(await headings(`<div id="q"><div class="subheading">Lead text</div><p>${words(30, 'd')}.</p></div>`)).toEqual(['2 Top']);
  });
});
