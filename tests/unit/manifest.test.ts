/**
 * The manifest asks for little and allows nothing remote: minimal permissions, host access no wider
 * than the content scripts' (web pages only), a strict CSP with no remote source, nothing exposed to web pages.
 * Checked on manifest.json and on both generated manifests (scripts/manifest.mjs), so a build step
 * cannot add what the source does not have.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

type Json = Record<string, unknown>;
interface Manifest extends Json {
  manifest_version: number;
  permissions?: string[];
  optional_permissions?: string[];
  host_permissions?: string[];
  optional_host_permissions?: string[];
  content_scripts?: { matches: string[]; exclude_matches?: string[]; js?: string[]; css?: string[]; all_frames?: boolean; match_about_blank?: boolean; match_origin_as_fallback?: boolean; world?: string }[];
  content_security_policy?: { extension_pages?: string; sandbox?: string } | string;
  background?: { service_worker?: string; scripts?: string[]; type?: string };
  browser_specific_settings?: { gecko?: { id?: string; strict_min_version?: string; data_collection_permissions?: { required?: string[] } } };
}
interface ManifestModule {
  chromeManifest(src: Manifest, opts?: { version?: string }): Manifest;
  firefoxManifest(src: Manifest, opts?: { version?: string }): Manifest;
  FIREFOX_ID: string;
}

/** Each permission, and why Reread needs it (keep in step with the README). */
const ALLOWED_PERMISSIONS: Record<string, string> = {
  contextMenus: 'the "Search Reread for …" and "Related pages" menu entries',
  storage: 'the capture gate (pause, excluded sites) mirrored for the content script, checked before anything is read',
  unlimitedStorage: 'the index of everything read can outgrow the default quota',
  activeTab: "the popup's \"never save this site\" reads the current tab's URL when the user opens it",
  alarms: 'the retention policy (age and storage cap) runs twice a day; an MV3 worker cannot keep a timer',
  favicon: "result cards show site icons from the browser's own favicon cache (Chrome only)",
  offscreen: 'the embedding model runs in an offscreen document that outlives service-worker restarts (Chrome only)',
  scripting: 'tabs open before the install (or while capture was paused) get the content script injected once',
  webNavigation: "a page's navigation, as the browser reports it, files the capture of a page left before the stopped worker could record its hello (Chrome only; no install warning next to the host permissions)",
};
const OPTIONAL_PERMISSIONS = ['history'];
/** Permissions that would let Reread read or act on far more than it needs. */
const NEVER = [
  'tabs',
  'history',
  'webRequest',
  'webRequestBlocking',
  'declarativeNetRequest',
  'declarativeNetRequestWithHostAccess',
  'cookies',
  'debugger',
  'downloads',
  'management',
  'nativeMessaging',
  'proxy',
  'privacy',
  'clipboardRead',
  'identity',
  'bookmarks',
  'topSites',
  'sessions',
  'browsingData',
  'geolocation',
  '<all_urls>',
];
const CHROME_ONLY = ['favicon', 'offscreen', 'webNavigation', 'sidePanel', 'tabGroups'];

let source: Manifest;
let mod: ManifestModule;
let chrome: Manifest;
let firefox: Manifest;

beforeAll(async () => {
  source = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as Manifest;
  // A computed specifier: the .mjs has no type declarations, and its shape is declared above.
  mod = (await import(pathToFileURL(join(ROOT, 'scripts/manifest.mjs')).href)) as ManifestModule;
  chrome = mod.chromeManifest(source, { version: '9.8.7' });
  firefox = mod.firefoxManifest(source, { version: '9.8.7' });
});

/** Every string anywhere in a manifest, with its path. */
function strings(v: unknown, path = '$'): [string, string][] {
  if (typeof v === 'string') return [[path, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${path}[${i}]`));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => strings(x, `${path}.${k}`));
  return [];
}

function cspOf(m: Manifest): string {
  const csp = m.content_security_policy;
  return typeof csp === 'string' ? csp : (csp?.extension_pages ?? '');
}

/** CSP directives as name -> sources. */
function directives(csp: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of csp.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), sources);
  }
  return out;
}

const all = () =>
  [
    ['manifest.json', source],
    ['chrome', chrome],
    ['firefox', firefox],
  ] as const;

describe('manifest: permissions', () => {
  it('asks only for the permissions Reread needs, each justified', () => {
    expect([...(source.permissions ?? [])].sort()).toEqual(Object.keys(ALLOWED_PERMISSIONS).sort());
    expect([...(chrome.permissions ?? [])].sort()).toEqual(Object.keys(ALLOWED_PERMISSIONS).sort());
    for (const [, m] of all()) for (const p of m.permissions ?? []) expect(ALLOWED_PERMISSIONS[p], p).toBeTruthy();
  });

  it('justifies every permission, required or optional, in the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Permissions'));
    const justified = new Set([...section.matchAll(/^\| `([A-Za-z]+)`[^|]*\| *\S/gm)].map((m) => m[1]));
    for (const p of [...(source.permissions ?? []), ...(source.optional_permissions ?? [])]) expect(justified.has(p), `${p} in the README's permissions table`).toBe(true);
    for (const o of source.optional_host_permissions ?? []) expect(section, `${o} in the README's permissions table`).toMatch(new RegExp('^\\| `' + o.replace(/[*/.]/g, '\\$&') + '`[^|]*\\| *\\S', 'm'));
  });

  it('asks for history only as an optional permission (when "forget what I delete from history" is turned on)', () => {
    for (const [name, m] of all()) {
      expect(m.optional_permissions ?? [], name).toEqual(OPTIONAL_PERMISSIONS);
      expect(m.permissions ?? [], name).not.toContain('history');
    }
  });

  it('has none of the broad permissions, required or optional', () => {
    for (const [name, m] of all()) {
      for (const p of NEVER) {
        expect(m.permissions ?? [], `${name}: ${p}`).not.toContain(p);
        if (p !== 'history') expect(m.optional_permissions ?? [], `${name}: optional ${p}`).not.toContain(p);
      }
    }
  });

  it("asks for host access no wider than the content scripts' (http and https pages); local files only as an optional permission, in Chromium", () => {
    for (const [name, m] of all()) {
      // Chromium lets `scripting` inject (and shows tab URLs) only with host permissions: content script
      // matches alone do not count. The same two patterns: no new warning, no new reach.
      expect([...(m.host_permissions ?? [])].sort(), name).toEqual(['http://*/*', 'https://*/*']);
      // Local PDFs (background/dayone/fileAccess.ts): asked for in Options, and only grantable while the
      // user's "Allow access to file URLs" switch is on. Firefox cannot read files: it does not ask.
      expect(m.optional_host_permissions, name).toEqual(name === 'firefox' ? undefined : ['file:///*']);
      // An MV3 manifest has no place for hosts among permissions; a pattern there would be a mistake.
      for (const p of [...(m.permissions ?? []), ...(m.optional_permissions ?? [])]) expect(p, name).not.toMatch(/[:/*]/);
    }
  });

  it('uses <all_urls> and wildcard hosts nowhere but in the content script matches and the same host permissions, http and https only', () => {
    for (const [name, m] of all()) {
      for (const [path, s] of strings(m)) {
        if (/^\$\.content_scripts\[\d+\]\.matches\[\d+\]$/.test(path) || /^\$\.host_permissions\[\d+\]$/.test(path)) continue;
        if (path === '$.optional_host_permissions[0]' && s === 'file:///*') continue;
        expect(s, `${name} ${path}`).not.toContain('<all_urls>');
        expect(s, `${name} ${path}`).not.toMatch(/^(\*|https?|wss?|file|ftp):\/\//);
      }
      // The tiny outbox hello at document_start (content/early.ts), then the capture script when idle.
      expect(m.content_scripts?.map((cs) => cs.js), name).toEqual([['early.js'], ['content.js']]);
      for (const cs of m.content_scripts ?? []) {
        expect([...cs.matches].sort(), name).toEqual(['http://*/*', 'https://*/*']);
        // Top frames only, never about:blank/srcdoc/data frames, never the page's own world.
        expect(cs.all_frames ?? false, name).toBe(false);
        expect(cs.match_about_blank ?? false, name).toBe(false);
        expect(cs.match_origin_as_fallback ?? false, name).toBe(false);
        expect(cs.world ?? 'ISOLATED', name).toBe('ISOLATED');
        expect(['early.js', 'content.js'], name).toContain(cs.js?.[0]);
        expect(cs.css, name).toBeUndefined();
      }
    }
  });
});

describe('manifest: what web pages and other extensions can reach', () => {
  it('has no externally_connectable: no web page or other extension can message Reread', () => {
    for (const [name, m] of all()) expect(m.externally_connectable, name).toBeUndefined();
  });

  it('has no web_accessible_resources: pages cannot load (or probe for) its files', () => {
    for (const [name, m] of all()) expect(m.web_accessible_resources, name).toBeUndefined();
  });

  it('has no update_url, oauth2, network rules or page overrides; the Firefox build has no key', () => {
    for (const [name, m] of all()) {
      expect(m.update_url, name).toBeUndefined();
      expect(m.oauth2, name).toBeUndefined();
      expect(m.declarative_net_request, name).toBeUndefined();
      expect(m.chrome_url_overrides, name).toBeUndefined();
      expect(m.devtools_page, name).toBeUndefined();
    }
    expect(firefox.key).toBeUndefined();
  });

  it('names no remote URL anywhere (nothing loaded or linked from the network)', () => {
    for (const [name, m] of all()) {
      for (const [path, s] of strings(m)) expect(s, `${name} ${path}`).not.toMatch(/\b(?:https?|wss?|ftp):\/\/(?!\*\/)/i);
    }
  });
});

describe('manifest: content security policy', () => {
  it('is set explicitly, for extension pages, as a manifest v3 object', () => {
    for (const [name, m] of all()) {
      expect(m.manifest_version, name).toBe(3);
      expect(typeof m.content_security_policy, name).toBe('object');
      expect(cspOf(m), name).not.toBe('');
    }
  });

  it("runs scripts from the extension only: script-src 'self' (plus 'wasm-unsafe-eval' for the ONNX runtime)", () => {
    for (const [name, m] of all()) {
      const d = directives(cspOf(m));
      expect(d.get('script-src'), name).toEqual(["'self'", "'wasm-unsafe-eval'"]);
      expect(d.get('object-src'), name).toEqual(["'self'"]);
    }
  });

  it("has no 'unsafe-eval', 'unsafe-inline', wildcard, data:, blob: or remote source in any directive", () => {
    for (const [name, m] of all()) {
      const csp = cspOf(m);
      expect(csp, name).not.toMatch(/'unsafe-eval'/);
      expect(csp, name).not.toMatch(/'unsafe-inline'/);
      expect(csp, name).not.toMatch(/'unsafe-hashes'/);
      for (const [directive, sources] of directives(csp)) {
        for (const src of sources) {
          expect(src, `${name} ${directive}`).toMatch(/^'(?:self|none|wasm-unsafe-eval)'$/);
        }
      }
      const sandbox = typeof m.content_security_policy === 'object' ? m.content_security_policy.sandbox : undefined;
      expect(sandbox, name).toBeUndefined();
    }
  });
});

describe('manifest: the two builds', () => {
  it('Chrome: the source as it is, with the package version, and a module service worker', () => {
    expect(chrome).toEqual({ ...source, version: '9.8.7' });
    expect(chrome.background).toEqual({ service_worker: 'background.js', type: 'module' });
    // The source is not modified by building.
    expect(source.version).not.toBe('9.8.7');
  });

  it('Firefox: background.scripts, a gecko id, no Chrome-only permission, nothing else changed', () => {
    expect(firefox.background).toEqual({ scripts: ['background.js'], type: 'module' });
    expect(firefox.background?.service_worker).toBeUndefined();
    const gecko = firefox.browser_specific_settings?.gecko;
    expect(gecko?.id).toBe(mod.FIREFOX_ID);
    expect(gecko?.id).toMatch(/^[a-z0-9._-]+@[a-z0-9.-]+$/i);
    // Firefox's data collection declaration: Reread collects nothing.
    expect(gecko?.data_collection_permissions?.required).toEqual(['none']);
    for (const p of CHROME_ONLY) expect(firefox.permissions ?? [], p).not.toContain(p);
    expect([...(firefox.permissions ?? [])].sort()).toEqual(Object.keys(ALLOWED_PERMISSIONS).filter((p) => !CHROME_ONLY.includes(p)).sort());
    // Everything else is the source's.
    const { background: _b, browser_specific_settings: _s, permissions: _p, version: _v, ...rest } = firefox;
    // …but for local files, which Firefox never lets an extension read.
    const { background: _sb, permissions: _sp, version: _sv, key: _k, optional_host_permissions: _oh, ...sourceRest } = source;
    expect(rest).toEqual(sourceRest);
  });

  it('drops a Chrome-only permission (offscreen) if the source ever adds one', () => {
    const withOffscreen = { ...source, permissions: [...(source.permissions ?? []), 'offscreen'] };
    expect(mod.firefoxManifest(withOffscreen).permissions).not.toContain('offscreen');
  });
});
