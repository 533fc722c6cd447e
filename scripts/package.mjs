/**
 * Store-ready packages, reproducibly: dist/reread-chrome-VERSION.zip (Chrome Web Store) and
 * dist/reread-firefox-VERSION.zip (addons.mozilla.org).
 *
 * 1. A fresh build (scripts/build.mjs).
 * 2. The Firefox build linted the way AMO does (scripts/lint-firefox.mjs: 0 errors, only reviewed warnings).
 * 3. Firefox: `web-ext build` makes the package (it validates the manifest and applies its file rules);
 *    its entries are then written again in a fixed order with fixed dates (scripts/zip.mjs), since
 *    web-ext stamps the build time and adds files in the order reads finish. The script checks both
 *    archives hold the same files. Chrome: the same writer over dist/chrome.
 * 4. Prints each package's SHA-256: two runs on the same commit print the same sums.
 *
 * Usage: npm run package [-- --skip-build]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFiles, zipEntryNames, zipFiles } from './zip.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

if (!process.argv.includes('--skip-build')) run(process.execPath, [join(root, 'scripts/build.mjs')]);
run(process.execPath, [join(root, 'scripts/lint-firefox.mjs'), join(dist, 'firefox')]);

for (const target of ['chrome', 'firefox']) {
  const manifest = JSON.parse(readFileSync(join(dist, target, 'manifest.json'), 'utf8'));
  if (manifest.version !== version) throw new Error(`dist/${target}/manifest.json is version ${manifest.version}, package.json ${version}`);
}

/** What web-ext leaves out of a package (its default ignore rules): dot files, archives, node_modules. */
const skip = (rel) => rel.split('/').some((part) => part.startsWith('.') || part === 'node_modules' || part === 'web-ext-artifacts') || /\.(zip|xpi)$/.test(rel);

const out = [];

// Chrome
{
  const dir = join(dist, 'chrome');
  const files = await listFiles(dir, skip);
  const file = join(dist, `reread-chrome-${version}.zip`);
  writeFileSync(file, await zipFiles(dir, files));
  out.push({ file, files: files.length });
}

// Firefox
{
  const dir = join(dist, 'firefox');
  const artifacts = mkdtempSync(join(tmpdir(), 'reread-web-ext-'));
  try {
    run(join(root, 'node_modules/.bin/web-ext'), ['build', '--source-dir', dir, '--artifacts-dir', artifacts, '--filename', 'reread-firefox.zip', '--overwrite-dest', '--no-config-discovery']);
    const built = readFileSync(join(artifacts, readdirSync(artifacts).find((f) => f.endsWith('.zip'))));
    const names = zipEntryNames(built).sort();
    const files = await listFiles(dir, skip);
    if (JSON.stringify(names) !== JSON.stringify(files)) {
      throw new Error(`web-ext build packaged other files than dist/firefox holds:\n  web-ext: ${names.join(' ')}\n  dist:    ${files.join(' ')}`);
    }
    const file = join(dist, `reread-firefox-${version}.zip`);
    writeFileSync(file, await zipFiles(dir, names));
    out.push({ file, files: names.length });
  } finally {
    rmSync(artifacts, { recursive: true, force: true });
  }
}

for (const { file, files } of out) {
  const buf = readFileSync(file);
  console.log(`${createHash('sha256').update(buf).digest('hex')}  ${file.slice(root.length + 1)}  (${files} files, ${(buf.length / 1024 / 1024).toFixed(2)} MB)`);
}
