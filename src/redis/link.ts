/** Receives the messages published on one channel. */
export type MessageListener = (message: string) => void;

/**
 * What the fleet needs from a Redis connection — the seam between ratewise and
 * a Redis client. {@link nodeRedisLink} adapts node-redis (a client or a
 * cluster), {@link ioredisLink} adapts ioredis; anything else that can send a
 * command and subscribe to a sharded channel can implement it.
 */
export interface RedisLink {
  /**
   * Sends one command and resolves with its reply (integers and strings, or
   * arrays of them). `key` is one key the command touches, so a cluster can
   * route it; `undefined` for a command without keys. Rejects with the
   * server's error reply, or with the client's error when Redis is unreachable.
   */
  command(key: string | undefined, args: readonly string[]): Promise<unknown>;
  /** Listens on a sharded pub/sub channel (`SSUBSCRIBE`); resolves once subscribed. */
  subscribe(channel: string, listener: MessageListener): Promise<void>;
  /** Stops listening on `channel`. */
  unsubscribe(channel: string): Promise<void>;
  /** Every key matching `pattern`, from every master (`SCAN`). */
  scan(pattern: string): AsyncIterable<string>;
  /** Closes what the link opened itself (its subscriber connection); a client you passed stays open. */
  close(): Promise<void>;
}

/** Walks one node's keyspace with `SCAN … MATCH pattern`. */
export async function* scanNode(
  send: (args: readonly string[]) => Promise<unknown>,
  pattern: string,
): AsyncIterable<string> {
  let cursor = '0';
  do {
    const reply = (await send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '500'])) as [
      unknown,
      unknown[],
    ];
    cursor = String(reply[0]);
    for (const key of reply[1]) yield String(key);
  } while (cursor !== '0');
}
