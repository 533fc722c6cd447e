/**
 * Local `file://` PDFs (Chromium only). Two things must both be on, measured in Chromium 156 here:
 * - the user's "Allow access to file URLs" switch for Reread (chrome://extensions, Details). Chromium
 *   turns it on by default only for an extension loaded from the command line; a store install starts
 *   with it off. While it is off, `permissions.request` for `file:///*` is refused ("Extension must have
 *   file access enabled to request 'file:///*'"), file tabs' URLs stay hidden and fetch/XHR of `file:`
 *   fail;
 * - the optional host permission `file:///*`. With the switch on but without it, the same reads fail too.
 *   Requesting it shows no prompt (Chromium has no warning text for file patterns): one click in Options.
 * With both, a PDF tab's `file:` URL is visible in tabs.onUpdated and the offscreen document's plain
 * fetch() reads the file (XHR works too; fetch is what http PDFs already use, so the read path is one).
 * Firefox has neither: its manifest does not ask for `file:///*` (scripts/manifest.mjs) and
 * `extension.isAllowedFileSchemeAccess()` answers false there, so nothing is ever attempted.
 */
import browser from 'webextension-polyfill';

export const FILE_ORIGINS = ['file:///*'];

export interface FileAccess {
  /** This build can read local files at all (Chromium's: its manifest offers `file:///*`). */
  supported: boolean;
  /** The user's "Allow access to file URLs" switch. */
  switchOn: boolean;
  /** The optional `file:///*` permission. */
  granted: boolean;
}

export function fileAccessSupported(): boolean {
  const m = browser.runtime.getManifest() as { optional_host_permissions?: string[] };
  return (m.optional_host_permissions ?? []).includes(FILE_ORIGINS[0]!);
}

export async function fileAccess(): Promise<FileAccess> {
  if (!fileAccessSupported()) return { supported: false, switchOn: false, granted: false };
  const [switchOn, granted] = await Promise.all([
    browser.extension.isAllowedFileSchemeAccess().catch(() => false),
    browser.permissions.contains({ origins: FILE_ORIGINS }).catch(() => false),
  ]);
  return { supported: true, switchOn, granted: switchOn && granted };
}

/** Both on: local PDFs opened in a tab are read. */
export async function localFilesReadable(): Promise<boolean> {
  const a = await fileAccess();
  return a.switchOn && a.granted;
}
