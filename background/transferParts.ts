/**
 * Exports and imports held in the worker's memory while their parts travel (src/transferParts.ts). A
 * transfer left unfinished (the page closed) is dropped after TRANSFER_TTL_MS; one the worker lost (it
 * stopped between two parts) is reported as interrupted, never imported in part.
 */
import { ProtocolError } from '../src/protocol.js';
import { MAX_IMPORT_CHARS, partEnd, TRANSFER_PART_CHARS } from '../src/transferParts.js';

const TRANSFER_TTL_MS = 10 * 60_000;
const INTERRUPTED = 'The transfer was interrupted (Reread’s background restarted or it took too long). Try again.';

export class Transfers {
  private readonly outgoing = new Map<string, { text: string; at: number }>();
  private readonly incoming = new Map<string, { parts: string[]; chars: number; at: number }>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly partChars: number = TRANSFER_PART_CHARS,
    private readonly maxImportChars: number = MAX_IMPORT_CHARS,
  ) {}

  private expire(): void {
    const old = this.clock() - TRANSFER_TTL_MS;
    for (const [k, v] of this.outgoing) if (v.at < old) this.outgoing.delete(k);
    for (const [k, v] of this.incoming) if (v.at < old) this.incoming.delete(k);
  }

  /** Holds an export for its parts to be read; its token. */
  offer(text: string): { token: string; size: number } {
    this.expire();
    const token = crypto.randomUUID();
    this.outgoing.set(token, { text, at: this.clock() });
    return { token, size: text.length };
  }

  /** The part of an export that starts at `from`, and where the next starts (null: that was the last; the export is let go). */
  part(token: string, from: number): { text: string; next: number | null } {
    this.expire();
    const t = this.outgoing.get(token);
    if (!t || from > t.text.length) throw new ProtocolError('bad-request', INTERRUPTED);
    t.at = this.clock();
    const end = partEnd(t.text, from, this.partChars);
    const next = end < t.text.length ? end : null;
    if (next === null) this.outgoing.delete(token);
    return { text: t.text.slice(from, end), next };
  }

  /** Adds a part of an import (the first one with no token); its token. */
  receive(token: string | null, text: string): { token: string; size: number } {
    this.expire();
    if (text.length > this.partChars) throw new ProtocolError('too-large', `a part holds at most ${this.partChars} characters`);
    let t = token === null ? undefined : this.incoming.get(token);
    if (token !== null && !t) throw new ProtocolError('bad-request', INTERRUPTED);
    if (!t) {
      token = crypto.randomUUID();
      t = { parts: [], chars: 0, at: 0 };
      this.incoming.set(token, t);
    }
    if (t.chars + text.length > this.maxImportChars) {
      this.incoming.delete(token!);
      throw new ProtocolError('too-large', `an import holds at most ${this.maxImportChars.toLocaleString('en')} characters`);
    }
    t.parts.push(text);
    t.chars += text.length;
    t.at = this.clock();
    return { token: token!, size: t.chars };
  }

  /** The whole import, let go. */
  take(token: string): string {
    this.expire();
    const t = this.incoming.get(token);
    if (!t) throw new ProtocolError('bad-request', INTERRUPTED);
    this.incoming.delete(token);
    return t.parts.join('');
  }
}
