/**
 * A request/answer channel from the worker to Chrome's offscreen document over one named Port, shared
 * by the embedding host and the page reader. Every request (re-)creates the document when it is gone;
 * the first message on a new Port is a hello, retried, because the document's listener may not be
 * registered yet right after creation. Each request carries an id and a deadline; requests in flight
 * fail when the document or the Port goes away (their callers decide whether to try again). Built into
 * the Chrome worker only.
 */
import { ensureOffscreenDocument, registerOffscreenUse } from './offscreenDocument.js';

export type ChannelReply = { id: number; ok: true; data: unknown } | { id: number; ok: false; error: string };
type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface ChannelOptions {
  /** The Port's name, which the document's server listens for. */
  name: string;
  /** Who answers, for error messages: "the reader", "the embedding model". */
  who: string;
  timeoutMs: number;
  /** Parses a message from the document: the reply it settles, or null (ignored, or handled here, like progress events). */
  receive(raw: unknown): ChannelReply | null;
  /** The Port closed: whatever the caller knows about the document's state is stale. */
  onClose?(): void;
}

export class OffscreenChannel<Req extends { id: number; op: string }> {
  private port: chrome.runtime.Port | null = null;
  private connecting: Promise<chrome.runtime.Port> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Time the last connection took (document creation included), for the benchmark. */
  connectMs = 0;

  constructor(private readonly o: ChannelOptions) {
    // The idle close waits while a request is in flight.
    registerOffscreenUse(() => this.pending.size > 0);
  }

  /** The open Port, if any (a request made on it fails if it has closed since). */
  get current(): chrome.runtime.Port | null {
    return this.port;
  }

  /** Sends a request on the open Port, or opens one first. */
  async request(req: DistributiveOmit<Req, 'id'>): Promise<unknown> {
    return this.post(await this.connect(), req);
  }

  post(target: chrome.runtime.Port, req: DistributiveOmit<Req, 'id'>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.o.who} did not answer in time`));
      }, this.o.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        target.postMessage({ ...req, id });
      } catch (e) {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  connect(): Promise<chrome.runtime.Port> {
    if (this.port) return Promise.resolve(this.port);
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<chrome.runtime.Port> {
    const t = performance.now();
    let lastError = `${this.o.who} did not answer`;
    for (let attempt = 0; attempt < 40; attempt++) {
      await ensureOffscreenDocument();
      const p = chrome.runtime.connect({ name: this.o.name });
      this.port = p;
      p.onMessage.addListener(this.onMessage);
      p.onDisconnect.addListener(() => {
        if (this.port === p) this.drop(`${this.o.who}: its page closed`);
      });
      try {
        await this.post(p, { op: 'hello' } as DistributiveOmit<Req, 'id'>);
        this.connectMs = performance.now() - t;
        return p;
      } catch (e) {
        lastError = e instanceof Error ? e.message : String(e);
        if (this.port === p) this.port = null;
        p.disconnect();
        await new Promise((r) => setTimeout(r, 25 * Math.min(attempt + 1, 8)));
      }
    }
    throw new Error(lastError);
  }

  private drop(reason: string): void {
    this.port = null;
    this.o.onClose?.();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
      this.pending.delete(id);
    }
  }

  private readonly onMessage = (raw: unknown): void => {
    const m = this.o.receive(raw);
    if (!m) return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) p.resolve(m.data);
    else p.reject(new Error(m.error));
  };
}
