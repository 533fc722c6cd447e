/**
 * "The next release", for tests that update the extension in place: dist/chrome copied to a folder,
 * with its worker and content script rebuilt from this source with one change to src/chunker.ts.
 * Built the way scripts/build.mjs builds them (same Vite config, one bundle each).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'vite';
import { DIST, ROOT } from './harness.js';

/** Builds `dir` (created if missing) from dist/chrome with `from` replaced by `to` in src/chunker.ts. */
export async function chunkerVariant(from: string, to: string, dir = mkdtempSync(join(tmpdir(), 'reread-next-'))): Promise<string> {
  rmSync(dir, { recursive: true, force: true });
  cpSync(DIST, dir, { recursive: true });
  let patched = 0;
  const patch: Plugin = {
    name: 'reread-test-chunker-variant',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith(join('src', 'chunker.ts'))) return null;
      if (!code.includes(from)) throw new Error(`src/chunker.ts has no ${JSON.stringify(from)} to change`);
      patched++;
      return code.replace(from, to);
    },
  };
  // As scripts/build.mjs: Chrome's worker talks to the offscreen document for embeddings.
  const chromeHost: Plugin = {
    name: 'reread-chrome-embedder-host',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === './embedding/host.js' && importer?.endsWith(join('background', 'main.ts'))) return join(ROOT, 'background/embedding/host.chrome.ts');
      return null;
    },
  };
  for (const [entry, format, name, plugins] of [
    ['background/main.ts', 'es', 'background', [patch, chromeHost]],
    ['content/main.ts', 'iife', 'content', [patch]],
  ] as const) {
    await build({
      configFile: join(ROOT, 'vite.config.ts'),
      logLevel: 'warn',
      plugins: [...plugins],
      build: {
        outDir: dir,
        emptyOutDir: false,
        copyPublicDir: false,
        lib: { entry: join(ROOT, entry), formats: [format], fileName: () => `${name}.js`, name: `reread_${name}` },
        rollupOptions: { output: { codeSplitting: false } as never },
      },
    });
  }
  if (patched !== 2) throw new Error(`src/chunker.ts patched in ${patched} bundles, not 2`);
  // A release has a new version number (the browser starts the new worker code for it).
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { version: string };
  manifest.version = `${manifest.version}.1`;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}
