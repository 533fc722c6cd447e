/**
 * Day one is not empty: the open tabs, the history from before, and PDFs (issue 14). This file ties the
 * three jobs to the worker: their status for the first-run card and Options, the watchdog alarm that
 * brings a stopped worker back to a running job, and what forgetting and pausing do to them.
 */
import browser from 'webextension-polyfill';
import type { BackfillAction, DayOneStatus } from '../../src/dayone.js';
import type { ForgetScope } from '../../src/protocol.js';
import type { Engine } from '../engine.js';
import type { PageReader } from '../reader/readerProtocol.js';
import { Backfill, eligible } from './backfill.js';
import { HistoryImport, type HistorySource } from './historyImport.js';
import { captureOpenTabs, registerOpenTabs } from './openTabs.js';
import { FRESH_LOAD_MS, PdfCapture } from './pdfCapture.js';

const WATCHDOG_ALARM = 'reread-dayone';
const BACKFILL_ALARM = 'reread-backfill-next-day';
const DISMISSED_KEY = 'dayoneDismissed';
const INTENT_KEY = 'historyImportIntent';
/** An intent older than this is stale (the user closed the prompt without answering). */
const INTENT_MS = 10 * 60_000;

export class DayOne {
  readonly history: HistoryImport;
  readonly backfill: Backfill;
  readonly pdf: PdfCapture;

  constructor(
    private readonly engine: Engine,
    reader: PageReader,
  ) {
    this.history = new HistoryImport(engine, () => {
      // The history API exists only while the optional permission is granted.
      const h = (browser as unknown as { history?: HistorySource }).history;
      return h?.search ? { search: (q) => h.search(q), ...(h.getVisits ? { getVisits: (d: { url: string }) => h.getVisits!(d) } : {}) } : null;
    });
    this.backfill = new Backfill(engine, reader, Date.now, (at) => void browser.alarms.create(BACKFILL_ALARM, { when: at + 1000 }).catch(() => undefined));
    this.pdf = new PdfCapture(engine, reader);
  }

  async status(): Promise<DayOneStatus> {
    const db = await this.engine.db();
    const [history, backfill, pdfNotes, dismissed, permission] = await Promise.all([
      this.history.status(),
      this.backfill.status(),
      this.pdf.notes(),
      db.get('meta', DISMISSED_KEY),
      browser.permissions.contains({ permissions: ['history'] }).catch(() => false),
    ]);
    let titleOnly = 0;
    let fromHistory = 0;
    let toRead = 0;
    for (const p of (await this.engine.pages.all()).values()) {
      if (p.kind === 'title') titleOnly++;
      if (p.kind === 'title' || p.kind === 'fetched') fromHistory++;
      if (eligible(p)) toRead++;
    }
    return { historyPermission: permission, dismissed: dismissed === true, history, backfill, titleOnly, fromHistory, toRead, pdfNotes };
  }

  async importHistory(days: number, whenGranted = false): Promise<DayOneStatus> {
    if (whenGranted && !(await browser.permissions.contains({ permissions: ['history'] }).catch(() => false))) {
      // The popup asks before the browser's prompt (which may close it): started by permissions.onAdded.
      await (await this.engine.db()).put('meta', { days, at: Date.now() }, INTENT_KEY);
      return this.status();
    }
    await (await this.engine.db()).delete('meta', INTENT_KEY);
    await this.history.start(days);
    this.watch();
    return this.status();
  }

  async stopHistory(): Promise<DayOneStatus> {
    await this.history.stop();
    return this.status();
  }

  async controlBackfill(action: BackfillAction | undefined, dailyCap?: number): Promise<DayOneStatus> {
    await this.backfill.control(action, dailyCap);
    if (action === 'start' || action === 'resume') this.watch();
    return this.status();
  }

  async dismiss(): Promise<DayOneStatus> {
    await (await this.engine.db()).put('meta', true, DISMISSED_KEY);
    return this.status();
  }

  async clearPdfNotes(): Promise<DayOneStatus> {
    await this.pdf.clearNotes();
    return this.status();
  }

  /** The content script says its tab shows a PDF (`sinceLoadMs`: how long ago the document loaded). */
  onPdfTab(tab: { id?: number; incognito: boolean; url?: string }, sinceLoadMs: number): Promise<string> {
    if (tab.id === undefined || !tab.url) return Promise.resolve('no tab');
    return this.pdf.handle(tab.id, tab.url, tab.incognito, sinceLoadMs >= 0 && sinceLoadMs < FRESH_LOAD_MS);
  }

  /**
   * Forgetting: what an import still to come would bring back of a forgotten page, site or range is left
   * out (the backfill reads only pages still stored); forgetting everything stops both jobs.
   */
  async forgot(scope: ForgetScope, urls: readonly string[] = []): Promise<void> {
    switch (scope.kind) {
      case 'page':
        return this.history.forgotUrls([scope.url]);
      case 'site':
        return this.history.forgotSite(scope.site);
      case 'range':
        // A page the range forgets (it has a visit in it) is forgotten whole, visits after the range too:
        // its history entry, whose last visit may be after the range, is left out by its URL.
        await this.history.forgotUrls(urls);
        return this.history.forgotRange(scope.from, scope.to);
      case 'all':
        await Promise.all([this.history.forgotAll(), this.backfill.forgotAll()]);
    }
  }

  /** Pages deleted from the browser's history: what an import still to come would bring back of them is left out. */
  forgotUrls(urls: readonly string[]): Promise<void> {
    return this.history.forgotUrls(urls);
  }

  /** Capture resumed: the open tabs are read, and the jobs go on. */
  async captureResumed(): Promise<void> {
    await captureOpenTabs(this.engine);
    this.resumeJobs();
  }

  /** Goes on with whatever was running when the worker stopped (or the browser closed). */
  resumeJobs(): void {
    void this.history.resume().catch((e: unknown) => console.warn('reread: history import', e));
    void this.backfill.resume().catch((e: unknown) => console.warn('reread: backfill', e));
  }

  /** A watchdog alarm while a job runs: a worker stopped mid-job is started again within a minute. */
  private watch(): void {
    void browser.alarms.create(WATCHDOG_ALARM, { periodInMinutes: 1 }).catch(() => undefined);
  }

  register(): void {
    registerOpenTabs(this.engine);
    this.pdf.register();
    browser.permissions.onAdded.addListener((added) => {
      if (!added.permissions?.includes('history')) return;
      void (async () => {
        const db = await this.engine.db();
        const intent = (await db.get('meta', INTENT_KEY)) as { days?: number; at?: number } | undefined;
        if (typeof intent?.days === 'number' && Date.now() - (intent.at ?? 0) < INTENT_MS) await this.importHistory(intent.days);
        else await db.delete('meta', INTENT_KEY);
      })().catch((e: unknown) => console.warn('reread: history import', e));
    });
    browser.runtime.onStartup.addListener(() => void captureOpenTabs(this.engine).catch(() => undefined));
    browser.alarms.onAlarm.addListener((alarm) => {
      if (alarm.name === BACKFILL_ALARM) this.resumeJobs();
      if (alarm.name !== WATCHDOG_ALARM) return;
      void (async () => {
        const [h, b] = await Promise.all([this.history.status(), this.backfill.status()]);
        if (h.state === 'running' || b.state === 'running') this.resumeJobs();
        else await browser.alarms.clear(WATCHDOG_ALARM);
      })();
    });
  }
}
