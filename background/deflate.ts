/** deflate-raw through the platform's CompressionStream (section texts, schema-2 text records). */
async function pipe(bytes: BlobPart, stream: CompressionStream | DecompressionStream): Promise<Response> {
  return new Response(new Blob([bytes]).stream().pipeThrough(stream));
}

export async function deflate(text: string): Promise<Uint8Array> {
  return new Uint8Array(await (await pipe(text, new CompressionStream('deflate-raw'))).arrayBuffer());
}

export async function inflate(z: Uint8Array): Promise<string> {
  return (await pipe(z as Uint8Array<ArrayBuffer>, new DecompressionStream('deflate-raw'))).text();
}
