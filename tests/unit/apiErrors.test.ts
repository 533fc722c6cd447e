/**
 * the extension pages' client (popup/api.ts) when the browser refuses to carry a request.
 * Chrome refuses a runtime message over its size limit (64 MiB of JSON) with "Message length exceeded
 * maximum allowed length."; an import of a large export file (options.tsx sends the whole file in one
 * `import` message; its validator allows 500,000,000 characters) meets it every time.
 */
import { describe, expect, it, vi } from 'vitest';

let failure: Error | null = null;
vi.mock('webextension-polyfill', () => ({
  default: {
    runtime: {
      sendMessage: async () => {
        if (failure) throw failure;
        return { ok: true, data: {} };
      },
    },
  },
}));

const { call, ApiError } = await import('../../popup/api.js');

describe('api client errors', () => {
  it('a request too large for the browser to carry says so (too-large), not "not answering, try again"', async () => {
    failure = new Error('Message length exceeded maximum allowed length.');
    const err = await call('import/part', { token: null, text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    // Trying again cannot help: the same file is refused the same way.
    expect((err as InstanceType<typeof ApiError>).code).toBe('too-large');
    expect((err as Error).message).not.toMatch(/try again/i);
  });
});
