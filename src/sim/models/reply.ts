import type { ModelReply } from './model.js';

const encoder = new TextEncoder();

/** Reason phrases for the statuses models produce, used as plain-text bodies. */
const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  403: 'Forbidden',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** What a reply needs beyond its status; everything defaults to "nothing, at once". */
export interface ReplyParts {
  /** Response headers. @default {} */
  headers?: Record<string, string>;
  /** Time to first byte, ms. @default 0 */
  ttfbMs?: number;
  /** Body drip time, ms. @default 0 */
  bodyMs?: number;
  /** Body text. @default the status's reason phrase */
  body?: string;
  /** Content type of `body`. @default 'text/plain; charset=utf-8' */
  contentType?: string;
}

/** A reply with a text body; `bodyBytes` is the body's UTF-8 length. */
export function textReply(status: number, parts: ReplyParts = {}): ModelReply {
  const body = parts.body ?? REASONS[status] ?? `HTTP ${status}`;
  const contentType = parts.contentType ?? 'text/plain; charset=utf-8';
  const reply = sizedReply(status, encoder.encode(body).length, { ...parts, contentType });
  reply.body = body;
  return reply;
}

/** A reply with a filler body of `bodyBytes` bytes (the server generates the bytes). */
export function sizedReply(
  status: number,
  bodyBytes: number,
  parts: Omit<ReplyParts, 'body'> = {},
): ModelReply {
  return {
    status,
    headers: {
      'content-type': parts.contentType ?? 'application/octet-stream',
      ...parts.headers,
    },
    ttfbMs: parts.ttfbMs ?? 0,
    bodyBytes,
    bodyMs: parts.bodyMs ?? 0,
  };
}

/** Whether a reply answers the request rather than letting it pass on (status >= 400). */
export function isRejection(reply: ModelReply): boolean {
  return reply.status >= 400;
}
