/**
 * The Options page's side of export and import (src/transferParts.ts): neither ever holds the file as one
 * string. An export's parts become Blobs as they arrive and the file is a Blob made of them (the browser
 * may keep a large one on disk); an import reads the file in byte slices and sends them as parts, and
 * the background writes each page as its lines arrive.
 */
import type { MessageType, Request, Response } from '../src/protocol.js';
import { fileParts, FILE_SLICE_BYTES, TRANSFER_PART_CHARS } from '../src/transferParts.js';
import { plural } from './format.js';

/** popup/api.ts `call` (a parameter, so the tests can answer in its place). */
export type Call = <K extends MessageType>(type: K, payload: Request<K>) => Promise<Response<K>>;

export interface ExportedFile {
  blob: Blob;
  /** Pages in the file. */
  pages: number;
  /** Pages listed when the export began (more than `pages` when some were forgotten meanwhile). */
  listed: number;
}

/**
 * An export that could not be read to its end: no file is made (a file cut short would import as a
 * smaller profile, and nothing would say so). Its message says why and that the export must be started
 * again; the Options page offers to.
 */
export class ExportStopped extends Error {}

/**
 * Reads an export from the background, part by part, into a Blob. A part whose answer was lost on its
 * way (`unavailable`: the message channel closed, the background did not answer) is asked for once
 * more: the background answers a part asked again with the same text (background/transferParts.ts).
 * Any other failure, or a second loss, stops the export with ExportStopped.
 */
export async function exportToBlob(call: Call, vectors: boolean, progress: (message: string) => void = () => {}): Promise<ExportedFile> {
  const { token, pages: listed } = await call('export', { vectors });
  const parts: Blob[] = [];
  let pages = 0;
  const ask = async (part: number): Promise<Response<'export/part'>> => {
    try {
      return await call('export/part', { token, part });
    } catch (e) {
      if ((e as { code?: unknown } | null)?.code !== 'unavailable') throw e;
      return await call('export/part', { token, part });
    }
  };
  for (let part: number | null = 0; part !== null; ) {
    let got: Response<'export/part'>;
    try {
      got = await ask(part);
    } catch (e) {
      let reason = String((e as Error | null)?.message ?? e).replace(/\s*Try again[^.]*\.?$/i, '').trim();
      if (reason && !/[.!?]$/.test(reason)) reason += '.';
      // A part holds a batch of whole pages' lines and can be cut in several: every page may be read while
      // the file is not yet whole ("after 150 pages of 150" said the opposite of "stopped").
      const where = pages < listed ? `before the end, after ${plural(pages, 'page')} of ${listed.toLocaleString()}` : 'before the file was complete';
      throw new ExportStopped(`Export stopped ${where}.${reason ? ` ${reason}` : ''} No file was saved. Start the export again.`);
    }
    // A Blob at once: the part's string can go (a gigabyte of parts held as strings is the page's memory).
    parts.push(new Blob([got.text]));
    pages = got.pages;
    part = got.next;
    if (part !== null) progress(`Exporting… ${pages.toLocaleString()} of ${plural(listed, 'page')}`);
  }
  return { blob: new Blob(parts, { type: 'application/x-ndjson' }), pages, listed };
}

/** What the Options page says once an export is saved. */
export function exportedMessage({ pages, listed }: Pick<ExportedFile, 'pages' | 'listed'>): string {
  const gone = listed - pages;
  return `Exported ${plural(pages, 'page')}.${gone > 0 ? ` ${plural(gone, 'page')} forgotten while the export ran ${gone === 1 ? 'is' : 'are'} not in the file.` : ''}`;
}

/** A file to import: what the page reads of a File. */
export type ImportFile = Pick<Blob, 'size' | 'slice'>;

export interface ImportOptions {
  partChars?: number;
  sliceBytes?: number;
  progress?: (message: string) => void;
}

/** An import that stopped part-way: its message says how much of the file is in (the Options page shows it as the outcome). */
export class ImportStopped extends Error {}

/**
 * Sends a file to the background in parts, read a slice at a time, and ends the import. A failure once
 * pages were written says how many are in and how to finish (the background keeps what it wrote:
 * importing the file again adds the rest, and the pages already in are not added twice).
 */
export async function importFromFile(file: ImportFile, call: Call, opts: ImportOptions = {}): Promise<Response<'import'>> {
  const progress = opts.progress ?? (() => {});
  const read = async (start: number, end: number) => new Uint8Array(await file.slice(start, end).arrayBuffer());
  let token: string | null = null;
  let last: Response<'import/part'> | null = null;
  let sent = false;
  try {
    for await (const text of fileParts(file.size, read, new TextDecoder(), opts.partChars ?? TRANSFER_PART_CHARS, opts.sliceBytes ?? FILE_SLICE_BYTES)) {
      sent = true;
      last = await call('import/part', { token, text });
      token = last.token;
      progress(`Importing… ${last.read.toLocaleString()}${last.listed !== null ? ` of ${plural(last.listed, 'page')}` : ' pages'} read`);
    }
    // An empty file: one empty part, which the import reads as no header.
    token ??= (await call('import/part', { token: null, text: '' })).token;
    return await call('import', { token });
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    // A request the background refused before taking anything (it no longer knew the import, or the
    // part was too long) wrote nothing; any other failure after a part went may have come part-way
    // through it (the worker stopped as it wrote, the storage ran out): its pages may be in too.
    const more = sent && code !== 'bad-request' && code !== 'too-large';
    const n = last?.pages ?? 0;
    if (!n && !more) throw e;
    // "Try again" alone would start the file over for nothing: what to do is said below.
    let reason = String((e as Error | null)?.message ?? e).replace(/\s*Try again[^.]*\.?$/i, '').trim();
    if (reason && !/[.!?]$/.test(reason)) reason += '.';
    const listed = last?.listed ?? null;
    const count = listed !== null ? `${n.toLocaleString()} of the ${plural(listed, 'page')} in the file` : plural(n, 'page');
    const imported = n ? `${more ? 'At least ' : ''}${count} ${n === 1 ? 'was' : 'were'} imported.` : 'Some of its pages may have been imported.';
    throw new ImportStopped(`Import stopped part-way.${reason ? ` ${reason}` : ''} ${imported} Import the file again to finish: pages already imported are not added twice.`);
  }
}
