/**
 * `web-ext lint` on the Firefox build (what addons.mozilla.org runs on an upload), with every finding
 * accounted for: errors fail; a warning fails unless it is one reviewed below, recognised by its code,
 * its file and the code around it, with the reason it is safe written beside it.
 *
 * Usage: node scripts/lint-firefox.mjs [dist/firefox]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(process.argv[2] ?? join(root, 'dist/firefox'));

/** Warnings a reviewer would ask about, and the answer. */
export const REVIEWED = [
  {
    code: 'UNSAFE_VAR_ASSIGNMENT',
    file: /^content\.js$/,
    // Readability (the @mozilla/readability dependency): restoring its saved copy of the article root, and
    // unwrapping <noscript> images.
    context: /_attempts|pageCacheHtml|noscript|getElementsByTagName\(`noscript`\)/,
    why:
      "Readability's own innerHTML writes. content/main.ts runs Readability only on a sanitised copy of the page " +
      'in a document made with document.implementation.createHTMLDocument: a document without a browsing context, ' +
      'where markup runs no script and loads nothing. The page itself is never written to.',
  },
  {
    code: 'UNSAFE_VAR_ASSIGNMENT',
    file: /^assets\/[\w-]+\.js$/,
    // Preact's DOM diff: the branch that applies dangerouslySetInnerHTML.
    context: /__html/,
    why:
      "Preact's support for dangerouslySetInnerHTML, part of its renderer. No component of Reread uses it (this " +
      'script checks: popup/ must not mention it), so the branch never runs; page-derived text is rendered as text.',
  },
  {
    code: 'UNSAFE_VAR_ASSIGNMENT',
    file: /^background\.js$/,
    // The same Readability code, bundled into the background page for the backfill (background/reader/readHtml.ts).
    context: /_attempts|innerHTML = \w\.innerHTML/,
    why:
      "Readability's own innerHTML writes, in the backfill's reader (content/extract.ts extractDocument, shared with " +
      'the content script). It runs on a document parsed with DOMParser from a fetched page and on a copy made with ' +
      'createHTMLDocument: documents without a browsing context, where markup runs no script and loads nothing.',
  },
  {
    code: 'DANGEROUS_EVAL',
    file: /^(background\.js|pdf\.worker\.min\.mjs)$/,
    // pdf.js: the `isEvalSupported` probe (`new Function("")` in a try), and the PostScript-function compiler behind it.
    context: /isEvalSupported|return Function\(""\), !0/,
    why:
      'pdf.js (pdfjs-dist, PDFs read in the background page) probes whether eval is allowed and compiles PostScript ' +
      'functions only if it is. Reread passes isEvalSupported: false (background/reader/pdfText.ts), and the ' +
      "extension's CSP (script-src 'self' 'wasm-unsafe-eval') forbids eval anyway: the probe fails and pdf.js interprets.",
  },
  {
    code: 'UNSAFE_VAR_ASSIGNMENT',
    file: /^(background\.js|pdf\.worker\.min\.mjs)$/,
    // pdf.js: importing its own worker as a fallback, and an optional image decoder, by URL.
    context: /_setupFakeWorkerGlobal|openjpeg_nowasm_fallback/,
    why:
      "pdf.js's dynamic import() of its own files: the worker (GlobalWorkerOptions.workerSrc, set to the bundled " +
      "pdf.worker.min.mjs) when a Worker cannot start, and an image decoder Reread never configures (text only). The CSP's " +
      "script-src 'self' allows nothing but the extension's own files.",
  },
];

function lint() {
  const bin = join(root, 'node_modules/.bin/web-ext');
  let out;
  try {
    out = execFileSync(bin, ['lint', '--source-dir', dir, '--output', 'json', '--no-config-discovery'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    // Exit code 1 when there are errors: the JSON is still printed.
    out = e.stdout;
    if (!out) throw e;
  }
  return JSON.parse(out.slice(out.indexOf('{')));
}

function contextOf(m) {
  try {
    const lines = readFileSync(join(dir, m.file), 'utf8').split('\n');
    const line = lines[(m.line ?? 1) - 1] ?? '';
    const col = m.column ?? 0;
    return line.slice(Math.max(0, col - 300), col + 300);
  } catch {
    return '';
  }
}

export function review(report) {
  const problems = [];
  const explained = [];
  for (const m of report.errors) problems.push(`error ${m.code} ${m.file ?? ''}:${m.line ?? ''} ${m.message}`);
  for (const m of report.warnings) {
    const ok = REVIEWED.find((r) => r.code === m.code && r.file.test(m.file ?? '') && r.context.test(contextOf(m)));
    if (ok) explained.push({ m, why: ok.why });
    else problems.push(`warning ${m.code} ${m.file ?? ''}:${m.line ?? ''}:${m.column ?? ''} ${m.message}`);
  }
  return { problems, explained };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const grep = (() => {
    try {
      return execFileSync('grep', ['-rl', 'dangerouslySetInnerHTML', join(root, 'popup')], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  const report = lint();
  const { problems, explained } = review(report);
  if (grep) problems.push(`popup/ uses dangerouslySetInnerHTML (${grep}): the reviewed Preact warning no longer holds`);
  console.log(`web-ext lint ${dir}: ${report.summary.errors} errors, ${report.summary.warnings} warnings, ${report.summary.notices} notices`);
  for (const { m, why } of explained) console.log(`  reviewed: ${m.code} ${m.file}:${m.line}:${m.column} — ${why}`);
  for (const n of report.notices) console.log(`  notice: ${n.code} ${n.file ?? ''} ${n.message}`);
  if (problems.length) {
    for (const p of problems) console.error(`  ${p}`);
    console.error('web-ext lint: findings not reviewed (see scripts/lint-firefox.mjs)');
    process.exit(1);
  }
}
