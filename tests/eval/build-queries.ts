/**
 * `npm run eval:queries`: the automatic query classes, drawn from the HTML's ground truth with a fixed
 * seed per corpus and class, written to tests/eval/queries/<corpus>.auto.json. Run again, it writes the
 * same files (the pages and this code unchanged).
 *
 *   npm run eval:queries                          # every corpus
 *   npm run eval:queries -- --corpus git          # one
 *   npm run eval:queries -- --sample devref --n 20   # print the sections sampled for the hand-written
 *                                                    # classes (natural, topical), with their keys
 *
 * Procedure (tests/eval/README.md, "Query sets"):
 * - span: a section drawn uniformly among those with a paragraph (<p>) of 8+ words (20+ characters in
 *   CJK), a paragraph of it drawn uniformly, a start drawn uniformly; 5 consecutive words with their
 *   edge punctuation stripped, none over 30 characters (10 consecutive letters, 6+ of them CJK, no space or punctuation, for
 *   Japanese and Chinese). Kept only if those words occur in exactly one page of the corpus, once
 *   (compared with punctuation and case folded); else drawn again. Stratified by language.
 * - typo: each span with a word of 6+ letters (not CJK) again, with one edit in one such word drawn
 *   uniformly: a letter deleted, inserted, replaced or two neighbours swapped (never the first letter).
 * - heading: a section drawn uniformly among those whose heading, numbering ("7.1.", "Chapter 7.",
 *   "第10章") and a permalink mark at either end ("#", "¶", "§", "🔗") dropped, is no other section's heading
 *   in the corpus. Stratified by language.
 * - identifier: a name drawn uniformly among those defined in a <dt> on at most two pages: Sphinx
 *   signatures (`dt.sig[id]`, the id: `os.path.join`, C names without Sphinx's `c.`; CMake's domain,
 *   `dt.sig.cmake[id="variable:…"]`: the term as written, `FetchContent_Declare`), long options (`--ignore-missing`) and config keys
 *   (`core.autocrlf`) of AsciiDoc definition lists (`dt.hdlist1`); and a heading that is one name whose anchor is
 *   that name with its parameter list in brackets (Javadoc's methods: `id="setBasedir(java.io.File)"` over
 *   `<h3>setBasedir</h3>`); gtk-doc's functions (`<a name="g-strdup"></a><h3>g_strdup ()</h3>`); rustdoc's methods as `Type::method` (the `fn` signature headings of a
 *   struct's, trait's or enum's page before its trait implementations); RDoc's methods as `Array#each_slice`, `File.open` (Darkfish's
 *   `div.method-detail` ids `method-i-each_slice`, `method-c-open`; names, not operators; an alias's section a target too). Each defining page is grade 2; every
 *   section of it that defines the name is a target.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { loadCorpus, type CapturedPage } from './lib/capture.js';
import { checkInstalled, CORPORA, corpus, type CorpusDef } from './lib/corpora.js';
import type { GtSection } from './lib/groundTruth.js';
import { queryFile, type EvalQuery, type QueryFile } from './lib/queries.js';
import { randInt, rng, shuffled, type Rng } from './lib/rng.js';

export const COUNTS = { span: 80, heading: 50, identifier: 50 };
const VERSION = 'v1';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_G = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const isCjkLang = (lang: string) => /^(ja|zh)/.test(lang);

export const norm = (s: string): string =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .trim();

/** Strips a heading's numbering: "7.1. What is…", "Chapter 7. Basics…", "Chapter 63 - Concept Index", "第10章 Debian…", "5.5.1. Special…", "25 Zftp…". */
export function stripNumbering(h: string): string {
  return h
    .replace(/^(?:chapter|kapitel|chapitre|appendix|anhang|annexe)\s+[\dA-Z]+(?:\.|\s+[-–—:])?\s+/i, '')
    .replace(/^第\s*[\d０-９]+\s*章\s*/, '')
    .replace(/^付録\s*[A-Z]\.?\s*/, '')
    .replace(/^(?:[\dA-Z]|\d+)(?:\.\d+)*\.\s+/, '')
    .replace(/^\d+(?:\.\d+)+\s+/, '')
    // texi2any numbers a chapter without a dot: "25 Zftp Function System".
    .replace(/^\d+\s+(?=\p{Lu})/u, '')
    .trim();
}

interface SectionAt {
  page: CapturedPage;
  section: GtSection;
}

/** The language a query drawn from the page is in: the page's (as captured), or the corpus's layout's when its pages misdeclare it. */
const langOf = (c: CorpusDef, page: CapturedPage): string => (c.langByFile ? c.lang(page.file) : page.lang);

function byLanguage<T>(items: readonly T[], langOf: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const l = langOf(it);
    if (!m.has(l)) m.set(l, []);
    m.get(l)!.push(it);
  }
  return new Map([...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

/** n split over languages as evenly as possible (first languages take the remainder). */
function quota(n: number, langs: readonly string[]): Map<string, number> {
  return new Map(langs.map((l, i) => [l, Math.floor(n / langs.length) + (i < n % langs.length ? 1 : 0)]));
}

class Uniqueness {
  private readonly texts: string[];
  constructor(pages: readonly CapturedPage[]) {
    this.texts = pages.map((p) => ` ${norm(p.gt.text)} `);
  }
  /** Pages and total occurrences of the normalised phrase. */
  count(phrase: string, cjk: boolean): { pages: number; total: number } {
    const needle = cjk ? norm(phrase) : ` ${norm(phrase)} `;
    let pages = 0;
    let total = 0;
    for (const t of this.texts) {
      let n = 0;
      for (let i = t.indexOf(needle); i >= 0; i = t.indexOf(needle, i + 1)) n++;
      if (n) pages++;
      total += n;
    }
    return { pages, total };
  }
}

const LETTERS = /^\p{L}+$/u;

function latinSpan(r: Rng, para: string): string | null {
  const words = para
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean);
  if (words.length < 5) return null;
  const start = randInt(r, words.length - 4);
  const span = words.slice(start, start + 5);
  if (span.filter((w) => /\p{L}{3,}/u.test(w)).length < 3 || span.some((w) => w.length > 30)) return null;
  return span.join(' ');
}

function cjkSpan(r: Rng, para: string): string | null {
  const chars = [...para];
  if (chars.length < 10) return null;
  const start = randInt(r, chars.length - 9);
  const span = chars.slice(start, start + 10);
  if (!span.every((c) => /[\p{L}\p{N}]/u.test(c))) return null;
  if (span.filter((c) => CJK.test(c)).length < 6) return null;
  return span.join('');
}

function paragraphOk(p: string, cjk: boolean): boolean {
  return cjk ? (p.match(CJK_G)?.length ?? 0) >= 20 : p.split(/\s+/).length >= 8;
}

export function typo(r: Rng, q: string): string | null {
  const words = q.split(' ');
  const eligible = words.flatMap((w, i) => (LETTERS.test(w) && [...w].length >= 6 && !CJK.test(w) ? [i] : []));
  if (!eligible.length) return null;
  const wi = eligible[randInt(r, eligible.length)]!;
  const w = [...words[wi]!];
  const ascii = /^[A-Za-z]+$/.test(words[wi]!);
  const letter = (not?: string) => {
    for (;;) {
      const c = ascii ? 'abcdefghijklmnopqrstuvwxyz'[randInt(r, 26)]! : w[randInt(r, w.length)]!.toLowerCase();
      if (c !== not?.toLowerCase()) return c;
    }
  };
  const kind = ['delete', 'insert', 'replace', 'swap'][randInt(r, 4)]!;
  if (kind === 'delete') w.splice(1 + randInt(r, w.length - 1), 1);
  else if (kind === 'insert') w.splice(1 + randInt(r, w.length), 0, letter());
  else if (kind === 'replace') {
    const i = 1 + randInt(r, w.length - 1);
    w[i] = letter(w[i]);
  } else {
    const cands = [...Array(w.length - 2).keys()].map((i) => i + 1).filter((i) => w[i]!.toLowerCase() !== w[i + 1]!.toLowerCase());
    if (!cands.length) return null;
    const i = cands[randInt(r, cands.length)]!;
    [w[i], w[i + 1]] = [w[i + 1]!, w[i]!];
  }
  words[wi] = w.join('');
  return words.join(' ');
}

const pad = (n: number) => String(n).padStart(3, '0');

function spans(c: CorpusDef, pages: readonly CapturedPage[], uniq: Uniqueness): EvalQuery[] {
  const all: SectionAt[] = pages.flatMap((page) => page.gt.sections.map((section) => ({ page, section })));
  const out: EvalQuery[] = [];
  const langs = byLanguage(all, (s) => langOf(c, s.page));
  const want = quota(COUNTS.span, [...langs.keys()]);
  for (const [lang, secs] of langs) {
    const r = rng(`${c.name}/span/${lang}/${VERSION}`);
    const cjk = isCjkLang(lang);
    const eligible = secs.filter((s) => s.section.paragraphs.some((p) => paragraphOk(p, cjk)));
    const used = new Set<string>();
    let tries = 0;
    let n = 0;
    while (n < want.get(lang)! && tries < 5000 && eligible.length) {
      tries++;
      const s = eligible[randInt(r, eligible.length)]!;
      const paras = s.section.paragraphs.filter((p) => paragraphOk(p, cjk));
      const para = paras[randInt(r, paras.length)]!;
      const span = cjk ? cjkSpan(r, para) : latinSpan(r, para);
      if (!span || used.has(norm(span))) continue;
      const u = uniq.count(span, cjk);
      if (u.pages !== 1 || u.total !== 1) continue;
      used.add(norm(span));
      n++;
      out.push({
        id: '',
        class: 'span',
        q: span,
        lang,
        relevant: { [s.page.file]: 2 },
        sections: [{ file: s.page.file, key: s.section.key }],
        source: `${s.page.file} § ${s.section.heading}`,
      });
    }
  }
  out.forEach((q, i) => (q.id = `${c.name}-span-${pad(i + 1)}`));
  return out;
}

function typos(c: CorpusDef, spanQs: readonly EvalQuery[]): EvalQuery[] {
  const r = rng(`${c.name}/typo/${VERSION}`);
  const out: EvalQuery[] = [];
  for (const s of spanQs) {
    if (isCjkLang(s.lang)) continue;
    const t = typo(r, s.q);
    if (!t || t === s.q) continue;
    out.push({ ...s, id: s.id.replace('-span-', '-typo-'), class: 'typo', q: t, of: s.id });
  }
  return out;
}

function headings(c: CorpusDef, pages: readonly CapturedPage[]): EvalQuery[] {
  const all: SectionAt[] = pages.flatMap((page) => page.gt.sections.map((section) => ({ page, section })));
  const counts = new Map<string, number>();
  for (const s of all) {
    const k = norm(stripNumbering(s.section.heading));
    if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const eligible = all.filter((s) => {
    const h = stripNumbering(s.section.heading);
    return counts.get(norm(h)) === 1 && [...h].length >= 3 && /\p{L}/u.test(h);
  });
  const out: EvalQuery[] = [];
  const langs = byLanguage(eligible, (s) => langOf(c, s.page));
  const want = quota(COUNTS.heading, [...langs.keys()]);
  for (const [lang, secs] of langs) {
    const r = rng(`${c.name}/heading/${lang}/${VERSION}`);
    for (const s of shuffled(r, secs).slice(0, want.get(lang)!)) {
      out.push({
        id: '',
        class: 'heading',
        q: stripNumbering(s.section.heading),
        lang,
        relevant: { [s.page.file]: 2 },
        sections: [{ file: s.page.file, key: s.section.key }],
        source: `${s.page.file} § ${s.section.heading}`,
      });
    }
  }
  out.forEach((q, i) => (q.id = `${c.name}-heading-${pad(i + 1)}`));
  return out;
}

const SPHINX_NAME = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;
const LONG_OPTION = /^--[a-z0-9][a-z0-9-]*[a-z0-9]/;
const CONFIG_KEY = /^[a-z][a-zA-Z0-9]*(?:\.[a-zA-Z][a-zA-Z0-9-]*)+$/;

/** The names a definition term defines. */
export function definedNames(d: { term: string; id?: string; cls: string }): string[] {
  if (/\bsig\b/.test(d.cls) && /\bcmake\b/.test(d.cls)) {
    // CMake's own domain: ids are "<kind>:<name>" with commands lower-cased (`command:fetchcontent_declare`),
    // so the name is the term as the page writes it (`FetchContent_Declare`, `CPACK_RPM_PACKAGE_SUMMARY`);
    // generator expressions (`$<IF:condition,...>`) are templates, not names, and are left out.
    if (!d.id || !/^[a-z]+:/.test(d.id) || !SPHINX_NAME.test(d.term)) return [];
    return [d.term];
  }
  if (/\bsig\b/.test(d.cls)) {
    if (!d.id || !SPHINX_NAME.test(d.id) || /^index-\d+$/.test(d.id)) return [];
    // C-domain ids carry a `c.` prefix (`c.Py_Initialize`) that nobody types.
    return [/\bc\b/.test(d.cls) ? d.id.replace(/^c\./, '') : d.id];
  }
  if (!/\bhdlist1\b/.test(d.cls)) return [];
  const out: string[] = [];
  for (const part of d.term.split(/,\s*|\s+/)) {
    const opt = LONG_OPTION.exec(part);
    if (opt && !part.includes('[')) out.push(opt[0]);
    else if (CONFIG_KEY.test(part)) out.push(part);
  }
  return out;
}

const NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * The name a section's heading defines when its anchor is a call signature: the heading is one name and
 * the section's first id is that name followed by its parameter list in brackets (Javadoc's member details,
 * `<section class="detail" id="setBasedir(java.io.File)"><h3>setBasedir</h3>`; overloads repeat the name).
 */
export function signatureName(s: { heading: string; headingIds: readonly string[] }): string | null {
  const id = s.headingIds[0];
  if (!id || !NAME.test(s.heading)) return null;
  return id.startsWith(`${s.heading}(`) && id.endsWith(')') ? s.heading : null;
}

const RUSTDOC_ITEM = /(?:^|\/)(?:struct|trait|enum|union)\.([A-Za-z_]\w*)\.html$/;
const RUSTDOC_FN = /^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_]\w*)\b/;
const RUSTDOC_IMPLS_END = /^(?:Trait Implementations|Auto Trait Implementations|Blanket Implementations|Implementors|Implementations on Foreign Types)$/;

/**
 * rustdoc's methods as a Rust programmer writes them, `File::open`: on a struct's, trait's or enum's page
 * (`struct.File.html`), each `<h4>` signature `pub fn open<P: AsRef<Path>>(…)` of the type's own methods
 * (a trait's required and provided ones), the page's sections up to its trait implementations (whose methods
 * are the traits' own, defined on their pages).
 */
export function rustdocMethods(file: string, sections: readonly { heading: string; key: string }[]): { name: string; key: string }[] {
  const item = RUSTDOC_ITEM.exec(file)?.[1];
  if (!item) return [];
  const out: { name: string; key: string }[] = [];
  for (const s of sections) {
    if (RUSTDOC_IMPLS_END.test(s.heading.trim())) break;
    const fn = RUSTDOC_FN.exec(s.heading.trim())?.[1];
    if (fn) out.push({ name: `${item}::${fn}`, key: s.key });
  }
  return out;
}

const GTKDOC_FN = /^([A-Za-z_]\w*) \(\)$/;

/**
 * gtk-doc's functions: a heading `g_strdup ()` whose anchor is the name with dashes for underscores
 * (`<a name="g-strdup"></a><h3>g_strdup ()</h3>`).
 */
export function gtkdocName(s: { heading: string; headingIds: readonly string[] }): string | null {
  const name = GTKDOC_FN.exec(s.heading.trim())?.[1];
  return name && s.headingIds[0] === name.replace(/_/g, '-') ? name : null;
}

const RDOC_METHOD = /^method-([ic])-(.+)$/;
const RUBY_METHOD_NAME = /^[A-Za-z_]\w*[?!=]?$/;
const RDOC_ALIASES = /(?:Alias for|Also aliased as): ([\w?!=, ]+)$/;

/** A Darkfish method id's name: RDoc's aref escapes it as a URL with `-` for `%` (`empty-3F` is `empty?`). */
function rdocName(escaped: string): string | null {
  try {
    return decodeURIComponent(escaped.replace(/-([0-9A-F]{2})/g, '%$1'));
  } catch {
    return null;
  }
}

/**
 * RDoc's methods as a Ruby programmer writes them, `Array#each_slice` and `File.open`: on a class's or module's
 * page (`File/Stat.html` is `File::Stat`), each section whose key is a Darkfish method id (`method-i-each_slice`,
 * `method-c-open`); names only (`empty?`, `[]=` left out with the other operators). A method's aliases repeat
 * its description in sections of their own ("Alias for: collect", "Also aliased as: map"): those are its
 * sections too.
 */
export function rdocMethods(file: string, sections: readonly { key: string; text: string }[]): { name: string; keys: string[] }[] {
  const cls = file.replace(/\.html$/, '').split('/').join('::');
  const named = sections.flatMap((s) => {
    const m = RDOC_METHOD.exec(s.key);
    const name = m ? rdocName(m[2]!) : null;
    return m && name && RUBY_METHOD_NAME.test(name) ? [{ kind: m[1]!, name, key: s.key, aliases: RDOC_ALIASES.exec(s.text)?.[1]!.split(/,\s*/) ?? [] }] : [];
  });
  return named.map((x) => ({
    name: `${cls}${x.kind === 'i' ? '#' : '.'}${x.name}`,
    keys: [x.key, ...named.filter((y) => y !== x && y.kind === x.kind && x.aliases.includes(y.name)).map((y) => y.key)],
  }));
}

function identifiers(c: CorpusDef, pages: readonly CapturedPage[]): EvalQuery[] {
  // name -> defining page -> the sections of that page that define it (in order).
  const defs = new Map<string, Map<string, { file: string; keys: string[]; lang: string }>>();
  const define = (name: string, page: CapturedPage, key: string) => {
    if (!defs.has(name)) defs.set(name, new Map());
    const m = defs.get(name)!;
    if (!m.has(page.file)) m.set(page.file, { file: page.file, keys: [], lang: langOf(c, page) });
    const keys = m.get(page.file)!.keys;
    if (!keys.includes(key)) keys.push(key);
  };
  for (const page of pages) {
    for (const s of page.gt.sections) {
      for (const d of s.definitions) for (const name of definedNames(d)) define(name, page, s.key);
      const sig = signatureName(s) ?? gtkdocName(s);
      if (sig) define(sig, page, s.key);
    }
    for (const m of rustdocMethods(page.file, page.gt.sections)) define(m.name, page, m.key);
    for (const m of rdocMethods(page.file, page.gt.sections)) for (const key of m.keys) define(m.name, page, key);
  }
  const eligible = [...defs].filter(([, m]) => m.size <= 2).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const r = rng(`${c.name}/identifier/${VERSION}`);
  return shuffled(r, eligible)
    .slice(0, COUNTS.identifier)
    .map(([name, m], i) => ({
      id: `${c.name}-ident-${pad(i + 1)}`,
      class: 'identifier' as const,
      q: name,
      lang: [...m.values()][0]!.lang,
      relevant: Object.fromEntries([...m.keys()].map((f) => [f, 2])),
      sections: [...m.values()].flatMap((v) => v.keys.map((key) => ({ file: v.file, key }))),
      source: [...m.keys()].join(', '),
    }));
}

function packageVersions(c: CorpusDef): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of c.packages) {
    let version = '';
    try {
      version = execFileSync('dpkg-query', ['-W', '-f', '${Version}', p], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      // Not known to dpkg (never installed): maybe extracted.
    }
    // Known but not installed (removed, or never installed here), dpkg-query says nothing: maybe extracted.
    out[p] = version || (extractedVersion(c, p) ?? 'unknown');
  }
  return out;
}

/**
 * A package extracted with `dpkg-deb -x` (not installed; its pages under the tree's usr/share/doc, or, ruby's, written
 * out beside it): the version its changelog.Debian.gz opens with, or a
 * native package's changelog.gz (debian-handbook has no other) when it opens with the package's own entry or
 * with that of the source package it is built from, named as its prefix (debian-policy-ja's opens with
 * debian-policy's).
 */
function extractedVersion(c: CorpusDef, p: string): string | null {
  // The pages are under the extracted tree's usr/share/doc, or written out beside it (ruby's html/).
  const at = c.root.indexOf('/usr/share/doc');
  const tree = at >= 0 ? c.root.slice(0, at) : path.dirname(c.root);
  const log = ['changelog.Debian.gz', 'changelog.gz'].map((name) => path.join(tree, 'usr/share/doc', p, name)).find((f) => fs.existsSync(f));
  if (!log) return null;
  const head = /^(\S+) \(([^)]+)\)/.exec(zlib.gunzipSync(fs.readFileSync(log)).toString('utf8'));
  return head && (head[1] === p || p.startsWith(`${head[1]}-`) || log.endsWith('changelog.Debian.gz')) ? head[2]! : null;
}

export async function buildAuto(c: CorpusDef): Promise<QueryFile> {
  const loaded = await loadCorpus(c, { log: console.log });
  const uniq = new Uniqueness(loaded.pages);
  const span = spans(c, loaded.pages, uniq);
  const queries = [...span, ...typos(c, span), ...headings(c, loaded.pages), ...identifiers(c, loaded.pages)];
  return {
    corpus: c.name,
    procedure: `npm run eval:queries -- --corpus ${c.name} (tests/eval/build-queries.ts, seeds "${c.name}/<class>[/<lang>]/${VERSION}")`,
    packages: packageVersions(c),
    queries,
  };
}

function sample(c: CorpusDef, pages: readonly CapturedPage[], n: number): (SectionAt & { tag: string })[] {
  const all: SectionAt[] = pages.flatMap((page) => page.gt.sections.map((section) => ({ page, section })));
  const eligible = all.filter(({ page, section }) => {
    const body = section.text.slice(section.heading.length);
    return isCjkLang(langOf(c, page)) ? (body.match(CJK_G)?.length ?? 0) >= 80 : body.split(/\s+/).length >= 40;
  });
  const langs = byLanguage(eligible, (s) => langOf(c, s.page));
  const want = quota(n, [...langs.keys()]);
  return [...langs].flatMap(([lang, secs]) => shuffled(rng(`${c.name}/manual/${lang}/${VERSION}`), secs).slice(0, want.get(lang)!).map((s, k) => ({ ...s, tag: `${lang}#${k + 1}` })));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sampleOf = arg('--sample');
  if (sampleOf) {
    const c = corpus(sampleOf);
    const loaded = await loadCorpus(c);
    const n = Number(arg('--n') ?? 20);
    sample(c, loaded.pages, n).forEach(({ page, section, tag }, i) => {
      console.log(`\n##### sample ${i + 1} (${tag}) ${page.file}  key=${section.key}\n# ${section.heading}\n${section.text.slice(0, Number(arg('--chars') ?? 1500))}`);
    });
    return;
  }
  const named = arg('--corpus')?.split(',');
  // Every corpus by default; one whose packages are not installed is skipped, and said so.
  const names = named ?? CORPORA.map((c) => c.name);
  for (const name of names) {
    const c = corpus(name);
    const missing = named ? null : checkInstalled(c);
    if (missing) {
      console.log(`SKIPPED ${missing}`);
      continue;
    }
    const file = await buildAuto(c);
    fs.writeFileSync(queryFile(c.name, 'auto'), JSON.stringify(file, null, 1) + '\n');
    const by = new Map<string, number>();
    for (const q of file.queries) by.set(q.class, (by.get(q.class) ?? 0) + 1);
    console.log(`${c.name}: ${[...by].map(([k, v]) => `${k} ${v}`).join(', ')} -> ${queryFile(c.name, 'auto')}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
