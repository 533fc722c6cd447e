/**
 * A workload run against a killable connection, and the checks a restarted engine must pass.
 * Every operation is awaited in turn (deterministic request order, so "the k-th request" names the same
 * moment in every run); what each operation promises once it resolved is recorded in a model.
 */
import type { Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { modelInfo, type Embedder } from '../../src/models.js';
import { DenseService, type EmbedderHost } from '../../background/dense.js';
import { Engine } from '../../background/engine.js';
import { Recut } from '../../background/recut.js';
import { importJsonl } from './transferText.js';
import { verifyIndex } from '../../background/verify.js';
import type { DB } from '../../background/db.js';
import { NEXT_CHUNKER, nextCut } from './helpers.js';
import { killableConnection, reopen, type Connection } from './killSwitch.js';

export const MODEL = 'reread/glove-100d';
const DIM = 100;

/** A deterministic embedder: hashed words, normalised. */
export function fakeHost(): EmbedderHost {
  const model = modelInfo(MODEL)!;
  const embedder: Embedder = {
    model,
    dim: DIM,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(DIM);
        for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) {
          let h = 2166136261;
          for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
          v[(h >>> 0) % DIM]! += 1;
        }
        let n = 0;
        for (const x of v) n += x * x;
        if (!n) return null;
        n = Math.sqrt(n);
        return v.map((x) => x / n);
      });
    },
  };
  return { load: async () => embedder };
}

const filler = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i % 40}`).join(' ');

/** A page whose every section names `token` (long paragraphs: the next chunker cuts them otherwise). */
export function blocksOf(name: string, token: string): Block[] {
  return [
    { kind: 'heading', level: 1, text: `About ${name}`, id: 'about' },
    { kind: 'text', text: `${token} ${filler(110, name + 'a')} ${token}.` },
    { kind: 'text', text: `${token} ${filler(110, name + 'b')} ${token}.` },
    { kind: 'heading', level: 2, text: `More ${name}`, id: 'more' },
    { kind: 'text', text: `${token} ${filler(30, name + 'm')} ${token}.` },
  ];
}

export const urlOf = (name: string) => `https://${name}.example/page`;
export const tokenOf = (name: string, version: number) => `tok${name}v${version}`;

export type PageState = { status: 'live'; version: number } | { status: 'hidden'; version: number; mark: string } | { status: 'gone' };
export type Model = Map<string, PageState>;

export interface Op {
  name: string;
  run(ctx: Ctx): Promise<void>;
  /** What the op promises once it resolved. */
  apply(model: Model, ctx: Ctx): void;
}

export interface Ctx {
  engine: Engine;
  dense: DenseService;
  db: DB;
  clock: number;
  marks: Map<string, string>;
}

export function newEngine(db: DB, host = fakeHost()): { engine: Engine; dense: DenseService } {
  const engine = new Engine(() => Promise.resolve(db));
  engine.maintenance.auto = false;
  engine.maintenance.fixSteps({ terms: 4, blocks: 4 });
  engine.forget.undoMs = 10 * 86_400_000;
  // No purge timer: purges happen when the workload says.
  (engine.forget as unknown as { schedule(): void }).schedule = () => undefined;
  const dense = new DenseService(engine, host);
  engine.dense = dense;
  return { engine, dense };
}

async function capture(ctx: Ctx, name: string, version: number): Promise<void> {
  const cut = await cutSections(blocksOf(name, tokenOf(name, version)));
  ctx.clock += 1000;
  await ctx.engine.capture(urlOf(name), { title: `Page ${name}`, lang: 'en', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker }, ctx.clock);
}

const drain = (ctx: Ctx) => (ctx.dense as unknown as { drain(): Promise<void> }).drain();

function importOf(names: string[], clock: number): string {
  const lines = [JSON.stringify({ kind: 'reread-export', version: 1 })];
  for (const n of names) {
    lines.push(JSON.stringify({ kind: 'page', url: urlOf(n), title: `Page ${n}`, lang: 'en', firstVisit: clock - 5000, lastVisit: clock, visitCount: 3 }));
    for (const b of blocksOf(n, tokenOf(n, 1)).filter((b) => b.kind === 'text')) lines.push(JSON.stringify({ kind: 'chunk', url: urlOf(n), text: b.text, headingPath: [`About ${n}`], section: `About ${n}`, anchor: {} }));
  }
  return lines.join('\n');
}

const live = (v: number): PageState => ({ status: 'live', version: v });

export const WORKLOAD: Op[] = [
  { name: 'init', run: async (c) => { await c.dense.init(); await c.engine.forget.ready(); await c.engine.recut.run(); }, apply: () => undefined },
  ...['a', 'b', 'c', ...(process.env.REVIEW34D_VARIANT === 'hidden-drain' ? [] : ['d']), 'e'].map((n): Op => ({ name: `capture ${n}`, run: (c) => capture(c, n, 1), apply: (m) => void m.set(urlOf(n), live(1)) })),
  { name: 'drain 1', run: drain, apply: () => undefined },
  ...(process.env.REVIEW34D_VARIANT === 'hidden-drain' ? [{ name: 'capture d', run: (c: Ctx) => capture(c, 'd', 1), apply: (m: Model) => void m.set(urlOf('d'), live(1)) }] : []),
  { name: 'capture b v2 (changed)', run: (c) => capture(c, 'b', 2), apply: (m) => void m.set(urlOf('b'), live(2)) },
  { name: 'capture a v1 (revisit)', run: (c) => capture(c, 'a', 1), apply: () => undefined },
  {
    name: 'mark c (m1)',
    run: async (c) => {
      c.clock += 1000;
      c.marks.set('m1', (await c.engine.forget.mark({ kind: 'page', url: urlOf('c') }, c.clock)).id);
    },
    apply: (m, c) => void m.set(urlOf('c'), { status: 'hidden', version: 1, mark: c.marks.get('m1')! }),
  },
  {
    name: 'mark d (m2)',
    run: async (c) => {
      c.clock += 1000;
      c.marks.set('m2', (await c.engine.forget.mark({ kind: 'page', url: urlOf('d') }, c.clock)).id);
    },
    apply: (m, c) => void m.set(urlOf('d'), { status: 'hidden', version: 1, mark: c.marks.get('m2')! }),
  },
  // REVIEW34D_VARIANT=hidden-drain: the backlog drains while d is hidden (its queue entries are dropped), then the undo.
  ...(process.env.REVIEW34D_VARIANT === 'hidden-drain'
    ? [
        { name: 'drain 2 (d hidden)', run: drain, apply: () => undefined },
        { name: 'undo m2', run: async (c: Ctx) => void (await c.engine.forget.undo(c.marks.get('m2')!)), apply: (m: Model) => void m.set(urlOf('d'), live(1)) },
      ]
    : [
        { name: 'undo m2', run: async (c: Ctx) => void (await c.engine.forget.undo(c.marks.get('m2')!)), apply: (m: Model) => void m.set(urlOf('d'), live(1)) },
        { name: 'drain 2', run: drain, apply: () => undefined },
      ]),
  { name: 'maintenance 1 (merge, sweep, snapshot)', run: (c) => c.engine.maintenance.run({ force: true }), apply: () => undefined },
  { name: 'recut', run: (c) => new Recut(c.engine, { version: NEXT_CHUNKER, cut: nextCut, batch: 2 }).run(), apply: () => undefined },
  { name: 'import f g', run: async (c) => void (await importJsonl(c.engine, importOf(['f', 'g'], c.clock))), apply: (m) => (m.set(urlOf('f'), live(1)), void m.set(urlOf('g'), live(1))) },
  { name: 'purge m1', run: async (c) => void (await c.engine.forget.purgeDue(c.clock + c.engine.forget.undoMs + 1)), apply: (m) => void m.set(urlOf('c'), { status: 'gone' }) },
  {
    name: 'mark e (m3)',
    run: async (c) => {
      c.clock += 1000;
      c.marks.set('m3', (await c.engine.forget.mark({ kind: 'page', url: urlOf('e') }, c.clock)).id);
    },
    apply: (m, c) => void m.set(urlOf('e'), { status: 'hidden', version: 1, mark: c.marks.get('m3')! }),
  },
  { name: 'forget f now', run: async (c) => void (await c.engine.deleteUrls([urlOf('f')])), apply: (m) => void m.set(urlOf('f'), { status: 'gone' }) },
  { name: 'capture h', run: (c) => capture(c, 'h', 1), apply: (m) => void m.set(urlOf('h'), live(1)) },
  { name: 'drain 3', run: drain, apply: () => undefined },
  { name: 'maintenance 2', run: (c) => c.engine.maintenance.run({ force: true }), apply: () => undefined },
  { name: 'capture g v2', run: (c) => capture(c, 'g', 2), apply: (m) => void m.set(urlOf('g'), live(2)) },
  { name: 'drain 4', run: drain, apply: () => undefined },
];

export interface RunResult {
  name: string;
  /** Ops that resolved before the kill. */
  done: number;
  /** The op the kill came in (undefined: none). */
  inFlight?: string;
  before: Model;
  after: Model;
  requests: number;
  /** Requests made when each op began (no-kill runs: the op's range of k). */
  starts: { op: string; at: number }[];
  marks: Map<string, string>;
  clock: number;
}

/** Runs the workload on a new database, killed at the k-th request (Infinity: never). */
export async function runKilled(k: number, ops: Op[] = WORKLOAD, name = `killed-${process.pid}-${Math.random().toString(36).slice(2)}`): Promise<RunResult> {
  const conn: Connection = await killableConnection(name);
  conn.armAt(k);
  const { engine, dense } = newEngine(conn.db);
  dense.onChunksAdded = () => undefined; // drains happen when the workload says
  const ctx: Ctx = { engine, dense, db: conn.db, clock: Date.now() - 3_600_000, marks: new Map() };
  const model: Model = new Map();
  let done = 0;
  let inFlight: string | undefined;
  const starts: { op: string; at: number }[] = [];
  for (const op of ops) {
    starts.push({ op: op.name, at: conn.requests });
    let failed = false;
    try {
      await Promise.race([op.run(ctx), new Promise<never>((_r, rej) => conn.onKill(() => setTimeout(() => rej(new Error('killed')), 50)))]);
    } catch {
      failed = true;
    }
    if (conn.killed || failed) {
      inFlight = op.name;
      const after = new Map(model);
      op.apply(after, ctx);
      return { name, done, inFlight, before: model, after, requests: conn.requests, starts, marks: ctx.marks, clock: ctx.clock };
    }
    op.apply(model, ctx);
    done++;
  }
  return { name, done, before: model, after: new Map(model), requests: conn.requests, starts, marks: ctx.marks, clock: ctx.clock };
}

const hrefs = async (engine: Engine, q: string) => (await engine.search({ q, limit: 50 })).results.map((r) => r.href.split('#')[0]!);

async function observe(engine: Engine, url: string, name: string): Promise<string> {
  const found: number[] = [];
  for (const v of [1, 2]) if ((await hrefs(engine, tokenOf(name, v))).includes(url)) found.push(v);
  const stored = !!(await (await engine.db()).get('pages', url));
  const hidden = engine.pages.isHidden(url);
  if (found.length) return `live v${found.join('+')}${hidden ? ' (but hidden)' : ''}`;
  if (!stored) return 'gone';
  return hidden ? 'hidden' : 'stored but not found';
}

function expectOf(s: PageState | undefined): string[] {
  if (!s || s.status === 'gone') return ['gone'];
  if (s.status === 'hidden') return ['hidden'];
  return [`live v${s.version}`];
}

/** The sections of these pages that have neither a vector for MODEL nor a queue entry. */
export async function unembeddedUnqueued(db: DB, urls: string[]): Promise<number[]> {
  const vecs = new Set<number>();
  for (const b of await db.getAll('vectors')) if (b.m === MODEL) for (const id of b.ids) vecs.add(id);
  const queued = new Set((await db.getAll('embedQueue')).map((q) => q.id));
  const out: number[] = [];
  for (const u of urls) for (const id of (await db.get('pages', u))?.chunkIds ?? []) if (!vecs.has(id) && !queued.has(id)) out.push(id);
  return out;
}

/** The checks a restarted engine must pass; the problems found (empty: all hold). */
export async function checkRestart(r: RunResult, opts: { finish?: boolean } = {}): Promise<string[]> {
  const problems: string[] = [];
  const db = await reopen(r.name);
  const { engine, dense } = newEngine(db);
  await dense.init();
  await engine.forget.ready();
  const v1 = await verifyIndex(engine, false);
  if (!v1.ok) problems.push(...v1.problems.map((p) => `verify: ${p}`));
  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const liveUrls: string[] = [];
  for (const n of names) {
    const url = urlOf(n);
    const seen = await observe(engine, url, n);
    const ok = new Set([...expectOf(r.before.get(url)), ...expectOf(r.after.get(url))]);
    if (!ok.has(seen)) problems.push(`page ${n}: ${seen}, expected ${[...ok].join(' or ')}`);
    if (seen.startsWith('live')) liveUrls.push(url);
  }
  const lacking = await unembeddedUnqueued(db, liveUrls);
  if (lacking.length) problems.push(`live sections neither embedded nor queued: ${lacking.join(',')}`);
  // Stats as the user sees them: pages and chunks of what is visible.
  const stats = await engine.stats();
  const visible = (await Promise.all(liveUrls.map((u) => db.get('pages', u)))).filter((p) => !!p);
  if (stats.pages !== visible.length) problems.push(`stats: ${stats.pages} pages, ${visible.length} visible`);
  const chunks = visible.reduce((s, p) => s + p!.chunkIds.length, 0);
  if (stats.chunks !== chunks) problems.push(`stats: ${stats.chunks} chunks, ${chunks} visible`);
  // Undo still works for every pending mark.
  const pending = await engine.forget.pending(0);
  for (const p of pending) {
    // A mark whose purge had begun is past its window (the purge came after it closed): not offered.
    if (r.inFlight === 'purge m1' && p.id === r.marks.get('m1')) continue;
    const urls = engine.forget.markedUrls(p.id);
    try {
      await engine.forget.undo(p.id);
    } catch (e) {
      problems.push(`undo ${p.id} failed: ${(e as Error).message}`);
      continue;
    }
    for (const u of urls) {
      const n = new URL(u).hostname.split('.')[0]!;
      const seen = await observe(engine, u, n);
      if (!seen.startsWith('live')) problems.push(`page ${n} after undo: ${seen}`);
      else liveUrls.push(u);
    }
  }
  const lacking2 = await unembeddedUnqueued(db, liveUrls);
  if (lacking2.length) problems.push(`after undo: live sections neither embedded nor queued: ${lacking2.join(',')}`);
  if (opts.finish !== false) {
    try {
      await engine.maintenance.run({ force: true });
    } catch (e) {
      problems.push(`maintenance after restart failed: ${(e as Error).message}`);
    }
    await dense.resumeBacklog();
    await dense.idle();
    const v2 = await verifyIndex(engine, false);
    if (!v2.ok) problems.push(...v2.problems.map((p) => `verify after maintenance: ${p}`));
    const q = await db.count('embedQueue');
    if (q) problems.push(`queue not drained: ${q}`);
    const lacking3 = await unembeddedUnqueued(db, liveUrls);
    if (lacking3.length) problems.push(`after drain: live sections without a vector: ${lacking3.join(',')}`);
  }
  db.close();
  return problems;
}
