/** The options page: status, privacy controls, storage, model choice, ranking, and maintenance. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { SiteCount, Stats, VerifyReport } from '../src/protocol.js';
import type { Settings } from '../src/settings.js';
import { normalizeSitePattern } from '../src/settings.js';
import browser from 'webextension-polyfill';
import { call } from './api.js';
import { formatBytes } from './format.js';
import { ModelSettings } from './components/ModelSettings.js';

function useAsync<T>(load: () => Promise<T>, deps: unknown[]): [T | null, () => void] {
  const [value, setValue] = useState<T | null>(null);
  const [n, setN] = useState(0);
  useEffect(() => {
    load().then(setValue).catch(() => undefined);
  }, [...deps, n]);
  return [value, () => setN((x) => x + 1)];
}

function Options() {
  const [stats, reloadStats] = useAsync<Stats>(() => call('stats', {}), []);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [sites, reloadSites] = useAsync<SiteCount[]>(() => call('sites', {}), []);
  const [message, setMessage] = useState<string>('');
  const [newSite, setNewSite] = useState('');
  const [report, setReport] = useState<VerifyReport | null>(null);

  useEffect(() => {
    call('settings/get', {}).then(setSettings).catch((e: Error) => setMessage(e.message));
    const t = setInterval(reloadStats, 2000);
    return () => clearInterval(t);
  }, []);

  const save = async (patch: Partial<Settings>) => {
    try {
      setSettings(await call('settings/set', patch));
      setMessage('Saved.');
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const refresh = () => {
    reloadStats();
    reloadSites();
  };
  const act = async (what: string, fn: () => Promise<string>) => {
    setMessage(`${what}…`);
    try {
      setMessage(await fn());
    } catch (e) {
      setMessage(`${what} failed: ${(e as Error).message}`);
    }
    refresh();
  };

  if (!settings) return <p>Loading…</p>;
  return (
    <main class="options">
      <h1 class="brand">Reread options</h1>
      <p class="options__message" role="status" data-testid="options-message">
        {message}
      </p>

      <section>
        <h2>What is stored</h2>
        {!stats && <p>Counting…</p>}
        {stats && (
        <dl class="stats">
          <dt>Pages</dt>
          <dd data-testid="stat-pages">{stats.pages}</dd>
          <dt>Sections</dt>
          <dd data-testid="stat-chunks">{stats.chunks}</dd>
          <dt>Sections waiting to be understood</dt>
          <dd data-testid="stat-pending-embeddings">{stats.pendingEmbeddings}</dd>
          <dt>Sites</dt>
          <dd data-testid="stat-sites">{stats.sites}</dd>
          <dt>Storage used</dt>
          <dd data-testid="stat-bytes-text">{stats.bytesUsed !== undefined ? formatBytes(stats.bytesUsed) : 'unknown'}</dd>
        </dl>
        )}
        {stats?.recut && (
          <p role="status" data-testid="recut-progress">
            A new version of Reread cuts pages into sections differently: re-cutting stored pages,{' '}
            <progress max={stats.recut.total} value={stats.recut.done} aria-label="Pages re-cut" /> {stats.recut.done} of {stats.recut.total}. Search works meanwhile.
          </p>
        )}
        {stats?.storageWarning && (
          <p class="warn" data-testid="storage-warning">
            {stats.storageWarning}
          </p>
        )}
      </section>

      <section>
        <h2>Saving pages</h2>
        <label>
          <input type="checkbox" data-testid="pause" checked={settings.paused} onChange={(e) => void save({ paused: (e.target as HTMLInputElement).checked })} /> Pause saving new pages
        </label>
        <h3>Never save these sites</h3>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const site = normalizeSitePattern(newSite);
            if (!site) return setMessage('That is not a site name (example: news.example.com).');
            setNewSite('');
            void act('Excluding', async () => {
              await save({ excludedSites: [...settings.excludedSites, site] });
              const { pages } = await call('delete/site', { site });
              return `${site} will not be saved; ${pages} stored pages from it were forgotten.`;
            });
          }}
        >
          <input data-testid="exclude-input" placeholder="example.com" value={newSite} onInput={(e) => setNewSite((e.target as HTMLInputElement).value)} />
          <button type="submit" data-testid="exclude-add">
            Add
          </button>
        </form>
        <ul class="excluded" data-testid="excluded-list">
          {settings.excludedSites.map((s) => (
            <li key={s}>
              {s}{' '}
              <button type="button" class="link" onClick={() => void save({ excludedSites: settings.excludedSites.filter((x) => x !== s) })}>
                remove
              </button>
            </li>
          ))}
        </ul>
        <label>
          <input
            type="checkbox"
            data-testid="follow-history"
            checked={settings.followHistoryDeletes}
            onChange={(e) => {
              const on = (e.target as HTMLInputElement).checked;
              void (async () => {
                // Asked only now, from this click: the history permission is optional.
                if (on && !(await browser.permissions.request({ permissions: ['history'] }).catch(() => false))) {
                  setMessage('Without access to history, Reread cannot follow your history deletions.');
                  return;
                }
                await save({ followHistoryDeletes: on });
              })();
            }}
          />{' '}
          When I clear browsing history, forget the same pages
        </label>
        <label>
          Forget pages not visited for{' '}
          <input type="number" min={0} data-testid="retention-days" value={settings.retentionDays} onChange={(e) => void save({ retentionDays: Number((e.target as HTMLInputElement).value) })} /> days (0 = keep
          everything)
        </label>
        <label>
          Keep storage under{' '}
          <input type="number" min={0} data-testid="max-storage" value={settings.maxStorageMb} onChange={(e) => void save({ maxStorageMb: Number((e.target as HTMLInputElement).value) })} /> MB (0 = no cap)
        </label>
      </section>

      <section>
        <h2>Forget</h2>
        <label>
          Site{' '}
          <select data-testid="delete-site-select" id="delete-site">
            {(sites ?? []).map((s) => (
              <option key={s.site} value={s.site}>
                {s.site} ({s.pages})
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          data-testid="delete-site"
          onClick={() => {
            const site = (document.getElementById('delete-site') as HTMLSelectElement | null)?.value;
            if (site) void act('Forgetting', async () => `Forgot ${(await call('delete/site', { site })).pages} pages from ${site}.`);
          }}
        >
          Forget this site
        </button>
        <div class="range">
          From <input type="date" id="range-after" data-testid="range-after" /> to <input type="date" id="range-before" data-testid="range-before" />{' '}
          <button
            type="button"
            data-testid="delete-range"
            onClick={() => {
              const a = (document.getElementById('range-after') as HTMLInputElement).valueAsNumber;
              const b = (document.getElementById('range-before') as HTMLInputElement).valueAsNumber;
              void act('Forgetting', async () => {
                const r = await call('delete/range', { after: Number.isNaN(a) ? undefined : a, before: Number.isNaN(b) ? undefined : b + 86_400_000 });
                return `Forgot ${r.pages} pages.`;
              });
            }}
          >
            Forget pages visited in this range
          </button>
        </div>
        <button
          type="button"
          class="danger"
          data-testid="delete-all"
          onClick={() => {
            if (confirm('Forget every page Reread has saved?')) void act('Forgetting everything', async () => `Forgot ${(await call('delete/all', {})).pages} pages.`);
          }}
        >
          Forget everything
        </button>
      </section>

      <section>
        <h2>Export and import</h2>
        <button
          type="button"
          data-testid="export"
          onClick={() =>
            void act('Exporting', async () => {
              const withVectors = (document.querySelector('[data-testid="export-vectors"]') as HTMLInputElement | null)?.checked === true;
              const { jsonl, pages } = await call('export', { vectors: withVectors });
              const a = document.createElement('a');
              a.href = URL.createObjectURL(new Blob([jsonl], { type: 'application/x-ndjson' }));
              a.download = `reread-${new Date().toISOString().slice(0, 10)}.jsonl`;
              a.click();
              setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
              return `Exported ${pages} pages.`;
            })
          }
        >
          Export (JSONL)
        </button>
        <label>
          <input type="checkbox" data-testid="export-vectors" /> include embeddings (a larger file; an import into the same model does not embed again)
        </label>
        <label>
          Import{' '}
          <input
            type="file"
            accept=".jsonl,application/x-ndjson,application/json"
            data-testid="import-file"
            onChange={(e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              if (file)
                void act('Importing', async () => {
                  const r = await call('import', { jsonl: await file.text() });
                  return `Imported ${r.pages} pages${r.vectors ? ` with ${r.vectors} embeddings` : ''}${r.skipped ? ` (${r.skipped} lines skipped)` : ''}.`;
                });
            }}
          />
        </label>
      </section>

      <ModelSettings settings={settings} stats={stats} save={save} say={setMessage} />

      <section>
        <h2>Advanced ranking</h2>
        {(
          [
            ['k1', 'BM25 k1 (term saturation)', 0, 3, 0.1],
            ['b', 'BM25 b (length normalisation)', 0, 1, 0.05],
            ['rrfK', 'Fusion k', 1, 200, 1],
            ['lexicalWeight', 'Keyword lane weight', 0, 3, 0.1],
            ['denseWeight', 'Meaning lane weight', 0, 3, 0.1],
          ] as const
        ).map(([key, label, min, max, step]) => (
          <label key={key} class="ranking">
            {label}{' '}
            <input
              type="number"
              min={min}
              max={max}
              step={step}
              data-testid={`ranking-${key}`}
              value={settings.ranking[key]}
              onChange={(e) => void save({ ranking: { ...settings.ranking, [key]: Number((e.target as HTMLInputElement).value) } })}
            />
          </label>
        ))}
      </section>

      <section>
        <h2>Maintenance</h2>
        <button type="button" data-testid="verify" onClick={() => void act('Checking', async () => { const r = await call('verify', {}); setReport(r); return r.ok ? 'The index is consistent.' : `${r.problems.length} problems found.`; })}>
          Check the index
        </button>
        <button type="button" data-testid="repair" onClick={() => void act('Repairing', async () => { const r = await call('verify', { repair: true }); setReport(r); return r.ok ? 'Nothing to repair.' : 'Repaired: the index was rebuilt from the stored sections.'; })}>
          Repair
        </button>
        {report && (
          <pre class="report" data-testid="verify-report">
            {report.ok ? 'OK' : report.problems.join('\n')}
            {`\nchecked ${report.checked.chunks} sections, ${report.checked.terms} terms, ${report.checked.vectors} vectors`}
          </pre>
        )}
      </section>
    </main>
  );
}

const app = document.getElementById('app')!;
app.textContent = '';
render(<Options />, app);
