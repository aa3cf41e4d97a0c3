import { subscribe } from 'node:diagnostics_channel';
import { Socket } from 'node:net';
import { buildConnector } from 'undici';
import { type Clock, systemClock } from '../clock.js';

/**
 * When one new connection went through each step of its setup, on the
 * connector's clock: name resolution from `start` to `lookup` (the same
 * moment for an IP address), TCP from `lookup` to `connect`, TLS from
 * `connect` to `end` (the same moment for plain HTTP).
 */
export interface ConnectionMarks {
  start: number;
  lookup: number;
  connect: number;
  end: number;
  /** The clock they were read on. */
  clock: Clock;
}

/** Marks of sockets opened by {@link timedConnect}, until a request claims them. */
const unclaimed = new WeakMap<object, ConnectionMarks>();

/**
 * An undici connector (the `connect` option of `Agent`, `Pool` or `Client`)
 * that times each new connection's DNS lookup, TCP connect and TLS handshake,
 * so that the first request sent on it reports them in its per-phase timings.
 * `options` are undici's `buildConnector` options (`timeout`, TLS settings…).
 * `createClient` uses it for its own agent; pass it to your agent when you use
 * {@link ratewiseInterceptor} and want the handshake phases measured (on
 * another clock than the interceptor's, its marks are moved onto that one
 * when a request claims the connection).
 */
export function timedConnect(
  options: buildConnector.BuildOptions = {},
  clock: Clock = systemClock,
): buildConnector.connector {
  const connect = buildConnector(options);
  return (target, callback) => {
    const start = clock.now();
    const marks: { lookup?: number; connect?: number } = {};
    const socket: unknown = connect(target, (...args) => {
      const [error, connected] = args;
      if (error === null) unclaimed.set(connected, settled(clock, start, marks));
      callback(...args);
    });
    // buildConnector's function returns the socket it opens (its type says void).
    if (socket instanceof Socket) {
      socket.once('lookup', () => {
        marks.lookup = clock.now();
      });
      socket.once('connect', () => {
        marks.connect = clock.now();
      });
    }
  };
}

function settled(
  clock: Clock,
  start: number,
  marks: { lookup?: number; connect?: number },
): ConnectionMarks {
  const end = clock.now();
  const lookup = marks.lookup ?? start;
  // For plain HTTP undici hands the socket over inside the `connect` event, before our listener.
  return { start, lookup, connect: marks.connect ?? end, end, clock };
}

/** The request that is about to write its headers, waiting to learn its socket. */
let expecting: ((socket: object) => void) | undefined;
let subscribed = false;

/**
 * Calls `onSocket` with the socket the request whose dispatch is starting
 * right now is written to. undici announces a request's socket on its
 * `undici:client:sendHeaders` diagnostics channel synchronously after the
 * handler's `onRequestStart`, so the handler calls this from there.
 */
export function expectSocket(onSocket: (socket: object) => void): void {
  if (!subscribed) {
    subscribed = true;
    subscribe('undici:client:sendHeaders', (message) => {
      const waiting = expecting;
      expecting = undefined;
      const socket = (message as { socket?: unknown }).socket;
      if (waiting && typeof socket === 'object' && socket !== null) waiting(socket);
    });
  }
  expecting = onSocket;
}

/**
 * The setup marks of a connection opened by {@link timedConnect}, for the
 * first request sent on it; `undefined` for a reused connection (whose
 * handshake phases are 0) or one opened by another connector.
 */
export function claimConnectionMarks(socket: object): ConnectionMarks | undefined {
  const timings = unclaimed.get(socket);
  unclaimed.delete(socket);
  return timings;
}
