import { RatewiseError } from './ratewise-error.js';

/** An event reached a sink after its `close()`: the event is not written. */
export class SinkClosedError extends RatewiseError {
  constructor(message: string) {
    super('ERR_RATEWISE_SINK_CLOSED', message);
  }
}
