import { describe, expect, it } from 'vitest';
import type { ClassifyOptions, ResponseLike } from '../../src/classify.js';
import { classify, DEFAULT_BLOCK_MARKERS } from '../../src/classify.js';
import type { SignalKind } from '../../src/signal.js';

const CF_CHALLENGE = `<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><script>window._cf_chl_opt={cvId:'3'};</script></body></html>`;
const CF_BLOCK = '<html><head><title>Attention Required! | Cloudflare</title></head></html>';
const CF_1015 = `<html><head><title>Access denied | example.com used Cloudflare to restrict access</title></head>
<body><h1>Error 1015</h1><p>You are being rate limited</p></body></html>`;
const AKAMAI =
  '<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>Reference #18.abc</BODY></HTML>';

interface Row {
  name: string;
  response: ResponseLike;
  options?: ClassifyOptions;
  kind: SignalKind;
  reason: string | RegExp;
}

const rows: Row[] = [
  { name: '200', response: { status: 200, headers: {} }, kind: 'ok', reason: '200' },
  { name: '204', response: { status: 204, headers: {} }, kind: 'ok', reason: '204' },
  { name: '301 redirect', response: { status: 301, headers: {} }, kind: 'ok', reason: '301' },
  { name: '304', response: { status: 304, headers: {} }, kind: 'ok', reason: '304' },
  {
    name: '200 mentioning captcha is still ok',
    response: {
      status: 200,
      headers: {},
      body: 'How to solve a captcha <div class="g-recaptcha">',
    },
    kind: 'ok',
    reason: '200',
  },
  { name: '429', response: { status: 429, headers: {} }, kind: 'throttled', reason: '429' },
  {
    name: '429 Cloudflare 1015 page',
    response: { status: 429, headers: {}, body: CF_1015 },
    kind: 'throttled',
    reason: '429',
  },
  {
    name: '420 Twitter',
    response: { status: 420, headers: {} },
    kind: 'throttled',
    reason: '420 enhance your calm',
  },
  {
    name: '430 Shopify',
    response: { status: 430, headers: {} },
    kind: 'throttled',
    reason: '430 shopify security rejection',
  },
  {
    name: '403 GitHub primary limit (remaining 0)',
    response: { status: 403, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0' } },
    kind: 'throttled',
    reason: '403 quota exhausted',
  },
  {
    name: '403 GitHub secondary limit with Retry-After',
    response: { status: 403, headers: { 'retry-after': '60' } },
    kind: 'throttled',
    reason: '403 with retry-after',
  },
  {
    name: '403 block page with Retry-After (Cloudflare ban) is still blocked',
    response: { status: 403, headers: { 'retry-after': '120' }, body: CF_BLOCK },
    kind: 'blocked',
    reason: '403 block page (<title>Attention Required)',
  },
  {
    name: '403 GitHub secondary limit message',
    response: {
      status: 403,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes."}',
    },
    kind: 'throttled',
    reason: '403 rate-limit page (secondary rate limit)',
  },
  {
    name: '403 Google rateLimitExceeded',
    response: {
      status: 403,
      headers: {},
      body: '{"error":{"errors":[{"reason":"userRateLimitExceeded"}]}}',
    },
    kind: 'throttled',
    reason: /^403 rate-limit page \(RateLimitExceeded\)$/,
  },
  {
    name: '403 Cloudflare 1015 (rate limit wins over "Access denied")',
    response: { status: 403, headers: {}, body: CF_1015 },
    kind: 'throttled',
    reason: /^403 rate-limit page/,
  },
  {
    name: '503 S3 SlowDown',
    response: { status: 503, headers: {}, body: '<Error><Code>SlowDown</Code></Error>' },
    kind: 'throttled',
    reason: '503 rate-limit page (SlowDown)',
  },
  {
    name: '503 "too many requests" page',
    response: { status: 503, headers: {}, body: '<h1>Too Many Requests</h1>' },
    kind: 'throttled',
    reason: '503 rate-limit page (Too Many Requests)',
  },
  {
    name: '400 AWS Throttling',
    response: { status: 400, headers: {}, body: '<ErrorResponse><Error><Code>Throttling</Code>' },
    kind: 'throttled',
    reason: '400 rate-limit page (Throttling)',
  },
  {
    name: '400 AWS ThrottlingException (JSON)',
    response: { status: 400, headers: {}, body: '{"__type":"ThrottlingException"}' },
    kind: 'throttled',
    reason: '400 rate-limit page (ThrottlingException)',
  },
  {
    name: '400 with remaining 0',
    response: { status: 400, headers: { 'ratelimit-remaining': '0' } },
    kind: 'throttled',
    reason: '400 quota exhausted',
  },
  {
    name: '400 plain',
    response: { status: 400, headers: {} },
    kind: 'client-error',
    reason: '400',
  },
  {
    name: '400 "throttling" in prose is not an AWS code',
    response: { status: 400, headers: {}, body: 'bad input: throttling must be a number' },
    kind: 'client-error',
    reason: '400',
  },
  {
    name: '403 Cloudflare challenge',
    response: { status: 403, headers: {}, body: CF_CHALLENGE },
    kind: 'blocked',
    reason: /^403 block page \(/,
  },
  {
    name: '403 Cloudflare "Attention Required"',
    response: { status: 403, headers: {}, body: CF_BLOCK },
    kind: 'blocked',
    reason: '403 block page (<title>Attention Required)',
  },
  {
    name: '403 Akamai Access Denied',
    response: { status: 403, headers: {}, body: AKAMAI },
    kind: 'blocked',
    reason: '403 block page (<TITLE>Access Denied)',
  },
  {
    name: '403 PerimeterX',
    response: { status: 403, headers: {}, body: '<div id="px-captcha"></div>' },
    kind: 'blocked',
    reason: '403 block page (px-captcha)',
  },
  {
    name: '403 DataDome JSON',
    response: {
      status: 403,
      headers: {},
      body: '{"url":"https://geo.captcha-delivery.com/captcha/?initialCid=x"}',
    },
    kind: 'blocked',
    reason: '403 block page (captcha-delivery.com)',
  },
  {
    name: '403 hCaptcha',
    response: { status: 403, headers: {}, body: '<div class="h-captcha" data-sitekey="x">' },
    kind: 'blocked',
    reason: '403 block page (captcha)',
  },
  {
    name: '403 reCAPTCHA',
    response: { status: 403, headers: {}, body: '<div class="g-recaptcha">' },
    kind: 'blocked',
    reason: '403 block page (captcha)',
  },
  {
    name: '403 Imperva',
    response: {
      status: 403,
      headers: {},
      body: 'Request unsuccessful. Incapsula incident ID: 123',
    },
    kind: 'blocked',
    reason: '403 block page (Incapsula incident)',
  },
  {
    name: '401 with a captcha page',
    response: { status: 401, headers: {}, body: '<form id="captcha-form">' },
    kind: 'blocked',
    reason: '401 block page (captcha)',
  },
  {
    name: '503 Cloudflare challenge (old IUAM)',
    response: { status: 503, headers: {}, body: CF_CHALLENGE },
    kind: 'blocked',
    reason: /^503 block page/,
  },
  {
    name: 'cf-mitigated header on any status',
    response: { status: 403, headers: { 'cf-mitigated': 'challenge' } },
    kind: 'blocked',
    reason: '403 cf-mitigated: challenge',
  },
  {
    name: 'Vercel challenge on a 429',
    response: { status: 429, headers: { 'x-vercel-mitigated': 'challenge' } },
    kind: 'blocked',
    reason: '429 x-vercel-mitigated: challenge',
  },
  {
    name: 'a 200 captcha page when the predicate says so',
    response: { status: 200, headers: {}, body: '<div class="g-recaptcha">' },
    options: { isBlocked: (r) => r.body?.includes('g-recaptcha') === true },
    kind: 'blocked',
    reason: '200 blocked (isBlocked)',
  },
  {
    name: 'predicate reason string',
    response: { status: 200, headers: {}, body: 'please verify you are human' },
    options: {
      isBlocked: (r) => (r.body?.includes('verify you are human') ? 'human check' : false),
    },
    kind: 'blocked',
    reason: 'human check',
  },
  {
    name: 'bare 403 is a client error',
    response: { status: 403, headers: {}, body: '<title>403 Forbidden</title>' },
    kind: 'client-error',
    reason: '403',
  },
  {
    name: 'bare 403 is blocked when the predicate says so',
    response: { status: 403, headers: {} },
    options: { isBlocked: (r) => r.status === 403 },
    kind: 'blocked',
    reason: '403 blocked (isBlocked)',
  },
  {
    name: 'API 401',
    response: { status: 401, headers: {}, body: '{"error":"bad token"}' },
    kind: 'client-error',
    reason: '401',
  },
  { name: '404', response: { status: 404, headers: {} }, kind: 'client-error', reason: '404' },
  {
    name: '404 page mentioning captcha is not a block',
    response: { status: 404, headers: {}, body: 'captcha' },
    kind: 'client-error',
    reason: '404',
  },
  { name: '503', response: { status: 503, headers: {} }, kind: 'overloaded', reason: '503' },
  {
    name: '503 with Retry-After',
    response: { status: 503, headers: { 'retry-after': '5' } },
    kind: 'overloaded',
    reason: '503',
  },
  { name: '502', response: { status: 502, headers: {} }, kind: 'overloaded', reason: '502' },
  { name: '504', response: { status: 504, headers: {} }, kind: 'overloaded', reason: '504' },
  {
    name: '502 with Retry-After',
    response: { status: 502, headers: { 'retry-after': '2' } },
    kind: 'overloaded',
    reason: '502',
  },
  {
    name: '529',
    response: { status: 529, headers: {} },
    kind: 'overloaded',
    reason: '529 site overloaded',
  },
  {
    name: '509 cPanel',
    response: { status: 509, headers: {} },
    kind: 'overloaded',
    reason: '509 bandwidth limit exceeded',
  },
  { name: '500', response: { status: 500, headers: {} }, kind: 'server-error', reason: '500' },
  { name: '501', response: { status: 501, headers: {} }, kind: 'server-error', reason: '501' },
  {
    name: '520 Cloudflare',
    response: { status: 520, headers: {} },
    kind: 'server-error',
    reason: '520 origin returned an unknown error',
  },
  {
    name: '521 Cloudflare',
    response: { status: 521, headers: {} },
    kind: 'refused',
    reason: '521 origin web server is down',
  },
  {
    name: '522 Cloudflare',
    response: { status: 522, headers: {} },
    kind: 'timeout',
    reason: '522 origin connection timed out',
  },
  {
    name: '523 Cloudflare',
    response: { status: 523, headers: {} },
    kind: 'refused',
    reason: '523 origin is unreachable',
  },
  {
    name: '524 Cloudflare',
    response: { status: 524, headers: {} },
    kind: 'timeout',
    reason: '524 origin response timed out',
  },
  {
    name: '599 proxy',
    response: { status: 599, headers: {} },
    kind: 'timeout',
    reason: '599 network connect timeout',
  },
  {
    name: '101',
    response: { status: 101, headers: {} },
    kind: 'server-error',
    reason: 'unexpected status 101',
  },
  {
    name: '700',
    response: { status: 700, headers: {} },
    kind: 'server-error',
    reason: 'unexpected status 700',
  },
  {
    name: 'NaN',
    response: { status: Number.NaN, headers: {} },
    kind: 'server-error',
    reason: 'unexpected status NaN',
  },
  {
    name: '200.5',
    response: { status: 200.5, headers: {} },
    kind: 'server-error',
    reason: 'unexpected status 200.5',
  },
];

describe('classify(response)', () => {
  it.each(rows)('$name → $kind', ({ response, options, kind, reason }) => {
    const signal = classify(response, options);
    expect(signal.kind).toBe(kind);
    if (typeof reason === 'string') expect(signal.reason).toBe(reason);
    else expect(signal.reason).toMatch(reason);
  });

  it('covers every signal kind that a response can produce', () => {
    const kinds = new Set(rows.map((row) => row.kind));
    for (const kind of [
      'ok',
      'throttled',
      'overloaded',
      'blocked',
      'client-error',
      'server-error',
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it('carries status, Retry-After and quota on every kind', () => {
    const headers = {
      'retry-after': '7',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    };
    for (const status of [200, 429, 503, 404]) {
      const signal = classify({ status, headers });
      expect(signal.status).toBe(status);
      expect(signal.retryAfterMs).toBe(7000);
      expect(signal.quota).toEqual({
        source: 'x-ratelimit',
        limit: 5000,
        remaining: 4999,
        used: 1,
        name: 'core',
      });
    }
    expect(classify({ status: 200, headers: {} })).toEqual({
      kind: 'ok',
      reason: '200',
      status: 200,
    });
  });

  it('measures an HTTP-date Retry-After from the Date header, else from `now`', () => {
    const date = 'Sun, 06 Nov 1994 08:49:37 GMT';
    const retry = 'Sun, 06 Nov 1994 08:50:07 GMT';
    expect(classify({ status: 429, headers: { date, 'retry-after': retry } }).retryAfterMs).toBe(
      30_000,
    );
    const now = Date.UTC(1994, 10, 6, 8, 49, 57);
    expect(classify({ status: 429, headers: { 'retry-after': retry } }, { now }).retryAfterMs).toBe(
      10_000,
    );
    expect(
      classify({ status: 429, headers: { 'retry-after': retry } }).retryAfterMs,
    ).toBeUndefined();
    expect(
      classify({ status: 429, headers: { 'retry-after': 'soon' } }).retryAfterMs,
    ).toBeUndefined();
  });

  it('reads WHATWG Headers and [name, value] pairs', () => {
    const whatwg = new Headers({ 'Retry-After': '1', 'CF-Mitigated': 'challenge' });
    expect(classify({ status: 403, headers: whatwg })).toMatchObject({
      kind: 'blocked',
      retryAfterMs: 1000,
    });
    const pairs: [string, string][] = [['X-RateLimit-Remaining', '0']];
    expect(classify({ status: 403, headers: pairs }).reason).toBe('403 quota exhausted');
  });

  it('uses custom block markers in place of the defaults, leaving their lastIndex alone', () => {
    const marker = /verify you are human/gi;
    marker.lastIndex = 5;
    const page = { status: 403, headers: {}, body: 'Please verify you are human' };
    expect(classify(page, { blockMarkers: [marker] }).reason).toBe(
      '403 block page (verify you are human)',
    );
    expect(classify(page, { blockMarkers: [marker] }).kind).toBe('blocked');
    expect(marker.lastIndex).toBe(5);
    const challenge = { status: 403, headers: {}, body: CF_CHALLENGE };
    expect(classify(challenge, { blockMarkers: [] }).kind).toBe('client-error');
    expect(classify(challenge, { blockMarkers: [...DEFAULT_BLOCK_MARKERS] }).kind).toBe('blocked');
  });

  it('sniffs only the first 64 Ki characters of a body', () => {
    const late = `${' '.repeat(70_000)}captcha`;
    expect(classify({ status: 403, headers: {}, body: late }).kind).toBe('client-error');
    expect(classify({ status: 403, headers: {}, body: late.slice(60_000) }).kind).toBe('blocked');
  });

  it('ignores a body that is not a string, such as a fetch body stream', () => {
    const stream = new ReadableStream();
    expect(classify({ status: 403, headers: {}, body: stream }).kind).toBe('client-error');
  });
});
