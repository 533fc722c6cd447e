/**
 * Capture on hostile pages, for the holes an invariant review of capture found (content/, and the pure
 * code it runs in src/): characters no reader sees, markup nested deeper than a call stack, nested
 * tables, Readability on deep nesting, huge single elements, long tables. What each test checks is the
 * result's shape and size or the work done (the longest string read, the yields), never a duration: a
 * test cannot time a page without flaking, and the timings belong to the commits that fixed each case.
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMITS, walkBlocks } from '../../content/extract.js';
import { captureDocument } from '../../content/pageCapture.js';
import { tokenize } from '../../src/tokenizer.js';
import { validateCapture } from '../../src/validate.js';
import { emptyDocument, parseDocument } from '../eval/lib/dom.js';

const prose = (w: string) => Array.from({ length: 6 }, () => `The ${w} report lists the quarterly figures for every region in plain words.`).join(' ');

/** A parsed page (what the backfill reads; the content script walks the live page the same way). */
async function capture(body: string, title = 'Hostile page') {
  const doc = parseDocument(`<!doctype html><html lang="en"><head><title>${title}</title></head><body><main>${body}</main></body></html>`);
  return (await captureDocument(doc, { live: false, fallbackTitle: 'example.com' }))!;
}

describe('characters no reader sees', () => {
  it('a word written with zero-width characters, word joiners or a joiner inside it is stored as the word the page shows, and found by it', async () => {
    // Shown as "password", "username", "keyboard", "database": the tokenizer cut each into two words, and
    // a search for the word on the screen did not find the page.
    const got = await capture(`<h1>Sign-in help</h1><p>${prose('help')}</p><p>Reset your pass\u200Bword, your user\u2060name, your key\uFEFFboard or your data\u200Dbase here.</p>`);
    const terms = new Set(got.payload.sections.flatMap((s) => tokenize(s.text)));
    for (const word of ['password', 'username', 'keyboard', 'database']) expect(terms, word).toContain(word);
    // And the background, which normalises what it is sent on its own, agrees with the page's cut.
    const { payload } = validateCapture(JSON.parse(JSON.stringify(got.payload)));
    expect(payload.sections).toEqual(got.payload.sections);
  });

  it('stores no control, bidi control or tag character, in blocks, sections or the title; joiners that join a script stay', async () => {
    const got = await capture(
      `<h1>Re\u202Eport\u202C</h1><p>${prose('yearly')}</p><p id="c">Bell\u0007 escape\u001B[31m red\u0085 next \u2066isolate\u2069 mark\u200F tag\u{E0041}\u{E0042} end.</p>` +
        `<p>Persian \u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 and a family 👩\u200D👩\u200D👧 and a keycap 1\uFE0F\u20E3.</p>`,
      'Ti\u0001tle\u202E',
    );
    // A page can put any UTF-16 string in the DOM (textContent from a script; `&#1;` parses as U+0001).
    const doc = got.payload;
    const { payload } = validateCapture(JSON.parse(JSON.stringify({ ...doc, blocks: [...doc.blocks, { kind: 'text', text: 'nul\u0000 and del\u007F' }] })));
    const texts = [payload.title, ...payload.blocks.map((b) => b.text), ...payload.sections!.map((s) => s.text), ...doc.blocks.map((b) => b.text), ...doc.sections.map((s) => s.text)];
    const UNSEEN = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/u;
    for (const t of texts) expect(t, JSON.stringify(t)).not.toMatch(UNSEEN);
    expect(payload.title).toBe('Title');
    const all = doc.blocks.map((b) => b.text).join('\n');
    expect(all).toContain('Bell escape[31m red next isolate mark tag end.');
    expect(all).toContain('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645');
    expect(all).toContain('👩\u200D👩\u200D👧');
    expect(all).toContain('1\uFE0F\u20E3');
  });
});

describe('markup nested deeper than a call stack', () => {
  it('a code block and a table cell holding 10,000 nested elements (and something never read) are read, not a stack overflow', async () => {
    // A script builds any depth (Chromium's HTML parser stops nesting at 512); what holds something never read
    // (here a hidden span) is read element by element (extract.ts readText), which recursed.
    const nest = (inner: string) => '<span>'.repeat(10_000) + inner + '</span>'.repeat(10_000);
    const got = await capture(`<h1>Deep</h1><p>${prose('deep')}</p><pre><span hidden>never</span>${nest('deepcodeword')}</pre>` + `<table><tr><td><span hidden>never</span>${nest('deepcellword')}</td><td>next</td></tr></table>`);
    const text = got.payload.blocks.map((b) => b.text).join('\n');
    expect(text).toContain('deepcodeword');
    expect(text).toContain('deepcellword | next');
    expect(text).not.toContain('never');
  });
});

describe('tables inside tables', () => {
  it("a table nested in a cell is stored once, in its cell's text, not again as rows of the table around it", async () => {
    const got = await capture(
      `<h1>Layout</h1><p>${prose('layout')}</p><table><tr><td>outercell</td><td><table><tr><td>innerone</td></tr><tr><td>innertwo</td></tr></table></td></tr><tr><td>outerlast</td></tr></table>`,
    );
    const text = got.payload.blocks.map((b) => b.text).join('\n');
    for (const word of ['outercell', 'innerone', 'innertwo', 'outerlast']) expect(text.split(word).length - 1, word).toBe(1);
  });

  it('tables nested 500 deep (as deep as the HTML parser nests) are stored as their text, once', async () => {
    // Each level's rows were read again at every level above it: 4,000 characters of cells became the
    // 200,000 the block cap allows, and the work grew with the square of the depth.
    let html = '';
    for (let i = 499; i >= 0; i--) html = `<table><tr><td>cell${i} ${html}</td></tr></table>`;
    const got = await capture(`<h1>Nest</h1><p>${prose('nest')}</p>${html}`);
    const cells = got.payload.blocks.filter((b) => b.kind === 'table').map((b) => b.text).join(' ');
    expect(cells.match(/cell\d+/g)).toEqual(Array.from({ length: 500 }, (_, i) => `cell${i}`));
  });
});

describe('Readability on deeply nested pages', () => {
  it('is not run on a page nested deeper than EXTRACT_LIMITS.readabilityMaxDepth; a page as deep as documentation still gets it', async () => {
    // Its one synchronous call grows with the square of the depth (650 ms at 500 in Chromium: a page's
    // whole text under 500 unclosed divs). The cleaned body is the capture then.
    const page = (depth: number) => `<div>`.repeat(depth) + `<h1>Nested</h1><p>${prose('nested')}</p><p>${prose('second')}</p>` + `</div>`.repeat(depth);
    const doc = (depth: number) => parseDocument(`<!doctype html><html lang="en"><head><title>Nested</title></head><body>${page(depth)}</body></html>`);
    const shallow = (await captureDocument(doc(30), { live: false, fallbackTitle: 'example.com' }))!;
    expect(shallow.extraction.method).not.toBe('body');
    expect(EXTRACT_LIMITS.readabilityMaxDepth).toBeLessThan(100);
    const deep = (await captureDocument(doc(100), { live: false, fallbackTitle: 'example.com' }))!;
    expect(deep.extraction.method).toBe('body');
    expect(deep.payload.blocks.map((b) => b.text)).toEqual(shallow.payload.blocks.map((b) => b.text));
  });
});

describe('huge single elements: read up to the caps, never whole', () => {
  const TEN_MB = 10_000_000;

  it('a 10 MB heading, table cell, code block or unspaced text is cut while it is read: no string of the capture is much longer than a block', async () => {
    // Reading one element is one task of the page: the whole of a 10 MB heading was copied and cleaned (840
    // ms in Chromium), a cell's 10 MB textContent cleaned (800 ms), Readability given a 10 MB text node
    // that counts as one word (230 ms). What the capture keeps was always cut to the caps; now what it
    // reads is too. Counted as the longest string a `replace` ran over, not as a time.
    const html = (doc: Document) => {
      const main = doc.body.appendChild(doc.createElement('div'));
      main.appendChild(doc.createElement('h1')).textContent = 'Heading words '.repeat(TEN_MB / 14);
      main.appendChild(doc.createElement('p')).textContent = prose('lead');
      const row = main.appendChild(doc.createElement('table')).appendChild(doc.createElement('tr'));
      row.appendChild(doc.createElement('td')).textContent = 'cell words '.repeat(TEN_MB / 11);
      main.appendChild(doc.createElement('pre')).textContent = 'code line\n'.repeat(TEN_MB / 10);
      return doc;
    };
    const unspaced = (doc: Document) => {
      doc.body.appendChild(doc.createElement('h1')).textContent = 'Unspaced';
      doc.body.appendChild(doc.createElement('p')).textContent = 'a'.repeat(TEN_MB);
      return doc;
    };
    for (const build of [html, unspaced]) {
      const doc = build(parseDocument('<!doctype html><html lang="en"><head><title>Huge</title></head><body></body></html>'));
      const replace = String.prototype.replace;
      let longest = 0;
      String.prototype.replace = function (this: string, ...args: Parameters<typeof replace>) {
        longest = Math.max(longest, this.length);
        return replace.apply(this, args);
      } as typeof replace;
      let got;
      try {
        got = (await captureDocument(doc, { live: false, fallbackTitle: 'example.com' }))!;
      } finally {
        String.prototype.replace = replace;
      }
      expect(longest, build.name).toBeLessThanOrEqual(4 * EXTRACT_LIMITS.maxBlockChars);
      for (const b of got.payload.blocks) expect(b.text.length).toBeLessThanOrEqual(b.kind === 'heading' ? EXTRACT_LIMITS.maxHeadingChars : EXTRACT_LIMITS.maxBlockChars);
      expect(got.payload.blocks.length).toBeGreaterThanOrEqual(2);
    }
  });

  it("a table of thousands of rows is read in the walk's slices, not in one task", async () => {
    // 2,000 rows of 10 cells were one task of 300 ms in Chromium. With a clock that says every slice is
    // over, the walk yields before every row it reads (2,000 at most) instead of once around the table.
    const rows = Array.from({ length: 3000 }, (_, i) => `<tr>${Array.from({ length: 5 }, (_, j) => `<td>c${i}.${j}</td>`).join('')}</tr>`).join('');
    const doc = parseDocument(`<!doctype html><html><head><title>Rows</title></head><body><h1>Rows</h1><table>${rows}</table></body></html>`);
    let t = 0;
    let yields = 0;
    const walk = await walkBlocks(doc.body, { checkVisibility: false, now: () => t++, sliceMs: 0, yieldToPage: async () => void yields++ });
    expect(walk.blocks.find((b) => b.kind === 'table')!.text.split('\n')).toHaveLength(2000);
    expect(yields).toBeGreaterThanOrEqual(2000);
  });

  it("the copy made for Readability is not built past Readability's word limit", async () => {
    // One table of 2,500 rows: one element of the copy for the walk's count, 7,500 made for its rows and
    // cells, for a page Readability is never run on (too many words).
    const rows = Array.from({ length: 2500 }, (_, i) => `<tr><td>row ${i} first</td><td>row ${i} second</td></tr>`).join('');
    const doc = parseDocument(`<!doctype html><html><head><title>Rows</title></head><body><h1>Rows</h1><table>${rows}</table></body></html>`);
    const walk = await walkBlocks(doc.body, { checkVisibility: false, mirror: emptyDocument() });
    expect(walk.words).toBeGreaterThan(EXTRACT_LIMITS.readabilityMaxWords);
    expect(walk.mirror).toBeNull();
  });
});

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

describe.skipIf(!CHROMIUM)('huge single elements on a live page (content script, real Chromium)', () => {
  it('a 2 MB code block or table cell is read up to the cap, not as one innerText of all of it', async () => {
    // A plain-text file of 10 MB (a log) is shown by the browser as one `pre`: its innerText was 200 ms of
    // the page's main thread in one task, a 10 MB cell's 800 ms (Chromium 156), before being cut to 200,000.
    // (2 MB here: past the cap is all it takes.)
    const bundle = await build({ entryPoints: [new URL('../../content/pageCapture.ts', import.meta.url).pathname], bundle: true, format: 'iife', globalName: 'RereadCapture', write: false, platform: 'browser', logLevel: 'silent' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.setContent(`<!doctype html><html lang="en"><head><title>Log</title></head><body><main><h1>Build log</h1><p>${prose('build')}</p></main></body></html>`);
      await page.evaluate(() => {
        const main = document.querySelector('main')!;
        main.appendChild(document.createElement('pre')).textContent = 'code line\n'.repeat(200_000);
        main.appendChild(document.createElement('table')).insertRow().insertCell().textContent = 'cell words '.repeat(200_000);
      });
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
      const got = await page.evaluate(async () => {
        const g = globalThis as unknown as { RereadCapture: { captureDocument: typeof captureDocument } };
        const own = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'innerText')!;
        let longest = 0;
        Object.defineProperty(HTMLElement.prototype, 'innerText', {
          ...own,
          get(this: HTMLElement) {
            const v = own.get!.call(this) as string;
            longest = Math.max(longest, v.length);
            return v;
          },
        });
        const c = await g.RereadCapture.captureDocument(document, { live: true, fallbackTitle: location.hostname });
        return { longest, blocks: c!.payload.blocks.map((b) => ({ kind: b.kind, length: b.text.length, start: b.text.slice(0, 20) })) };
      });
      expect(got.longest).toBeLessThanOrEqual(4 * EXTRACT_LIMITS.maxBlockChars);
      const code = got.blocks.find((b) => b.kind === 'code')!;
      expect(code.start).toBe('code line\ncode line\n');
      expect(code.length).toBeGreaterThan(EXTRACT_LIMITS.maxBlockChars * 0.9);
      expect(code.length).toBeLessThanOrEqual(EXTRACT_LIMITS.maxBlockChars);
      const table = got.blocks.find((b) => b.kind === 'table')!;
      expect(table.start).toBe('cell words cell word');
      expect(table.length).toBeLessThanOrEqual(EXTRACT_LIMITS.maxBlockChars);
    } finally {
      await browser.close();
    }
  });
});
