/**
 * A resident table of one unsigned 32-bit value per chunk id. Ids only grow and are never reused, so
 * the table is paged (pages allocated as ids reach them): 4 bytes an id, 4 MB per million sections.
 *
 * Two uses (background/pageTable.ts): the norms — each section's length in index terms, BM25's
 * document length, stored once per section (the page record's `lens`) and looked up while posting
 * blocks are decoded, since repeating it in every posting took half of the postings' bytes — and the
 * owner of each id (which page a section belongs to), so a search result's section is found without
 * a record per section.
 */

const PAGE_BITS = 14;
const PAGE = 1 << PAGE_BITS;

export class IdTable {
  private pages: (Uint32Array | undefined)[] = [];

  set(id: number, value: number): void {
    const p = id >>> PAGE_BITS;
    let page = this.pages[p];
    if (!page) {
      if (value === 0) return;
      page = this.pages[p] = new Uint32Array(PAGE);
    }
    page[id & (PAGE - 1)] = value;
  }

  /** 0 when never set (or cleared). */
  get(id: number): number {
    const page = this.pages[id >>> PAGE_BITS];
    return page ? page[id & (PAGE - 1)]! : 0;
  }

  /** Sets `values[i]` for `ids[i]` (missing values: 0). */
  setAll(ids: readonly number[], values: ArrayLike<number> | number): void {
    for (let i = 0; i < ids.length; i++) this.set(ids[i]!, typeof values === 'number' ? values : (values[i] ?? 0));
  }

  /**
   * Sets ids first, first+1, … to values[from], values[from+1], … up to values[to - 1] (or to `values`
   * itself when a number): a page's ids are one run, so a load fills them a table page at a time.
   */
  setRun(first: number, values: ArrayLike<number> | number, from: number, to: number): void {
    let id = first;
    let at = from;
    while (at < to) {
      const p = id >>> PAGE_BITS;
      const off = id & (PAGE - 1);
      const n = Math.min(to - at, PAGE - off);
      const page = (this.pages[p] ??= new Uint32Array(PAGE));
      if (typeof values === 'number') page.fill(values, off, off + n);
      else for (let i = 0; i < n; i++) page[off + i] = values[at + i]!;
      id += n;
      at += n;
    }
  }

  clear(ids: readonly number[]): void {
    for (const id of ids) this.set(id, 0);
  }

  reset(): void {
    this.pages = [];
  }

  /** Bytes held (for memory reports). */
  get bytes(): number {
    return this.pages.reduce((n, p) => n + (p ? p.byteLength : 0), 0);
  }

  /** The lookup as a plain function (what the posting decoder takes for lengths). */
  readonly lookup = (id: number): number => this.get(id);
}
