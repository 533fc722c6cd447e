/**
 * forgetting across a worker stop. A forget without an undo window (a page deleted from the
 * browser's history, retention) deletes the page in one transaction and its PDF note in another; nothing
 * retries the second after a stop, so the forgotten page's address and title stay listed in Options.
 */
import { describe, expect, it } from 'vitest';
import { cutSections } from '../../src/sections.js';
import { PDF_NOTES_KEY } from '../../background/db.js';
import { engineOn } from './helpers.js';
import { killableConnection, reopen } from './killSwitch.js';
import { blocksOf, tokenOf } from './killWorkload.js';

describe('forgetting across a worker stop', { timeout: 30_000 }, () => {
  it("a page forgotten at once (history deletion) leaves no PDF note behind when the worker stops right after the page's delete", async () => {
    const name = `killed-pdf-${process.pid}-${Date.now()}`;
    const conn = await killableConnection(name);
    const engine = engineOn(conn.db);
    const url = 'https://papers.example/secret-diagnosis.pdf';
    const cut = await cutSections(blocksOf('paper', tokenOf('paper', 1)));
    await engine.capture(url, { title: 'Secret diagnosis', lang: 'en', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker }, Date.now() - 60_000);
    // A PDF read in part: its note names it (background/dayone/pdfCapture.ts).
    await conn.db.put('meta', [{ url, title: 'Secret diagnosis', at: Date.now() - 60_000, problem: 'pages-capped' }], PDF_NOTES_KEY);
    // The worker stops at the first request of a transaction on the notes alone after the page's delete
    // (where the note was dropped, in a second transaction, before): there is none now, the delete holds it.
    conn.armWhen((tx) => [...tx.objectStoreNames].join() === 'meta');
    await engine.deleteUrls([url]).catch(() => undefined);
    expect(conn.killed).toBe(false);

    const db = await reopen(name);
    const restarted = engineOn(db);
    expect(await db.get('pages', url)).toBeUndefined(); // the forget committed...
    expect((await restarted.search({ q: tokenOf('paper', 1) })).results).toEqual([]);
    // ...but the note naming the forgotten page (address and title) is still there, and nothing retries it.
    await restarted.maintenance.run({ force: true });
    await restarted.forget.purgeDue(Date.now(), true);
    expect(((await db.get('meta', PDF_NOTES_KEY)) as { url: string }[] | undefined)?.map((n) => n.url) ?? []).not.toContain(url);
  });
});
