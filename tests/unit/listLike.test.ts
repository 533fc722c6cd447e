/**
 * A section that is a list of short entries (a table of contents, a book index, a sitemap) weighs less in
 * the lexical lane than a section that is text about the same words (src/listLike.ts, issue #13 item 3).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LIST_MIN_LINES, LIST_MIN_SHARE, LIST_WEIGHT, listShare, listWeight } from '../../src/listLike.js';
import { search } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';

const TOC_ENTRIES = [
  'Streams', 'Synchronization Primitives', 'Subprocesses', 'Queues', 'Exceptions', 'Event Loop', 'Futures', 'Transports and Protocols',
  'Policies', 'Platform Support', 'High-level API Index', 'Low-level API Index', 'Developing with asyncio', 'Coroutines and Tasks',
  'Runners', 'Extending', 'Socket Programming HOWTO', 'Sorting HOW TO', 'Unicode HOWTO', 'Logging Cookbook',
];
const PROSE = [
  'Streams are high-level async/await-ready primitives to work with network connections.',
  'Streams allow sending and receiving data without using callbacks or low-level protocols and transports.',
  'Here is an example of a TCP echo client written using asyncio streams, which reads a line and writes it back.',
];

describe('listShare', () => {
  it('reads a table of contents as a list, and paragraphs, code and short lists as text', () => {
    expect(listShare(`Contents\n${TOC_ENTRIES.join('\n')}`, true)).toBe(1);
    expect(listShare(`Streams\n${PROSE.join('\n')}`, true)).toBe(0);
    // Code: short lines, no full stops, but brackets, '=' and quotes.
    const code = Array.from({ length: 20 }, (_, i) => `    reader, writer = await asyncio.open_connection('127.0.0.1', ${8000 + i})`).join('\n');
    expect(listShare(`Example\n${code}`, true)).toBe(0);
    // A list of fewer than LIST_MIN_LINES entries inside a section is part of its text.
    const few = TOC_ENTRIES.slice(0, LIST_MIN_LINES - 2);
    expect(listShare(`See also\n${PROSE[0]}\n${few.join('\n')}`, true)).toBe(0);
    // Japanese: a table of contents' entries vs sentences that end with 。
    expect(listShare(`目次\n${Array.from({ length: 12 }, (_, i) => `第${i + 1}章 パッケージの管理`).join('\n')}`, true)).toBe(1);
    expect(listShare(`概要\n${Array.from({ length: 12 }, () => 'パッケージはこのように管理します。').join('\n')}`, true)).toBe(0);
  });

  it('leaves the heading line out when the text has one, and only then', () => {
    const body = TOC_ENTRIES.slice(0, LIST_MIN_LINES).join('\n');
    expect(listShare(`A heading line that is a sentence, which would not count.\n${body}`, true)).toBe(1);
    // Without a heading line the first line is an entry like the others.
    expect(listShare(body, false)).toBe(1);
    expect(listShare(body.split('\n').slice(1).join('\n'), false)).toBe(0); // one line short of the minimum
  });

  it('is a share, and the weight follows it', () => {
    const line = fc.oneof(fc.constantFrom(...TOC_ENTRIES, ...PROSE, '', '   ', 'x = f(1)', '。', 'a b c d e f g h i'), fc.string({ maxLength: 40 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.boolean(), (lines, headed) => {
        const text = lines.join('\n');
        const share = listShare(text, headed);
        const weight = listWeight(text, headed);
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
        expect(weight).toBe(share >= LIST_MIN_SHARE ? 1 - LIST_WEIGHT * share : 1);
      }),
    );
  });
});

describe('a table of contents ranks below the section it lists', () => {
  // The words of "asyncio streams example" all stand in a table of contents' entries; the section about
  // streams says them less often, in a longer text. BM25 alone puts the table of contents first.
  const pages = [
    {
      url: 'https://docs.test/contents.html',
      title: 'Python Documentation contents',
      blocks: [
        h(1, 'Python Documentation contents', 'contents'),
        ...['asyncio — Asynchronous I/O', 'Streams', 'Stream example', 'asyncio examples', ...TOC_ENTRIES].map((t) => ({ kind: 'list' as const, text: t })),
      ],
    },
    {
      url: 'https://docs.test/asyncio-stream.html',
      title: 'Streams — Python documentation',
      blocks: [
        h(1, 'Streams', 'streams'),
        p(`${PROSE[0]} ${PROSE[1]} The functions below open connections and start servers; each returns a reader and a writer.`),
        p('The reader reads lines, bytes or exactly n bytes; the writer writes bytes and drains its buffer, then closes the connection when the client is done with it, as the protocol requires.'),
        h(2, 'TCP echo client using streams', 'tcp-echo-client-using-streams'),
        p(`${PROSE[2]} Run the server example first, then this client, from two terminals on one machine.`),
      ],
    },
  ];

  it('links the section about streams first', async () => {
    const src = source(pages);
    const res = await search(src, { q: 'asyncio streams example', limit: 10 }, { now: Date.UTC(2026, 5, 1) });
    expect(res.results.map((r) => r.url)).toEqual(['https://docs.test/asyncio-stream.html', 'https://docs.test/contents.html']);
  });
});
