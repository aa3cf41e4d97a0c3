import type { ScopeRegistry, ScopeRegistryOptions } from '../controller/registry.js';

/**
 * Many processes sharing one controller per scope: a fleet builds the
 * registry a client admits through, so every worker's requests are admitted,
 * paced and learned from together. `ratewise/redis` provides one
 * (`redisFleet`); pass it as `createClient({ fleet })`.
 */
export interface Fleet {
  /** A registry whose scopes are shared with the rest of the fleet. */
  registry(options: ScopeRegistryOptions): ScopeRegistry;
}
