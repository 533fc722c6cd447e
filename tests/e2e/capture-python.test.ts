/**
 * Capture on real reference pages: a sample of Debian's python3.11-doc served on 127.0.0.1. Each
 * function, class, environment variable and glossary term (`<dt id=...>`) is its own section, so an
 * identifier finds its page with a jump link to its own entry; headings give sections their paths.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, searchPage, serve, until, PYTHON_DOCS, type Extension, type FixtureServer } from './harness.js';

const SAMPLE = [
  'library/os.path.html',
  'tutorial/datastructures.html',
  'library/stdtypes.html',
  'library/functools.html',
  'library/collections.html',
  'library/asyncio-task.html',
  'using/cmdline.html',
  'glossary.html',
];

let ext: Extension;
let server: FixtureServer;

/** Evaluates in the service worker with `engine` in scope (the worker is never stopped here). */
async function inWorker<T>(expr: string): Promise<T> {
  const w = await ext.sw();
  return (await w.evaluate(`(async () => { const { engine } = globalThis.reread; return (${expr}); })()`)) as T;
}

describe.runIf(existsSync(PYTHON_DOCS))('capture: the Python manual', () => {
  beforeAll(async () => {
    server = await serve({ '/': PYTHON_DOCS });
    ext = await launch();
    await inWorker('engine.updateSettings({ denseEnabled: false })');
    // One tab, one page after another, each left as soon as the worker has logged its capture.
    const page = await ext.ctx.newPage();
    for (const path of SAMPLE) {
      const url = server.url('/' + path);
      const since = Date.now();
      await page.goto(url, { waitUntil: 'load' });
      await until(() => inWorker<boolean>(`engine.captureLog.some((e) => e.url === ${JSON.stringify(url)} && e.at >= ${since} && e.outcome === 'new')`), `capture of ${path}`);
    }
    await page.close();
  });
  afterAll(async () => {
    await ext?.close();
    await server?.close();
  });

  /** The result row for `path` among the top results for `q`. */
  async function resultFor(q: string, path: string) {
    const rows = await searchPage(ext, { q });
    const url = server.url('/' + path);
    const i = rows.findIndex((r) => r.href === url || r.href.startsWith(url + '#'));
    return { row: rows[i], rank: i, rows };
  }

  it.each([
    ['os.path.join', 'library/os.path.html', '#os.path.join'],
    ['str.removeprefix', 'library/stdtypes.html', '#str.removeprefix'],
    ['functools.lru_cache', 'library/functools.html', '#functools.lru_cache'],
    ['collections.defaultdict', 'library/collections.html', '#collections.defaultdict'],
    ['asyncio.gather', 'library/asyncio-task.html', '#asyncio.gather'],
    ['PYTHONDONTWRITEBYTECODE', 'using/cmdline.html', '#envvar-PYTHONDONTWRITEBYTECODE'],
    ['duck-typing', 'glossary.html', '#term-duck-typing'],
  ])('finds %s on %s, jumping into its own entry', async (q, path, anchor) => {
    const { row, rank } = await resultFor(q, path);
    expect(rank, `${path} in the results for ${q}`).toBeGreaterThanOrEqual(0);
    expect(rank).toBeLessThan(3);
    const href = row!.href;
    expect(href.startsWith(server.url('/' + path) + '#')).toBe(true);
    // Its own anchor, or one inside its entry (a sub-entry like `.default_factory`, or a later window of
    // a long entry, which jumps to the nearest id before it): then the section is the entry itself.
    const own = href.endsWith(anchor) || href.includes(anchor + '.');
    const name = q.startsWith('PYTHON') || q === 'duck-typing' ? q : q.split('.').pop()!;
    expect(own || row!.section.includes(name), `${href} / ${row!.section}`).toBe(true);
  });

  it('finds a tutorial section by its heading, with the heading path', async () => {
    const { row, rank, rows } = await resultFor('list comprehensions', 'tutorial/datastructures.html');
    // First, or second after the glossary's entry for the same term (a short definition whose heading is
    // the query: issue #13's "pages that merely name it", not solved yet; the two score within 2%).
    expect(rank, rows.map((r) => r.href).join(' ')).toBeGreaterThanOrEqual(0);
    expect(rank).toBeLessThan(2);
    if (rank === 1) expect(rows[0]!.href).toBe(server.url('/glossary.html#term-list-comprehension'));
    // The section's heading: Sphinx puts `tut-listcomps` on an empty span just before the h3 inside
    // `<section id="list-comprehensions">`; both ids land on the heading (not on 5.1.4 Nested List
    // Comprehensions, whose text also says "list comprehension" many times).
    expect([server.url('/tutorial/datastructures.html#list-comprehensions'), server.url('/tutorial/datastructures.html#tut-listcomps')]).toContain(row!.href);
    const chunks = await inWorker<{ headingPath: string[]; anchor: { id?: string } }[]>(
      `globalThis.rereadDebug.pageChunks(${JSON.stringify(server.url('/tutorial/datastructures.html'))})`,
    );
    const lc = chunks.find((c) => c.anchor.id === 'list-comprehensions' || c.anchor.id === 'tut-listcomps');
    expect(lc?.headingPath.map((h) => h.replace(/\s+/g, ' '))).toEqual(['5. Data Structures', '5.1. More on Lists', '5.1.3. List Comprehensions']);
  });

  it('gives text after a definition list back to the enclosing section, not to the last definition', async () => {
    // stdtypes: "Two methods support conversion to and from hexadecimal strings" follows float.is_integer().
    const chunks = await inWorker<{ headingPath: string[]; text: string; anchor: { id?: string } }[]>(
      `globalThis.rereadDebug.pageChunks(${JSON.stringify(server.url('/library/stdtypes.html'))})`,
    );
    const hex = chunks.find((c) => c.text.includes('Two methods support conversion'))!;
    expect(hex.headingPath.at(-1)).toContain('Additional Methods on Float');
    expect(hex.text).toMatch(/\nTwo methods support conversion/);
    // One section per method, roughly, within the cap.
    expect(chunks.length).toBeGreaterThan(100);
    expect(chunks.length).toBeLessThanOrEqual(1000);
    expect(chunks.find((c) => c.anchor.id === 'str.removeprefix')?.headingPath.at(-1)).toMatch(/^str\.removeprefix\(/);
  });
});
