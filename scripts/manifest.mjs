/**
 * One manifest source (manifest.json); the Firefox differences are applied here, not kept by hand.
 */
const CHROME_ONLY_PERMISSIONS = new Set(['favicon', 'offscreen', 'webNavigation']);

export const FIREFOX_ID = 'reread@reread.invalid';

export function chromeManifest(src, { version } = {}) {
  const m = structuredClone(src);
  if (version) m.version = version;
  return m;
}

export function firefoxManifest(src, { version } = {}) {
  const m = structuredClone(src);
  if (version) m.version = version;
  delete m.key;
  m.background = { scripts: ['background.js'], type: 'module' };
  m.permissions = (m.permissions ?? []).filter((p) => !CHROME_ONLY_PERMISSIONS.has(p));
  // Firefox never lets an extension read file:// (README, "Local PDFs"): it does not ask.
  const hosts = (m.optional_host_permissions ?? []).filter((p) => !p.startsWith('file:'));
  if (hosts.length) m.optional_host_permissions = hosts;
  else delete m.optional_host_permissions;
  m.browser_specific_settings = {
    gecko: { id: FIREFOX_ID, strict_min_version: '142.0', data_collection_permissions: { required: ['none'] } },
  };
  return m;
}
