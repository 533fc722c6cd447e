/** The toolbar popup: the search box, plus "exclude this site" for the current tab. */
import { useEffect, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import { siteOf } from '../../src/url.js';
import { call } from '../api.js';
import { SearchView } from './SearchView.js';
import { DayOneCard } from './DayOneCard.js';

export function Popup() {
  const [site, setSite] = useState<string | null>(null);
  const [excluded, setExcluded] = useState(false);
  useEffect(() => {
    // activeTab: the popup may read the URL of the tab it was opened on.
    browser.tabs
      .query({ active: true, currentWindow: true })
      .then(([tab]) => setSite(tab?.url && /^https?:/.test(tab.url) ? siteOf(tab.url) : null))
      .catch(() => setSite(null));
  }, []);
  const exclude = async () => {
    if (!site) return;
    const s = await call('settings/get', {});
    await call('settings/set', { excludedSites: [...s.excludedSites, site] });
    await call('delete/site', { site });
    setExcluded(true);
  };
  return (
    <div class="popup">
      <DayOneCard where="popup" />
      <SearchView mode="popup" initialQuery="" />
      <footer class="popup__footer">
        <a href="search.html" target="_blank" data-testid="open-full">
          Full page
        </a>
        {site && (
          <button type="button" class="link" data-testid="exclude-site" disabled={excluded} onClick={() => void exclude()}>
            {excluded ? `${site} excluded` : `Never save ${site}`}
          </button>
        )}
        <a href="options.html" target="_blank">
          Options
        </a>
      </footer>
    </div>
  );
}
