/**
 * Options: search by meaning. The lane on/off, the model (size, downloaded or not, removal), download
 * progress, the re-embedding backlog after a switch, errors in words, and the model mirror (advanced).
 */
import { useEffect, useState } from 'preact/hooks';
import { MODELS, modelInfo, type ModelDownload } from '../../src/models.js';
import type { ModelStatusResponse, Stats } from '../../src/protocol.js';
import { DEFAULT_MODEL_MIRROR, normalizeModelMirror, type Settings } from '../../src/settings.js';
import { call } from '../api.js';
import { formatBytes } from '../format.js';
import { ConfirmDialog } from './ConfirmDialog.js';

interface Props {
  settings: Settings;
  stats: Stats | null;
  save: (patch: Partial<Settings>) => Promise<unknown>;
  say: (message: string) => void;
}

export function downloadText(d: ModelDownload): string {
  const name = modelInfo(d.model)?.label.replace(/\s*\(.*\)$/, '') ?? d.model;
  return d.total > 0 ? `Downloading ${name}: ${formatBytes(d.loaded)} of ${formatBytes(d.total)} (${d.percent}%)` : `Downloading ${name}…`;
}

export function ModelSettings({ settings, stats, save, say }: Props) {
  const [status, setStatus] = useState<ModelStatusResponse | null>(null);
  const [mirror, setMirror] = useState(settings.modelMirror);
  /** The model whose removal is being confirmed (its files would have to be downloaded again). */
  const [removing, setRemoving] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const poll = () =>
      call('model/status', {})
        .then((s) => live && setStatus(s))
        .catch(() => undefined);
    void poll();
    const t = setInterval(poll, 1000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, []);
  useEffect(() => setMirror(settings.modelMirror), [settings.modelMirror]);

  // The model status is polled every second (the page's counters every two): the backlog stays current.
  const pending = status?.pending ?? stats?.pendingEmbeddings ?? 0;
  const total = status?.chunks ?? stats?.chunks ?? 0;
  const active = modelInfo(settings.model);
  const remove = async (id: string) => {
    const label = modelInfo(id)?.label ?? id;
    say(`Removing ${label}…`);
    try {
      const r = await call('model/remove', { model: id });
      say(`Removed ${label} (${r.files} files). Search by meaning now uses ${modelInfo(r.model)?.label ?? r.model}.`);
      setStatus(await call('model/status', {}));
      // Its "remove" button is gone: focus goes to the model's own choice, not to the page.
      (document.querySelector(`[data-model="${id.replace(/["\\]/g, '\\$&')}"] input`) as HTMLElement | null)?.focus();
    } catch (e) {
      say(`Could not remove ${label}: ${(e as Error).message}`);
    }
  };

  return (
    <section data-testid="model-settings" aria-labelledby="h-meaning">
      <h2 id="h-meaning">Search by meaning</h2>
      <label class="check">
        <input type="checkbox" data-testid="dense-enabled" checked={settings.denseEnabled} onChange={(e) => void save({ denseEnabled: (e.target as HTMLInputElement).checked })} /> Use search by meaning (turn off on slow
        machines: keyword search keeps working)
      </label>
      <fieldset data-testid="models">
        <legend>Model</legend>
        {MODELS.map((m) => {
          const downloaded = status?.cached.includes(m.id) ?? false;
          return (
            <div key={m.id} class="model" data-model={m.id}>
              <label>
                <input type="radio" name="model" value={m.id} checked={settings.model === m.id} onChange={() => void save({ model: m.id, ...(m.bundled ? {} : { allowModelDownload: true }) })} /> {m.label}
                {/* The label already says the download size. */}
                {m.bundled ? ' — comes with Reread' : downloaded ? ' — downloaded, works offline' : ` — downloaded once from ${new URL(settings.modelMirror).host}`}
                {!m.calibrated && <span data-testid="model-uncalibrated"> — not yet calibrated</span>}
              </label>
              {downloaded && (
                <button type="button" class="link" data-testid="model-remove" aria-label={`Remove ${m.label}`} onClick={() => setRemoving(m.id)}>
                  remove
                </button>
              )}
            </div>
          );
        })}
      </fieldset>
      {MODELS.some((m) => !m.calibrated) && (
        <p class="hint" data-testid="calibration-hint">
          “Not yet calibrated”: Reread has not measured that model on its test collections, so how much its matches count against word
          matches is a plain default. It may rank results less well than the built-in model.
        </p>
      )}
      {status?.download && (
        <p data-testid="model-download">
          <progress max={100} value={status.download.percent} /> {downloadText(status.download)}
        </p>
      )}
      {settings.denseEnabled && pending > 0 && (
        <p data-testid="embed-progress">
          Reading sections for search by meaning with {active?.label.replace(/\s*\(.*\)$/, '') ?? settings.model}: {pending} of {Math.max(total, pending)} left ({total > 0 ? Math.max(0, Math.floor(((total - pending) / total) * 100)) : 0}% done). Keyword
          search works meanwhile.
        </p>
      )}
      {status?.error && (
        <p class="warn" data-testid="model-error">
          Search by meaning is paused: {status.error}
        </p>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${modelInfo(removing)?.label.replace(/\s*\(.*\)$/, '') ?? removing}?`}
          confirmLabel="Remove"
          testId="confirm-model"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const id = removing;
            setRemoving(null);
            void remove(id);
          }}
        >
          <p>
            Its files ({modelInfo(removing)?.sizeMb ?? '?'} MB) and what it computed for your pages are deleted. Your pages stay; search by meaning
            uses the built-in model until you download this one again.
          </p>
        </ConfirmDialog>
      )}
      <details>
        <summary>Advanced: model mirror</summary>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const v = normalizeModelMirror(mirror);
            if (!v) return say('A model mirror must be an https:// address (or http:// on this computer: 127.0.0.1 or localhost).');
            void save({ modelMirror: v });
          }}
        >
          <label for="model-mirror">Download models from</label>{' '}
          <input id="model-mirror" data-testid="model-mirror" size={40} value={mirror} onInput={(e) => setMirror((e.target as HTMLInputElement).value)} />{' '}
          <button type="submit" data-testid="model-mirror-save">
            Save
          </button>{' '}
          <button type="button" class="link" onClick={() => void save({ modelMirror: DEFAULT_MODEL_MIRROR })}>
            reset to Hugging Face
          </button>
        </form>
        <p class="hint">Same address layout as the Hugging Face hub (&lt;mirror&gt;/&lt;model&gt;/resolve/main/&lt;file&gt;).</p>
      </details>
    </section>
  );
}
