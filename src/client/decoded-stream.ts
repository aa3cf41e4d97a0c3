import { ResponseTooLargeError } from '../errors.js';
import type { DecoderChain } from './content-decoding.js';
import type { ResponseTap } from './response-tap.js';

/** Decoded bytes queued in the web stream before decoding pauses. */
const HIGH_WATER_BYTES = 262_144;
/**
 * Wire bytes waiting for the decoder before the download pauses; it resumes
 * once the decoder has taken them all (pausing undici per chunk is costly:
 * see `web-response.ts`).
 */
const INPUT_HIGH_WATER_BYTES = 262_144;

/**
 * The decoded body of a compressed response as a web stream, for
 * `client.fetch`: the tap's wire bytes go through the decoders with
 * backpressure at every step (a slow reader pauses the decoder, which pauses
 * the download), so memory stays at a few buffers whatever the ratio. Past
 * `maxBodyBytes` of decoded bytes the stream fails with a
 * {@link ResponseTooLargeError} and the download is aborted: a few KB of
 * brotli that would decode to a gigabyte costs at most `maxBodyBytes`.
 */
export function decodedStream(
  tap: ResponseTap,
  chain: DecoderChain,
  maxBodyBytes: number,
  url: string,
): ReadableStream<Uint8Array> {
  const { input, output } = chain;
  let decoded = 0;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const fail = (error: unknown) => {
          output.destroy();
          tap.abort(error instanceof Error ? error : new Error(String(error)));
          ignoreClosed(() => controller.error(error));
        };
        output.on('data', (chunk: Buffer) => {
          decoded += chunk.length;
          if (decoded > maxBodyBytes) {
            fail(new ResponseTooLargeError(url, maxBodyBytes, decoded, true));
            return;
          }
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) output.pause();
        });
        output.on('end', () => ignoreClosed(() => controller.close()));
        output.on('error', fail);
        input.on('drain', () => tap.resume());
        tap.consume({
          data: (chunk) => {
            input.write(chunk);
            return input.writableLength < INPUT_HIGH_WATER_BYTES;
          },
          end: () => input.end(),
          error: fail,
        });
      },
      pull() {
        output.resume();
      },
      cancel(reason) {
        output.destroy();
        tap.abort(
          reason instanceof Error ? reason : new DOMException('body cancelled', 'AbortError'),
        );
      },
    },
    { highWaterMark: HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/** Calls `call`, ignoring the error a closed or cancelled web stream throws. */
export function ignoreClosed(call: () => void): void {
  try {
    call();
  } catch {
    // already closed or cancelled
  }
}
