/**
 * The evaluation's own parts: the ground truth's section and landing rules on the heading styles of the
 * corpora (Sphinx, DocBook, AsciiDoc), the judge, the naive baseline and the query generator's pieces.
 */
import { describe, expect, it } from 'vitest';
import { definedNames, norm, rdocMethods, rustdocMethods, signatureName, stripNumbering, typo } from './build-queries.js';
import type { CapturedPage } from './lib/capture.js';
import { checkInstalled, CORPORA, GATED, HELD_OUT, isHeldOut, writtenIn } from './lib/corpora.js';
import { findText, groundTruth, landing } from './lib/groundTruth.js';
import { judge, pageLookup } from './lib/judge.js';
import { NaiveIndex, naiveTokens } from './lib/naive.js';
import { pairedDifference, pooledLanguageTable } from './lib/paired.js';
import type { CorpusResult } from './lib/evaluate.js';
import type { EvalQuery } from './lib/queries.js';
import { rng } from './lib/rng.js';

const page = (body: string, title = 'T') => `<!doctype html><html lang="en"><head><title>${title}</title></head><body>${body}</body></html>`;

const SPHINX = page(`
  <div class="related" role="navigation"><h3>Navigation</h3><a href="#x">index</a></div>
  <div class="body" role="main">
    <section id="module-os.path"><span id="os-path-manip"></span>
      <h1>os.path — pathnames<a class="headerlink" href="#module-os.path">¶</a></h1>
      <p>This module implements some useful functions on pathnames.</p>
      <dl class="py function"><dt class="sig sig-object py" id="os.path.join">os.path.join(path, *paths)</dt>
      <dd><p>Join one or more path segments intelligently.</p></dd></dl>
      <section id="examples"><h2>Examples<a class="headerlink" href="#examples">¶</a></h2>
        <p>Some examples of joining paths follow here.</p>
        <table id="tbl-1"><tr><td>a table in Examples</td></tr></table>
      </section>
      <section id="notes"><h2>Notes</h2><p>Closing notes about paths.</p></section>
    </section>
  </div>
  <div class="sphinxsidebar"><h3>This Page</h3><p>Show source</p></div>`);

const DOCBOOK = page(`
  <div class="navheader"><table><tr><th>Chapter 7. Basics</th></tr></table></div>
  <div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="pkg-basics"></a>Chapter 7. Basics</h1></div></div></div>
  <div class="toc"><dl class="toc"><dt><a href="#package">7.1. What is a Debian package?</a></dt></dl></div>
  <div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="package"></a>7.1. What is a Debian package?</h2></div></div></div>
    <p>Packages generally contain all of the files necessary.</p><a id="idm990"></a><p>Binary packages contain executables.</p></div>
  <div class="section"><div class="titlepage"><div><div><h2 class="title"><a name="deb-format"></a>7.2. What is the format?</h2></div></div></div>
    <p>A Debian binary package file is an ar archive.</p></div>
  </div>`);

const ASCIIDOC = page(`
  <div id="header"><h1>git-add(1) Manual Page</h1><h2>NAME</h2><div class="sectionbody"><p>git-add - Add file contents to the index</p></div></div>
  <div id="content">
    <div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2><div class="sectionbody"><pre>git add [--verbose]</pre></div></div>
    <div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody"><div class="dlist"><dl>
      <dt class="hdlist1">-n</dt><dt class="hdlist1">--dry-run</dt><dd><p>Don't actually add the file(s).</p></dd>
      <dt class="hdlist1">core.autocrlf</dt><dd><p>Convert line endings.</p></dd>
    </dl></div></div></div>
  </div>
  <div id="footer"><div id="footer-text">Last updated</div></div>`);

describe('ground truth', () => {
  it('Sphinx: ids on the <section> wrapper and on an empty span before the heading land on it; a <dt> id lands in its section', () => {
    const gt = groundTruth(SPHINX);
    expect(gt.sections.map((s) => s.heading)).toEqual(['os.path — pathnames', 'Examples', 'Notes']);
    const [top, examples, notes] = gt.sections;
    expect(top!.headingIds).toEqual(['module-os.path', 'os-path-manip']);
    expect(top!.key).toBe('module-os.path');
    expect(landing(gt, 'os.path.join')).toBe(0);
    expect(landing(gt, 'examples')).toBe(examples!.index);
    expect(landing(gt, 'tbl-1')).toBe(examples!.index);
    expect(notes!.key).toBe('notes');
    expect(top!.paragraphs[0]).toBe('This module implements some useful functions on pathnames.');
    expect(top!.definitions).toEqual([{ term: 'os.path.join(path, *paths)', id: 'os.path.join', cls: 'sig sig-object py' }]);
    // Navigation and sidebars hold no section.
    expect(gt.sections.some((s) => s.heading === 'Navigation' || s.heading === 'This Page')).toBe(false);
    expect(landing(gt, 'nosuchid')).toBeNull();
  });

  it('DocBook: the id of an <a id>/<a name> inside the heading; an anchor in the body lands in its section; the TOC is no section', () => {
    const gt = groundTruth(DOCBOOK);
    expect(gt.sections.map((s) => s.key)).toEqual(['pkg-basics', 'package', 'deb-format']);
    expect(landing(gt, 'package')).toBe(1);
    expect(landing(gt, 'deb-format')).toBe(2);
    expect(landing(gt, 'idm990')).toBe(1);
  });

  it('AsciiDoc: heading ids first, a heading without one keyed by its text, wrappers with no text before their first heading', () => {
    const gt = groundTruth(ASCIIDOC);
    expect(gt.sections.map((s) => s.key)).toEqual(['header', 'h:NAME', '_synopsis', '_options']);
    expect(gt.sections[2]!.headingIds).toEqual(['_synopsis', 'content']);
    expect(landing(gt, '_synopsis')).toBe(2);
    expect(definedNames(gt.sections[3]!.definitions[1]!)).toEqual(['--dry-run']);
    expect(definedNames(gt.sections[3]!.definitions[2]!)).toEqual(['core.autocrlf']);
    expect(gt.sections[3]!.text).not.toContain('Last updated');
  });

  it('texi2any: a wrapper opening with a navigation row lands on its heading; an id before navigation it does not wrap does not', () => {
    const nav = '<table class="header"><tr><td>[<a href="#a"> &lt;&lt; </a>]</td><td>[<a href="index.html"> Up </a>]</td><td>[<a href="toc.html">Contents</a>]</td></tr></table>';
    const gt = groundTruth(
      page(`<div class="chapter" id="Jobs">${nav}<span id="Jobs-1"></span><h1 class="chapter">7 Jobs</h1><p>Jobs run.</p>
        <div class="section" id="Queues">${nav}<h2 class="section">7.1 Queues</h2><p>Queues wait.</p></div>
        <span id="stray"></span>${nav}<div class="section" id="Limits">${nav}<span id="Limits-1"></span><h2 class="section">7.2 Limits</h2><p>Limits hold.</p></div></div>`),
    );
    expect(gt.sections.map((s) => s.key)).toEqual(['Jobs-1', 'Queues', 'Limits-1']);
    expect(landing(gt, 'Jobs')).toBe(0);
    expect(landing(gt, 'Queues')).toBe(1);
    expect(landing(gt, 'Limits')).toBe(2);
    // Not a wrapper of the heading: it stays in the section before, as before navigation counted as text.
    expect(landing(gt, 'stray')).toBe(1);
    expect(gt.sections[1]!.text).not.toContain('Contents');
  });

  it("Publican: <div class=\"para\"> paragraphs (no <p> holds prose), a sidebar's title is no heading, the Prev/Next rows are navigation", () => {
    const gt = groundTruth(
      page(`<ul class="docnav top"><li class="previous"><a href="apt.html"><strong>Prev</strong></a></li><li class="home">The Handbook</li></ul>
        <div class="section"><div class="titlepage"><div><div><h2 class="title"><a xmlns="" id="sect.apt-get"></a>6.2. apt Commands</h2></div></div></div>
        <a id="id-1.9.17.2" class="indexterm"></a><div class="para">APT is a vast project with a graphical interface planned.</div>
        <div class="sidebar"><a xmlns="" id="sidebar.apt-pdiff"></a><div class="titlepage"><div><div><p class="title"><strong>TIP Incremental updates</strong></p></div></div></div>
        <div class="para">Diff files make the update smaller. <div class="url">→ <a href="https://x.test/">https://x.test/</a></div></div></div>
        <div class="section"><div class="titlepage"><div><div><h3 class="title"><a xmlns="" id="sect.apt-update"></a>6.2.1. Initialization</h3></div></div></div>
        <div class="para">Run apt update first.</div></div></div>
        <ul class="docnav"><li class="previous"><a href="apt.html"><strong>Prev</strong>Chapter 6. APT</a></li><li class="next"><a href="x.html"><strong>Next</strong>6.3. apt-cache</a></li></ul>`),
    );
    expect(gt.sections.map((s) => s.key)).toEqual(['sect.apt-get', 'sect.apt-update']);
    expect(gt.sections[0]!.paragraphs).toEqual(['APT is a vast project with a graphical interface planned.', 'TIP Incremental updates', 'Diff files make the update smaller. → https://x.test/']);
    expect(landing(gt, 'sidebar.apt-pdiff')).toBe(0);
    expect(gt.sections[1]!.paragraphs).toEqual(['Run apt update first.']);
    expect(gt.sections[1]!.text).not.toContain('Next');
  });

  it('text fragments land where the words first occur in the whole page, at word boundaries', () => {
    const gt = groundTruth(DOCBOOK);
    // "What is a Debian package?" first occurs in the table of contents: that lands on no section.
    expect(landing(gt, ':~:text=What%20is%20a%20Debian%20package')).toBeNull();
    expect(landing(gt, ':~:text=Binary%20packages%20contain')).toBe(1);
    expect(landing(gt, ':~:text=ar%20archive')).toBe(2);
    expect(findText(gt, 'rchive')).toBe(-1);
    expect(landing(gt, ':~:text=nothing%20like%20this')).toBeNull();
  });
});

describe('judge', () => {
  const gt = groundTruth(DOCBOOK);
  const captured: CapturedPage = { file: 'a.html', url: 'https://x.test/a.html', lang: 'en', gt, stored: null };
  const other: CapturedPage = { file: 'b.html', url: 'https://x.test/b.html', lang: 'en', gt: groundTruth(SPHINX), stored: null };
  const look = pageLookup([captured, other]);
  const q: EvalQuery = { id: 'q', class: 'span', q: 'x', lang: 'en', relevant: { 'a.html': 2 }, sections: [{ file: 'a.html', key: 'deb-format' }] };

  it('scores pages in the order shown and the first link by where it lands', () => {
    const s = judge(q, [{ file: 'b.html', href: 'https://x.test/b.html#notes' }, { file: 'a.html', href: 'https://x.test/a.html#deb-format' }], look);
    expect(s.mrr10).toBe(0.5);
    expect(s.ndcg10).toBeCloseTo(1 / Math.log2(3));
    expect(s.sectionHit1).toBe(0);
    expect(s.sectionMrr10).toBe(0.5);
    const hit = judge(q, [{ file: 'a.html', href: 'https://x.test/a.html#:~:text=ar%20archive' }], look);
    expect([hit.ndcg10, hit.sectionHit1]).toEqual([1, 1]);
    const wrong = judge(q, [{ file: 'a.html', href: 'https://x.test/a.html#idm990' }], look);
    expect([wrong.ndcg10, wrong.sectionHit1]).toEqual([1, 0]);
    expect(judge(q, [], look)).toMatchObject({ ndcg10: 0, sectionHit1: 0, results: 0 });
  });
});

describe('naive baseline', () => {
  it('tokenizes by Intl.Segmenter without stemming, CJK included', () => {
    expect(naiveTokens('Running FILES, quickly.')).toEqual(['running', 'files', 'quickly']);
    expect(naiveTokens('パッケージ管理').length).toBeGreaterThan(1);
  });
  it('ranks heading sections by BM25 and links each to its heading', () => {
    const pages: CapturedPage[] = [{ file: 'a.html', url: 'https://x.test/a.html', lang: 'en', gt: groundTruth(DOCBOOK), stored: null }];
    const idx = new NaiveIndex(pages);
    const hits = idx.search('ar archive', 5);
    expect(hits[0]!.href).toBe('https://x.test/a.html#deb-format');
  });
});

describe('corpora', () => {
  it('five held-out corpora, never tuned on; only devref is gated in npm test', () => {
    expect([...HELD_OUT].sort()).toEqual(['cmake', 'devref', 'gimp', 'rust', 'sqlite']);
    expect(GATED).toBe('devref');
    expect(isHeldOut('cmake') && isHeldOut('devref') && isHeldOut('sqlite') && isHeldOut('rust') && isHeldOut('gimp') && !isHeldOut('apache') && !isHeldOut('nodejs') && !isHeldOut('python') && !isHeldOut('zsh') && !isHeldOut('doxygen') && !isHeldOut('instguide')).toBe(true);
    expect(CORPORA.filter((c) => !c.heldOut).map((c) => c.name)).toEqual(['python', 'git', 'debian-faq', 'maint-guide', 'instguide', 'zsh', 'doxygen', 'nodejs', 'ant', 'mkdocs', 'rustdoc', 'glib', 'exim', 'handbook', 'policy', 'apache', 'lilypond', 'kicad', 'edu', 'ruby']);
  });
  it('a corpus extracted rather than installed says how to get it when it is missing', () => {
    for (const name of ['nodejs', 'ant', 'mkdocs', 'glib', 'exim', 'handbook', 'policy', 'apache', 'gimp', 'lilypond', 'kicad', 'edu', 'ruby']) {
      const c = CORPORA.find((x) => x.name === name)!;
      expect(c.install).toMatch(/apt-get download .*dpkg-deb -x/);
      const missing = checkInstalled({ ...c, root: '/nonexistent', files: () => [] });
      expect(missing).toContain(c.install!);
    }
  });
});

describe('a translated manual: pages left in English are not pages of its languages (gimp)', () => {
  const page = (body: string) => `<html><head><title>t</title><style>.the { and: of }</style></head><body><div class="navheader">Prev Next</div>${body}</body></html>`;
  it('reads a German page as German and an English copy in the German directory as not', () => {
    expect(writtenIn(page('<p>Mit dem Werkzeug werden die Ebenen zugeschnitten, und das Bild ist danach kleiner.</p>'), 'de')).toBe(true);
    expect(writtenIn(page('<p>The Crop Tool is used to crop or clip an image. It works on all the layers of the image.</p>'), 'de')).toBe(false);
    // A German page naming English menu items is still German.
    expect(writtenIn(page('<p>Wählen Sie <b>Image → Crop to Content</b>, und die Ränder werden mit dem Bild entfernt.</p>'), 'de')).toBe(true);
  });
  it('reads a Japanese page as Japanese and an English copy in the Japanese directory as not', () => {
    expect(writtenIn(page('<p>切り抜きツールは画像の周囲を切り取るために使います。Crop ツールとも呼ばれます。</p>'), 'ja')).toBe(true);
    expect(writtenIn(page('<p>The Crop Tool is used to crop or clip an image.</p>'), 'ja')).toBe(false);
    // Markup and styles are not text: only what the page shows is counted.
    expect(writtenIn(page('<p class="the and of to is you">画像を切り抜きます</p>'), 'ja')).toBe(true);
    expect(writtenIn(page('<p>anything</p>'), 'en')).toBe(true);
  });
  it('reads French by its function words and Chinese by its characters (edu)', () => {
    expect(writtenIn(page('<p>Le serveur principal fournit les services dont les clients ont besoin pour démarrer sur le réseau.</p>'), 'fr')).toBe(true);
    expect(writtenIn(page('<p>The main server provides the services the clients need to boot from the network.</p>'), 'fr')).toBe(false);
    expect(writtenIn(page('<p>主服务器为网络中的客户机提供所需的服务。LTSP 服务器</p>'), 'zh-cn')).toBe(true);
    expect(writtenIn(page('<p>The main server provides the services the clients need.</p>'), 'zh-cn')).toBe(false);
  });
});

describe('a manual whose pages name their language (lilypond)', () => {
  it('reads the language from the file name: .de.html German, .ja.html Japanese, the rest English', () => {
    const c = CORPORA.find((x) => x.name === 'lilypond')!;
    expect(c.lang('learning/adding-text.de.html')).toBe('de');
    expect(c.lang('usage/lilypond_002dbook.ja.html')).toBe('ja');
    expect(c.lang('learning/adding-text.html')).toBe('en');
    expect(c.lang('essay/index.html')).toBe('en');
    expect(c.heldOut).toBe(false);
  });
});

describe('a manual whose pages declare English whatever their language (kicad)', () => {
  it('reads the language from the directory, and draws its queries by it', () => {
    const c = CORPORA.find((x) => x.name === 'kicad')!;
    expect(c.lang('de/pl_editor.html')).toBe('de');
    expect(c.lang('ja/gerbview.html')).toBe('ja');
    expect(c.lang('en/eeschema.html')).toBe('en');
    expect(c.langByFile).toBe(true);
    expect(CORPORA.filter((x) => x.langByFile).map((x) => x.name)).toEqual(['kicad']);
    expect(c.heldOut).toBe(false);
  });
});

describe('one manual a language in five languages, no <html lang> (edu)', () => {
  it('reads the language from the package directory: de, fr, ja, zh-cn, en', () => {
    const c = CORPORA.find((x) => x.name === 'edu')!;
    expect(c.lang('debian-edu-doc-de/debian-edu-bookworm-manual.html')).toBe('de');
    expect(c.lang('debian-edu-doc-zh-cn/debian-edu-bookworm-manual.html')).toBe('zh-cn');
    expect(c.lang('debian-edu-doc-en/debian-edu-bookworm-manual.html')).toBe('en');
    expect(c.langByFile).toBeFalsy();
    expect(c.heldOut).toBe(false);
  });
});

describe("Ruby 3.1's reference, written out of the ri store Debian ships (ruby)", () => {
  it('a tuning corpus in English; with no classes.tsv (the pages not written out) it has no pages', () => {
    const c = CORPORA.find((x) => x.name === 'ruby')!;
    expect(c.heldOut).toBe(false);
    expect(c.lang('String.html')).toBe('en');
    expect(c.install).toContain('tests/eval/ruby-darkfish.rb');
    expect(CORPORA.find((x) => x.name === 'ruby')!.files.call({ ...c, root: '/nonexistent' })).toEqual([]);
  });
});

describe('paired differences and the pooled language table', () => {
  it('the bootstrap interval of a constant difference is that difference; wins and losses are counted', () => {
    expect(pairedDifference([0, 0, 0], [1, 1, 1], 'x')).toEqual({ n: 3, mean: 1, lo: 1, hi: 1, won: 3, lost: 0 });
    const p = pairedDifference([1, 0.5, 0, 1], [0, 0.5, 1, 0.5], 'y');
    expect(p.mean).toBeCloseTo(-0.125);
    expect([p.won, p.lost]).toEqual([1, 2]);
    expect(p.lo).toBeLessThan(p.mean);
    expect(p.hi).toBeGreaterThan(p.mean);
    // Seeded by the label: the same interval every run.
    expect(pairedDifference([1, 0.5, 0, 1], [0, 0.5, 1, 0.5], 'y')).toEqual(p);
    expect(() => pairedDifference([1], [1, 2], 'z')).toThrow(/differ in length/);
  });
  it('pools a class and language over corpora, tuning apart from held out, and marks a loss beyond noise', () => {
    const result = (corpus: string, heldOut: boolean, rows: [string, string, string, number, number][]): CorpusResult =>
      ({
        corpus,
        heldOut,
        queryClass: Object.fromEntries(rows.map(([id, cls]) => [id, cls])),
        queryLang: Object.fromEntries(rows.map(([id, , lang]) => [id, lang])),
        perQuery: {
          hybrid: rows.map(([id, , , h]) => ({ id, ndcg10: h })),
          naive: rows.map(([id, , , , n]) => ({ id, ndcg10: n })),
        },
      }) as unknown as CorpusResult;
    const text = pooledLanguageTable([
      result('a', false, [['a1', 'topical', 'ja', 0.5, 1], ['a2', 'topical', 'ja', 0.6, 1], ['a3', 'topical', 'en', 1, 0.5], ['a4', 'offtopic', 'ja', 0, 0]]),
      result('b', false, [['b1', 'topical', 'ja', 0.2, 1], ['b2', 'natural', 'ja', 1, 1]]),
      result('c', true, [['c1', 'topical', 'ja', 1, 0]]),
    ])!;
    const lines = text.split('\n');
    const ja = lines.find((l) => l.includes('topical ja (3)'))!;
    expect(ja).toMatch(/^tuning/);
    expect(ja).toContain('0.433'); // hybrid's mean over a1, a2, b1
    expect(ja).toContain('<<<');
    expect(lines.find((l) => l.includes('topical ja (1)'))).toMatch(/^held out .*\+1\/-0$/);
    expect(text).toContain('natural ja (1)');
    expect(text).not.toContain('offtopic');
    // One language only: nothing to pool that the corpus rows do not show.
    expect(pooledLanguageTable([result('d', false, [['d1', 'topical', 'en', 1, 0]])])).toBeNull();
  });
});

describe('query generation', () => {
  it('strips heading numbering in the corpora styles', () => {
    expect(stripNumbering('7.1. What is a Debian package?')).toBe('What is a Debian package?');
    expect(stripNumbering('Chapter 7. Basics')).toBe('Basics');
    expect(stripNumbering('Chapter 63 - Concept Index')).toBe('Concept Index');
    expect(stripNumbering('第10章 Debian とカーネル')).toBe('Debian とカーネル');
    expect(stripNumbering('5.5.1. Special case')).toBe('Special case');
    expect(stripNumbering('PEP 3118: New memoryview')).toBe('PEP 3118: New memoryview');
    expect(stripNumbering('25 Zftp Function System')).toBe('Zftp Function System');
    expect(stripNumbering('6.1 Simple Commands & Pipelines')).toBe('Simple Commands & Pipelines');
  });
  it("CMake's domain: the name as the term writes it (commands' ids are lower-cased); generator expressions are no names", () => {
    const gt = groundTruth(
      page(`<div class="body" role="main"><section id="fetchcontent"><h1>FetchContent</h1><dl class="cmake command">
        <dt class="sig sig-object cmake" id="command:fetchcontent_declare"><span class="sig-name descname"><span class="pre">FetchContent_Declare</span></span><a class="headerlink" href="#command:fetchcontent_declare">¶</a></dt>
        <dd><p>Declares content.</p></dd></dl>
        <dl class="cmake variable"><dt class="sig sig-object cmake" id="variable:CPACK_RPM_PACKAGE_SUMMARY"><span class="sig-name descname"><span class="pre">CPACK_RPM_PACKAGE_SUMMARY</span></span></dt><dd><p>The summary.</p></dd></dl>
        <dl class="cmake genex"><dt class="sig sig-object cmake" id="genex:IF"><span class="sig-name descname"><span class="pre">$&lt;IF:condition,true_string,false_string&gt;</span></span></dt><dd><p>If.</p></dd></dl>
        </section></div>`),
    );
    const defs = gt.sections[0]!.definitions;
    expect(defs.map(definedNames)).toEqual([['FetchContent_Declare'], ['CPACK_RPM_PACKAGE_SUMMARY'], []]);
    expect(landing(gt, 'command:fetchcontent_declare')).toBe(0);
  });
  it("Javadoc's methods: a heading that is one name under an anchor that is its signature; nothing else defines by heading", () => {
    const gt = groundTruth(
      page(`<main role="main"><h1 class="title">Class DirectoryScanner</h1><section class="details"><h2>Method Details</h2><ul class="member-list">
        <li><section class="detail" id="setBasedir(java.io.File)"><h3>setBasedir</h3><div class="member-signature">public void setBasedir(File basedir)</div><div class="block">Sets it.</div></section></li>
        <li><section class="detail" id="setBasedir(java.lang.String)"><h3>setBasedir</h3><div class="block">Sets it too.</div></section></li>
        <li><section class="detail" id="MSG_ERR"><h3>MSG_ERR</h3></section></li>
        <li><section class="detail" id="&lt;init&gt;()"><h3>DirectoryScanner</h3></section></li>
        </ul></section><h2 id="site_name">site_name</h2><h2 id="nav">Navigation</h2></main>`),
    );
    expect(gt.sections.map(signatureName)).toEqual([null, null, 'setBasedir', 'setBasedir', null, null, null, null]);
    expect(landing(gt, 'setBasedir(java.lang.String)')).toBe(3);
  });
  it("rustdoc: a method's <section> wrapper lands on its signature past the version and source link beside it; methods as Type::name up to the trait implementations", () => {
    const method = (id: string, since: string, sig: string, body: string) =>
      `<details class="rustdoc-toggle method-toggle" open><summary><section id="${id}" class="method has-srclink"><span class="rightside"><span class="since">${since}</span> · <a class="srclink" href="#">source</a></span><a href="#${id}" class="anchor"></a><h4 class="code-header">${sig}</h4></section></summary><div class="docblock"><p>${body}</p></div></details>`;
    const gt = groundTruth(
      page(`<section id="main-content" class="content"><h1 class="fqn">Struct std::net::UdpSocket</h1><p>A UDP socket.</p>
        <h2 id="implementations">Implementations</h2><details class="rustdoc-toggle implementors-toggle" open><summary><section id="impl" class="impl has-srclink"><h3 class="code-header in-band">impl UdpSocket</h3></section></summary><div class="impl-items">
        ${method('method.send_to', '1.0.0', 'pub fn send_to&lt;A: ToSocketAddrs&gt;(&amp;self, buf: &amp;[u8], addr: A) -&gt; Result&lt;usize&gt;', 'Sends data.')}
        ${method('method.is_ipv4', '1.16.0 (const: 1.50.0)', 'pub const fn is_ipv4(&amp;self) -&gt; bool', 'Whether it is IPv4.')}
        ${method('method.too_far', 'a lead-in much longer than forty characters before it', 'pub fn too_far(&amp;self)', 'Far.')}
        </div></details><h2 id="trait-implementations">Trait Implementations</h2><details class="rustdoc-toggle implementors-toggle"><summary><section id="impl-Debug" class="impl has-srclink"><h3 class="code-header in-band">impl Debug for UdpSocket</h3></section></summary>
        ${method('method.fmt', '', 'fn fmt(&amp;self, f: &amp;mut Formatter&lt;\'_&gt;) -&gt; Result', 'Formats.')}</details></section>`),
    );
    expect(gt.sections.map((s) => s.key)).toEqual(['main-content', 'implementations', 'impl', 'method.send_to', 'method.is_ipv4', expect.stringMatching(/^h:pub fn too_far/), 'trait-implementations', 'impl-Debug', 'method.fmt']);
    expect(landing(gt, 'method.send_to')).toBe(3);
    expect(landing(gt, 'method.is_ipv4')).toBe(4);
    // Past the lead-in's limit the wrapper stays with the section before, where its text starts.
    expect(landing(gt, 'method.too_far')).toBe(4);
    expect(rustdocMethods('net/struct.UdpSocket.html', gt.sections).map((m) => `${m.name} ${m.key}`)).toEqual([
      'UdpSocket::send_to method.send_to',
      'UdpSocket::is_ipv4 method.is_ipv4',
      expect.stringMatching(/^UdpSocket::too_far h:pub fn too_far/),
    ]);
    expect(rustdocMethods('net/index.html', gt.sections)).toEqual([]);
  });
  it("RDoc's Darkfish: each method's div.method-detail is a section headed by its call-seq lines, its id landing on it; methods as Class#name and Class.name", () => {
    const method = (id: string, cls: string, seqs: string[], body: string, aliases = '') =>
      `<div id="${id}" class="method-detail ${cls}">${seqs.map((q) => `<div class="method-heading"><span class="method-callseq">${q}</span><span class="method-click-advice">click to toggle source</span></div>`).join('')}<div class="method-description"><p>${body}</p></div>${aliases ? `<div class="aliases">${aliases}</div>` : ''}</div>`;
    const gt = groundTruth(
      page(`<nav role="navigation"><div id="method-list-section"><h3>Methods</h3><a href="#method-i-collect">#collect</a></div></nav>
        <main role="main"><h1 id="class-Array" class="class">class Array</h1><section class="description"><p>An Array is an ordered collection.</p></section>
        <section id="5Buntitled-5D" class="documentation-section"><section id="public-class-5Buntitled-5D-method-details" class="method-section"><header><h3>Public Class Methods</h3></header>
        ${method('method-c-new', '', ['Array.new &rarr; new_empty_array'], 'Returns a new Array.')}
        </section><section id="public-instance-5Buntitled-5D-method-details" class="method-section"><header><h3>Public Instance Methods</h3></header>
        ${method('method-i-collect', '', ['array.map {|element| ... } &rarr; new_array', 'array.map &rarr; new_enumerator'], 'Calls the block.', 'Also aliased as: <a href="#method-i-map">map</a>')}
        ${method('method-i-empty-3F', '', ['array.empty? &rarr; true or false'], 'Whether it is empty.')}
        ${method('method-i-3C-3D-3E', '', ['array &lt;=&gt; other_array &rarr; -1, 0, or 1'], 'Compares.')}
        ${method('method-i-map', 'method-alias', ['array.map {|element| ... } &rarr; new_array'], 'Calls the block.', 'Alias for: <a href="#method-i-collect">collect</a>')}
        </section></section></main>`),
    );
    expect(gt.sections.map((s) => `${s.level} ${s.key} ${s.heading}`)).toEqual([
      '1 class-Array class Array',
      '3 5Buntitled-5D Public Class Methods',
      '4 method-c-new Array.new → new_empty_array',
      '3 public-instance-5Buntitled-5D-method-details Public Instance Methods',
      '4 method-i-collect array.map {|element| ... } → new_array array.map → new_enumerator',
      '4 method-i-empty-3F array.empty? → true or false',
      '4 method-i-3C-3D-3E array <=> other_array → -1, 0, or 1',
      '4 method-i-map array.map {|element| ... } → new_array',
    ]);
    expect(landing(gt, 'method-i-empty-3F')).toBe(5);
    expect(landing(gt, 'public-instance-5Buntitled-5D-method-details')).toBe(3);
    expect(landing(gt, 'method-list-section')).toBeNull();
    expect(gt.sections[4]!.paragraphs).toEqual(['Calls the block.']);
    expect(gt.sections[3]!.text).toBe('Public Instance Methods');
    expect(rdocMethods('Array.html', gt.sections)).toEqual([
      { name: 'Array.new', keys: ['method-c-new'] },
      { name: 'Array#collect', keys: ['method-i-collect', 'method-i-map'] },
      { name: 'Array#empty?', keys: ['method-i-empty-3F'] },
      { name: 'Array#map', keys: ['method-i-map', 'method-i-collect'] },
    ]);
    expect(rdocMethods('File/Stat.html', [{ key: 'method-i-size', text: 'size → integer Returns the size.' }])).toEqual([{ name: 'File::Stat#size', keys: ['method-i-size'] }]);
    expect(rdocMethods('syntax/methods_rdoc.html', [{ key: 'label-Methods', text: 'Methods' }])).toEqual([]);
  });
  it('a heading leaves out an icon-font glyph (a private-use character), as a reader would type it', () => {
    const gt = groundTruth(page('<div role="main"><h1 id="w">Writing your docs<a class="headerlink" href="#w">\uf0c1</a></h1><p>Text.</p></div>'));
    expect(gt.sections[0]!.heading).toBe('Writing your docs');
  });
  it('normalises for the uniqueness check', () => {
    expect(norm('Élan, “quoted”  WORDS!')).toBe('élan quoted words');
  });
  it('makes one edit in one word of 6+ letters, never the first letter, reproducibly', () => {
    const a = typo(rng('t'), 'the package manager installs files');
    const b = typo(rng('t'), 'the package manager installs files');
    expect(a).toBe(b);
    const words = a!.split(' ');
    const orig = 'the package manager installs files'.split(' ');
    const changed = words.filter((w, i) => w !== orig[i]);
    expect(changed).toHaveLength(1);
    const i = words.findIndex((w, k) => w !== orig[k]);
    expect(orig[i]!.length).toBeGreaterThanOrEqual(6);
    expect(words[i]![0]).toBe(orig[i]![0]);
    expect(typo(rng('t'), 'a b c d e')).toBeNull();
  });
});
