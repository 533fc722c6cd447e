/**
 * `npm start`: runs the built extension on a demo corpus. Launches Chromium with dist/chrome loaded,
 * serves a few pages (and part of the Python manual when Debian's python3.11-doc is installed) on
 * 127.0.0.1, visits them so the index has content, then opens the results page for a sample query.
 * With a display it leaves the browser open for you; headless it prints the top results of a few
 * queries and saves a screenshot (dist/demo.png).
 */
import { chromium } from 'playwright';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist/chrome');
const pagesDir = join(root, 'tests/fixtures/pages');
const pyDocs = '/usr/share/doc/python3.11/html';
const executablePath = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/google-chrome'].find((p) => existsSync(p));
if (!executablePath) {
  console.error('Chromium was not found. On Debian: sudo apt-get install chromium');
  process.exit(1);
}
const headed = Boolean(process.env.DISPLAY) && !process.env.CI && !process.argv.includes('--headless');

const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png', '.svg': 'image/svg+xml' };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const [base, rel] = path.startsWith('/python/') ? [pyDocs, path.slice('/python/'.length)] : [pagesDir, path.slice(1)];
  const file = normalize(join(base, rel || 'index.html'));
  if (!file.startsWith(base) || !existsSync(file) || statSync(file).isDirectory()) return res.writeHead(404).end('not found');
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;

const urls = ['cats.html', 'git-undo.html', 'bread.html'].map((p) => `${origin}/${p}`);
if (existsSync(pyDocs)) {
  for (const p of ['tutorial/datastructures.html', 'tutorial/errors.html', 'library/os.path.html', 'library/functools.html', 'library/asyncio-task.html', 'library/json.html', 'library/pathlib.html', 'howto/logging.html']) {
    urls.push(`${origin}/python/${p}`);
  }
}

const profile = mkdtempSync(join(tmpdir(), 'reread-demo-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: !headed,
  viewport: { width: 1100, height: 800 },
  args: [`--disable-extensions-except=${dist}`, `--load-extension=${dist}`, '--no-first-run', '--disable-sync', '--disable-component-update', '--disable-background-networking'],
});
const worker = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent('serviceworker'));
const extId = new URL(worker.url()).host;
console.log(`Reread loaded (extension id ${extId}); visiting ${urls.length} pages served on ${origin} …`);

const page = ctx.pages()[0] ?? (await ctx.newPage());
for (const u of urls) {
  await page.goto(u, { waitUntil: 'load' });
  await page.waitForTimeout(1300); // captured one second after load
}

// Search by meaning needs the sections embedded: wait until the options page shows no backlog.
for (let t0 = Date.now(); ; ) {
  await page.goto(`chrome-extension://${extId}/options.html`);
  const pending = await page.locator('[data-testid="stat-pending-embeddings"]').textContent({ timeout: 10_000 });
  if (pending?.trim() === '0') break;
  if (Date.now() - t0 > 60_000) {
    console.log(`(still ${pending} sections to embed after 60 s)`);
    break;
  }
  await page.waitForTimeout(500);
}

async function search(q) {
  await page.goto(`chrome-extension://${extId}/search.html?q=${encodeURIComponent(q)}`);
  await page.waitForFunction(() => !document.querySelector('[data-testid="searching"]') && (document.querySelector('[data-testid="result"]') || document.querySelector('[data-testid="no-results"]')), null, { timeout: 30_000 });
  return page.$$eval('[data-testid="result"]', (els) =>
    els.map((el) => ({
      title: el.querySelector('[data-testid="result-title"]')?.textContent ?? '',
      section: el.querySelector('[data-testid="result-section"]')?.textContent ?? '',
      href: el.querySelector('[data-testid="result-link"]')?.getAttribute('href') ?? '',
      lanes: [...el.querySelectorAll('[data-lane]')].map((l) => l.getAttribute('data-lane')).join('+'),
    })),
  );
}

const queries = ['os.path.join', 'how do I undo a commit I already pushed', 'list comprehensions', 'zephyrine litter', 'cake pastry'];
for (const q of queries) {
  const results = await search(q);
  console.log(`\n“${q}” → ${results.length} ${results.length === 1 ? "page" : "pages"}`);
  for (const r of results.slice(0, 3)) console.log(`  ${r.title}${r.section ? ' › ' + r.section : ''}  [${r.lanes}]\n    ${r.href}`);
}

await search('how do I undo a commit I already pushed');
if (headed) {
  console.log('\nThe browser stays open: try the toolbar popup, the omnibox ("rr" then a space) and right-click a selection. Close it to finish.');
  await new Promise((r) => ctx.on('close', r));
} else {
  const shot = join(root, 'dist/demo.png');
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`\nScreenshot of the results page: ${shot}`);
  await ctx.close();
  console.log(
    [
      '',
      'Next: use Reread in your own browser (it starts empty and saves the pages you visit from then on).',
      `  Chrome, Chromium, Edge: open chrome://extensions, turn on "Developer mode", click "Load unpacked" and choose ${dist}`,
      `  Firefox 142+: open about:debugging#/runtime/this-firefox, "Load Temporary Add-on…", choose ${join(root, 'dist/firefox/manifest.json')}`,
      '  Then: the toolbar button (or Alt+Shift+R) searches; "rr" and a space in the address bar too.',
      '  With a display, `npm start` leaves this demo browser open to try instead.',
    ].join('\n'),
  );
}
server.close();
rmSync(profile, { recursive: true, force: true });
