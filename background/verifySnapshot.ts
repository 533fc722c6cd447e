/**
 * verifyIndex's check of the page table's snapshot (pageLog.ts) against the pages store. The loader
 * checks a snapshot only by totals (page count, sections, total length, latest visit): a page whose
 * title, site or an older visit date is wrong there, two pages' ids swapped with equal lengths, or a
 * forgotten page with no sections still listed (its URL and title kept) all load as if right. Here
 * every page of the snapshot that its log does not supersede must be the store's record, field by
 * field, and every stored page must be in the snapshot or its log. Repair drops a wrong snapshot (and
 * its log) and writes it again from the store.
 */
import type { DB, PageRecord } from './db.js';
import type { Engine } from './engine.js';
import { dropPageSnapshot, fromV1, loggedUrls, pageIds, pageMeta, SNAPSHOT_VERSION, type SnapshotColumns, type SnapshotCore, type SnapshotV1 } from './pageLog.js';

/** Reports what is wrong with the snapshot (each problem prefixed); true when anything is. */
export function checkPageSnapshot(stored: unknown, storedColumns: unknown, logKeys: readonly IDBValidKey[], pages: readonly PageRecord[], report: (problem: string) => void): boolean {
  let wrong = false;
  const say = (p: string) => {
    wrong = true;
    report(`page table snapshot: ${p}`);
  };
  if (stored === undefined) {
    // Columns outlive their core only by a bug: they hold titles, maybe of forgotten pages.
    if (storedColumns !== undefined) say('columns without their core');
    return wrong;
  }
  let core: SnapshotCore;
  let columns: SnapshotColumns | null;
  try {
    const v = (stored as { v?: unknown }).v;
    if (v === 1) ({ core, columns } = fromV1(stored as SnapshotV1));
    else if (v === SNAPSHOT_VERSION) {
      core = stored as SnapshotCore;
      const c = storedColumns as SnapshotColumns | undefined;
      columns = c && c.v === SNAPSHOT_VERSION && c.gen === core.gen && c.sites.length === core.urls.length ? c : null;
      if (!columns) say(storedColumns === undefined ? 'columns missing' : 'columns of another snapshot');
    } else {
      say(`unknown version ${String(v)}`);
      return true;
    }
    const n = core.urls.length;
    const shaped =
      core.lastVisit.length === n &&
      core.idEnd.length === n &&
      core.first.length === n &&
      (n ? core.idEnd[n - 1]! : 0) === core.lens.length &&
      core.idEnd.every((e, i) => e >= (i ? core.idEnd[i - 1]! : 0)) &&
      (!columns || (columns.titles.length === n && columns.firstVisit.length === n && columns.visitCount.length === n && columns.visitEnd.length === n && columns.hasVisits.length === n));
    if (!shaped) {
      say('malformed');
      return true;
    }
  } catch (e) {
    say(`malformed (${e instanceof Error ? e.message : String(e)})`);
    return true;
  }

  const logged = new Set(loggedUrls(logKeys));
  const byUrl = new Map(pages.map((p) => [p.url, p]));
  const listed = new Set<string>();
  const extra = new Map((columns?.extra ?? []).map((e) => [e.i, e]));
  for (let i = 0; i < core.urls.length; i++) {
    const url = core.urls[i]!;
    if (listed.has(url)) {
      say(`lists ${url} twice`);
      continue;
    }
    listed.add(url);
    // A logged page is read from the store at load: the snapshot's copy of it is not used.
    if (logged.has(url)) continue;
    const p = byUrl.get(url);
    if (!p) {
      say(`lists ${url}, which the store does not hold`);
      continue;
    }
    const from = i ? core.idEnd[i - 1]! : 0;
    const differs: string[] = [];
    if (!same(pageIds(core, i), p.chunkIds)) differs.push('section ids');
    if (!same(Array.from(core.lens.subarray(from, core.idEnd[i]!)), p.lens ?? [])) differs.push('section lengths');
    if (core.lastVisit[i] !== p.lastVisit) differs.push('last visit');
    if (columns) {
      const m = pageMeta(core, columns, extra, i);
      if (m.site !== p.site) differs.push('site');
      if (m.title !== p.title) differs.push('title');
      if (m.firstVisit !== p.firstVisit) differs.push('first visit');
      if (m.visitCount !== p.visitCount) differs.push('visit count');
      if (!same(m.visits ?? null, p.visits ?? null)) differs.push('visits');
      if ((m.kind ?? null) !== (p.kind ?? null)) differs.push('kind');
      if (m.fetchSkipped?.at !== p.fetchSkipped?.at || m.fetchSkipped?.reason !== p.fetchSkipped?.reason) differs.push('fetch skipped');
    }
    if (differs.length) say(`${url}: ${differs.join(', ')} differ from the store`);
  }
  for (const p of pages) if (!listed.has(p.url) && !logged.has(p.url)) say(`misses ${p.url}, and its log does not name it`);
  return wrong;
}

function same(a: readonly number[] | null, b: readonly number[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Repair: the snapshot and its log dropped, then written again from the store; the table reloads. */
export async function rewritePageSnapshot(engine: Engine, db: DB): Promise<void> {
  const tx = db.transaction(['pages', 'meta'], 'readwrite');
  await dropPageSnapshot(tx);
  await tx.done;
  // Not written when a page has no lengths (a migration's leftovers): loads then read every page.
  await engine.pages.writeSnapshot(db);
  engine.pages.reset();
}
