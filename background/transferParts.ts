/**
 * Exports and imports under way while their parts travel (src/transferParts.ts). An export is read from
 * the index a batch of pages at a time as its parts are asked for; an import is written page by page
 * as its parts arrive (background/transfer.ts). Neither is held whole.
 *
 * A transfer left unfinished (the page closed) is dropped after TRANSFER_TTL_MS; one the worker lost (it
 * stopped between two parts) is reported as interrupted. An import cut short keeps the pages written
 * before: the Options page says how many, and importing the file again finishes it.
 */
import { ProtocolError } from '../src/protocol.js';
import { OutgoingLines, TRANSFER_PART_CHARS } from '../src/transferParts.js';
import type { ImportProgress, ImportResult } from './transfer.js';

const TRANSFER_TTL_MS = 10 * 60_000;
const INTERRUPTED = 'The transfer was interrupted (Reread’s background restarted or it took too long). Try again.';

/** Where an export's lines come from (background/transfer.ts JsonlExport). */
export interface ExportSource {
  /** The next lines (each with its line break), null when there are no more. */
  next(): Promise<string[] | null>;
  /** Pages written out so far. */
  readonly written: number;
}

/** Where an import's parts go (background/transfer.ts JsonlImport). */
export interface ImportSink {
  push(text: string): Promise<ImportProgress>;
  end(): Promise<ImportResult>;
  /** No more parts will come. */
  abandon(): void;
}

type ExportPart = { text: string; next: number | null; pages: number };

interface Outgoing {
  source: ExportSource;
  queue: OutgoingLines;
  done: boolean;
  /** The part to be asked for next. */
  part: number;
  /**
   * The part asked for last and its answer (being read, or read): asked again, it is answered again
   * with the same text. The answer to a part can be lost on its way (the Options page's message
   * channel closed as the worker answered) after this side moved on; without it, the export was lost.
   */
  last: { part: number; reply: Promise<ExportPart> } | null;
  /** Its last part was read: nothing more is read, the last part can still be asked again until expiry. */
  ended: boolean;
  at: number;
  /** The most characters waiting at once (tests: an export is never held whole). */
  peak: number;
}

interface Incoming {
  sink: ImportSink;
  busy: boolean;
  at: number;
}

export class Transfers {
  private readonly outgoing = new Map<string, Outgoing>();
  private readonly incoming = new Map<string, Incoming>();
  /** Exports whose next part is being read. */
  private readonly reading = new Set<Outgoing>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly partChars: number = TRANSFER_PART_CHARS,
  ) {}

  private expire(): void {
    const old = this.clock() - TRANSFER_TTL_MS;
    for (const [k, v] of this.outgoing) if (!this.reading.has(v) && v.at < old) this.outgoing.delete(k);
    for (const [k, v] of this.incoming)
      if (!v.busy && v.at < old) {
        this.incoming.delete(k);
        v.sink.abandon();
      }
  }

  /** Holds an export for its parts to be read; its token. */
  offer(source: ExportSource): { token: string } {
    this.expire();
    const token = crypto.randomUUID();
    this.outgoing.set(token, { source, queue: new OutgoingLines(), done: false, part: 0, last: null, ended: false, at: this.clock(), peak: 0 });
    return { token };
  }

  /**
   * Part `part` of an export (parts are read in order, from 0), the next part's number (null: that was
   * the last) and the pages written out so far. Reads pages only until a part is full: at most a part
   * and one batch of pages wait here (and the part given last, for a re-ask). The part asked for last
   * may be asked again, while it is read or after, and is the same text; any other part out of order
   * is refused. An export is let go at expiry (TRANSFER_TTL_MS after its last part was asked for).
   */
  async part(token: string, part: number): Promise<ExportPart> {
    this.expire();
    const t = this.outgoing.get(token);
    if (!t) throw new ProtocolError('bad-request', INTERRUPTED);
    t.at = this.clock();
    if (t.last?.part === part) return t.last.reply;
    // Another part than the next (an earlier one, or two at once) would leave a gap in the file.
    if (this.reading.has(t) || t.ended || part !== t.part) throw new ProtocolError('bad-request', `part ${part} asked for, part ${t.ended ? 'none' : t.part} is next`);
    const reply = this.read(token, t);
    t.last = { part, reply };
    // (Whoever asked is answered by `reply`; a failure is not also unhandled here.)
    reply.catch(() => undefined);
    return reply;
  }

  private async read(token: string, t: Outgoing): Promise<ExportPart> {
    this.reading.add(t);
    try {
      while (!t.done && t.queue.chars < this.partChars) {
        const lines = await t.source.next();
        if (lines === null) t.done = true;
        else for (const l of lines) t.queue.push(l);
        t.peak = Math.max(t.peak, t.queue.chars);
      }
    } catch (e) {
      this.outgoing.delete(token);
      throw e;
    } finally {
      this.reading.delete(t);
      t.at = this.clock();
    }
    const text = t.queue.take(this.partChars);
    const last = t.done && t.queue.chars === 0;
    if (last) t.ended = true;
    else t.part++;
    return { text, next: last ? null : t.part, pages: t.source.written };
  }

  /** The most characters an export held waiting (tests). */
  peakChars(token: string): number | undefined {
    return this.outgoing.get(token)?.peak;
  }

  /**
   * Takes a part of an import (the first one with no token: `open` starts it) and writes the pages it
   * completes; the token and the import's progress. A part that fails ends the import (what was written
   * before stays).
   */
  async receive(token: string | null, text: string, open: () => ImportSink): Promise<{ token: string } & ImportProgress> {
    this.expire();
    if (text.length > this.partChars) throw new ProtocolError('too-large', `a part holds at most ${this.partChars} characters`);
    let t = token === null ? undefined : this.incoming.get(token);
    if (token !== null && !t) throw new ProtocolError('bad-request', INTERRUPTED);
    if (t?.busy) throw new ProtocolError('bad-request', 'the previous part is still being imported');
    if (!t) {
      token = crypto.randomUUID();
      t = { sink: open(), busy: false, at: this.clock() };
      this.incoming.set(token, t);
    }
    t.busy = true;
    try {
      const progress = await t.sink.push(text);
      return { token: token!, ...progress };
    } catch (e) {
      this.incoming.delete(token!);
      t.sink.abandon();
      throw e;
    } finally {
      t.busy = false;
      t.at = this.clock();
    }
  }

  /** The import is all sent: its last page is written; what it did. */
  async finish(token: string): Promise<ImportResult> {
    this.expire();
    const t = this.incoming.get(token);
    if (!t || t.busy) throw new ProtocolError('bad-request', INTERRUPTED);
    this.incoming.delete(token);
    try {
      return await t.sink.end();
    } finally {
      t.sink.abandon();
    }
  }
}
