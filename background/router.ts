/**
 * The message router: checks who sent each message and what shape it has, then answers every request,
 * errors included, as `{ ok, data | error }`. The handler table is typed from the protocol, so a message
 * without a handler does not compile.
 */
import { CONTENT_MESSAGES, ProtocolError, type ErrorBody, type MessageType, type Reply, type Request, type Response } from '../src/protocol.js';
import { normalizeUrl } from '../src/url.js';

export interface SenderInfo {
  /** The extension that sent it (must be ours). */
  id?: string;
  /** The sending frame's URL (from the browser, never from the payload). */
  url?: string;
  tab?: { id?: number; incognito: boolean; url?: string };
  frameId?: number;
}

export interface Context {
  sender: SenderInfo;
  /** The page URL for content messages, normalised, taken from the sender. */
  pageUrl: string | null;
}

export type Handlers = { [K in MessageType]: (payload: Request<K>, ctx: Context) => Promise<Response<K>> };
export type Validators = { [K in MessageType]: (payload: unknown) => Request<K> };

export interface RouterOptions {
  extensionId: string;
  /** e.g. chrome-extension://ID/ */
  extensionOrigin: string;
  handlers: Handlers;
  validators: Validators;
}

function errorBody(e: unknown): ErrorBody {
  if (e instanceof ProtocolError) return { code: e.code, message: e.message };
  if (e instanceof DOMException && e.name === 'QuotaExceededError') return { code: 'quota', message: 'The browser ran out of storage for Reread.' };
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'internal', message };
}

export function createRouter(opts: RouterOptions) {
  const { handlers, validators } = opts;
  function authorize(type: MessageType, sender: SenderInfo): Context {
    if (sender.id !== opts.extensionId) throw new ProtocolError('forbidden', 'messages from other extensions are refused');
    const fromExtensionPage = typeof sender.url === 'string' && sender.url.startsWith(opts.extensionOrigin);
    if (CONTENT_MESSAGES.has(type)) {
      if (fromExtensionPage || !sender.tab || sender.tab.id === undefined) throw new ProtocolError('forbidden', `${type} is only accepted from a content script in a tab`);
      if (sender.frameId !== undefined && sender.frameId !== 0) throw new ProtocolError('forbidden', 'only top frames are captured');
      if (sender.tab.incognito) throw new ProtocolError('forbidden', 'incognito tabs are never captured');
      const pageUrl = normalizeUrl(sender.url ?? '');
      if (!pageUrl) throw new ProtocolError('forbidden', 'only http(s) pages are captured');
      return { sender, pageUrl };
    }
    if (!fromExtensionPage) throw new ProtocolError('forbidden', `${type} is only accepted from Reread's own pages`);
    return { sender, pageUrl: null };
  }

  return async function handle(message: unknown, sender: SenderInfo): Promise<Reply<MessageType>> {
    try {
      if (typeof message !== 'object' || message === null) throw new ProtocolError('bad-request', 'message must be an object');
      const { type, payload } = message as { type?: unknown; payload?: unknown };
      if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(handlers, type)) throw new ProtocolError('unknown-type', `unknown message type: ${typeof type === 'string' ? type.slice(0, 40) : typeof type}`);
      const t = type as MessageType;
      const ctx = authorize(t, sender);
      const valid = validators[t](payload);
      const handler = handlers[t] as (p: unknown, c: Context) => Promise<unknown>;
      const data = await handler(valid, ctx);
      return { ok: true, data } as Reply<MessageType>;
    } catch (e) {
      return { ok: false, error: errorBody(e) };
    }
  };
}
