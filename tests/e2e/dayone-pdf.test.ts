/**
 * Day one (#14), part 4: a PDF opened in a tab is read. Chrome shows it in its viewer (the page's text is
 * out of the content script's reach), so Reread fetches the same URL once more, right after the tab
 * loaded it (with the user's cookies then: the server sees them), and reads it with pdf.js in the
 * offscreen document. The PDFs are made by the test (tests/fixtures/makePdf.ts): one with an outline and
 * four pages, found by a phrase from page 3 with a link to `#page=3`; a password-protected one, one with
 * no text layer and a damaged one leave a note in Options instead of an error (and are not retried).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { launch, searchPage, until, type Extension } from './harness.js';
import { makePdf, pageLines } from '../fixtures/makePdf.js';

const FILES: Record<string, Buffer> = {
  '/guide.pdf': makePdf({
    title: 'Field guide to maps',
    pages: [pageLines(1, 'opening survey'), pageLines(2, 'method of triangles'), pageLines(3, 'heliotrope cartography'), pageLines(4, 'closing tables')],
    outline: [
      { title: 'Introduction', level: 1, page: 1 },
      { title: 'Methods', level: 1, page: 2 },
      { title: 'Mapping the coast', level: 2, page: 3 },
      { title: 'Results', level: 1, page: 4 },
    ],
  }),
  // No `.pdf` in the address: only the content type says it is one.
  '/download?id=7': makePdf({ title: 'Untitled report', pages: [pageLines(1, 'ombrometer calibration'), pageLines(2, 'second page'), pageLines(3, 'third page')] }),
  '/locked.pdf': makePdf({ title: 'Locked', pages: [pageLines(1, 'secret')], userPassword: 'open sesame' }),
  '/scan.pdf': makePdf({ title: 'Scanned letter', pages: [null, null] }),
  '/broken.pdf': Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF', 'latin1'),
};

let server: Server;
let origin = '';
let ext: Extension;
const requests: { path: string; cookie?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = url.pathname + url.search;
    requests.push({ path: key, ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}) });
    const body = FILES[key];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  ext = await launch();
  await ext.ctx.addCookies([{ name: 'session', value: 'pdf-reader', domain: '127.0.0.1', path: '/' }]);
}, 120_000);

afterAll(async () => {
  await ext?.close();
  server?.closeAllConnections();
  server?.close();
});

const pageOf = (url: string) => ext.evalSw<{ kind?: string; pdf?: { pages: number; read: number }; title: string } | null>(`engine.db().then((db) => db.get('pages', ${JSON.stringify(url)})).then((p) => p ?? null)`);

async function open(path: string): Promise<void> {
  const p = await ext.ctx.newPage();
  await p.goto(origin + path).catch(() => undefined);
  await p.waitForTimeout(500);
}

describe('PDFs read in a tab', () => {
  it('a PDF with an outline is found by a phrase from page 3, its link ending in #page=3', async () => {
    await open('/guide.pdf');
    const page = await until(() => pageOf(`${origin}/guide.pdf`), 'the PDF stored', 30_000, 300);
    expect(page.kind).toBe('pdf');
    expect(page.pdf).toEqual({ pages: 4, read: 4 });
    expect(page.title).toBe('Field guide to maps');
    const rows = await searchPage(ext, { q: '"heliotrope cartography"' });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.href).toBe(`${origin}/guide.pdf#page=3`);
    // The section's heading comes from the outline.
    expect(rows[0]!.section).toContain('Mapping the coast');
    // Read once more right after the tab loaded it, carrying the user's cookie (README says so).
    const fetches = requests.filter((r) => r.path === '/guide.pdf');
    expect(fetches.length).toBeGreaterThanOrEqual(2);
    expect(fetches.every((r) => r.cookie === 'session=pdf-reader')).toBe(true);
  });

  it('a PDF served from an address without .pdf is recognised by its type', async () => {
    await open('/download?id=7');
    await until(() => pageOf(`${origin}/download?id=7`), 'the PDF stored', 30_000, 300);
    const rows = await searchPage(ext, { q: 'ombrometer calibration' });
    expect(rows[0]?.href).toBe(`${origin}/download?id=7#page=1`);
  });

  it('encrypted, text-less and broken PDFs leave a note in Options, once', async () => {
    for (const p of ['/locked.pdf', '/scan.pdf', '/broken.pdf']) await open(p);
    const options = await ext.ctx.newPage();
    await options.goto(ext.extensionUrl('options.html'));
    await until(async () => (await options.getByTestId('pdf-note').count()) === 3, 'three PDF notes', 30_000, 300);
    const problems = await options.getByTestId('pdf-note').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.querySelector('a')!.getAttribute('href'), e.getAttribute('data-problem')])));
    expect(problems).toEqual({ [`${origin}/locked.pdf`]: 'encrypted', [`${origin}/scan.pdf`]: 'no-text', [`${origin}/broken.pdf`]: 'broken' });
    expect(await options.getByTestId('pdf-note').first().textContent()).toMatch(/: it (is|has|could)/);
    for (const p of ['/locked.pdf', '/scan.pdf', '/broken.pdf']) expect(await pageOf(`${origin}${p}`)).toBeNull();
    // No error loop: nothing fetches them again on its own.
    const before = requests.length;
    await new Promise((r) => setTimeout(r, 3000));
    expect(requests.length).toBe(before);
    await options.close();
  });
});
