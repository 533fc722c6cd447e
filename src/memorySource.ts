/**
 * A `SearchSource` in memory: pages and their chunks indexed with the product's own indexing
 * (src/indexing.ts indexSection, the same posting lists src/bm25.ts scores), for the evaluation, the
 * unit tests and the benchmarks. The extension's source is background/search.ts, over IndexedDB.
 */
import type { CorpusStats, PostingList } from './bm25.js';
import type { Chunk } from './chunker.js';
import { indexSection, TOKENIZER } from './indexing.js';
import type { ParsedQuery } from './query.js';
import type { PageView, SearchSource, SectionView } from './search.js';
import { DEFAULT_SETTINGS, type Settings } from './settings.js';
import type { UnspacedTerms } from './recut.js';
import { TermDictionary, type NearTerm } from './spelling.js';
import { siteMatches, siteOf } from './url.js';

export interface MemoryPage {
  url: string;
  title: string;
  chunks: readonly Pick<Chunk, 'headingPath' | 'section' | 'anchor' | 'text' | 'parts'>[];
  site?: string;
  lastVisit?: number;
  visitCount?: number;
}

interface Growing {
  ids: number[];
  tfs: number[];
  lens: number[];
}

export class MemorySource implements SearchSource {
  settings: Settings;
  dense: SearchSource['dense'] = null;
  /** The lexicon (words that are not typos); none by default. */
  words: ReadonlySet<string> | null = null;
  private readonly pageTable = new Map<string, PageView>();
  private readonly sectionById = new Map<number, SectionView>();
  private readonly growing = new Map<string, Growing>();
  private readonly lists = new Map<string, PostingList>();
  private readonly dictionary = new TermDictionary();
  private readonly stats: CorpusStats = { N: 0, totalLength: 0 };
  private nextId = 1;

  constructor(settings: Settings = DEFAULT_SETTINGS) {
    this.settings = settings;
  }

  /** Adds a page (a URL already held is refused: this index only grows). Returns its section ids. */
  addPage(page: MemoryPage): number[] {
    if (this.pageTable.has(page.url)) throw new Error(`page already indexed: ${page.url}`);
    const ids: number[] = [];
    for (const c of page.chunks) {
      const id = this.nextId++;
      ids.push(id);
      this.sectionById.set(id, { id, url: page.url, headingPath: c.headingPath, section: c.section, anchor: c.anchor, text: c.text, ...(c.parts ? { parts: c.parts } : {}) });
      const doc = indexSection(page.title, c, TOKENIZER);
      this.stats.N++;
      this.stats.totalLength += doc.len;
      for (const [term, code] of doc.tfs) {
        let g = this.growing.get(term);
        if (!g) this.growing.set(term, (g = { ids: [], tfs: [], lens: [] }));
        g.ids.push(id);
        g.tfs.push(code);
        g.lens.push(doc.len);
        this.lists.delete(term);
        this.dictionary.add(term);
      }
    }
    this.pageTable.set(page.url, {
      url: page.url,
      site: page.site ?? siteOf(page.url),
      title: page.title,
      lastVisit: page.lastVisit ?? 0,
      visitCount: page.visitCount ?? 1,
      chunkIds: ids,
    });
    return ids;
  }

  section(id: number): SectionView | undefined {
    return this.sectionById.get(id);
  }

  async pages(): Promise<ReadonlyMap<string, PageView>> {
    return this.pageTable;
  }

  async allowedChunks(parsed: ParsedQuery, excludeUrl?: string): Promise<ReadonlySet<number> | null> {
    const filtered = parsed.sites.length || parsed.excludeSites.length || parsed.after !== undefined || parsed.before !== undefined || excludeUrl;
    if (!filtered) return null;
    const out = new Set<number>();
    for (const p of this.pageTable.values()) {
      if (p.url === excludeUrl) continue;
      if (parsed.sites.length && !parsed.sites.some((s) => siteMatches(p.site, s))) continue;
      if (parsed.excludeSites.some((s) => siteMatches(p.site, s))) continue;
      if (parsed.after !== undefined && p.lastVisit < parsed.after) continue;
      if (parsed.before !== undefined && p.lastVisit >= parsed.before) continue;
      for (const id of p.chunkIds) out.add(id);
    }
    return out;
  }

  async corpusStats(): Promise<CorpusStats> {
    return { ...this.stats };
  }

  /** One term's posting list (empty when the index lacks it). */
  list(term: string): PostingList {
    let l = this.lists.get(term);
    if (!l) {
      const g = this.growing.get(term);
      l = g ? { ids: Uint32Array.from(g.ids), tfs: Uint32Array.from(g.tfs), lens: Uint32Array.from(g.lens) } : EMPTY;
      if (g) this.lists.set(term, l);
    }
    return l;
  }

  async postings(terms: readonly string[]): Promise<Map<string, PostingList>> {
    return new Map(terms.map((t) => [t, this.list(t)]));
  }

  async sections(ids: readonly number[]): Promise<SectionView[]> {
    return ids.map((id) => this.sectionById.get(id)).filter((s): s is SectionView => !!s);
  }

  async sectionPages(): Promise<(id: number) => string | undefined> {
    return (id) => this.sectionById.get(id)?.url;
  }

  async similarTerms(term: string, maxEdits: number): Promise<NearTerm[]> {
    return this.dictionary.near(term, maxEdits);
  }

  async unspacedTerms(): Promise<UnspacedTerms> {
    return this.dictionary.unspaced;
  }

  async lexicon(): Promise<ReadonlySet<string> | null> {
    return this.words;
  }
}

const EMPTY: PostingList = { ids: new Uint32Array(0), tfs: new Uint32Array(0), lens: new Uint32Array(0) };

