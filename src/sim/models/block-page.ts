import type { ModelReply } from './model.js';
import { textReply } from './reply.js';

/** The captcha marker every mock block page carries (reCAPTCHA's widget class). */
export const CAPTCHA_MARKER = 'g-recaptcha';

const BLOCK_PAGE = [
  '<!DOCTYPE html>',
  '<html><head><title>Attention Required | Access denied</title></head>',
  '<body><h1>Access denied</h1>',
  '<p>Unusual traffic from your network. Complete the captcha to continue.</p>',
  `<div class="${CAPTCHA_MARKER}" data-sitekey="ratewise-mock"></div>`,
  '</body></html>',
].join('\n');

/** A 403 anti-bot block page (HTML with a captcha marker), answered after `ttfbMs`. */
export function blockPageReply(ttfbMs: number): ModelReply {
  return textReply(403, {
    ttfbMs,
    body: BLOCK_PAGE,
    contentType: 'text/html; charset=utf-8',
    headers: { 'cache-control': 'no-store' },
  });
}

/**
 * Tracks which clients are blocked and until when. A block that expires is
 * lifted; the caller then forgets the client's history so it starts afresh.
 */
export class BlockList {
  readonly #until = new Map<string, number>();

  /** Whether `client` is blocked at `at`; an expired block is lifted and reported via `onLift`. */
  blocked(client: string, at: number, onLift: () => void): boolean {
    const until = this.#until.get(client);
    if (until === undefined) return false;
    if (at < until) return true;
    this.#until.delete(client);
    onLift();
    return false;
  }

  /** Blocks `client` from `at` for `durationMs` (Infinity: for good). */
  block(client: string, at: number, durationMs: number): void {
    this.#until.set(client, at + durationMs);
  }
}
