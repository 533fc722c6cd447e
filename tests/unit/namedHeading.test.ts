/**
 * A query that names a heading links to that heading (src/namedHeading.ts, src/search.ts
 * liftNamedHeadings): what "names" means, and each way the card reaches the heading: the heading's own
 * section among the candidates, a merged sub-section, the id of a heading above the section
 * (anchor.above), else a text fragment. Pages with a heading the query names come first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { declaredName, namedHeadingQuery, namedInPath, namedLineIn, namesAt, namesHeading, namesLine, NAMED_SHARE } from '../../src/namedHeading.js';
import { search } from '../../src/search.js';
import { h, p, source } from './pagesSource.js';

const names = (query: string, heading: string) => {
  const q = namedHeadingQuery(query);
  return !!q && namesHeading(q, heading);
};

describe('namesHeading', () => {
  it('takes a heading typed without its numbering, punctuation, case or accents', () => {
    expect(names('Updating the package', 'Chapter 8. Updating the package')).toBe(true);
    expect(names('Envoi de paquet', 'Chapitre 9. Envoi de paquet')).toBe(true);
    expect(names('user contributions', '26 User Contributions')).toBe(true);
    expect(names('git-am(1) Manual Page', 'git-am(1) Manual Page')).toBe(true);
    expect(names('Wo finde ich mehr Informationen über Linux-Pakete für Debian', '10.5. Wo finde ich mehr Informationen über Linux-Pakete für Debian?')).toBe(true);
    expect(names('resume', 'Résumé')).toBe(true);
    expect(names('Porting to Python 3.8', 'Porting to Python 3.8')).toBe(true);
  });

  it('takes a definition by its name: a signature’s parameters do not count against the share', () => {
    expect(names('codecs.IncrementalEncoder', "class codecs.IncrementalEncoder(errors='strict')")).toBe(true);
    expect(names('fs.readFile', 'fs.readFile(path[, options], callback)')).toBe(true);
    expect(names('fs.readFile(path)', 'fs.readFile(path[, options], callback)')).toBe(true);
    expect(names('readFile', 'fsPromises.readFile(path[, options])')).toBe(false);
  });

  it('takes scripts without spaces as runs of characters', () => {
    expect(names('互換性の問題', '第4章 互換性の問題')).toBe(true);
    expect(names('パッケージのビルド', '第6章パッケージのビルド')).toBe(true);
    expect(names('Debian 软件包管理工具', '第 8 章 Debian 软件包管理工具')).toBe(true);
    expect(names('互換性', '第4章 互換性の問題')).toBe(false);
  });

  it('refuses a query that is a small part of the heading', () => {
    expect(names('git', 'git-am(1) Manual Page')).toBe(false);
    expect(names('package', 'Chapter 8. Updating the package')).toBe(false);
    expect(names('the kernel', 'Debian and the kernel in a nutshell')).toBe(false);
  });

  it('refuses words that are not adjacent and in order in the heading', () => {
    expect(names('package updating', 'Updating the package')).toBe(false);
    expect(names('updating package', 'Updating the package')).toBe(false);
    expect(names('updating packages', 'Updating the package')).toBe(false);
    // Whole words only.
    expect(names('pack', 'Pack')).toBe(true);
    expect(names('pack', 'Packing')).toBe(false);
  });

  it('needs a word typed with punctuation inside to be in the heading as typed', () => {
    expect(names('--untracked-cache', 'UNTRACKED CACHE')).toBe(false);
    expect(names('fs.readFile', 'fs readFile')).toBe(false);
    expect(names('fs.readFile', 'fsPromises.readFile(path)')).toBe(false);
    expect(names("vers l'archive", 'Envoi vers l’archive')).toBe(true);
    // Sentence punctuation and brackets around a word are not part of it.
    expect(names('"Updating the package"?', 'Chapter 8. Updating the package')).toBe(true);
    // A heading copied from the page with its permalink mark ("#" after Node's and MkDocs' headings).
    expect(names('File URL paths#', 'File URL paths')).toBe(true);
    expect(names('ERR_HTTP2_ORIGIN_LENGTH#', 'ERR_HTTP2_ORIGIN_LENGTH')).toBe(true);
    expect(names('Changelog ¶', 'Changelog')).toBe(true);
  });

  it('has nothing to compare in an empty, punctuation-only or overlong query', () => {
    expect(namedHeadingQuery('')).toBeNull();
    expect(namedHeadingQuery('  ?!  ')).toBeNull();
    expect(namedHeadingQuery('a')).toBeNull();
    expect(namedHeadingQuery('word '.repeat(60))).toBeNull();
    expect(names('x y', '')).toBe(false);
  });

  it('a heading names itself, and every heading of a path names itself there (property)', () => {
    const word = fc.stringMatching(/^[A-Za-zÀ-ÿ]{2,9}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), fc.array(fc.array(word, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), (heading, path) => {
        const text = heading.join(' ');
        expect(names(text, text)).toBe(true);
        expect(names(text, `12.3. ${text}`)).toBe(true);
        const headings = path.map((w) => w.join(' '));
        const q = namedHeadingQuery(headings[headings.length - 1]!)!;
        expect(namedInPath(q, headings)).toBe(headings.length - 1);
      }),
    );
  });

  it('never names a heading with less than NAMED_SHARE of its letters (property)', () => {
    const word = fc.stringMatching(/^[a-z]{2,9}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 2, maxLength: 8 }), fc.nat(7), (ws, k) => {
        const heading = ws.join(' ');
        const query = ws.slice(0, 1 + (k % ws.length)).join(' ');
        const share = query.replace(/ /g, '').length / heading.replace(/ /g, '').length;
        if (share < NAMED_SHARE) expect(names(query, heading)).toBe(false);
        else expect(names(query, heading)).toBe(true);
      }),
    );
  });
});

describe('a member typed with its type (rustdoc, Javadoc)', () => {
  const at = (query: string, path: string[]) => {
    const q = namedHeadingQuery(query);
    return !!q && namesAt(q, path);
  };
  const rustdoc = ['Struct std::net::UdpSocket', 'Implementations', 'impl UdpSocket'];
  const sendTo = 'pub fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], addr: A) -> Result<usize>';

  it('reads the name a signature or a bare-name heading declares', () => {
    expect(declaredName(sendTo)).toBe('send_to');
    expect(declaredName('pub fn open<P: AsRef<Path>>(path: P) -> Result<File>')).toBe('open');
    expect(declaredName('pub const fn is_ipv4(&self) -> bool')).toBe('is_ipv4');
    expect(declaredName('setBasedir')).toBe('setbasedir');
    expect(declaredName('impl<T> From<T> for T')).toBe(null);
    expect(declaredName('Examples')).toBe('examples');
  });

  it('names the member’s signature under a heading that names the type', () => {
    expect(at('UdpSocket::send_to', [...rustdoc, sendTo])).toBe(true);
    expect(at('std::net::UdpSocket::send_to', [...rustdoc, sendTo])).toBe(true);
    expect(at('udpsocket::send_to()', [...rustdoc, sendTo])).toBe(true);
    expect(at('Project.setBasedir', ['Class Project', 'Method Details', 'setBasedir'])).toBe(true);
    // The signature alone does not carry the type (namesHeading does not take it).
    expect(namesHeading(namedHeadingQuery('UdpSocket::send_to')!, sendTo)).toBe(false);
  });

  it('does not name another type’s member, another member, or a sub-section below the signature', () => {
    expect(at('TcpStream::send_to', [...rustdoc, sendTo])).toBe(false);
    expect(at('UdpSocket::recv_from', [...rustdoc, sendTo])).toBe(false);
    expect(at('UdpSocket::send_to', [...rustdoc, sendTo, 'Examples'])).toBe(false);
    // The type must be above the heading, not the heading itself.
    expect(at('UdpSocket::send_to', [sendTo])).toBe(false);
    // A plain word or a phrase is no member.
    expect(namedHeadingQuery('send_to')!.member).toBe(null);
    expect(namedHeadingQuery('send to a socket')!.member).toBe(null);
  });

  it('the card links to the member’s signature, not to its Examples sub-section whose code repeats the name', async () => {
    const url = 'https://doc.test/std/net/struct.UdpSocket.html';
    const src = source([
      {
        url,
        title: 'UdpSocket in std::net - Rust',
        blocks: [
          h(1, 'Struct std::net::UdpSocket', 'main'),
          p(`A UDP socket. ${filler(40, 'intro')}`),
          h(2, 'Implementations', 'implementations'),
          h(3, 'impl UdpSocket', 'impl'),
          h(4, sendTo, 'method.send_to'),
          // Under 20 words: merged into the page's first section (rustdoc's short method descriptions).
          p('Sends data on the socket to the given address. On success, returns the number of bytes written.'),
          h(5, 'Examples', 'examples-4'),
          p(`use std::net::UdpSocket; let socket = UdpSocket::bind("127.0.0.1:34254").expect("couldn't bind"); socket.send_to(&[0; 10], "127.0.0.1:4242").expect("couldn't send_to"); UdpSocket send_to UdpSocket send_to. ${filler(20, 'ex')}`),
          h(4, 'pub fn recv_from(&self, buf: &mut [u8]) -> Result<(usize, SocketAddr)>', 'method.recv_from'),
          p(`Receives a single datagram message on the socket. ${filler(30, 'recv')}`),
        ],
      },
    ]);
    const [card] = (await search(src, { q: 'UdpSocket::send_to', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#method.send_to`);
  });
});

describe('namesLine: a term that opens its definition', () => {
  const line = (query: string, text: string) => {
    const q = namedHeadingQuery(query);
    return !!q && namesLine(q, text);
  };

  it('is a line that opens with the query and is mostly the query', () => {
    expect(line('--only-matching', '--only-matching')).toBe(true);
    expect(line('sendemail.smtpDomain', 'sendemail.smtpDomain')).toBe(true);
    expect(line('--apply', '--apply')).toBe(true);
  });

  it('is not a mention: inside a synopsis (brackets count for lines), mid-line, or in prose', () => {
    expect(line('--only-matching', '[-o | --only-matching]')).toBe(false);
    expect(line('--only-matching', 'git grep [-a | --text] [-I] [-o | --only-matching] [-w | --word-regexp]')).toBe(false);
    expect(line('fetch branches from other repositories', 'You can also fetch branches from other repositories; so')).toBe(false);
    expect(line('x y', 'x y '.repeat(80))).toBe(false);
  });

  it('is looked for in a section below its heading line', () => {
    const q = namedHeadingQuery('--unresolve')!;
    expect(namedLineIn(q, { headingPath: ['OPTIONS'], text: 'OPTIONS\n--add\nAdds the file.\n--unresolve\nRestores the unmerged state.' })).toBe(true);
    expect(namedLineIn(q, { headingPath: ['SYNOPSIS'], text: 'SYNOPSIS\ngit update-index [--add] [--unresolve]' })).toBe(false);
    expect(namedLineIn(q, { headingPath: ['--unresolve'], text: '--unresolve\nsee above' })).toBe(false);
  });
});

// Filler that holds none of the query words.
const filler = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i % 7}`).join(' ');

describe('a card links to the heading its query names', () => {
  const url = 'https://docs.test/update.html';
  // "Updating the package": the chapter's introduction is short; 8.2's body says "updating" and
  // "package" over and over, so by the words alone 8.2 is the page's best section.
  const chapter = [
    h(1, 'Chapter 8. Updating the package', 'update'),
    p(`This chapter is short. ${filler(30, 'intro')}`),
    h(2, '8.1. New revision', 'newrevision'),
    p(`${filler(40, 'rev')}`),
    h(2, '8.2. Reminders for updating a package', 'reminders'),
    p(`When updating the package, check the package. Updating the package twice: package, package, updating. ${filler(30, 'rem')}`),
  ];

  it('lifts the heading’s own section to the first place of its page, the section it replaced next', async () => {
    const src = source([{ url, title: 'Updating', blocks: chapter }]);
    const [card] = (await search(src, { q: 'Updating the package', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#update`);
    expect(card!.headingPath).toEqual(['Chapter 8. Updating the package']);
    expect(card!.more.map((m) => m.href)).toContain(`${url}#reminders`);
    // Words that name no heading: the best section, as before.
    const [other] = (await search(src, { q: 'reminders updating package', limit: 5 })).results;
    expect(other!.href).toBe(`${url}#reminders`);
  });

  it('links to a heading above the section by its id when the heading has no section of its own', async () => {
    const src = source([
      {
        url,
        title: 'Scheduling',
        blocks: [
          h(1, 'Job Scheduling', 'sched'),
          h(2, 'Queues', 'queues'),
          p(`Jobs wait in queues; scheduling a job puts it in one. Scheduling job after job. ${filler(30, 'q')}`),
          h(2, 'Limits', 'limits'),
          p(filler(40, 'lim')),
        ],
      },
    ]);
    const [card] = (await search(src, { q: 'job scheduling', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#sched`);
    expect(card!.headingPath).toEqual(['Job Scheduling']);
    expect(card!.section).toBe('Job Scheduling');
    // The snippet is still the passage that matched, right under the heading.
    expect(card!.snippet.map((s) => s.text).join('')).toContain('scheduling');
  });

  it('links by a text fragment when that heading has no id', async () => {
    const src = source([{ url, title: 'Manual', blocks: [h(1, 'frob(1) Manual Page'), h(2, 'NAME', 'name'), p(`frob - frob the manual page ${filler(30, 'n')}`), h(2, 'OPTIONS', 'opts'), p(filler(40, 'o'))] }]);
    const [card] = (await search(src, { q: 'frob(1) Manual Page', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#:~:text=frob(1)%20Manual%20Page`);
    const [short] = (await search(src, { q: 'frob', limit: 5 })).results;
    expect(short!.href).toBe(`${url}#name`);
  });

  it('links to a merged sub-section, with its snippet from there', async () => {
    const src = source([
      {
        url,
        title: 'Handlers',
        blocks: [
          h(1, 'Handlers', 'top'),
          p(`${filler(40, 'top')} cookie processor objects are described below and cookie processor objects matter.`),
          h(2, 'CookieProcessor Objects', 'cookie-objects'),
          p('Objects that keep cookies.'),
          h(2, 'Other Objects', 'other'),
          p(filler(40, 'oth')),
        ],
      },
    ]);
    const [card] = (await search(src, { q: 'CookieProcessor Objects', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#cookie-objects`);
    expect(card!.section).toBe('CookieProcessor Objects');
    expect(card!.snippet.map((s) => s.text).join('')).toContain('keep cookies');
  });

  it('links to its own heading, not to a sub-section merged into it whose words the snippet shows', async () => {
    const src = source([
      {
        url,
        title: 'EJB',
        blocks: [
          h(1, 'EJB Tasks User Manual', 'top'),
          p(filler(40, 'top')),
          // Too small for a section of its own: merged into the manual's, and it holds the query's words.
          h(2, 'Vendors', 'vendors'),
          p('Each vendor has an EJB tasks user manual.'),
          h(2, 'Other', 'other'),
          p(filler(40, 'oth')),
        ],
      },
    ]);
    const [card] = (await search(src, { q: 'EJB Tasks User Manual', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#top`);
    expect(card!.section).toBe('EJB Tasks User Manual');
    // Words that name no heading still link where the passage is.
    const [passage] = (await search(src, { q: 'vendor EJB manual', limit: 5 })).results;
    expect(passage!.href).toBe(`${url}#vendors`);
  });

  it('links an identifier to the section where a line opens with it (its definition), not to a mention', async () => {
    const src = source([
      {
        url,
        title: 'git-grep(1)',
        blocks: [
          h(1, 'git-grep(1)', 'top'),
          h(2, 'SYNOPSIS', 'synopsis'),
          { kind: 'code', text: 'git grep [-a | --text] [-o | --only-matching] [-w | --word-regexp]' },
          h(2, 'DESCRIPTION', 'description'),
          p(`Look for specified patterns in the tracked files. ${filler(40, 'desc')}`),
          h(2, 'OPTIONS', 'options'),
          p('--text'),
          p(`Process binary files as if they were text. ${filler(30, 'text')}`),
          p('--only-matching'),
          p(`Print only the matched parts of a matching line, each such part on its own output line. ${filler(30, 'om')}`),
        ],
      },
    ]);
    const [card] = (await search(src, { q: '--only-matching', limit: 5 })).results;
    expect(card!.href).toBe(`${url}#options`);
    expect(card!.snippet.map((s) => s.text).join('')).toContain('Print only the matched parts');
  });

  it('puts the page whose heading the query names before an index page that repeats the words', async () => {
    // An index page lists the section's title as the link text of every entry: by the words alone it wins.
    const entries = Array.from({ length: 40 }, (_, i) => `option_${i} Alphabetical list of main options`).join(' ');
    const pages = [
      { url: 'https://docs.test/option-index.html', title: 'Option Index', blocks: [h(1, 'Option Index', 'top'), h(2, 'A', 'a'), p(entries)] },
      {
        url: 'https://docs.test/main-configuration.html',
        title: 'Main configuration',
        blocks: [h(1, 'Main configuration', 'main'), p(filler(60, 'intro')), h(2, '23. Alphabetical list of main options', 'SECTalomo'), p(`Those options that undergo string expansion are marked. ${filler(60, 'opt')}`)],
      },
    ];
    const src = source(pages);
    const res = await search(src, { q: 'Alphabetical list of main options', limit: 5 });
    expect(res.results.map((r) => r.url)).toEqual(['https://docs.test/main-configuration.html', 'https://docs.test/option-index.html']);
    expect(res.results[0]!.href).toBe('https://docs.test/main-configuration.html#SECTalomo');
    // Words that name no heading keep the order the words give.
    const words = await search(src, { q: 'main options list', limit: 5 });
    expect(words.results[0]!.url).toBe('https://docs.test/option-index.html');
  });

  it('leaves the order of pages as it was', async () => {
    const pages = [
      { url: 'https://a.test/one.html', title: 'One', blocks: chapter },
      { url: 'https://b.test/two.html', title: 'Two', blocks: [h(1, 'Updating the package quickly', 'quick'), p(`Updating the package: ${filler(30, 'two')}`)] },
    ];
    const src = source(pages);
    const named = await search(src, { q: 'Updating the package', limit: 5 });
    const plain = await search(src, { q: 'updating package', limit: 5 });
    expect(named.results.map((r) => r.url).sort()).toEqual(plain.results.map((r) => r.url).sort());
    expect(named.results.find((r) => r.url === 'https://a.test/one.html')!.href).toBe('https://a.test/one.html#update');
  });
});
