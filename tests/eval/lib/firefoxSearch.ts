/**
 * The evaluation's lexical lane (lib/searchAll.ts) bundled into a page of Firefox ESR, for
 * `npm run eval:firefox` and the Firefox segmenter test: the same code as in Node, with the index built
 * and searched by Firefox's Intl.Segmenter, collator and regular expressions. Node's modules are needed
 * only for files (the lexicon, handed to the page) and the dense lane (stubbed: the lexical lane only).
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import puppeteer from 'puppeteer-core';
import { ROOT } from './paths.js';
import type { searchAll as SearchAll, SearchedAll } from './searchAll.js';

const LEXICON = 'models/reread/glove-100d/tokenizer.json';

async function bundle(): Promise<string> {
  const stubs: Record<string, string> = {
    'node:fs': `export default { readFileSync: (p) => { const f = globalThis.rereadFiles[p]; if (f === undefined) throw new Error('no file ' + p); return f; } };`,
    'node:path': `export default { join: (...a) => a.filter(Boolean).join('/') };`,
    paths: `export const ROOT = '';`,
    dense: `export const buildDenseIndex = () => { throw new Error('no dense lane'); }; export const embedAll = buildDenseIndex;`,
  };
  const out = await build({
    stdin: { contents: `import { searchAll } from './tests/eval/lib/searchAll.ts'; globalThis.searchAll = searchAll;`, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'error',
    plugins: [
      {
        name: 'stubs',
        setup(b) {
          b.onResolve({ filter: /^node:(fs|path)$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
          b.onResolve({ filter: /\/(paths|dense)\.js$/ }, (a) => (a.importer.includes('tests/eval/lib') ? { path: a.path.match(/(paths|dense)\.js$/)![1]!, namespace: 'stub' } : undefined));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, (a) => ({ contents: stubs[a.path]!, loader: 'js' }));
        },
      },
    ],
  });
  return out.outputFiles[0]!.text;
}

export interface FirefoxSearch {
  /** Firefox's version, as the browser reports it. */
  version: string;
  /** lib/searchAll.ts's `searchAll`, run in Firefox. */
  searchAll(...args: Parameters<typeof SearchAll>): Promise<SearchedAll>;
  close(): Promise<void>;
}

/** Firefox ESR (headless) with the lane loaded in a blank page. */
export async function openFirefoxSearch(): Promise<FirefoxSearch> {
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true, protocolTimeout: 600_000 });
  try {
    const version = await browser.version();
    const page = await browser.newPage();
    await page.goto('about:blank');
    await page.addScriptTag({ content: await bundle() });
    await page.evaluate((lexicon: string, p: string) => {
      (globalThis as unknown as { rereadFiles: Record<string, string> }).rereadFiles = { [p]: lexicon };
    }, fs.readFileSync(path.join(ROOT, LEXICON), 'utf8'), LEXICON);
    return {
      version,
      searchAll: (pages, queries, now, limit) =>
        page.evaluate(
          (p: typeof pages, q: typeof queries, n: number, l: number) => (globalThis as unknown as { searchAll: typeof SearchAll }).searchAll(p, q, n, l),
          pages,
          queries,
          now,
          limit,
        ) as Promise<SearchedAll>,
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}
