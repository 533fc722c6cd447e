/**
 * A page's echo of the visitor's typing (src/typedMirror.ts): a Markdown editor's live preview renders the
 * draft outside any form control. Pure tests of the rule, then the capture on a live page in Chromium.
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { describe, expect, it } from 'vitest';
import type { captureDocument } from '../../content/pageCapture.js';
import { echoesTyped, MAX_TYPED_CHARS, mirrorNormal, MIRROR_SHINGLE, typedText } from '../../src/typedMirror.js';
import { prng } from '../shared/corpus.js';

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

const DRAFT = `## Why my build fails

I tried **cmake --build** twice, and the linker still says \`undefined reference to frobnicate\`.
- first attempt: clean tree
- second attempt: after [the FAQ](https://example.invalid/faq) said to delete the cache`;

describe('echoesTyped', () => {
  const typed = typedText([DRAFT])!;
  it('finds the draft as a preview renders it: marks gone, one block a paragraph, heading or item', () => {
    for (const block of ['Why my build fails', 'I tried cmake --build twice, and the linker still says undefined reference to frobnicate.', 'first attempt: clean tree', 'second attempt: after the FAQ said to delete the cache']) {
      expect(echoesTyped(block, typed), block).toBe(true);
    }
  });
  it('leaves the page\'s own text, even where it shares words with the draft', () => {
    for (const block of [
      'The build directory holds the cache; delete it to start over.',
      'cmake --build runs the native build tool for the configured generator.',
      'If the linker reports an undefined reference, check the library order.',
      'FAQ',
    ]) {
      expect(echoesTyped(block, typed), block).toBe(false);
    }
  });
  it('a block that is mostly page text with a short quote of the draft is kept; one mostly the draft is not', () => {
    expect(echoesTyped('Someone asked: why my build fails. The answer is in the chapter on generators and toolchains, which explains how the native tool is chosen.', typed)).toBe(false);
    expect(echoesTyped('Preview: I tried cmake --build twice, and the linker still says undefined reference to frobnicate.', typed)).toBe(true);
  });
  it('nothing typed, or too little, tests nothing', () => {
    expect(typedText([])).toBeNull();
    expect(typedText(['', '  ', 'a!'])).toBeNull();
  });
  it('a pasted megabyte is tested up to MAX_TYPED_CHARS, its start still found', () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => `line${i}`).join(' ');
    const t = typedText([huge])!;
    expect(t.pieces.length).toBeLessThanOrEqual(MAX_TYPED_CHARS);
    expect(echoesTyped('line10 line11 line12 line13 line14', t)).toBe(true);
    expect(echoesTyped('line99990 line99991 line99992 line99993', t)).toBe(false);
  });
  it('normalises full-width and case as typed', () => {
    expect(mirrorNormal('ＣＭａｋｅ  --Build!')).toBe('cmake build');
    expect(echoesTyped('WHY MY BUILD FAILS', typed)).toBe(true);
  });
  it('random text shares no echo with a random draft (property, 300 cases); any slice of a draft of a piece or more is one', () => {
    const rnd = prng(20261207);
    const word = () => Array.from({ length: 3 + Math.floor(rnd() * 7) }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join('');
    const text = (n: number) => Array.from({ length: n }, word).join(' ');
    for (let i = 0; i < 300; i++) {
      const draft = text(20 + Math.floor(rnd() * 200));
      const t = typedText([draft])!;
      expect(echoesTyped(text(5 + Math.floor(rnd() * 60)), t)).toBe(false);
      const words = draft.split(' ');
      const from = Math.floor(rnd() * (words.length - 3));
      const slice = words.slice(from, from + 3 + Math.floor(rnd() * 30)).join(' ');
      if (slice.length >= 3) expect(echoesTyped(slice, t), slice).toBe(true);
    }
  });
  it('a block shorter than a piece counts only as two or more whole words in a row of a typed value', () => {
    const t = typedText(['please review my pull request'])!;
    expect('my pull request'.length).toBeLessThan(MIRROR_SHINGLE);
    expect(echoesTyped('my pull request', t)).toBe(true);
    expect(echoesTyped('pull', t)).toBe(false); // one word: the page's as likely as typed
    expect(echoesTyped('ull req', t)).toBe(false);
    expect(echoesTyped('Reviews', t)).toBe(false);
  });
});

describe.skipIf(!CHROMIUM)('capture of a live page with a Markdown live preview (Chromium)', () => {
  it('leaves out the preview of what was typed, keeps the page, and keeps a preview of the page\'s own default text', async () => {
    const bundle = await build({ entryPoints: [new URL('../../content/pageCapture.ts', import.meta.url).pathname], bundle: true, format: 'iife', globalName: 'RereadCapture', write: false, platform: 'browser', logLevel: 'silent' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const prose = Array.from({ length: 8 }, () => 'Answers should explain the cause of the failure and show the fix with a short example.').join(' ');
      await page.setContent(`<!doctype html><html lang="en"><head><title>Ask a question</title></head><body><main>
        <h1>Linker errors with generated sources</h1><p>${prose}</p>
        <h2>Your answer</h2>
        <textarea id="answer" rows="8" cols="60"></textarea>
        <div id="preview" class="wmd-preview"></div>
        <h2>Comment</h2>
        <div class="tabs"><textarea id="comment" style="display: none"></textarea><div id="comment-preview"></div></div>
        <h2>Edit the summary</h2>
        <textarea id="summary">The original summary of the question, written by its asker.</textarea>
        <div id="summary-preview"></div>
        <p>${prose.replace(/Answers/g, 'Comments')}</p></main>
        <script>
          const md = (s) => s.split(/\\n\\n+/).map((p) => p.startsWith('## ') ? '<h2>' + p.slice(3) + '</h2>' : p.split('\\n').every((l) => l.startsWith('- ')) ? '<ul>' + p.split('\\n').map((l) => '<li>' + l.slice(2) + '</li>').join('') + '</ul>' : '<p>' + p.replace(/\\*\\*(.+?)\\*\\*/g, '<b>$1</b>').replace(/\`(.+?)\`/g, '<code>$1</code>').replace(/\\[(.+?)\\]\\((.+?)\\)/g, '<a href="$2">$1</a>') + '</p>').join('');
          const wire = (input, out) => { const f = () => { document.getElementById(out).innerHTML = md(document.getElementById(input).value); }; document.getElementById(input).addEventListener('input', f); f(); };
          wire('answer', 'preview'); wire('summary', 'summary-preview');
        </script></body></html>`);
      await page.fill('#answer', DRAFT);
      // GitHub's way: the Preview tab shows the draft while the Write tab (its textarea) is hidden.
      await page.evaluate(() => {
        const c = document.getElementById('comment') as HTMLTextAreaElement;
        c.value = 'Thanks, the zanzibarquill workaround from the second attempt fixed it for me.';
        document.getElementById('comment-preview')!.innerHTML = '<p>' + c.value + '</p>';
      });
      expect(await page.locator('#preview').innerText()).toContain('frobnicate');
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
      const text = await page.evaluate(async () => {
        const g = globalThis as unknown as { RereadCapture: { captureDocument: typeof captureDocument } };
        const got = await g.RereadCapture.captureDocument(document, { live: true, fallbackTitle: location.hostname });
        return got!.payload.blocks.map((b) => b.text).join('\n');
      });
      expect(text).toContain('Linker errors with generated sources');
      expect(text).toContain('Comments should explain');
      // The page's own text in a field (its default) and its preview: the page's, kept.
      expect(text).toContain('The original summary of the question');
      for (const leaked of ['frobnicate', 'Why my build fails', 'clean tree', 'delete the cache', 'zanzibarquill']) expect(text).not.toContain(leaked);
    } finally {
      await browser.close();
    }
  });
});
