/**
 * What README "Privacy" promises of capture, for the holes the privacy review of session 33 found: an excluded
 * site written with a trailing dot, and what table cells and code blocks hold that is never read.
 */
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { describe, expect, it } from 'vitest';
import { captureAllowed } from '../../background/capture.js';
import type { Engine } from '../../background/engine.js';
import { captureDocument } from '../../content/pageCapture.js';
import { gateAllows } from '../../src/captureGate.js';
import { titleEntry } from '../../src/historyEntries.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { parseDocument } from '../eval/lib/dom.js';

const prose = (w: string) => Array.from({ length: 12 }, () => `The ${w} report lists the quarterly figures for every region in plain words.`).join(' ');

describe('excluded sites: a host written with a trailing dot (an absolute DNS name) is the same site', () => {
  const gate = { paused: false, excludedSites: [...DEFAULT_SETTINGS.excludedSites] };
  it('the content-script gate refuses https://mail.google.com./ like https://mail.google.com/', () => {
    expect(gateAllows(gate, 'https://mail.google.com/mail/u/0/')).toBe(false);
    expect(gateAllows(gate, 'https://mail.google.com./mail/u/0/')).toBe(false);
    expect(gateAllows(gate, 'https://www.chase.com./account')).toBe(false);
  });
  it('the background check (every capture, backfill, PDF) refuses it too', async () => {
    const engine = { settings: async () => ({ ...DEFAULT_SETTINGS }) } as unknown as Engine;
    expect((await captureAllowed(engine, 'https://secure.chase.com./statements')).allowed).toBe(false);
  });
  it('the history import does not keep it as a title-only entry (which the backfill would then fetch)', () => {
    expect(titleEntry({ url: 'https://mail.google.com./mail/u/0/#inbox', title: 'Inbox (3) - me@gmail.com', lastVisitTime: 1 }, DEFAULT_SETTINGS.excludedSites)).toBeNull();
  });
});

describe('hidden text and editable regions in tables and code blocks of a fetched page (backfill: captureDocument, no layout)', () => {
  it('leaves out hidden / aria-hidden text, form controls and editable regions inside table cells and <pre>', async () => {
    const doc = parseDocument(`<!doctype html><html lang="en"><head><title>Figures</title></head><body><main>
      <h1>Figures</h1><p>${prose('regional')}</p>
      <table><tr><th>Region</th><th>Total</th></tr>
        <tr><td>North<span hidden>HIDDENATTR</span></td><td>12<span aria-hidden="true">ARIAHIDDEN</span></td></tr>
        <tr><td><textarea>TEXTAREAVALUE</textarea>South</td><td><div contenteditable="true">EDITABLEREGION</div>7</td></tr>
        <tr><td><select><option>SELECTOPTION</option></select>East</td><td>3<template>TEMPLATETEXT</template></td></tr></table>
      <pre>x = 1<span hidden>PREHIDDEN</span>\ny = 2<code contenteditable>PREEDITABLE</code></pre>
      <p>${prose('closing')}</p></main></body></html>`);
    const got = (await captureDocument(doc, { live: false, fallbackTitle: 'example.com' }))!;
    const text = got.payload.blocks.map((b) => b.text).join('\n');
    expect(text).toContain('North');
    expect(text).toContain('x = 1');
    for (const leaked of ['HIDDENATTR', 'ARIAHIDDEN', 'TEXTAREAVALUE', 'EDITABLEREGION', 'SELECTOPTION', 'TEMPLATETEXT', 'PREHIDDEN', 'PREEDITABLE']) expect(text).not.toContain(leaked);
  });
});

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

describe.skipIf(!CHROMIUM)('editable regions inside table cells and <pre> on a live page (content script, real Chromium)', () => {
  it('what the user types into an editable cell or code block is never captured', async () => {
    const bundle = await build({ entryPoints: [new URL('../../content/pageCapture.ts', import.meta.url).pathname], bundle: true, format: 'iife', globalName: 'RereadCapture', write: false, platform: 'browser', logLevel: 'silent' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.setContent(`<!doctype html><html lang="en"><head><title>Team notes</title></head><body><main>
        <h1>Team notes</h1><p>${prose('weekly')}</p>
        <table><tr><th>Item</th><th>Notes</th></tr><tr><td>Budget</td><td><div id="cell" contenteditable="true"></div></td></tr></table>
        <pre>run build<code id="code" contenteditable="true"></code></pre>
        <p>${prose('closing')}</p></main></body></html>`);
      await page.type('#cell', 'my card number 4111 1111 1111 1111');
      await page.type('#code', 'export TOKEN=supersecret');
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
      const text = await page.evaluate(async () => {
        const g = globalThis as unknown as { RereadCapture: { captureDocument: typeof captureDocument } };
        const got = await g.RereadCapture.captureDocument(document, { live: true, fallbackTitle: location.hostname });
        return got!.payload.blocks.map((b) => b.text).join('\n');
      });
      expect(text).toContain('Budget');
      expect(text).not.toContain('4111');
      expect(text).not.toContain('supersecret');
    } finally {
      await browser.close();
    }
  });
});
