/** Typed requests from extension pages to the background. */
import browser from 'webextension-polyfill';
import type { MessageType, Reply, Request, Response } from '../src/protocol.js';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function call<K extends MessageType>(type: K, payload: Request<K>): Promise<Response<K>> {
  let reply: Reply<K> | undefined;
  try {
    reply = (await browser.runtime.sendMessage({ type, payload })) as Reply<K> | undefined;
  } catch (e) {
    // Chrome carries at most 64 MiB in one message ("Message length exceeded maximum allowed length."):
    // the same request is refused again, so trying again cannot help.
    if (/message length exceeded|too large|too big/i.test(String((e as Error | null)?.message ?? e))) {
      throw new ApiError('too-large', 'This is more than the browser can pass to Reread’s background at once (64 MB).');
    }
    throw new ApiError('unavailable', 'Reread’s background is not answering. Try again in a moment.');
  }
  if (!reply) throw new ApiError('unavailable', 'Reread’s background is not answering. Try again in a moment.');
  if (!reply.ok) throw new ApiError(reply.error.code, reply.error.message);
  return reply.data;
}
