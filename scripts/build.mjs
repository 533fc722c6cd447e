/**
 * Builds two unpacked extensions from one source: dist/chrome (MV3 service worker) and dist/firefox
 * (MV3 background script). Vite builds: the extension pages (Preact, and Chrome's offscreen document
 * that runs the embedding model), the background as one ES module with no dynamic import() (twice:
 * Chrome's worker talks to the offscreen document, Firefox's background page runs the model itself),
 * the content script as one IIFE.
 */
import { build } from 'vite';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromeManifest, firefoxManifest } from './manifest.mjs';
import { makeIcons } from './icons.mjs';
import { lexiconText } from './lexicon.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const finalDist = join(root, 'dist');
// Build beside the old output and swap at the end, so a browser using dist/ never sees it half-built.
const dist = join(root, `.dist-${process.pid}`);
const chrome = join(dist, 'chrome');
const firefox = join(dist, 'firefox');
const quiet = { logLevel: process.env.VERBOSE ? 'info' : 'warn', configFile: join(root, 'vite.config.ts') };

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

/**
 * The ONNX runtime bundles protobufjs's `inquire`, which reaches Node's `require` through a direct
 * `eval("quire".replace(/^/,"re"))` (the build's `[EVAL]` warnings). In an extension page it can only
 * fail: the CSP (`script-src 'self' 'wasm-unsafe-eval'`) refuses eval, and the try/catch around it
 * returns null. The call is replaced by `undefined` here, which fails the same way without any eval,
 * so the shipped code has none (checked at the end of this script).
 */
const noEval = {
  name: 'reread-no-eval',
  transform(code, id) {
    if (!/onnxruntime-web[\\/]dist[\\/]/.test(id)) return null;
    const out = code.replaceAll('eval("quire".replace(/^/,"re"))', 'undefined');
    return out === code ? null : { code: out, map: null };
  },
};

await build({
  ...quiet,
  plugins: [noEval],
  root: join(root, 'popup'),
  base: './',
  build: {
    outDir: chrome,
    emptyOutDir: true,
    rollupOptions: {
      input: {
        popup: join(root, 'popup/popup.html'),
        search: join(root, 'popup/search.html'),
        options: join(root, 'popup/options.html'),
        offscreen: join(root, 'popup/offscreen.html'),
      },
    },
  },
});

/**
 * Chrome's worker gets the offscreen-document hosts instead of the in-process ones: the embedding model
 * (background/embedding/host.ts) and the page reader (background/reader/host.ts, DOMParser and pdf.js).
 */
const CHROME_HOSTS = { './embedding/host.js': 'background/embedding/host.chrome.ts', './reader/host.js': 'background/reader/host.chrome.ts' };
const chromeHost = {
  name: 'reread-chrome-offscreen-hosts',
  enforce: 'pre',
  resolveId(source, importer) {
    if (CHROME_HOSTS[source] && importer?.startsWith(join(root, 'background') + '/') && dirname(importer) === join(root, 'background')) return join(root, CHROME_HOSTS[source]);
    return null;
  },
};

for (const [entry, format, name, outDir, plugins] of [
  ['background/main.ts', 'es', 'background', chrome, [chromeHost]],
  ['background/main.ts', 'es', 'background', join(dist, 'firefox-background'), [noEval]],
  ['content/early.ts', 'iife', 'early', chrome, []],
  ['content/main.ts', 'iife', 'content', chrome, []],
]) {
  await build({
    ...quiet,
    plugins,
    build: {
      outDir,
      emptyOutDir: false,
      copyPublicDir: false,
      lib: { entry: join(root, entry), formats: [format], fileName: () => `${name}.js`, name: `reread_${name}` },
      rollupOptions: { output: { codeSplitting: false } },
    },
  });
}

// ONNX runtime WASM (single-threaded SIMD, plain fallback) and the bundled model.
await mkdir(join(chrome, 'wasm'), { recursive: true });
for (const f of ['ort-wasm-simd.wasm', 'ort-wasm.wasm']) await cp(join(root, 'node_modules/onnxruntime-web/dist', f), join(chrome, 'wasm', f));
await cp(join(root, 'models'), join(chrome, 'models'), { recursive: true, filter: (src) => !src.endsWith('README.md') });
// The model's words, sorted, one a line (scripts/lexicon.mjs): what the worker looks typed words up in.
const glove = join(chrome, 'models/reread/glove-100d');
await writeFile(join(glove, 'lexicon.txt'), lexiconText(JSON.parse(await readFile(join(glove, 'tokenizer.json'), 'utf8'))));
await makeIcons(join(chrome, 'icons'));
// pdf.js's worker (the offscreen document / Firefox's background page start it from the extension itself).
await cp(join(root, 'node_modules/pdfjs-dist/build/pdf.worker.min.mjs'), join(chrome, 'pdf.worker.min.mjs'));
// Its CMaps (1.7 MB, Adobe's, BSD-licensed: their LICENSE comes along): text in a font that names one of the
// PDF standard's predefined encodings (UniJIS-UCS2-H, as many Japanese office PDFs have it) reads as nothing without them.
await cp(join(root, 'node_modules/pdfjs-dist/cmaps'), join(chrome, 'cmaps'), { recursive: true });

const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const src = JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8'));
await writeFile(join(chrome, 'manifest.json'), JSON.stringify(chromeManifest(src, { version: pkg.version }), null, 2));

await cp(chrome, firefox, { recursive: true });
await writeFile(join(firefox, 'manifest.json'), JSON.stringify(firefoxManifest(src, { version: pkg.version }), null, 2));
// Firefox: the background page runs the model itself; no offscreen document.
await cp(join(dist, 'firefox-background', 'background.js'), join(firefox, 'background.js'));
await rm(join(firefox, 'offscreen.html'));
for (const f of await readdir(join(firefox, 'assets'))) if (/^offscreen-.*\.js$/.test(f)) await rm(join(firefox, 'assets', f));

// Guard the constraints: no dynamic import() in the worker bundle (MV3 service workers cannot use
// it), and no ONNX runtime in Chrome's worker (it lives in the offscreen document).
const bg = await readFile(join(chrome, 'background.js'), 'utf8');
if (/\bimport\s*\(/.test(bg.replace(/\/\/.*$/gm, ''))) {
  console.warn('warning: background.js contains import(): MV3 service workers cannot use it');
}
if (/InferenceSession|ort-wasm/.test(bg)) throw new Error('dist/chrome/background.js bundles the ONNX runtime: it belongs in the offscreen document');
if (/GlobalWorkerOptions|PDFDocumentProxy|pdfjs-dist/.test(bg)) throw new Error('dist/chrome/background.js bundles pdf.js: it belongs in the offscreen document');
if (!/InferenceSession|ort-wasm/.test(await readFile(join(firefox, 'background.js'), 'utf8'))) throw new Error('dist/firefox/background.js lacks the embedding runtime');
if (!existsSync(join(chrome, 'popup.html'))) throw new Error('pages missing from the build');
// No eval in anything shipped (the README says so; the CSP would refuse it anyway).
for (const dir of [chrome, firefox]) {
  for (const f of await readdir(dir, { recursive: true })) {
    if (!f.endsWith('.js')) continue;
    const code = await readFile(join(dir, f), 'utf8');
    if (/(^|[^\w$.])eval\s*\(/.test(code)) throw new Error(`${join(dir, f)} calls eval()`);
  }
}
const old = join(root, `.dist-old-${process.pid}`);
await mkdir(finalDist, { recursive: true });
for (const target of ['chrome', 'firefox']) {
  await rm(join(old, target), { recursive: true, force: true });
  await mkdir(old, { recursive: true });
  if (existsSync(join(finalDist, target))) await rename(join(finalDist, target), join(old, target));
  await rename(join(dist, target), join(finalDist, target));
}
await rm(old, { recursive: true, force: true });
await rm(dist, { recursive: true, force: true });
console.log(`built ${join(finalDist, 'chrome')} and ${join(finalDist, 'firefox')}`);
