/** Pages written as blocks, in an in-memory search source: what the search unit tests index. */
import { chunkBlocks, type Block } from '../../src/chunker.js';
import { MemorySource } from '../../src/memorySource.js';

export const h = (level: number, text: string, id?: string): Block => ({ kind: 'heading', level, text, ...(id ? { id } : {}) });
export const p = (text: string): Block => ({ kind: 'text', text });

/** A MemorySource holding these pages, each cut into sections by the product's chunker. */
export function source(pages: { url: string; title: string; blocks: Block[] }[]): MemorySource {
  const src = new MemorySource();
  for (const pg of pages) src.addPage({ url: pg.url, title: pg.title, chunks: chunkBlocks(pg.blocks).chunks });
  return src;
}
