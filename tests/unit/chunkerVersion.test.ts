/**
 * The chunker's version must change whenever its output does: stored pages are re-cut only when
 * CHUNKER_VERSION changes (background/recut.ts). This golden test cuts a fixed, generated corpus and
 * compares a hash of the result with the one recorded for the current version. If it fails:
 * - you changed what the chunker makes: bump CHUNKER_REVISION in src/chunker.ts, run this test, and
 *   record the version and hash it prints below;
 * - you only bumped the version: record the new version and hash.
 */
import { describe, expect, it } from 'vitest';
import { chunkBlocks, CHUNKER_VERSION, type Block } from '../../src/chunker.js';
import { hashHex } from '../../src/hash.js';

const GOLDEN = { version: '5.jvvj6lo495', hash: '0dd240bc410103' };

/** mulberry32: the corpus must not depend on any library's generator. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCAB = ['the', 'index', 'os.path.join', 'section', 'heading', 'ERR_5041', 'getElementById', 'and', 'of', 'a', 'parser', 'token', 'vector', '漢字の文', 'ไทย', 'café', 'naïve', '—', '(see', 'below).', 'end.', 'Why?', 'yes!'];

const REPEATED = ['Examples', 'Parameters'];

function page(r: () => number): Block[] {
  const blocks: Block[] = [];
  const n = 1 + Math.floor(r() * 40);
  const sentence = () => Array.from({ length: 3 + Math.floor(r() * 30) }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' ') + (r() < 0.7 ? '.' : '');
  for (let i = 0; i < n; i++) {
    const k = r();
    const id = r() < 0.4 ? `id-${i}` : undefined;
    // Some headings repeat on the page ("Examples" under each task), which a text fragment cannot tell apart.
    if (k < 0.2) blocks.push({ kind: 'heading', level: 1 + Math.floor(r() * 6), text: r() < 0.05 ? sentence().repeat(12) : r() < 0.2 ? REPEATED[Math.floor(r() * REPEATED.length)]! : sentence().slice(0, 40), ...(id ? { id } : {}) });
    else if (k < 0.3) blocks.push({ kind: 'code', text: Array.from({ length: 1 + Math.floor(r() * 30) }, () => '  ' + sentence()).join('\n'), ...(id ? { id } : {}) });
    else if (k < 0.35) blocks.push({ kind: 'text', text: '漢'.repeat(Math.floor(r() * 3000)) + '。' });
    else blocks.push({ kind: r() < 0.8 ? 'text' : 'list', text: Array.from({ length: 1 + Math.floor(r() * (r() < 0.1 ? 80 : 6)) }, sentence).join(' '), ...(id ? { id } : {}) });
  }
  return blocks;
}

describe('chunker version', () => {
  it('changes whenever what the chunker makes changes', { timeout: 60_000 }, () => {
    const r = rng(20261201);
    const out = Array.from({ length: 150 }, () => chunkBlocks(page(r)));
    const hash = hashHex(JSON.stringify(out));
    const now = { version: CHUNKER_VERSION, hash };
    if (CHUNKER_VERSION === GOLDEN.version) expect(now, 'the chunker cuts differently: bump CHUNKER_REVISION in src/chunker.ts and record the new version and hash here').toEqual(GOLDEN);
    else expect(now, 'a new chunker version: record its version and hash here').toEqual(GOLDEN);
  });
});
