/**
 * Options: PDFs opened from the user's own disk (`file://`). Chromium reads them only while the user's
 * "Allow access to file URLs" switch is on and `file:///*` is granted (background/dayone/fileAccess.ts);
 * this says which step is missing and takes the one a page can take (the permission: no prompt, one
 * click). The switch itself lives in the browser's extension settings, which only the user can change:
 * turning it on restarts Reread, so the page asks to come back. Firefox cannot read files at all.
 */
import { useEffect, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import { FILE_ORIGINS, fileAccess, type FileAccess } from '../../background/dayone/fileAccess.js';

type State = 'unsupported' | 'off' | 'ask' | 'on';

function stateOf(a: FileAccess): State {
  if (!a.supported) return 'unsupported';
  if (!a.switchOn) return 'off';
  return a.granted ? 'on' : 'ask';
}

export function LocalPdfs() {
  const [state, setState] = useState<State | null>(null);
  const [error, setError] = useState('');
  const reload = () => void fileAccess().then((a) => setState(stateOf(a)), () => setState('unsupported'));
  useEffect(() => {
    reload();
    const changed = () => reload();
    browser.permissions.onAdded.addListener(changed);
    browser.permissions.onRemoved.addListener(changed);
    window.addEventListener('focus', changed);
    return () => {
      browser.permissions.onAdded.removeListener(changed);
      browser.permissions.onRemoved.removeListener(changed);
      window.removeEventListener('focus', changed);
    };
  }, []);
  if (!state) return null;
  const grant = async () => {
    setError('');
    try {
      // The request must come straight from the click (a user gesture): nothing awaited before it.
      const ok = await browser.permissions.request({ origins: FILE_ORIGINS });
      if (!ok) setError('The browser did not allow it.');
    } catch (e) {
      setError((e as Error).message);
    }
    reload();
  };
  const revoke = async () => {
    setError('');
    await browser.permissions.remove({ origins: FILE_ORIGINS }).catch((e: Error) => setError(e.message));
    reload();
  };
  const openSettings = () => void browser.tabs.create({ url: `chrome://extensions/?id=${browser.runtime.id}` }).catch((e: Error) => setError(`Open chrome://extensions in the address bar (${e.message}).`));
  return (
    <div data-testid="local-pdfs" data-state={state}>
      <h3 id="h-local-pdfs">PDFs on your computer</h3>
      {state === 'unsupported' && <p>PDFs you open from your computer (file:// addresses) are not saved: Firefox does not let extensions read local files.</p>}
      {state === 'off' && (
        <>
          <p>
            PDFs you open from your computer (file:// addresses) are not saved. To save them, turn on <strong>Allow access to file URLs</strong> for Reread in the
            browser’s extension settings (Details), then come back here: the browser restarts Reread when the switch changes, and this page closes.
          </p>
          <div class="dayone__row">
            <button type="button" data-testid="local-pdfs-settings" onClick={openSettings}>
              Open Reread’s extension settings
            </button>
          </div>
        </>
      )}
      {state === 'ask' && (
        <>
          <p>File access is on. Save the PDFs you open from your computer too? They are read on this computer like any other PDF, and kept under the site “Local files”.</p>
          <div class="dayone__row">
            <button type="button" data-testid="local-pdfs-grant" onClick={() => void grant()}>
              Save local PDFs
            </button>
          </div>
        </>
      )}
      {state === 'on' && (
        <>
          <p>
            PDFs you open from your computer are saved, under the site “Local files”. Results show their title or file name, and the folder only when you point at one,
            with your home folder written ~.
          </p>
          <div class="dayone__row">
            <button type="button" data-testid="local-pdfs-revoke" onClick={() => void revoke()}>
              Stop saving local PDFs
            </button>
            <span class="dayone__note">Those already saved stay until you forget the site “Local files”.</span>
          </div>
        </>
      )}
      {error && (
        <p role="alert" class="dayone__warn">
          {error}
        </p>
      )}
    </div>
  );
}
