/** Byte streams for the blob store tests: a generated source of any size, and a reader to the end. */

/** `total` bytes in chunks of `size`, each filled with a byte that depends on its offset. */
export async function* chunks(total: number, size: number): AsyncGenerator<Buffer> {
  for (let sent = 0; sent < total; sent += size) yield Buffer.alloc(Math.min(size, total - sent), sent % 251);
}

/** Everything a stream yields, as one buffer. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts);
}
