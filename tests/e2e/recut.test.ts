/**
 * A release that cuts pages differently, in the real browser: pages are stored by this build (some cut
 * by the content script, most by the background), the extension is then updated in place to a build
 * whose chunker makes 80-word windows instead of 300, and the browser restarted. The background cuts every stored
 * page again from its kept blocks — with the worker stopped several times along the way — while the
 * options page shows the progress; afterwards search links follow the new cut, the index checks out,
 * and no visit was counted.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, DIST, launch, searchPage, serve, until, visit, type Extension, type FixtureServer } from './harness.js';
import { chunkerVariant } from './variantBuild.js';

const PAGES = 150;
const VISITED = 3;

/**
 * Page i: two 120-word paragraphs before any heading (one window for this release's chunker, linked to
 * the page itself; 80-word windows for the next one, each past the first linked by its first words),
 * then sections of 250 words under headings. Words come from a small vocabulary (a page of a thousand
 * words no other page has is the slowest kind to rewrite in schema 2), with one marker per paragraph.
 */
const VOCAB = ['river', 'stone', 'lamp', 'garden', 'window', 'bread', 'cloud', 'letter', 'bridge', 'forest', 'candle', 'harbor', 'meadow', 'violin', 'copper', 'lantern'];
const prose = (n: number, seed: number, marker: string) =>
  Array.from({ length: n }, (_, k) => (k === 100 ? marker : k % 4 === 0 ? `w${seed}x${k % 60}` : VOCAB[(k * 7 + seed) % VOCAB.length])).join(' ');
function blocks(i: number) {
  const out: { kind: string; text: string; level?: number; id?: string }[] = [
    { kind: 'text', text: `${prose(120, i, `rc${i}a100`)}.` },
    { kind: 'text', text: `${prose(120, i + 3, `rc${i}b100`)}.` },
  ];
  for (let s = 0; s < 4; s++) out.push({ kind: 'heading', level: 2, text: `Part ${s} of page ${i}`, id: `part-${s}` }, { kind: 'text', text: `${prose(250, i + s, `rc${i}p${s}`)}.` });
  return out;
}

function html(i: number): string {
  const body = blocks(i)
    .map((b) => (b.kind === 'heading' ? `<h${b.level} id="${b.id}">${b.text}</h${b.level}>` : `<p${b.id ? ` id="${b.id}"` : ''}>${b.text}</p>`))
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Recut page ${i}</title></head><body><main>${body}</main></body></html>`;
}

interface RecutState {
  have?: string;
  want: string;
  mark?: { done: number; total: number };
  progress: { done: number; total: number } | null;
}
const STATE = `(async () => { const db = await engine.db(); return { have: await db.get('meta', 'chunkerVersion'), want: globalThis.rereadDebug.chunkerVersion, mark: await db.get('meta', 'recut'), progress: engine.recut.progress }; })()`;

let server: FixtureServer;
let ext: Extension;
let profile: string;
let extDir: string;
let nextDir: string;

beforeAll(async () => {
  server = await serve({});
  for (let i = 0; i < PAGES + 1; i++) server.routes.set(`/rc/${i}.html`, html(i));
  // The next release, built before anything runs (it takes a while on a busy machine).
  nextDir = await chunkerVariant('maxWords: 300,', 'maxWords: 80,');
  // The extension is loaded from a folder of its own, which the update replaces (same folder, same id).
  extDir = mkdtempSync(join(tmpdir(), 'reread-installed-'));
  cpSync(DIST, extDir, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), 'reread-profile-'));
});

afterAll(async () => {
  await ext?.close();
  await server?.close();
  for (const d of [profile, extDir, nextDir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('re-cut after a chunker change', () => {
  it('cuts every stored page again in the background, across worker stops, and search follows the new cut', { timeout: 300_000 }, async () => {
    const t0 = Date.now();
    const step = (what: string) => console.info(`recut e2e: ${what} at ${Math.round((Date.now() - t0) / 1000)} s`);
    // --- This release stores the pages.
    ext = await launch({ dist: extDir, profile });
    const oldVersion = await until(() => ext.evalSw<string>('globalThis.rereadDebug.chunkerVersion').catch(() => ''), 'the worker');
    // Embedding is another lane's work (and the CPU it takes would only slow this test down).
    await ext.evalSw('engine.updateSettings({ denseEnabled: false }).then(() => true)');
    const visited = Array.from({ length: VISITED }, (_, i) => server.url(`/rc/${i}.html`));
    await visit(ext, visited);
    await until(() => ext.evalSw<number>(`engine.captureLog.filter((e) => e.url.includes('/rc/')).length`).then((n) => n >= VISITED), 'the visited pages captured');
    // The content script cut them: the background only checked the sections.
    const log = await ext.evalSw<{ url: string; cutBy: string }[]>(`engine.captureLog.filter((e) => e.url.includes('/rc/'))`);
    expect(new Set(log.map((e) => e.url))).toEqual(new Set(visited));
    expect(new Set(log.map((e) => e.cutBy))).toEqual(new Set(['page']));
    // The rest arrive as blocks only (as from an older content script): the background cuts them.
    const bulk = Array.from({ length: PAGES - VISITED }, (_, k) => ({ url: server.url(`/rc/${k + VISITED}.html`), payload: { title: `Recut page ${k + VISITED}`, lang: 'en', blocks: blocks(k + VISITED) } }));
    for (let k = 0; k < bulk.length; k += 10) await ext.evalSw(`(async () => { for (const p of ${JSON.stringify(bulk.slice(k, k + 10))}) await engine.capture(p.url, p.payload, 1700000000000); return true; })()`, 1);
    expect((await ext.evalSw<{ pages: number }>('engine.stats()')).pages).toBe(PAGES);
    // The old cut: the second paragraph shares the page's first window, which links to the page itself.
    for (const i of [1, 20]) {
      const [top] = await searchPage(ext, { q: `rc${i}b100` });
      expect(top!.href).toBe(server.url(`/rc/${i}.html`));
    }
    const visitsBefore = await ext.evalSw<number[]>(`engine.pages.all().then((m) => [...m.values()].sort((a, b) => a.url < b.url ? -1 : 1).map((p) => p.visitCount))`);
    expect((await ext.evalSw<RecutState>(STATE)).have).toBe(oldVersion);

    await ext.close({ keepProfile: true });

    step('pages stored');
    // --- The update: new code and version in the same folder (same extension id, same data), the
    // browser started again on the profile. Chromium keeps a command-line extension's worker script
    // registered across restarts whatever its files say; dropping that registration makes it register
    // the new script, as it does when it installs an update.
    rmSync(extDir, { recursive: true, force: true });
    cpSync(nextDir, extDir, { recursive: true });
    rmSync(join(profile, 'Default', 'Service Worker'), { recursive: true, force: true });
    ext = await launch({ dist: extDir, profile });
    const want = await until(() => ext.evalSw<string>('globalThis.rereadDebug.chunkerVersion').catch(() => ''), 'the updated worker');
    expect(want).not.toBe(oldVersion);

    step('updated');
    // The options page shows the progress while the pass runs.
    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    await options.getByTestId('recut-progress').waitFor({ timeout: 20_000 });
    expect(await options.getByTestId('recut-progress').textContent()).toMatch(/re-cutting stored pages.*\d+ of 150/i);
    mkdirSync(ARTIFACTS, { recursive: true });
    await options.screenshot({ path: join(ARTIFACTS, 'options-recut.png'), fullPage: true });
    await options.close();

    step('progress shown');
    // Stop the worker whenever the pass has moved on; each start resumes it where the mark says.
    const seen: number[] = [];
    let stops = 0;
    for (let round = 0; round < 40 && stops < 3; round++) {
      const s = await ext.evalSw<RecutState>(STATE);
      if (s.have === want && !s.mark) break;
      const done = s.mark?.done ?? 0;
      if (seen.length) expect(done).toBeGreaterThanOrEqual(seen[seen.length - 1]!); // never starts over
      seen.push(done);
      if (done > (seen.length > 1 ? seen[seen.length - 2]! : 0) && done < PAGES) {
        // It moved on since the last stop: stop it again (a start resumes it at its mark).
        if (await ext.stopWorker()) stops++;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const end = await until(() => ext.evalSw<RecutState>(STATE).then((s) => (s.have === want && !s.mark ? s : null)), 'the re-cut to finish', 180_000, 1000);
    step(`re-cut done, ${stops} worker stops, marks seen ${seen.join(',')}`);
    expect(end.progress).toBeNull();
    expect(stops).toBeGreaterThanOrEqual(2);

    // Every page is cut by the new chunker, and search links follow the new cut.
    const versions = await ext.evalSw<(string | null)[]>(`(async () => { const db = await engine.db(); return (await db.getAll('sections')).map((t) => t.cv ?? null); })()`);
    expect(versions).toHaveLength(PAGES);
    expect(new Set(versions)).toEqual(new Set([want]));
    for (const i of [1, 20]) {
      const [top] = await searchPage(ext, { q: `rc${i}b100` });
      // The second paragraph is now in windows of its own: the link jumps to the window's first words.
      expect(top!.href.startsWith(`${server.url(`/rc/${i}.html`)}#:~:text=`)).toBe(true);
    }
    const chunks = await ext.evalSw<{ text: string }[]>(`globalThis.rereadDebug.pageChunks(${JSON.stringify(server.url('/rc/20.html'))})`);
    // 80-word windows now (the heading line comes on top).
    expect(Math.max(...chunks.map((c) => c.text.slice(c.text.indexOf('\n') + 1).split(/\s+/).length))).toBeLessThanOrEqual(80);
    const report = await ext.evalSw<{ ok: boolean; problems: string[] }>('globalThis.rereadDebug.verifyIndex(engine, false)');
    expect(report.problems).toEqual([]);
    // A re-cut is not a visit.
    expect(await ext.evalSw<number[]>(`engine.pages.all().then((m) => [...m.values()].sort((a, b) => a.url < b.url ? -1 : 1).map((p) => p.visitCount))`)).toEqual(visitsBefore);

    // The updated content script cuts new pages with the new chunker itself.
    await visit(ext, [server.url(`/rc/${PAGES}.html`)]);
    const last = await until(() => ext.evalSw<{ cutBy: string; chunks: number } | undefined>(`engine.captureLog.findLast((e) => e.url.endsWith('/rc/${PAGES}.html'))`), 'the new page captured');
    expect(last.cutBy).toBe('page');
    expect(last.chunks).toBeGreaterThan(8);
  });
});
