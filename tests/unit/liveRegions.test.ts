/**
 * Options' history card puts the import's running count in a polite live region that the card
 * reads again every 700 ms: a screen reader reads "Importing your history: N pages so far…" over and over
 * for as long as the import runs (minutes), over whatever else the user is doing on the page.
 */
import { describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import { installDom } from './surfaceDom.js';

let imported = 0;
vi.mock('../../popup/api.js', () => ({
  ApiError: Error,
  call: async (type: string) => {
    if (type !== 'dayone/status') throw new Error(type);
    imported += 250;
    const now = Date.now();
    return {
      historyPermission: true,
      dismissed: false,
      history: { state: 'running', days: 90, from: now - 90 * 86_400_000, cursor: now - imported * 60_000, startedAt: now, imported, seen: imported },
      backfill: { state: 'idle', total: 0, done: 0, stored: 0, skipped: 0, reasons: {}, dailyCap: 500, day: '', today: 0, startedAt: 0 },
      titleOnly: imported,
      fromHistory: imported,
      toRead: imported,
      pdfNotes: [],
    };
  },
}));
vi.mock('webextension-polyfill', () => ({ default: {} }));

describe('history import progress', () => {
  it('is not re-announced every poll: at most 2 announcements in 5 seconds', async () => {
    const { document } = installDom();
    const { DayOneCard } = await import('../../popup/components/DayOneCard.js');
    const app = document.getElementById('app')!;
    render(h(DayOneCard, { where: 'options' }), app);
    const said: string[] = [];
    const t0 = Date.now();
    while (Date.now() - t0 < 5000) {
      const live = app.querySelector('[aria-live="polite"], [aria-live="assertive"], [role="status"], [role="alert"]');
      const text = live?.textContent?.trim() ?? '';
      if (text && text !== said[said.length - 1]) said.push(text);
      await new Promise((r) => setTimeout(r, 50));
    }
    render(null, app);
    expect(said.length, said.join('\n')).toBeLessThanOrEqual(2);
  });
});
