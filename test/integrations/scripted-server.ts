import type { ServerResponse } from 'node:http';
import type { ControlEvent } from '../../src/events/event.js';
import { startServer, type TestServer } from '../client/helpers.js';
import { asctimeDate, imfFixdate, rfc850Date } from '../headers/http-date-format.js';

/** The Retry-After forms a server may send: delta-seconds and the three HTTP-date formats. */
export const RETRY_AFTER_FORMS: Record<string, () => string> = {
  seconds: () => '1',
  'imf-fixdate': () => imfFixdate(Date.now() + 2000),
  'rfc-850': () => rfc850Date(Date.now() + 2000),
  asctime: () => asctimeDate(Date.now() + 2000),
};

/**
 * A loopback server whose first request to a path misbehaves as the path says,
 * and every later one gets `200 ok`:
 * `/429/<form>/…` (Retry-After in that form), `/slow-429/…` (a 429 with Retry-After: 1 whose
 * body ends 2 s after its head, every time), `/503/…`, `/reset/…` (socket
 * destroyed; `/drop/…` every time), `/hang/…` (never answers), `/redirect/<n>/…` (a chain of n
 * hops to `/ok`), `/big/…` (2 MiB body, written slowly), `/slow/<ms>/…` (`200 ok` after
 * that many ms, every time), `/gate/<n>/…` (held until n of them are open at once, then all
 * answered `200` with `x-open: n`; after 3 s answered anyway with how many were open), anything
 * else `200 ok`.
 */
export function startScriptedServer(): Promise<TestServer> {
  const hits = new Map<string, number>();
  const gate = new Set<(open: number) => void>();
  return startServer((req, res) => {
    const path = req.url ?? '/';
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    const [, kind, arg] = path.split('/');
    if (kind === 'redirect') return redirect(res, Number(arg), path);
    if (kind === 'big') return big(res);
    if (kind === 'slow') return void setTimeout(() => ok(res), Number(arg));
    if (kind === 'gate') return hold(gate, Number(arg), res);
    if (kind === 'drop') return req.socket.destroy(); // every time: a browser retries a reset once
    if (kind === 'slow-429') return slowRefusal(res);
    if (hit > 1) return ok(res);
    if (kind === '429') {
      const form = RETRY_AFTER_FORMS[arg ?? 'seconds'] ?? (() => '1');
      res.writeHead(429, { 'retry-after': form(), 'content-type': 'text/plain' });
      return res.end('slow down');
    }
    if (kind === '503') {
      res.writeHead(503, { 'content-type': 'text/plain' });
      return res.end('busy');
    }
    if (kind === 'reset') return req.socket.destroy();
    if (kind === 'hang') return; // never answers; the client's timeout or abort ends it
    ok(res);
  });
}

function hold(gate: Set<(open: number) => void>, n: number, res: ServerResponse): void {
  const answer = (open: number): void => {
    clearTimeout(timer);
    gate.delete(answer);
    res.writeHead(200, { 'content-type': 'text/plain', 'x-open': String(open) });
    res.end('ok');
  };
  const timer = setTimeout(() => answer(gate.size), 3000);
  gate.add(answer);
  const open = gate.size;
  if (open >= n) for (const held of [...gate]) held(open);
}

/** A 429 whose head goes at once and whose body ends 2 s later (or when the client hangs up). */
function slowRefusal(res: ServerResponse): void {
  res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
  res.write('slow ');
  const timer = setTimeout(() => res.end('down'), 2000);
  res.on('close', () => clearTimeout(timer));
}

function ok(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
}

function redirect(res: ServerResponse, hops: number, path: string): void {
  if (!(hops > 0)) {
    ok(res);
    return;
  }
  const rest = path.split('/').slice(3).join('/');
  res.writeHead(302, { location: `/redirect/${hops - 1}/${rest}` });
  res.end();
}

/** 2 MiB in 64 KiB chunks, one every 5 ms: a body a client can give up on half-way. */
function big(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 2 ** 21 });
  const chunk = Buffer.alloc(2 ** 16, 120);
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= 32) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(chunk);
    sent++;
  }, 5);
  res.on('close', () => clearInterval(timer));
}

/** An event sink that keeps what it gets, for assertions on pauses and samples. */
export function eventLog(): { events: ControlEvent[]; sink: (event: ControlEvent) => void } {
  const events: ControlEvent[] = [];
  return { events, sink: (event) => events.push(event) };
}
