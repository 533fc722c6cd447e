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
});
