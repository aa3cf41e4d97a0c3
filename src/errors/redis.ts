import { RatewiseError } from './ratewise-error.js';

/** A Redis call that did not answer in time: the fleet treats Redis as unreachable. */
export class RedisTimeoutError extends RatewiseError {
  constructor(ms: number) {
    super('ERR_RATEWISE_REDIS_TIMEOUT', `Redis did not answer within ${ms} ms`);
  }
}

/** Redis did not answer when a command first connected to it. */
export class RedisUnreachableError extends RatewiseError {
  constructor(url: string, cause: unknown) {
    const why = (cause as { message?: unknown } | null)?.message ?? String(cause);
    super(
      'ERR_RATEWISE_REDIS_UNREACHABLE',
      `cannot reach Redis at ${url}: ${String(why)} (is redis-server running there?)`,
      { cause },
    );
  }
}
