/**
 * ratewise for Playwright: main-document navigations under control.
 *
 * Why `page.goto` and not `page.route`: a route handler sees only the first
 * URL of a redirect chain, turns the HTTP cache off for the page, and
 * answering it with `route.fetch()` sends the request from Node rather than
 * the browser, changing its network fingerprint. Wrapping `goto` sees the
 * final response (status, every header, the phases of its timing) and leaves
 * the browser's own networking alone.
 *
 * @packageDocumentation
 */
import type { ScopeRegistry } from '../controller/registry.js';
import { AttemptControl, type IntegrationOptions } from './attempt-control.js';
import { type BrowserResponse, settleNavigation } from './navigation.js';

/** The part of a Playwright `Page` that {@link RatewisePlaywright.goto} uses. */
export interface NavigablePage {
  goto(url: string, options?: GotoOptions): Promise<BrowserResponse | null>;
}

/** `page.goto` options, plus ratewise's scope context. */
export interface GotoOptions {
  timeout?: number;
  waitUntil?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit';
  referer?: string;
  /** Scope context (`byContext('session')`). */
  context?: Readonly<Record<string, string | undefined>>;
}

/** Playwright navigations under ratewise's control. */
export interface RatewisePlaywright {
  /**
   * `page.goto(url, options)`, admitted first by the URL's scopes; the main
   * document's response (or the navigation's error) is reported when it
   * resolves. The time waited for admission is taken off `options.timeout`
   * (Playwright's default 30 s when unset), so the whole call keeps within it;
   * a wait that would use it all fails with `AdmissionTimeoutError`.
   */
  goto(page: NavigablePage, url: string, options?: GotoOptions): Promise<BrowserResponse | null>;
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
  /** Stops the controllers' timers; navigations waiting for admission reject. */
  close(): Promise<void>;
}

const PLAYWRIGHT_DEFAULT_TIMEOUT_MS = 30_000;

/**
 * ratewise for Playwright pages:
 *
 * ```ts
 * const ratewise = ratewisePlaywright({ maxConcurrency: 4 });
 * const response = await ratewise.goto(page, 'https://example.com/', { waitUntil: 'domcontentloaded' });
 * ```
 */
export function ratewisePlaywright(options: IntegrationOptions = {}): RatewisePlaywright {
  const control = new AttemptControl('ratewisePlaywright', options);
  return {
    async goto(page, url, gotoOptions = {}) {
      const { context, ...playwright } = gotoOptions;
      const budget = playwright.timeout || PLAYWRIGHT_DEFAULT_TIMEOUT_MS;
      const started = control.clock.now();
      const attempt = await control.admit({
        url,
        ...(context ? { context } : {}),
        timeoutMs: budget,
      });
      const left = Math.max(1, budget - (control.clock.now() - started));
      let response: BrowserResponse | null;
      try {
        response = await page.goto(url, { ...playwright, timeout: left });
      } catch (error) {
        await settleNavigation(attempt, undefined, error);
        throw error;
      }
      await settleNavigation(attempt, response);
      return response;
    },
    registry: control.registry,
    close: () => control.close(),
  };
}
export type { IntegrationOptions } from './attempt-control.js';
export type { BrowserResponse, ResourceTiming } from './navigation.js';
