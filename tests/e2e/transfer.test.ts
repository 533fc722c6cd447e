/**
 * Import of a file of several parts in the real Options page (popup/transfer.ts): read in slices,
 * written as it arrives; the worker stopped part-way (as Chrome stops an idle one, or a crash), the
 * page says how many pages are in, and choosing the same file again finishes it. An export the worker
 * stopped part-way makes no file, says so and offers to start again. The export and import of a whole
 * profile is in surfaces.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, engineStats, launch, until, type Extension } from './harness.js';

let ext: Extension;
beforeAll(async () => {
  ext = await launch();
});
afterAll(async () => {
  await ext?.close();
});

const PAGES = 150;
const WORDS = 'river stone bread yeast commit rebase kitten litter ocean garden café 漢字 ภาษาไทย 🐍 naïve'.split(' ');

/** An export file of PAGES pages, twelve sections of about 5,900 characters each: about 10 million characters, two parts and more. */
function exportFile(): string {
  const lines = [JSON.stringify({ kind: 'reread-export', version: 1, exportedAt: '2026-01-01T00:00:00Z', pages: PAGES })];
  for (let p = 0; p < PAGES; p++) {
    const url = `https://big${p % 7}.example/doc/${p}`;
    lines.push(JSON.stringify({ kind: 'page', url, title: `Document ${p} ${WORDS[p % WORDS.length]}`, lang: 'en', firstVisit: 1_700_000_000_000 + p, lastVisit: 1_700_000_000_000 + p, visitCount: 1, visits: [1_700_000_000_000 + p] }));
    for (let s = 0; s < 12; s++) {
      const text = `Heading ${s}\n` + Array.from({ length: 900 }, (_, i) => WORDS[(p * 31 + s * 7 + i * i) % WORDS.length]).join(' ') + ` marker${p}x${s}`;
      lines.push(JSON.stringify({ kind: 'chunk', url, ord: s, headingPath: [`Heading ${s}`], section: `Heading ${s}`, anchor: {}, text: text.slice(0, 5900) }));
    }
  }
  return lines.join('\n') + '\n';
}

describe('an import that stops part-way', () => {
  it('says how many pages are in; the same file chosen again finishes it', async () => {
    const text = exportFile();
    expect(text.length).toBeGreaterThan(2 * 4_000_000);
    const file = join(ext.profile, 'big-export.jsonl');
    writeFileSync(file, text);
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    const message = page.getByTestId('options-message');
    await page.getByTestId('import-file').setInputFiles(file);
    // The first part's pages are written: the page says so as the next part goes.
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 60_000, interval: 20 }).toMatch(new RegExp(`^Importing… [1-9][\\d,]* of ${PAGES} pages read$`));
    await ext.stopWorker();
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 60_000 }).toMatch(/stopped/);
    const said = (await message.textContent())!;
    const m = new RegExp(`^Import stopped part-way\\. .* (At least )?([\\d,]+) of the ${PAGES} pages in the file (?:was|were) imported\\. Import the file again to finish: pages already imported are not added twice\\.$`).exec(said);
    expect(m, said).not.toBeNull();
    const confirmed = Number(m![2]!.replace(/,/g, ''));
    expect(confirmed).toBeGreaterThan(0);
    expect(confirmed).toBeLessThan(PAGES);
    const stored = (await engineStats(ext)).pages;
    if (m![1]) expect(stored).toBeGreaterThanOrEqual(confirmed);
    else expect(stored).toBe(confirmed);
    expect(stored).toBeLessThan(PAGES);
    mkdirSync(join(ARTIFACTS, 'screens'), { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.locator('.options__status').screenshot({ path: join(ARTIFACTS, 'screens', `options-import-stopped-${colorScheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // The same file again (the input was emptied, so choosing it again is a change).
    await page.getByTestId('import-file').setInputFiles(file);
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 120_000 }).toBe(`Imported ${PAGES} pages.`);
    expect((await engineStats(ext)).pages).toBe(PAGES);
    const check = await until(() => ext.evalSw<{ ok: boolean; problems: string[] }>(`globalThis.rereadDebug.verifyIndex(engine, false)`), 'verify');
    expect(check.problems).toEqual([]);
    // Every page whole, and its only visit counted once.
    const pages = await ext.evalSw<{ url: string; sections: number; visits: number; visitCount: number }[]>(
      `(async () => (await (await engine.db()).getAll('pages')).map((p) => ({ url: p.url, sections: p.chunkIds.length, visits: (p.visits ?? []).length, visitCount: p.visitCount })))()`,
    );
    expect(pages.filter((p) => p.sections !== 12 || p.visits !== 1 || p.visitCount !== 1)).toEqual([]);
    await page.close();
  });
});

describe('an export that stops part-way', () => {
  it('makes no file and says so, offering to start again; started again, the file is whole', async () => {
    // The profile the import above left: 150 pages, about 10 million characters (three parts).
    const stored = (await engineStats(ext)).pages;
    expect(stored).toBe(PAGES);
    const page = await ext.ctx.newPage();
    await page.goto(ext.extensionUrl('options.html'));
    const message = page.getByTestId('options-message');
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.getByTestId('export').click();
    // The first part is in: the worker stops as the next one is read (its export goes with it).
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 60_000, interval: 20 }).toMatch(new RegExp(`^Exporting… [1-9][\\d,]* of ${PAGES} pages$`));
    await ext.stopWorker();
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 60_000 }).toMatch(/^Export stopped/);
    expect(await message.textContent()).toMatch(new RegExp(`^Export stopped (before the end, after [\\d,]+ pages? of ${PAGES}|before the file was complete)\\. The transfer was interrupted \\(Reread’s background restarted or it took too long\\)\\. No file was saved\\. Start the export again\\.$`));
    expect(downloads).toBe(0);
    // For a person to look at: the message and the button under it, in both themes.
    await page.locator('.options__status').screenshot({ path: join(ARTIFACTS, 'screens', 'options-export-stopped.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.options__status').screenshot({ path: join(ARTIFACTS, 'screens', 'options-export-stopped-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });

    const download = page.waitForEvent('download');
    await page.getByTestId('export-again').click();
    const file = join(ext.profile, 'export-again.jsonl');
    await (await download).saveAs(file);
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 60_000 }).toBe(`Exported ${PAGES} pages.`);
    expect(await page.getByTestId('export-again').count()).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string });
    expect(lines.filter((l) => l.kind === 'page').length).toBe(PAGES);
    expect(lines.filter((l) => l.kind === 'chunk').length).toBe(PAGES * 12);
    await page.close();
  });
});

describe('an import holding pages of a site this profile never saves', () => {
  it('leaves them out and says so', async () => {
    const before = (await engineStats(ext)).pages;
    // mail.google.com is on the list of sites never saved from the start (src/settings.ts).
    const page = (url: string, word: string) => [
      JSON.stringify({ kind: 'page', url, title: `Note ${word}`, lang: 'en', firstVisit: 1_700_000_000_000, lastVisit: 1_700_000_000_000, visitCount: 1 }),
      JSON.stringify({ kind: 'chunk', url, ord: 0, headingPath: ['Note'], section: 'Note', anchor: {}, text: `A note about ${word} and other things worth keeping.` }),
    ];
    const lines = [JSON.stringify({ kind: 'reread-export', version: 1, exportedAt: '2026-01-01T00:00:00Z', pages: 3 }), ...page('https://mail.google.com/mail/u/0/abc', 'inboxsecretword'), ...page('https://mail.google.com/mail/u/1/def', 'inboxotherword'), ...page('https://kept.example/note', 'keptnoteword')];
    const file = join(ext.profile, 'with-mail.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    await options.getByTestId('import-file').setInputFiles(file);
    const message = options.getByTestId('options-message');
    await expect.poll(async () => (await message.textContent()) ?? '', { timeout: 60_000 }).toBe('Imported 1 page. 2 pages of sites you never save were left out.');
    expect((await engineStats(ext)).pages).toBe(before + 1);
    const urls = await ext.evalSw<string[]>(`(async () => (await (await engine.db()).getAllKeys('pages')).filter((u) => !u.includes('big')))()`);
    expect(urls).toEqual(['https://kept.example/note']);
    for (const colorScheme of ['light', 'dark'] as const) {
      await options.emulateMedia({ colorScheme });
      await options.locator('.options__status').screenshot({ path: join(ARTIFACTS, 'screens', `options-import-excluded-${colorScheme}.png`) });
    }
    await options.close();
  });
});
