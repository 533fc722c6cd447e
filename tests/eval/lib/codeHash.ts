/**
 * A hash of the code that produced something: the given source files and every relative import they
 * reach (TypeScript/JavaScript), plus package-lock.json (the parser and Readability versions). A cache
 * keyed by it is rebuilt whenever any of that code changes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths.js';

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const cand of [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base + '.ts', base + '.tsx', path.join(base, 'index.ts')]) {
    if (fs.existsSync(cand) && fs.statSync(cand).isFile()) return cand;
  }
  return null;
}

/** The files reached from `entries` (paths relative to the repository root), sorted. */
export function importClosure(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const stack = entries.map((e) => path.resolve(ROOT, e));
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const src = fs.readFileSync(f, 'utf8');
    for (const m of src.matchAll(IMPORT)) {
      const r = resolve(f, m[1] ?? m[2] ?? m[3]!);
      if (r && !seen.has(r)) stack.push(r);
    }
  }
  return [...seen].map((f) => path.relative(ROOT, f)).sort();
}

export function codeHash(entries: readonly string[]): string {
  const h = createHash('sha256');
  for (const f of [...importClosure(entries), 'package-lock.json']) h.update(f).update('\0').update(fs.readFileSync(path.join(ROOT, f))).update('\0');
  return h.digest('hex').slice(0, 16);
}
