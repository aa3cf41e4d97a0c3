import { RatewiseError } from '../errors.js';

/** A response body was larger than the client's `maxBodyBytes`. */
export class ResponseTooLargeError extends RatewiseError {
  /** The cap that was exceeded, bytes. */
  readonly maxBodyBytes: number;

  constructor(url: string, maxBodyBytes: number, seen: number) {
    super(
      'ERR_RATEWISE_RESPONSE_TOO_LARGE',
      `${url}: response body of ${seen} bytes or more exceeds maxBodyBytes (${maxBodyBytes}); raise maxBodyBytes to accept it`,
    );
    this.maxBodyBytes = maxBodyBytes;
  }
}

/**
 * A redirect could not be followed: too many hops, a `redirect: 'error'`
 * request, or a `Location` that is not an http(s) URL.
 */
export class RedirectError extends RatewiseError {
  constructor(url: string, problem: string) {
    super('ERR_RATEWISE_REDIRECT', `${url}: ${problem}`);
  }
}
