import { describe, expect, it } from 'vitest';
import { articleSpan } from '../../content/extract.js';
import type { Block } from '../../src/chunker.js';

const p = (text: string): Block => ({ kind: 'text', text });
const li = (text: string): Block => ({ kind: 'list', text });
const h = (text: string): Block => ({ kind: 'heading', text, level: 2 });

/** A man page in AsciiDoc's shape: Readability keeps the options, drops the sections after them. */
const article = [h('Options'), p('Select the specified commit after loading the graph, as the default does.')];
const examples = [
  h('Examples'),
  li('gitk v2.6.12.. include/scsi drivers/scsi'),
  li('Show the changes since version v2.6.12 that changed any file in the include/scsi subdirectories'),
  h('Files'),
  p('User configuration and preferences are stored at:'),
  li('$HOME/.gitk if it exists'),
  p('If neither of the above exist then the configuration file is created and used by default.'),
];

function span(blocks: Block[], linkShare: number[] = blocks.map(() => 0)) {
  return articleSpan({ blocks, linkShare }, article)!.blocks.map((b) => b.text);
}

describe('articleSpan', () => {
  it('crosses headings, terms and short lines to reach the sections Readability dropped after the article', () => {
    expect(span([...article, ...examples])).toEqual([...article, ...examples].map((b) => b.text));
  });

  it('stops at a list of links after the article', () => {
    const nav = [h('Navigation'), li('Home'), li('Next chapter: the index of every command in the suite and their options'), li('Previous')];
    const blocks = [...article, ...nav];
    expect(span(blocks, [0, 0, 0, 0.9, 0.9, 0.9])).toEqual(article.map((b) => b.text));
  });

  it('does not cross a long run of short lines that leads to no text', () => {
    const tail = [h('Tags'), li('git'), li('history'), li('viewer'), li('tcl'), li('tk'), p('Written by the maintainers of this project for everyone who reads it.')];
    expect(span([...article, ...tail])).toEqual(article.map((b) => b.text));
  });

  it('crosses one footnote that only cites a page to reach the footnotes after it, not two linked lines or a list', () => {
    // DocBook's footnotes after a chapter: [23] is a link to a standard, [24] and [25] explain.
    const notes = [
      p('[22] The directory should exist by now if you ran the tool as described before.'),
      p('[23] See GNU Coding Standards: 7.2.4 DESTDIR.'),
      p('[24] For a source package building several binary packages, the command uses a temporary directory.'),
      p('[25] This is only an example of what the Makefile should look like, nothing more.'),
    ];
    expect(span([...article, ...notes], [0, 0, 0, 0.9, 0, 0])).toEqual([...article, ...notes].map((b) => b.text));
    // Two linked paragraphs in a row (a footer's links) are not crossed.
    const footer = [p('Share on social sites'), p('Subscribe to the newsletter'), p('We write about tools and the people who make them, every week, for free.')];
    expect(span([...article, ...footer], [0, 0, 1, 1, 0])).toEqual(article.map((b) => b.text));
    // Nor a linked list item (navigation), nor a linked paragraph followed only by short lines.
    expect(span([...article, li('Next: building the package'), p('We write about tools and the people who make them, every week, for free.')], [0, 0, 1, 0])).toEqual(article.map((b) => b.text));
    expect(span([...article, p('Back to the top of the page'), p('Made with love in Berlin by a team')], [0, 0, 1, 0])).toEqual(article.map((b) => b.text));
  });

  it('crosses a dozen short lines with no heading of their own (a FAQ header) to reach the prose after them', () => {
    // The Z shell FAQ: Readability keeps the table of contents; the introduction follows a header of
    // label/value lines, one of them a mail link.
    const header = ['Archive-Name:', 'unix-faq/shell/zsh', 'Last-Modified:', '2020/08/08', 'Submitted-By:', 'coordinator@zsh.org (Peter Stephenson)', 'Posting-Frequency:', 'Monthly', 'Copyright:', '(C) P.W. Stephenson, 1995--2020'].map((t, i) => (i % 2 ? p(t) : li(t)));
    const intro = p('This document contains a list of frequently-asked questions concerning the Z-shell.');
    const shares = [0, 0, ...header.map((b) => (b.text.startsWith('coordinator') ? 0.95 : 0)), 0];
    expect(span([...article, ...header, intro], shares)).toEqual([...article, ...header, intro].map((b) => b.text));
    // Not when the lines run longer than a header's.
    const long = header.map((b) => ({ ...b, text: `${b.text} and a few more words here` }));
    expect(span([...article, ...long, intro], shares)).toEqual(article.map((b) => b.text));
  });

  it('reaches back over a short label to the heading the article opens under (a DocBook chapter h1 Readability dropped)', () => {
    const h1: Block = { kind: 'heading', text: 'Chapter 6. Building the package', level: 1, id: 'build' };
    const toc = [li('6.1. Complete (re)build'), li('6.2. Autobuilder')];
    const intro = p('We should now be ready to build the package from its sources.');
    const blocks = [p('Prev Next'), h1, p('Table of Contents'), ...toc, intro];
    const kept = [...toc, intro];
    const got = articleSpan({ blocks, linkShare: [1, 0, 0, 1, 1, 0] }, kept)!.blocks.map((b) => b.text);
    expect(got).toEqual([h1, p('Table of Contents'), ...toc, intro].map((b) => b.text));
  });

  it('does not reach back across links, prose, or once the span starts at a heading', () => {
    const site = { kind: 'heading', text: 'My site', level: 1 } as Block;
    const post = [h('Post title'), p('The first paragraph of the post, which Readability kept as its article.')];
    // Starts at a heading: the site's heading above a tagline stays out.
    expect(articleSpan({ blocks: [site, p('Notes and links'), ...post], linkShare: [0, 0, 0, 0] }, post)!.blocks.map((b) => b.text)).toEqual(post.map((b) => b.text));
    // A list of links between the heading and the article: the heading stays out.
    const body = [p('The first paragraph of the post, which Readability kept as its article.')];
    expect(articleSpan({ blocks: [site, li('Home'), li('Archive'), ...body], linkShare: [0, 1, 1, 0] }, body)!.blocks.map((b) => b.text)).toEqual(body.map((b) => b.text));
  });

  it("reaches back to the heading that names the page, across its summary: an AsciiDoc man page's header Readability dropped", () => {
    const header = [{ kind: 'heading', text: 'git-ls-tree(1) Manual Page', level: 1 } as Block, h('NAME'), p('git-ls-tree - List the contents of a tree object')];
    const kept = [h('SYNOPSIS'), p('git ls-tree [-d] [-r] [-t] <tree-ish>'), h('DESCRIPTION'), p('Lists the contents of a given tree object, like what "/bin/ls -a" does.')];
    const blocks = [p('Home'), ...header, ...kept];
    const got = (title: string) => articleSpan({ blocks, linkShare: [1, 0, 0, 0, 0, 0, 0, 0] }, kept, title)!.blocks.map((b) => b.text);
    expect(got('git-ls-tree(1)')).toEqual([...header, ...kept].map((b) => b.text));
    // Without the title, or with a title the heading does not name, the span starts where it did.
    expect(got('')).toEqual(kept.map((b) => b.text));
    expect(got('git-ls-files(1)')).toEqual(kept.map((b) => b.text));
  });

  it("leaves a site's heading out when it does not name the page, and stops at links before a title heading", () => {
    const site = { kind: 'heading', text: 'My site', level: 1 } as Block;
    const post = [h('Post title'), p('The first paragraph of the post, which Readability kept as its article.')];
    const run = (blocks: Block[], linkShare: number[]) => articleSpan({ blocks, linkShare }, post, 'Post title – My site')!.blocks.map((b) => b.text);
    expect(run([site, p('Notes and links'), ...post], [0, 0, 0, 0])).toEqual(post.map((b) => b.text));
    const named = { kind: 'heading', text: 'Post title – My site', level: 1 } as Block;
    expect(run([named, li('Home'), li('Archive'), ...post], [0, 1, 1, 0, 0])).toEqual(post.map((b) => b.text));
    // A heading of 7 characters or fewer is too short to name a page by its start.
    expect(articleSpan({ blocks: [{ kind: 'heading', text: 'Python', level: 1 } as Block, p('Notes'), ...post], linkShare: [0, 0, 0, 0] }, post, 'Python Tutorial')!.blocks.map((b) => b.text)).toEqual(post.map((b) => b.text));
  });
  it('reaches back across a short list to the sentence that introduces it (a section Readability dropped before the article)', () => {
    // KiCad's pcb_calculator: "1. Introduction", a sentence ending in a colon, nine one-word items; the
    // article Readability kept starts at "2. Calculators".
    const tools = ['Regulators', 'Track Width', 'Electrical Spacing', 'Trans Line', 'RF Attenuators', 'Color Code', 'Board Classes'].map(li);
    const intro = [h('1. Introduction'), p('The PCB Calculator is a set of utilities to help you find the values of components. It has the following tools:'), ...tools];
    const kept = [h('2. Calculators'), p('This calculator helps with the task of finding the values of the resistors needed for regulators.')];
    const got = (blocks: Block[], linkShare = blocks.map(() => 0)) => articleSpan({ blocks, linkShare }, kept)!.blocks.map((b) => b.text);
    expect(got([...intro, ...kept])).toEqual([...intro, ...kept].map((b) => b.text));
    // Not across links, nor a list right under a heading (a site's tags under its name), nor a long list.
    expect(got([...intro, ...kept], [0, 0, ...tools.map(() => 0.9), 0, 0])).toEqual(kept.map((b) => b.text));
    const tags = [{ kind: 'heading', text: 'My site', level: 1 } as Block, li('music'), li('travel'), li('notes')];
    expect(got([...tags, ...kept])).toEqual(kept.map((b) => b.text));
    const long = Array.from({ length: 12 }, (_, k) => li(`item number ${k} of a long list`));
    expect(got([intro[0]!, intro[1]!, ...long, ...kept])).toEqual(kept.map((b) => b.text));
  });
});
