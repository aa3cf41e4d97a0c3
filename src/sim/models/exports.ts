/**
 * The server models as both `ratewise/sim` and `ratewise/testing` export
 * them: one list, so the simulator and the loopback servers cannot drift
 * apart in what a user can name.
 */
export type { ModelParams } from './catalog.js';
export {
  createModel,
  MODEL_NAMES,
  type ModelReply,
  type ModelRequest,
  type ServerModel,
} from './index.js';
export type { RateStep } from './rate-schedule.js';
