import { getDomain } from 'tldts';

/** What a resolver sees of a request. */
export interface ScopeRequest {
  /** The request URL. */
  url: URL;
  /** Caller-provided context: proxy session, egress IP, account or API key… */
  context?: Readonly<Record<string, string | undefined>>;
}

/**
 * Maps a request to the rate-limit scopes it must be admitted by. Returning
 * several keys (account AND host) makes the request hold all of them.
 */
export type ScopeResolver = (request: ScopeRequest) => string | readonly string[];

/** One scope per host (with port, if not the default): `host:api.example.com`. The default. */
export const byHost: ScopeResolver = ({ url }) => `host:${url.host}`;

/**
 * One scope per registrable domain, so `a.example.co.uk` and `b.example.co.uk`
 * share `domain:example.co.uk`. IP addresses and single-label hosts fall back
 * to the host.
 */
export const byDomain: ScopeResolver = ({ url }) => {
  const domain = getDomain(url.hostname, { allowPrivateDomains: false });
  return domain ? `domain:${domain}` : `host:${url.host}`;
};

/**
 * One scope per value of a context field — egress IP, proxy session, account
 * or API key — named `<field>:<value>`. A request without the field falls
 * back to `fallback` (by default its host).
 */
export function byContext(field: string, fallback: ScopeResolver = byHost): ScopeResolver {
  return (request) => {
    const value = request.context?.[field];
    return value === undefined || value === '' ? fallback(request) : `${field}:${value}`;
  };
}

/** Admits a request only with every resolver's scopes, e.g. `allOf(byContext('account'), byHost)`. */
export function allOf(...resolvers: readonly ScopeResolver[]): ScopeResolver {
  return (request) => {
    const keys = new Set<string>();
    for (const resolve of resolvers) {
      const result = resolve(request);
      if (typeof result === 'string') keys.add(result);
      else for (const key of result) keys.add(key);
    }
    return [...keys];
  };
}
