/**
 * Every write to the pages store goes through putPage / deletePage (background/pageLog.ts), which keep
 * the page table's snapshot and log in step: a write that bypassed them would leave a snapshot that
 * loads an out-of-date table (the loader's checks catch most such writes, not all: a title change).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../background');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const RAW = [/objectStore\(\s*'pages'\s*\)\s*\.\s*(put|add|delete|clear)\s*\(/, /\bdb\s*\.\s*(put|add|delete|clear)\s*\(\s*'pages'/, /transaction\(\s*'pages'\s*,\s*'readwrite'/];

describe('writes to the pages store', () => {
  it('all go through pageLog.ts', () => {
    const found: string[] = [];
    for (const f of files(ROOT)) {
      if (f.endsWith('pageLog.ts')) continue;
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (RAW.some((r) => r.test(line))) found.push(`${f.slice(ROOT.length + 1)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('the check sees a raw write', () => {
    expect(RAW.some((r) => r.test("await tx.objectStore('pages').put(page);"))).toBe(true);
    expect(RAW.some((r) => r.test("await db.put('pages', fixed);"))).toBe(true);
  });
});
