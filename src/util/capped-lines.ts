import { StringDecoder } from 'node:string_decoder';

/**
 * The lines of a stream of UTF-8 chunks (Buffers or strings), read only as
 * the consumer asks for them, in memory bounded by `maxLength`: a line is
 * kept up to `maxLength + 2` characters and the rest of it is discarded
 * unread, so a line longer than `maxLength` is still yielded longer than
 * `maxLength` (after a `\r` is stripped) and the caller can reject it — also
 * for an endless line, which costs linear time. `\n` and `\r\n` both end a
 * line; a last line without a newline is yielded too.
 */
export async function* readCappedLines(
  input: AsyncIterable<unknown>,
  maxLength: number,
): AsyncGenerator<string> {
  const kept = maxLength + 2;
  const decoder = new StringDecoder('utf8');
  let line = '';
  const take = (piece: string) => {
    if (line.length >= kept) return;
    line += line.length + piece.length > kept ? piece.slice(0, kept - line.length) : piece;
  };
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      take(text.slice(start, end));
      yield stripCr(line);
      line = '';
      start = end + 1;
    }
    take(text.slice(start));
  }
  take(decoder.end());
  if (line !== '') yield stripCr(line);
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
