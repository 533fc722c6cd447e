/**
 * The history card's "Read these pages now" when every title-only page was tried already (each left
 * title-only for a reason): it offered to fetch "the 5 pages that are title-only" and its button did
 * nothing (those pages are not fetched again).
 */
import { describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { installDom } from './surfaceDom.js';

let status: { titleOnly: number; toRead: number } = { titleOnly: 5, toRead: 0 };
vi.mock('../../popup/api.js', () => ({
  ApiError: Error,
  call: async (type: string) => {
    if (type !== 'dayone/status') throw new Error(type);
    const now = Date.now();
    return {
      historyPermission: true,
      dismissed: false,
      history: { state: 'done', days: 90, from: now - 90 * 86_400_000, cursor: 0, startedAt: now - 60_000, imported: 5, seen: 5, finishedAt: now },
      backfill: { state: 'done', total: 5, done: 5, stored: 0, skipped: 5, reasons: { 'local-network': 2, redirected: 3 }, dailyCap: 2000, day: '', today: 5, startedAt: now - 1000, fetchedBefore: 0 },
      fromHistory: 5,
      ...status,
      pdfNotes: [],
    };
  },
}));
vi.mock('webextension-polyfill', () => ({ default: {} }));

async function card() {
  const { document } = installDom();
  const { DayOneCard } = await import('../../popup/components/DayOneCard.js');
  const app = document.getElementById('app')!;
  render(h(DayOneCard, { where: 'options' }), app);
  for (let i = 0; i < 50 && !app.querySelector('[data-testid="dayone-backfill-start"]'); i++) await new Promise((r) => setTimeout(r, 20));
  return app;
}

describe('Read these pages now', () => {
  it('says every page was tried, and its button is off, when none is left to read', async () => {
    status = { titleOnly: 5, toRead: 0 };
    const app = await card();
    expect(app.querySelector('[data-testid="dayone-backfill-none"]')?.textContent).toContain('Every title-only page was tried');
    expect(app.querySelector('[data-testid="dayone-backfill-warning"]')).toBeNull();
    expect((app.querySelector('[data-testid="dayone-backfill-start"]') as HTMLButtonElement).disabled).toBe(true);
    expect(app.textContent).toContain('on your own network or computer (2)');
    render(null, app);
  });
  it('counts the pages it would fetch, not those tried before', async () => {
    status = { titleOnly: 5, toRead: 2 };
    const app = await card();
    expect(app.querySelector('[data-testid="dayone-backfill-warning"]')?.textContent).toContain('fetches the 2 pages');
    expect((app.querySelector('[data-testid="dayone-backfill-start"]') as HTMLButtonElement).disabled).toBe(false);
    render(null, app);
  });
});
