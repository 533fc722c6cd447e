import { inflateRawText } from '../src/inflate.js';

/** deflate-raw through the platform's CompressionStream (section texts, schema-2 text records). */
async function pipe(bytes: BlobPart, stream: CompressionStream | DecompressionStream): Promise<Response> {
  return new Response(new Blob([bytes]).stream().pipeThrough(stream));
}

export async function deflate(text: string): Promise<Uint8Array> {
  return new Uint8Array(await (await pipe(text, new CompressionStream('deflate-raw'))).arrayBuffer());
}

/**
 * Decoded in JavaScript (src/inflate.ts): the platform's stream costs about 1.6 ms a record whatever its
 * size, most of reading a search's candidate pages. Data it refuses goes through the stream, which
 * decides (and rejects what is really malformed).
 */
export async function inflate(z: Uint8Array): Promise<string> {
  try {
    return inflateRawText(z);
  } catch {
    return (await pipe(z as Uint8Array<ArrayBuffer>, new DecompressionStream('deflate-raw'))).text();
  }
}
