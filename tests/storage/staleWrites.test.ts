/** Nothing stored is lost to older text or odd input: an older capture or export, a hostile imported anchor (review, session 33; each test failed before its fix). */
import { describe, expect, it } from 'vitest';
import { exportJsonl, importJsonl } from './transferText.js';
import { pageSections } from '../../background/sections.js';
import { engineOn, freshDb } from './helpers.js';

const T1 = 1_700_000_000_000;
const T2 = T1 + 30 * 86_400_000;
const page = (w: string) => ({ title: 'Release notes', lang: 'en', blocks: [{ kind: 'text' as const, text: `The ${w} release changes the parser and the cache, with enough words here to be a page worth keeping.` }] });

async function storedText(db: Awaited<ReturnType<typeof freshDb>>, url: string): Promise<string> {
  const p = (await db.get('pages', url))!;
  return ((await pageSections(db, [p])).get(url) ?? []).map((s) => s.text).join('\n');
}

describe('older text and hostile imports', () => {
  it('importing an older export does not replace the newer version of a page already stored', async () => {
    const url = 'https://a.example/notes';
    // Last month's profile, exported (a backup).
    const oldDb = await freshDb();
    const oldEngine = engineOn(oldDb);
    await oldEngine.capture(url, page('autumn'), T1);
    const { jsonl } = await exportJsonl(oldEngine, false);
    // Today's profile read the page again since: it changed.
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture(url, page('autumn'), T1);
    await engine.capture(url, page('winter'), T2);
    expect(await storedText(db, url)).toContain('winter');
    await importJsonl(engine, jsonl);
    // The visit dates are merged (the import keeps the later lastVisit) ...
    expect((await db.get('pages', url))!.lastVisit).toBe(T2);
    // ... but the text read at T2 is gone, replaced by the text of T1.
    expect(await storedText(db, url)).toContain('winter');
    expect((await engine.search({ q: 'winter' })).results.map((r) => r.url)).toEqual([url]);
  });

  it('a capture made before the stored one (an outbox entry filed late or again) does not replace the newer text', async () => {
    const url = 'https://a.example/notes';
    const db = await freshDb();
    const engine = engineOn(db);
    // Read at T2 (message capture) ...
    await engine.capture(url, page('winter'), T2);
    // ... then the outbox entry of the earlier visit at T1 is filed (outbox.ts passes the entry's `at` as `now`).
    await engine.capture(url, page('autumn'), T1);
    expect((await db.get('pages', url))!.lastVisit).toBe(T2);
    expect(await storedText(db, url)).toContain('winter');
  });

  it('an imported section whose anchor holds a lone surrogate does not break search', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://a.example/kept', page('kestrel'), T1);
    const jsonl = [
      JSON.stringify({ kind: 'reread-export', version: 1 }),
      JSON.stringify({ kind: 'page', url: 'https://evil.example/', title: 'Kestrel facts', lastVisit: T1, firstVisit: T1, visitCount: 1 }),
      JSON.stringify({ kind: 'chunk', url: 'https://evil.example/', ord: 0, headingPath: [], section: '', anchor: { id: 'x\ud800' }, text: 'kestrel kestrel falcon hovering over the field' }),
    ].join('\n');
    const res = await importJsonl(engine, jsonl);
    expect(res.pages).toBe(1);
    // Every search that finds the imported section throws (URIError from encodeURIComponent in sectionHref),
    // so the page already stored can no longer be found by that word either.
    const answer = await engine.search({ q: 'kestrel' });
    expect(answer.results.map((r) => r.url)).toContain('https://a.example/kept');
  });
});
