import { type MessageListener, type RedisLink, scanNode } from './link.js';

/** The part of an ioredis client (`Redis` or `Cluster`) the fleet uses. */
export interface IoredisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
  duplicate(): IoredisLike;
  ssubscribe(...channels: string[]): Promise<unknown>;
  sunsubscribe(...channels: string[]): Promise<unknown>;
  on(event: 'smessage', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  quit(): Promise<unknown>;
  /** A cluster's nodes; absent on a single `Redis`. */
  nodes?(role: 'master'): { call(command: string, ...args: string[]): Promise<unknown> }[];
}

/** Whether `value` looks like an ioredis client or cluster. */
export function isIoredis(value: unknown): value is IoredisLike {
  const client = value as Partial<IoredisLike> | null;
  return typeof client?.call === 'function' && typeof client.ssubscribe === 'function';
}

/**
 * A {@link RedisLink} over an ioredis `Redis` or `Cluster`. Subscriptions use a
 * duplicate connection (ioredis resubscribes it after a reconnect), opened on
 * first use and closed by `close()`.
 */
export function ioredisLink(redis: IoredisLike): RedisLink {
  const listeners = new Map<string, MessageListener>();
  let subscriber: IoredisLike | undefined;
  const connected = (): IoredisLike => {
    if (subscriber) return subscriber;
    subscriber = redis.duplicate();
    subscriber.on('error', () => undefined); // reconnects by itself; commands report failures
    subscriber.on('smessage', (channel, message) => listeners.get(channel)?.(message));
    return subscriber;
  };
  const send = (args: readonly string[]) => redis.call(args[0] as string, ...args.slice(1));
  return {
    command: (_key, args) => send(args),
    subscribe: async (channel, listener) => {
      listeners.set(channel, listener);
      await connected().ssubscribe(channel);
    },
    unsubscribe: async (channel) => {
      listeners.delete(channel);
      await connected().sunsubscribe(channel);
    },
    scan: (pattern) => scanAll(redis, send, pattern),
    close: async () => {
      const opened = subscriber;
      subscriber = undefined;
      await opened?.quit();
    },
  };
}

async function* scanAll(
  redis: IoredisLike,
  send: (args: readonly string[]) => Promise<unknown>,
  pattern: string,
): AsyncIterable<string> {
  if (typeof redis.nodes !== 'function') {
    yield* scanNode(send, pattern);
    return;
  }
  for (const node of redis.nodes('master')) {
    yield* scanNode((args) => node.call(args[0] as string, ...args.slice(1)), pattern);
  }
}
