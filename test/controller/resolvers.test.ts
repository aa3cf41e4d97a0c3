import { describe, expect, it } from 'vitest';
import { allOf, byContext, byDomain, byHost } from '../../src/controller/resolvers.js';

const req = (url: string, context?: Record<string, string>) => ({
  url: new URL(url),
  ...(context ? { context } : {}),
});

describe('scope resolvers', () => {
  it('byHost keys by host and non-default port', () => {
    expect(byHost(req('https://api.example.com/x'))).toBe('host:api.example.com');
    expect(byHost(req('http://127.0.0.1:8080/x'))).toBe('host:127.0.0.1:8080');
  });

  it('byDomain groups subdomains under the registrable domain, falls back to the host for IPs', () => {
    expect(byDomain(req('https://a.shop.example.co.uk/'))).toBe('domain:example.co.uk');
    expect(byDomain(req('https://b.example.co.uk/'))).toBe('domain:example.co.uk');
    expect(byDomain(req('http://127.0.0.1:9/'))).toBe('host:127.0.0.1:9');
    expect(byDomain(req('http://localhost/'))).toBe('host:localhost');
  });

  it('byContext keys by a caller-provided field, falling back to the host', () => {
    const bySession = byContext('session');
    expect(bySession(req('https://x.test/', { session: 's-17' }))).toBe('session:s-17');
    expect(bySession(req('https://x.test/'))).toBe('host:x.test');
  });

  it('allOf makes a request need every scope, without duplicates', () => {
    const resolve = allOf(byContext('account'), byHost, byHost);
    expect(resolve(req('https://api.test/v1', { account: 'key-1' }))).toEqual([
      'account:key-1',
      'host:api.test',
    ]);
  });
});
