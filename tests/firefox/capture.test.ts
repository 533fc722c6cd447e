/**
 * Capture in Firefox of what a page shows on request (content/extract.ts COLLAPSED): the body of a closed
 * `<details>` and what `hidden="until-found"` holds are stored, what stays hidden once opened is not, and
 * a result's link to a section inside opens it (Firefox ESR opens a closed `<details>` and reveals
 * `hidden="until-found"` for an id and for a text fragment, as Chromium does: checked here, not assumed).
 * The page is the one tests/e2e/capture.test.ts captures in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchFirefox, searchPage, serve, visit, FIXTURES, ROOT, type FirefoxExtension, type FixtureServer } from './harness.js';

let ext: FirefoxExtension;
let server: FixtureServer;

beforeAll(async () => {
  server = await serve({ '/hard/': join(FIXTURES, 'hard') });
  ext = await launchFirefox();
  // The dense lane is not under test here.
  await ext.bg('engine.updateSettings({ denseEnabled: false })');
});
afterAll(async () => {
  await ext?.close();
  await server?.close();
});

describe('capture of collapsed content (Firefox)', () => {
  it('stores the body of a closed <details> and hidden="until-found", not what stays hidden; its links open it', async () => {
    const url = server.url('/hard/collapsed.html');
    await visit(ext, [url]);
    for (const w of ['hivestoreword', 'admonitionword', 'guardfittingword', 'entranceclearword', 'untilfoundword', 'candyboardcode']) {
      expect((await searchPage(ext, { q: w })).map((r) => r.href.split('#')[0]), w).toEqual([url]);
    }
    for (const w of ['tooltiphiddenword', 'ghostdetailsword', 'ariadetailsword', 'detailsinputword', 'detailstextareaword', 'prehiddendetailsword', 'cellhiddendetailsword', 'plainhiddenword', 'menuhiddenword', 'dropdownmenuword']) {
      expect(await searchPage(ext, { q: w }), w).toEqual([]);
    }
    const tab = await ext.browser.newPage();
    await tab.setViewport({ width: 900, height: 260 });
    const cases = [
      { q: 'guardfittingword', href: `${url}#guard-fitting`, heading: 'Fitting the guard', details: true },
      { q: 'entranceclearword', href: `${url}#:~:text=Clearing%20the%20entrance`, heading: 'Clearing the entrance', details: true },
      { q: 'untilfoundword', href: `${url}#mite-counts`, heading: 'Mite counts', details: false },
    ];
    for (const c of cases) {
      const [top] = await searchPage(ext, { q: c.q });
      expect(top?.href, c.q).toBe(c.href);
      await tab.goto(server.url('/hard/blank'));
      await tab.goto(top!.href, { waitUntil: 'load' });
      const shown = (heading: string) => {
        const h = [...document.querySelectorAll('h3')].find((e) => e.textContent === heading);
        const r = h?.getBoundingClientRect();
        return { open: !!h?.closest('details')?.open, revealed: !h?.closest('[hidden]'), inView: !!r && r.height > 0 && r.bottom > 0 && r.top < innerHeight, scrolled: scrollY > 0 };
      };
      // Firefox opens it and scrolls once the page has loaded: wait until the heading is on screen (or give up and say what is).
      await tab.waitForFunction(`(${shown.toString()})(${JSON.stringify(c.heading)}).inView`, { timeout: 15_000, polling: 50 }).catch(() => undefined);
      expect(await tab.evaluate(shown, c.heading), c.q).toEqual({ open: c.details, revealed: true, inView: true, scrolled: true });
    }
    await tab.close();
  });

  it("finds a Chinese word that Firefox's segmenter calls not word-like", async () => {
    // Firefox ESR 153's segmenter says isWordLike false for 书籍 and 文学 in 科学方面的书籍。 and 数千本文学、 (a
    // word before punctuation), and for each of them typed alone: the tokenizer dropped them from the index and
    // from the query, so a search for either found nothing.
    const url = server.url('/hard/rtl-cjk.html');
    await visit(ext, [url]);
    for (const q of ['书籍', '文学']) {
      expect((await searchPage(ext, { q })).map((r) => r.href.split('#')[0]), q).toContain(url);
    }
  });

  it("links a search for words of one FAQ answer to that answer, and Firefox opens its <details> for the link", async () => {
    // content/extract.ts summaryHeading: each answer a section under its question, linked by its first
    // words when closed (Firefox ESR 153, like Chromium, opens a closed <details> only for a target inside it).
    const url = server.url('/hard/faq-details.html');
    await visit(ext, [url]);
    const tab = await ext.browser.newPage();
    await tab.setViewport({ width: 900, height: 260 });
    const cases = [
      { q: 'parcelwaitword', section: 'How long does delivery take?', href: '#:~:text=Parcels%20within%20the%20country%20arrive%20in%20two%20to' },
      { q: 'trackingnumberword', section: 'Where is my tracking number?', href: '#:~:text=The%20tracking%20number%20is%20in%20the%20second%20email' },
      { q: 'brokensmokerword', section: 'What if it arrived broken?', href: '#:~:text=Take%20a%20photograph%20of%20the%20box%20and%20the' },
    ];
    for (const c of cases) {
      const [top] = await searchPage(ext, { q: c.q });
      expect({ href: top?.href, section: top?.section.split(' › ').at(-1) }, c.q).toEqual({ href: url + c.href, section: c.section });
      await tab.goto(server.url('/hard/blank'));
      await tab.goto(top!.href, { waitUntil: 'load' });
      const shown = (word: string) => {
        const p = [...document.querySelectorAll('p')].find((e) => e.textContent!.includes(word))!;
        const d = p.closest('details')!;
        const onScreen = (e: Element) => {
          const r = e.getBoundingClientRect();
          return r.height > 0 && r.bottom > 0 && r.top < innerHeight;
        };
        let open = true;
        for (let e: Element | null = d; e; e = e.parentElement?.closest('details') ?? null) open &&= (e as HTMLDetailsElement).open;
        return { open, answer: onScreen(p), question: onScreen(d.querySelector(':scope > summary')!), scrolled: scrollY > 0 };
      };
      const all = `(() => { const s = (${shown.toString()})(${JSON.stringify(c.q)}); return s.open && s.answer && s.question && s.scrolled; })()`;
      await tab.waitForFunction(all, { timeout: 15_000, polling: 50 }).catch(() => undefined);
      expect(await tab.evaluate(shown, c.q), c.q).toEqual({ open: true, answer: true, question: true, scrolled: true });
    }
    await tab.close();
  });
});

describe("the tokenizer on Firefox's segmenter", () => {
  it('cuts Japanese and Chinese text on demand exactly as the index cut it', async () => {
    // src/tokenizer.ts TextWords segments a raw (a run of an unspaced script) alone, when proximity or a
    // snippet asks for it; the index segmented raws joined by newlines in batches. That the two agree rests
    // on the segmenter never carrying context across a newline: checked here on Firefox's own segmenter (its
    // ICU data and word-likeness differ from Chromium's), on the Developer's Reference in Japanese (the
    // quality gate's corpus, installed by .ci/run) and the Chinese and Japanese fixtures.
    const dir = '/usr/share/developers-reference/ja';
    const html = [
      ...readdirSync(dir).filter((f) => f.endsWith('.html')).map((f) => join(dir, f)),
      ...['anchors/ja-kernel.html', 'anchors/ja-upgrade.html', 'hard/rtl-cjk.html', 'hard/docbook-nav.html'].map((f) => join(FIXTURES, f)),
    ];
    // Block by block, as capture cuts text into sections (tags out; the tokenizer reads text only).
    const texts = html.flatMap((f) =>
      readFileSync(f, 'utf8')
        .replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
        .split(/<\/?(?:p|h[1-6]|li|dt|dd|pre|div|section|td|th|title)\b[^>]*>/)
        .map((t) => t.replace(/<[^>]+>/g, '').replace(/&[a-z]+;|&#\d+;/g, ' ').trim())
        .filter((t) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(t)),
    );
    expect(texts.length).toBeGreaterThan(500);
    const bundle = await build({
      stdin: {
        contents: `import { tokenize, wordTerms, forEachWordSpan, forgetWords } from './src/tokenizer.ts';
          globalThis.onDemandAgrees = (texts) => texts.flatMap((text) => {
            forgetWords();
            const onDemand = [];
            forEachWordSpan(text, (word) => { for (const t of wordTerms(word)) onDemand.push(t); });
            const indexed = tokenize(text);
            if (onDemand.join('\\u0001') === indexed.join('\\u0001')) return [];
            let i = 0;
            while (onDemand[i] === indexed[i]) i++;
            return [{ text: text.slice(0, 80), indexed: indexed.slice(Math.max(0, i - 2), i + 3), onDemand: onDemand.slice(Math.max(0, i - 2), i + 3) }];
          });`,
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      format: 'iife',
      write: false,
    });
    const tab = await ext.browser.newPage();
    await tab.goto(server.url('/hard/blank'));
    await tab.addScriptTag({ content: bundle.outputFiles[0]!.text });
    const differ: unknown[] = [];
    for (let i = 0; i < texts.length; i += 300) {
      differ.push(...(await tab.evaluate((t: string[]) => (globalThis as unknown as { onDemandAgrees(t: string[]): unknown[] }).onDemandAgrees(t), texts.slice(i, i + 300))));
    }
    await tab.close();
    expect(differ).toEqual([]);
  });
});
