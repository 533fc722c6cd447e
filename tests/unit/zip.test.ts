/**
 * The packages' ZIP writer (scripts/zip.mjs): the same files make the same bytes whatever their dates
 * and the order the file system lists them in, and the archive is one `unzip` reads back intact.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listFiles, zipEntryNames, zipFiles } from '../../scripts/zip.mjs';

function tree(files: Record<string, string | Buffer>, order: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'reread-zip-'));
  for (const name of order) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), files[name]!);
  }
  return dir;
}

const FILES: Record<string, string | Buffer> = {
  'manifest.json': '{"name":"x"}',
  'assets/a-123.js': 'console.log(1);\n'.repeat(500),
  'assets/b.css': 'body{}',
  'models/m/onnx/model.onnx': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)),
  'ünïcode name.txt': 'text',
};

describe('reproducible zip', () => {
  it('gives the same bytes for the same files, whatever their dates and creation order', async () => {
    const names = Object.keys(FILES);
    const a = tree(FILES, names);
    const b = tree(FILES, [...names].reverse());
    try {
      utimesSync(join(b, 'manifest.json'), new Date('2001-02-03'), new Date('2001-02-03'));
      const za = await zipFiles(a, await listFiles(a));
      const zb = await zipFiles(b, await listFiles(b));
      expect(za.equals(zb)).toBe(true);
      expect(zipEntryNames(za)).toEqual([...names].sort());
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });

  it('makes an archive unzip reads back intact, with every file as it was', async () => {
    const src = tree(FILES, Object.keys(FILES));
    const out = mkdtempSync(join(tmpdir(), 'reread-unzip-'));
    try {
      const file = join(out, 'x.zip');
      writeFileSync(file, await zipFiles(src, await listFiles(src)));
      execFileSync('unzip', ['-q', file, '-d', join(out, 'x')]);
      for (const [name, content] of Object.entries(FILES)) expect(readFileSync(join(out, 'x', name)).equals(Buffer.from(content))).toBe(true);
    } finally {
      rmSync(src, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('lists files the way web-ext packages them (dot files skipped when asked)', async () => {
    const dir = tree({ ...FILES, '.hidden': 'x' }, [...Object.keys(FILES), '.hidden']);
    try {
      expect(await listFiles(dir, (rel: string) => rel.startsWith('.'))).toEqual(Object.keys(FILES).sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
