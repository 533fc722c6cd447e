/**
 * Capture on hard pages, end to end in Chromium: what a page shows is found again; what it hides, what
 * the user typed and what only nags them (cookie banners) is not; caps hold on hostile pages and the page
 * keeps responding; single-page apps are re-captured; revisits and changed pages update in place;
 * excluded sites are never read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, searchPage, serve, until, FIXTURES, type Extension, type FixtureServer } from './harness.js';
import { hugePage, manyHeadings } from '../fixtures/hard/generate.js';

let ext: Extension;
let server: FixtureServer;

interface LogEntry {
  url: string;
  at: number;
  outcome: string;
  chunks: number;
  extraction?: { method: string; costMs: number; longestTaskMs: number; tasks: number; visibleWords: number };
}
interface StoredChunk {
  text: string;
  anchor: { id?: string; text?: string; above?: { depth: number; id: string }[] };
  headingPath: string[];
}
interface PageRecord {
  url: string;
  visitCount: number;
  chunkIds: number[];
  title: string;
}

/**
 * Evaluates `expr` in the service worker with `engine` in scope. Playwright's Worker object is enough
 * here: these tests never stop the worker (the harness's evalSw handles restarts, which costs more).
 */
async function inWorker<T>(expr: string): Promise<T> {
  const w = await ext.sw();
  return (await w.evaluate(`(async () => { const { engine } = globalThis.reread; return (${expr}); })()`)) as T;
}

/** The newest capture of `url` logged at or after `since` (the worker's own diagnostics). */
const logged = (url: string, since: number) =>
  inWorker<LogEntry | undefined>(`engine.captureLog.findLast((e) => e.url === ${JSON.stringify(url)} && e.at >= ${since})`);

const waitCapture = (url: string, since: number, timeoutMs = 20_000) => until(() => logged(url, since), `capture of ${url}`, timeoutMs);

const pageRecord = (url: string) => inWorker<PageRecord | undefined>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(url)}))`);

const chunksOf = (url: string) =>
  inWorker<StoredChunk[]>(
    `globalThis.rereadDebug.pageChunks(${JSON.stringify(url)}).then((cs) => cs.map((c) => ({ text: c.text, anchor: c.anchor, headingPath: c.headingPath })))`,
  );

/** Page URLs the engine returns for a query (the same search the popup runs). */
const found = async (q: string): Promise<string[]> =>
  (await inWorker<{ results: { url: string }[] }>(`engine.search({ q: ${JSON.stringify(q)} })`)).results.map((r) => r.url);

/** Opens `url` and waits until the worker logged its capture. */
async function visitAndCapture(url: string): Promise<LogEntry> {
  const since = Date.now();
  const page = await ext.ctx.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const entry = await waitCapture(url, since);
  await page.close();
  return entry;
}

beforeAll(async () => {
  server = await serve({ '/hard/': join(FIXTURES, 'hard') });
  server.routes.set('/hard/huge.html', hugePage());
  server.routes.set('/hard/many-headings.html', manyHeadings());
  ext = await launch();
  // The dense lane is not under test here; keep the worker's CPU for capture and indexing.
  await inWorker('engine.updateSettings({ denseEnabled: false })');
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

describe('capture: pages are captured sensibly', () => {
  it('captures a page without headings as windows of text', async () => {
    const url = server.url('/hard/no-headings.html');
    const entry = await visitAndCapture(url);
    expect(entry.outcome).toBe('new');
    expect(await found('quillwort')).toContain(url);
    const chunks = await chunksOf(url);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const c of chunks) expect(c.headingPath).toEqual([]);
    // Windows overlap: the second starts with words from the end of the first.
    expect(chunks[0]!.text.slice(-500)).toContain(chunks[1]!.text.split(' ').slice(0, 5).join(' '));
  });

  it('finds headings nested deep in divs, with their paths and anchors', async () => {
    const url = server.url('/hard/nested-headings.html');
    await visitAndCapture(url);
    const chunks = await chunksOf(url);
    const smoker = chunks.find((c) => c.text.includes('marrowfat'));
    expect(smoker?.headingPath).toEqual(['Beekeeping for beginners', 'Protective equipment']);
    expect(smoker?.anchor).toEqual({ id: 'equipment', above: [{ depth: 0, id: 'top' }] });
    expect(chunks.find((c) => c.headingPath.at(-1) === 'Smokers')?.headingPath).toEqual(['Beekeeping for beginners', 'Protective equipment', 'Smokers']);
    const rows = await searchPage(ext, { q: 'marrowfat' });
    expect(rows[0]?.href).toBe(url + '#equipment');
  });

  it('reads what the browser made of broken markup', async () => {
    const url = server.url('/hard/broken-markup.html');
    await visitAndCapture(url);
    expect(await found('snarfblat')).toContain(url);
    expect(await found('gribblenut')).toContain(url);
    expect(await found('compost')).toContain(url);
  });

  it('captures right-to-left and CJK text, each section under its own heading', async () => {
    const url = server.url('/hard/rtl-cjk.html');
    await visitAndCapture(url);
    for (const q of ['المكتبة', 'הספרייה', '图书馆', '図書館']) expect(await found(q), q).toContain(url);
    const chunks = await chunksOf(url);
    expect(chunks.find((c) => c.text.includes('公共图书馆每天'))?.anchor).toEqual({ id: 'zh', above: [{ depth: 0, id: 'ar' }] });
    expect(chunks.find((c) => c.text.includes('הספרייה העירונית פתוחה'))?.headingPath).toEqual(['المكتبة العامة', 'הספרייה העירונית']);
  });

  it("leaves out a site's name above the page (a heading that is one link to the site's root) and keeps a post title that links to itself", async () => {
    // Exim's specification: `<h1><a href="http://www.exim.org">Exim Internet Mailer</a></h1>` above every chapter.
    const spec = server.url('/hard/site-header.html');
    await visitAndCapture(spec);
    const chapter = await chunksOf(spec);
    expect(chapter.find((c) => c.text.includes('acltestword'))?.headingPath).toEqual(['Chapter 43 - Access control lists', '1. Testing ACLs']);
    expect(chapter.map((c) => c.text).join('\n')).not.toContain('Example Internet Mailer');
    // A blog post at its own address: the blog's name links to the home page, the post's title to the post.
    const post = server.url('/hard/this-post/');
    server.routes.set('/hard/this-post/', readFileSync(join(FIXTURES, 'hard', 'blog-permalink.html'), 'utf8'));
    await visitAndCapture(post);
    const chunks = await chunksOf(post);
    expect(chunks.find((c) => c.text.includes('coldframeword'))?.headingPath).toEqual(['Wintering bees in a cold frame']);
    expect(chunks.find((c) => c.text.includes('ventilationword'))?.headingPath).toEqual(['Wintering bees in a cold frame', 'Ventilation']);
    for (const c of chunks) expect(c.headingPath).not.toContain('Hive Notes');
  });

  it("leaves out a project's name above the page (one link to the project's home folder, GitHub Pages' /project/), a heading following it", async () => {
    const url = server.url('/hard/beecount/docs/install.html');
    server.routes.set('/hard/beecount/docs/install.html', readFileSync(join(FIXTURES, 'hard', 'project-home.html'), 'utf8'));
    await visitAndCapture(url);
    const chunks = await chunksOf(url);
    expect(chunks.find((c) => c.text.includes('installintroword'))?.headingPath).toEqual(['Installing beecount']);
    expect(chunks.find((c) => c.text.includes('frompipword'))?.headingPath).toEqual(['Installing beecount', 'From pip']);
    for (const c of chunks) expect(c.headingPath).not.toContain('beecount');
  });

  it("leaves a DocBook page's navheader and navfooter out and keeps its chapter and its contents page", async () => {
    const url = server.url('/hard/docbook-nav.html');
    await visitAndCapture(url);
    const all = (await chunksOf(url)).map((c) => c.text).join('\n');
    for (const nav of ['前へ', '次へ', 'Prev', 'Next', 'ハシバミ選択', 'ヤマセミ利用']) expect(all).not.toContain(nav);
    expect(all).toContain('4.2. ツグミソウの花は何色ですか?');
    expect(await found('snowmarrow')).toContain(url);
    // Neither neighbour's title finds this page any more.
    expect(await found('ヤマセミ')).not.toContain(url);
    const toc = server.url('/hard/docbook-toc.html');
    await visitAndCapture(toc);
    expect(await found('wrenwhistle')).toContain(toc);
  });

  it("keeps a DocBook sidebar between a section's paragraphs (a TIP box) and leaves the site's sidebar beside the content out", async () => {
    // content/extract.ts textSidebar: on pages without a main landmark every class="sidebar" was dropped,
    // Publican's TIP, NOTE and CULTURE boxes with them (28% of the Debian Administrator's Handbook's words).
    const url = server.url('/hard/publican-sidebar.html');
    await visitAndCapture(url);
    for (const w of ['smokecoolword', 'skepstrawword']) expect(await found(w), w).toEqual([url]);
    expect(await found('aboutsiteword')).toEqual([]);
    const all = (await chunksOf(url)).map((c) => c.text).join('\n');
    expect(all).toContain('TIP Cool smoke');
    expect(all).not.toContain('Prev');
  });

  it('judges Japanese by its characters: the sidebar between paragraphs without spaces, and a short note, are kept', async () => {
    // Counted by spaces, each Japanese paragraph was one word: the TIP box was not between paragraphs, and a
    // 40-character note was too little text to keep (content/extract.ts, src/indexing.ts: measureWords).
    const url = server.url('/hard/publican-sidebar-ja.html');
    await visitAndCapture(url);
    expect(await found('jasmokecoolword')).toEqual([url]);
    expect(await found('jaaboutsiteword')).toEqual([]);
    expect((await chunksOf(url)).map((c) => c.text).join('\n')).toContain('TIP 冷たい煙');
    const note = server.url('/hard/ja-short.html');
    await visitAndCapture(note);
    expect(await found('jashortnoteword')).toEqual([note]);
  });
});

describe('capture: what must never be stored', () => {
  it('stores no form value, editable region, password or button label', async () => {
    const url = server.url('/hard/form.html');
    const since = Date.now();
    const page = await ext.ctx.newPage();
    await page.goto(url, { waitUntil: 'load' });
    // The user fills the form before the capture runs (it waits for the page to settle).
    await page.fill('#name', 'typednameword');
    await page.fill('#pw', 'typedpasswordword');
    await page.fill('#card', '4111111111111111');
    await page.fill('#bio', 'typedtextareaword');
    await page.locator('#notes').pressSequentially(' typededitableword');
    await waitCapture(url, since);
    await page.close();
    expect(await found('pangolin')).toContain(url);
    const text = (await chunksOf(url)).map((c) => c.text).join('\n');
    for (const w of ['typednameword', 'typedpasswordword', '4111111111111111', 'typedtextareaword', 'typededitableword', 'defaultvalueword', 'textareadefaultword', 'selectoptionword', 'editableinitialword', 'plaintextonlyword', 'buttonlabelword']) {
      expect(text, w).not.toContain(w);
      expect(await found(w), w).toEqual([]);
    }
    // Labels are page text, not values: they stay.
    expect(text).toContain('Card number');
  });

  it('stores no hidden or aria-hidden text', async () => {
    const url = server.url('/hard/hidden.html');
    await visitAndCapture(url);
    expect(await found('visiblewort')).toContain(url);
    const text = (await chunksOf(url)).map((c) => c.text).join('\n');
    // `collapsedword` sits in an accordion panel a script collapses with display:none: unlike a closed
    // <details> (below), neither find in page nor a link can open it, and nothing tells it from a menu
    // hidden for real, so it stays out.
    for (const w of ['classhiddenword', 'attrhiddenword', 'ariahiddenword', 'visibilityhiddenword', 'inlinehiddenword', 'collapsedword', 'templateword', 'noscriptword', 'headinghiddenword', 'cellhiddenword', 'rowhiddenword', 'prehiddenword']) {
      expect(text, w).not.toContain(w);
    }
    expect(text).toContain('this sentence goes on without it');
    // Tables and code keep their visible parts.
    expect(text).toContain('terracotta | breathes, dries fast');
    expect(text).toMatch(/water = litres_per_week\(pot\)\n+schedule\(water\)/);
  });

  it('leaves cookie banners, fixed notices and consent dialogs out', async () => {
    const url = server.url('/hard/cookie-banner.html');
    await visitAndCapture(url);
    expect(await found('crumbwort')).toContain(url);
    const text = (await chunksOf(url)).map((c) => c.text).join('\n');
    for (const w of ['Consentbannerword', 'Fixedbannerword', 'Dialogbannerword', 'partners']) expect(text, w).not.toContain(w);
  });

  it('reads nothing on an excluded site (the content script asks first)', async () => {
    const before = await inWorker<string[]>('engine.settings().then((s) => s.excludedSites)');
    await inWorker(`engine.updateSettings({ excludedSites: ${JSON.stringify([...before, 'localhost'])} })`);
    const url = server.url('/hard/hidden.html').replace('127.0.0.1', 'localhost');
    const since = Date.now();
    const page = await ext.ctx.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(2500);
    await page.close();
    // Not even a refused capture: no page/capture message reached the worker.
    expect(await logged(url, since)).toBeUndefined();
    await inWorker(`engine.updateSettings({ excludedSites: ${JSON.stringify(before)} })`);
    // The same page on a site that is not excluded is captured: the check above was not vacuous.
    expect((await visitAndCapture(url)).outcome).toBe('new');
  });
});

describe('capture: what the page shows on request (closed <details>, hidden="until-found")', () => {
  const url = () => server.url('/hard/collapsed.html');

  it('stores the body of a closed <details> after its summary and what hidden="until-found" holds, not what stays hidden once opened', async () => {
    await visitAndCapture(url());
    const chunks = await chunksOf(url());
    const text = chunks.map((c) => c.text).join('\n');
    // A FAQ answer, a collapsible note (MkDocs Material), sections inside a folded part, a reference
    // the browser reveals for find in page.
    for (const w of ['hivestoreword', 'admonitionword', 'guardfittingword', 'entranceclearword', 'untilfoundword']) expect(await found(w), w).toEqual([url()]);
    // The answer is a section under its question (content/extract.ts summaryHeading), one below the
    // heading the <details> sits under.
    const faq = chunks.find((c) => c.text.includes('hivestoreword'))!;
    expect(faq.headingPath).toEqual(['Keeping bees through the winter', 'Questions beginners ask', 'How much honey does a hive need for the winter?']);
    expect(faq.text).toMatch(/How much honey does a hive need for the winter\?\nA full-size colony/);
    // Code and tables inside keep their shown parts (a closed <details> has no innerText to read).
    expect(text).toMatch(/feed = syrup\(sugar=2, water=1\)\n+wrap\(hive, candyboardcode\)/);
    expect(text).toContain('fondant | slow to take, safe in frost');
    // Headings inside keep their ids and paths.
    expect(chunks.find((c) => c.text.includes('guardfittingword'))?.anchor.id).toBe('guard-fitting');
    expect(chunks.find((c) => c.text.includes('untilfoundword'))?.headingPath).toEqual(['Keeping bees through the winter', 'Reference tables', 'Mite counts']);
    // What stays hidden once opened, form values, and what is hidden for real stay out.
    for (const w of ['tooltiphiddenword', 'ghostdetailsword', 'ariadetailsword', 'detailsinputword', 'detailstextareaword', 'detailsbuttonword', 'prehiddendetailsword', 'cellhiddendetailsword', 'plainhiddenword', 'menuhiddenword', 'dropdownmenuword']) {
      expect(text, w).not.toContain(w);
    }
  });

  it('leaves out collapsed content too big to read without a long task, and keeps its summary', async () => {
    // content/extract.ts COLLAPSED_MAX_ELEMENTS: the browser styles a collapsed body in one go when the
    // capture first looks inside it.
    const big = Array.from({ length: 1100 }, (_, i) => `<p>line ${i} of the folded log <b>bigfoldword</b></p>`).join('');
    const page = `<!doctype html><html lang="en"><head><title>Folded log</title></head><body><main><h1>Build report</h1>
      <p>The build of the bee counter firmware finished with two warnings; the word foldreportword marks this report so that a test finds it.</p>
      <details><summary>Full log (bigfoldsummaryword)</summary>${big}</details>
      <details><summary>Warnings</summary><p>Two warnings about unused variables, smallfoldword, in the sensor driver.</p></details>
      <div hidden="until-found">${big.replaceAll('bigfoldword', 'bigfoundword')}</div></main></body></html>`;
    server.routes.set('/hard/folded-log.html', page);
    const url = server.url('/hard/folded-log.html');
    await visitAndCapture(url);
    const text = (await chunksOf(url)).map((c) => c.text).join('\n');
    for (const w of ['foldreportword', 'bigfoldsummaryword', 'smallfoldword']) expect(text, w).toContain(w);
    for (const w of ['bigfoldword', 'bigfoundword']) expect(text, w).not.toContain(w);
  });

  it('links to a section inside a closed <details> or hidden="until-found": the browser opens it and shows the section', async () => {
    // Captured by the test above. A short window, so that landing on the section takes a scroll.
    const tab = await ext.ctx.newPage();
    await tab.setViewportSize({ width: 900, height: 260 });
    const cases = [
      { q: 'guardfittingword', href: `${url()}#guard-fitting`, heading: 'Fitting the guard', details: true },
      // No id: a text fragment of the heading.
      { q: 'entranceclearword', href: `${url()}#:~:text=Clearing%20the%20entrance`, heading: 'Clearing the entrance', details: true },
      { q: 'untilfoundword', href: `${url()}#mite-counts`, heading: 'Mite counts', details: false },
    ];
    for (const c of cases) {
      const [top] = await searchPage(ext, { q: c.q }, tab);
      expect(top?.href, c.q).toBe(c.href);
      await tab.goto(server.url('/hard/blank'));
      await tab.goto(top!.href, { waitUntil: 'load' });
      // Chromium opens the <details> (removes hidden="until-found") and scrolls in a task after load.
      const shown = (heading: string) => {
        const h = [...document.querySelectorAll('h3')].find((e) => e.textContent === heading);
        const r = h?.getBoundingClientRect();
        return { open: !!h?.closest('details')?.open, revealed: !h?.closest('[hidden]'), inView: !!r && r.height > 0 && r.bottom > 0 && r.top < innerHeight, scrolled: scrollY > 0 };
      };
      await tab.waitForFunction(`(${shown.toString()})(${JSON.stringify(c.heading)}).inView`, null, { timeout: 15_000, polling: 'raf' }).catch(() => undefined);
      const got = await tab.evaluate(shown, c.heading);
      expect(got, c.q).toEqual({ open: c.details, revealed: true, inView: true, scrolled: true });
    }
    await tab.close();
  });
});

describe("capture: a <details> summary heads its answer's section, and the result's link opens it", () => {
  // FAQ answers under one <h2> (a hand-written page, MkDocs Material's "??? question", a README's folded
  // part): a search for words of one answer links to that answer, and following the link shows it open.
  const faq = () => server.url('/hard/faq-details.html');
  const mkdocs = () => server.url('/hard/mkdocs-details.html');
  const readme = () => server.url('/hard/readme-details.html');

  it('stores each answer as a section under its question', async () => {
    for (const u of [faq(), mkdocs(), readme()]) await visitAndCapture(u);
    const at = async (url: string, word: string) => (await chunksOf(url)).find((c) => c.text.includes(word));
    const shipping = ['Hive Supplies help', 'Orders and shipping'];
    expect((await at(faq(), 'parcelwaitword'))?.headingPath).toEqual([...shipping, 'How long does delivery take?']);
    expect((await at(faq(), 'trackingnumberword'))?.headingPath).toEqual([...shipping, 'Where is my tracking number?']);
    expect((await at(faq(), 'stuckwriteword'))?.headingPath).toEqual(shipping);
    expect((await at(faq(), 'brokensmokerword'))?.headingPath).toEqual(['Hive Supplies help', 'Returns', 'How do I return a smoker that does not work?', 'What if it arrived broken?']);
    expect((await at(mkdocs(), 'broodprobeword'))?.headingPath).toEqual(['Configuration', 'Sensors', 'Thermometers in the brood nest']);
    expect((await at(readme(), 'windowsbuildword'))?.headingPath).toEqual(['beecount', 'Installation', 'Building on Windows']);
    // "Click to expand" names the toggle, not a section.
    expect((await at(readme(), 'raspicameraword'))?.headingPath).toEqual(['beecount', 'Installation']);
  });

  it("links a search for words of one answer to that answer: the browser opens its <details> and shows it", async () => {
    // Captured by the test above. A short window, so that landing on the answer takes a scroll.
    const tab = await ext.ctx.newPage();
    await tab.setViewportSize({ width: 900, height: 260 });
    const cases = [
      { q: 'parcelwaitword', url: faq(), section: 'How long does delivery take?', answer: 'parcelwaitword', href: '#:~:text=Parcels%20within%20the%20country%20arrive%20in%20two%20to' },
      // A short answer, merged into the section above it: its own link still.
      { q: 'abroadbeesword', url: faq(), section: 'Do you ship live bees abroad?', answer: 'abroadbeesword', href: '#:~:text=No%3A%20live%20colonies%20travel%20only%20within%20the%20country%2C' },
      // The <details> has an id, which does not open it: its answer's words.
      { q: 'trackingnumberword', url: faq(), section: 'Where is my tracking number?', answer: 'trackingnumberword', href: '#:~:text=The%20tracking%20number%20is%20in%20the%20second%20email' },
      { q: 'brokensmokerword', url: faq(), section: 'What if it arrived broken?', answer: 'brokensmokerword', href: '#:~:text=Take%20a%20photograph%20of%20the%20box%20and%20the' },
      { q: 'broodprobeword', url: mkdocs(), section: 'Thermometers in the brood nest', answer: 'broodprobeword', href: '#:~:text=A%20probe%20pushed%20between%20the%20frames%20of%20the' },
      { q: 'windowsbuildword', url: readme(), section: 'Building on Windows', answer: 'windowsbuildword', href: '#:~:text=Install%20the%20Visual%20Studio%20build%20tools%20and%20Python' },
    ];
    for (const c of cases) {
      const [top] = await searchPage(ext, { q: c.q }, tab);
      expect({ href: top?.href, section: top?.section.split(' › ').at(-1) }, c.q).toEqual({ href: c.url + c.href, section: c.section });
      await tab.goto(server.url('/hard/blank'));
      await tab.goto(top!.href, { waitUntil: 'load' });
      // Every <details> around the answer open, the answer's start and its question on screen.
      const shown = (word: string) => {
        const p = [...document.querySelectorAll('p, li')].find((e) => e.textContent!.includes(word))!;
        const d = p.closest('details')!;
        const onScreen = (e: Element) => {
          const r = e.getBoundingClientRect();
          return r.height > 0 && r.bottom > 0 && r.top < innerHeight;
        };
        let open = true;
        for (let e: Element | null = d; e; e = e.parentElement?.closest('details') ?? null) open &&= (e as HTMLDetailsElement).open;
        const first = d.querySelector(':scope > summary ~ *')!;
        return { open, answer: onScreen(first), question: onScreen(d.querySelector(':scope > summary')!), scrolled: scrollY > 0 };
      };
      // Chromium opens the <details> and scrolls in a task after load: wait for all of it (or give up and say what is).
      const all = `(() => { const s = (${shown.toString()})(${JSON.stringify(c.answer)}); return s.open && s.answer && s.question && s.scrolled; })()`;
      await tab.waitForFunction(all, null, { timeout: 15_000, polling: 'raf' }).catch(() => undefined);
      expect(await tab.evaluate(shown, c.answer), c.q).toEqual({ open: true, answer: true, question: true, scrolled: true });
    }
    await tab.close();
  });
});

describe('capture: caps on hostile pages', () => {
  it('holds the caps on a 10 MB page, which keeps responding while it is captured', async () => {
    const url = server.url('/hard/huge.html');
    const since = Date.now();
    const page = await ext.ctx.newPage();
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    let clicks = 0;
    // Click all through the capture: every click must be handled.
    while (!(await logged(url, since))) {
      await page.click('#ping', { timeout: 5000 });
      clicks++;
      await page.waitForTimeout(100);
      if (Date.now() - since > 60_000) throw new Error('no capture of the 10 MB page within 60 s');
    }
    expect(await page.locator('#ping').getAttribute('data-clicks')).toBe(String(clicks));
    await page.close();
    const entry = (await logged(url, since))!;
    expect(clicks).toBeGreaterThan(2);
    // Sliced work, checked by its shape and not by time: the capture ran as many tasks (one per slice of
    // about 5 ms; a capture done in one go is 1). Any time figure here measures the machine: the longest
    // task was 22-311 ms here and 377 ms of 724 on the CI machine, where a garbage collection of the
    // 10 MB DOM lands inside whichever slice is running (traced under 4x CPU throttling: 100 ms steps of
    // the chunker that do no more work than their neighbours). Long-task figures live in the capture
    // report (`npm run eval:capture`, bench/results/capture.json: longest task p95 and max).
    const { tasks, costMs } = entry.extraction!;
    expect(costMs).toBeGreaterThan(0);
    expect(tasks).toBeGreaterThanOrEqual(10); // 34-37 here; a few tasks is all a small page makes
    const rec = (await pageRecord(url))!;
    expect(rec.chunkIds.length).toBeLessThanOrEqual(1000);
    const chunks = await chunksOf(url);
    let total = 0;
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(6000);
      total += c.text.length;
    }
    expect(total).toBeLessThanOrEqual(2_000_000 * 1.3); // overlap and heading paths repeat a little
    expect(await found('hugepagestartword')).toContain(url);
    // The tail lies beyond the caps: cut, not crashed.
    expect(await found('hugepagetailword')).toEqual([]);
  });

  it('holds the chunk cap on 5,000 headings, and the page keeps responding', async () => {
    const url = server.url('/hard/many-headings.html');
    const since = Date.now();
    const page = await ext.ctx.newPage();
    await page.goto(url, { waitUntil: 'load' });
    let clicks = 0;
    while (!(await logged(url, since))) {
      await page.click('#ping', { timeout: 5000 });
      clicks++;
      await page.waitForTimeout(100);
      if (Date.now() - since > 60_000) throw new Error('no capture of the 5,000-heading page within 60 s');
    }
    expect(await page.locator('#ping').getAttribute('data-clicks')).toBe(String(clicks));
    await page.close();
    const rec = (await pageRecord(url))!;
    expect(rec.chunkIds.length).toBeGreaterThan(100);
    expect(rec.chunkIds.length).toBeLessThanOrEqual(1000);
    const rows = await searchPage(ext, { q: 'manyheadingsfirstword' });
    expect(rows[0]?.href).toBe(url + '#h0');
  });
});

describe('capture: single-page apps, revisits and changes', () => {
  it('re-captures a single-page app after pushState, with the new content findable', async () => {
    const url = server.url('/hard/spa.html');
    const page = await ext.ctx.newPage();
    const since = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await waitCapture(url, since);
    expect(await found('aardwolf')).toContain(url);
    const clicked = Date.now();
    // The view change touches four nodes (not a "large" change): the URL change is what triggers this.
    await page.click('a[data-view="two"]');
    expect(page.url()).toBe(server.url('/hard/spa/two'));
    const entry = await until(() => inWorker<LogEntry | undefined>(`engine.captureLog.findLast((e) => e.at >= ${clicked})`), 'a capture after pushState');
    await page.close();
    expect(['new', 'changed']).toContain(entry.outcome);
    const text = (await chunksOf(entry.url)).map((c) => c.text).join('\n');
    expect(text).toContain('zibeline');
    expect(text).not.toContain('aardwolf');
    expect(await found('zibeline')).toContain(entry.url);
  });

  // Known gap outside content/: the worker files a capture under `sender.url`, which Chrome does not
  // update on history.pushState, so the new view replaces the old one under the old URL. Fix (router):
  // accept the content script's location.href when it is same-origin with sender.url. Remove `.fails` then.
  it('files the pushState view under its own URL, next to the first view', async () => {
    const url = server.url('/hard/spa.html');
    const two = server.url('/hard/spa/two');
    const page = await ext.ctx.newPage();
    const since = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await waitCapture(url, since);
    await page.click('a[data-view="two"]');
    await waitCapture(two, since, 5000);
    await page.close();
    expect(await found('zibeline')).toContain(two);
    expect(await found('aardwolf')).toContain(url);
  });

  it('only bumps the visit when a page is revisited with the same content', async () => {
    const url = server.url('/hard/nested-headings.html');
    const before = (await pageRecord(url))!;
    const entry = await visitAndCapture(url);
    expect(entry.outcome).toBe('revisit');
    const after = (await pageRecord(url))!;
    expect(after.visitCount).toBe(before.visitCount + 1);
    expect(after.chunkIds).toEqual(before.chunkIds);
  });

  it('a page view whose content changes is read again and counted once; loading it again is a new visit', async () => {
    const url = server.url('/hard/growing.html');
    server.routes.set(
      '/hard/growing.html',
      `<!doctype html><html lang="en"><head><title>Growing page</title></head><body><main id="m"><h1>Growing page</h1>` +
        Array.from({ length: 3 }, (_, i) => `<h2>Part ${i}</h2><p>This part is about the harbour, its cranes, its ferries and the tides that move the moored boats.</p>`).join('') +
        `</main></body></html>`,
    );
    const page = await ext.ctx.newPage();
    const since = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    expect((await waitCapture(url, since)).outcome).toBe('new');
    // A large change at the same address (a feed loading more): the content script reads the view again.
    const grown = Date.now();
    await page.evaluate(() => {
      for (let i = 0; i < 30; i++) {
        const p = document.createElement('p');
        p.textContent = `Later news ${i}: the quayside market sells smoked kippers and samphire every morning.`;
        document.getElementById('m')!.append(p);
      }
    });
    expect((await waitCapture(url, grown)).outcome).toBe('changed');
    expect(await found('samphire')).toContain(url);
    // One view, one visit (it was counted twice: the content script re-sent the view as a new capture).
    expect((await pageRecord(url))!.visitCount).toBe(1);
    const reloaded = Date.now();
    await page.reload({ waitUntil: 'load' });
    await waitCapture(url, reloaded);
    await page.close();
    expect((await pageRecord(url))!.visitCount).toBe(2);
  });

  it("replaces a changed page's chunks: old-only words are no longer found", async () => {
    const url = server.url('/hard/changing.html');
    const version = (word: string, n: number) =>
      `<!doctype html><html lang="en"><head><title>Changing page</title></head><body><main><h1 id="t">Changing page</h1>` +
      Array.from({ length: n }, (_, i) => `<h2 id="s${i}">Part ${i}</h2><p>This part talks about ${word} and about the shared subject of river boats, locks, weirs and towpaths along the canal.</p>`).join('') +
      `</main></body></html>`;
    server.routes.set('/hard/changing.html', version('oldonlyword', 3));
    expect((await visitAndCapture(url)).outcome).toBe('new');
    expect(await found('oldonlyword')).toContain(url);
    server.routes.set('/hard/changing.html', version('newonlyword', 5));
    const entry = await visitAndCapture(url);
    expect(entry.outcome).toBe('changed');
    expect(await found('oldonlyword')).toEqual([]);
    expect(await found('newonlyword')).toContain(url);
    const rec = (await pageRecord(url))!;
    expect(rec.chunkIds.length).toBe(entry.chunks);
    expect(rec.visitCount).toBe(2);
    expect((await chunksOf(url)).map((c) => c.text).join('\n')).not.toContain('oldonlyword');
  });
});
