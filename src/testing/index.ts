/**
 * `ratewise/testing`: real loopback HTTP servers built on the server models,
 * for checking on the wire what the simulator showed in virtual time, and
 * the virtual clock that runs controllers in tests without sleeping.
 *
 * @packageDocumentation
 */

export * from '../sim/models/exports.js';
export { settle, VirtualClock, type VirtualClockOptions } from '../virtual-clock.js';
export {
  type HostileServer,
  type HostileServerOptions,
  startHostileServer,
} from './hostile-server.js';
export {
  CLIENT_HEADER,
  type MockServer,
  type MockServerOptions,
  STATS_PATH,
  startMockServer,
} from './mock-server.js';
export type { MockServerStats } from './server-stats.js';
