/**
 * What Options' history card says once the import is over: "N pages from your history are searchable by
 * title and address". N was the import's running count, kept as it was whatever happened since: after
 * the user forgot a site of it, or everything, the card still promised the forgotten pages (failed
 * before its fix).
 */
import { describe, expect, it, vi } from 'vitest';
import { h, render } from 'preact';
import type { DayOneStatus } from '../../src/dayone.js';

let shown: DayOneStatus | null = null;
vi.mock('../../popup/api.js', () => ({
  ApiError: Error,
  call: async (type: string) => {
    if (type !== 'dayone/status' || !shown) throw new Error(type);
    return shown;
  },
}));
vi.mock('webextension-polyfill', () => ({ default: { permissions: { contains: async () => true }, alarms: { create: async () => undefined } } }));

import { installDom } from '../unit/surfaceDom.js';
import { engineOn, fakeHistory, freshDb, type Item } from './helpers.js';
import { HistoryImport } from '../../background/dayone/historyImport.js';
import { DayOne } from '../../background/dayone/dayOne.js';
import type { PageReader } from '../../background/reader/readerProtocol.js';

const NOW = Date.UTC(2026, 10, 30, 12);
const reader: PageReader = { readHtml: async () => ({ ok: false, reason: 'http-error', status: 404 }), readPdf: async () => ({ ok: false, problem: 'broken' }) };

/** The sentence Options shows for the import once it is over. */
async function optionsSays(status: DayOneStatus): Promise<string> {
  shown = status;
  const { document } = installDom();
  const { DayOneCard } = await import('../../popup/components/DayOneCard.js');
  const app = document.getElementById('app')!;
  render(h(DayOneCard, { where: 'options' }), app);
  for (let i = 0; i < 500 && !app.querySelector('[data-testid="dayone-import-done"]'); i++) await new Promise((r) => setTimeout(r, 0));
  const text = app.querySelector('[data-testid="dayone-import-done"]')?.textContent ?? '';
  render(null, app);
  return text;
}

describe('"N pages from your history" in Options', () => {
  it('counts the pages still there after a site of them, then everything, was forgotten', async () => {
    const engine = engineOn(await freshDb());
    const items: Item[] = Array.from({ length: 120 }, (_, i) => ({ url: `https://site${i % 40}.example/docs/${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(30);
    await imp.whenIdle();
    const dayOne = new DayOne(engine, reader);
    expect(await optionsSays(await dayOne.status())).toMatch(/^120 pages from your history \(last 30 days\)/);
    expect(await engine.deleteSite('site3.example')).toBe(3);
    expect(await optionsSays(await dayOne.status())).toMatch(/^117 pages from your history/);
    await engine.deleteAll();
    await dayOne.forgot({ kind: 'all' });
    expect(await optionsSays(await dayOne.status())).toMatch(/^0 pages from your history/);
  });
});
