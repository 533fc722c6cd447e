/** The early part of capture shared by both content scripts: the gate answer and the outbox hello. */
export const EARLY_KEY = '__rereadEarly';

export interface EarlyApi {
  runtime: { sendMessage(message: unknown): Promise<unknown> };
  storage: { local: { get(key: string): Promise<Record<string, unknown>> } };
}

export interface Early {
  /** From the mirrored gate; null when there is no gate yet (first start: ask the background). */
  allowed: Promise<boolean | null>;
  /**
   * This page's outbox nonce (src/outbox.ts): random, held by this isolated world and the background,
   * and visible in session storage while an entry of this page waits to be filed.
   */
  nonce: string;
  /** Whether the background recorded the nonce (false: refused, never answered, or not allowed). */
  hello: Promise<boolean>;
  /** Set once the background said it recorded the nonce. */
  confirmed: boolean;
}

/** Attempts for the hello: the worker may be starting (or be stopped while it answers). */
const HELLO_ATTEMPTS = 10;

export async function hello(api: EarlyApi, nonce: string): Promise<boolean> {
  for (let attempt = 1; attempt <= HELLO_ATTEMPTS; attempt++) {
    try {
      const reply = (await api.runtime.sendMessage({ type: 'page/hello', payload: { nonce } })) as { ok?: boolean; error?: { code?: string } } | undefined;
      if (reply?.ok === true) return true;
      // Refused (not a page Reread may capture, a malformed hello): asking again will not help. Any
      // other failure (the worker stopped while it wrote the record) is worth another try.
      if (reply?.error?.code === 'forbidden' || reply?.error?.code === 'bad-request') return false;
      throw new Error(reply?.error?.code ?? 'no answer');
    } catch {
      // Starting or stopped mid-answer: try again soon (50 ms, doubling, at most a second).
      await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** (attempt - 1))));
    }
  }
  return false;
}

export function startEarly(api: EarlyApi, readGate: () => Promise<boolean | null>): Early {
  const nonce = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  const allowed = readGate().catch(() => null);
  const early: Early = { allowed, nonce, hello: Promise.resolve(false), confirmed: false };
  // With no gate mirrored yet the background is asked by the main script; the hello goes anyway.
  early.hello = allowed.then((ok) => ok !== false && hello(api, nonce)).then((ok) => (early.confirmed = ok));
  return early;
}
