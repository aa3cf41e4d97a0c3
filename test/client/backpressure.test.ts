import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';

let hostile: HostileServer | undefined;
let client: RatewiseClient | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await client?.close();
  await agent?.close();
  await hostile?.close();
});

/** An agent that counts how often a download is paused. */
function countingAgent(counter: { pauses: number }): Dispatcher {
  agent = new Agent();
  return agent.compose(
    (dispatch) => (opts, handler) =>
      dispatch(opts, {
        ...handler,
        onRequestStart(controller, context) {
          const pause = controller.pause.bind(controller);
          controller.pause = () => {
            counter.pauses++;
            pause();
          };
          handler.onRequestStart?.(controller, context);
        },
        onResponseStart: handler.onResponseStart?.bind(handler),
        onResponseData: handler.onResponseData?.bind(handler),
        onResponseEnd: handler.onResponseEnd?.bind(handler),
        onResponseError: handler.onResponseError?.bind(handler),
      } as Dispatcher.DispatchHandler),
  );
}

describe('a reader slower than the network', () => {
  it('pauses the download once per hundreds of KiB, not once per chunk', async () => {
    // Pausing undici per chunk copies its whole socket buffer each time: quadratic in the body.
    hostile = await startHostileServer();
    const counter = { pauses: 0 };
    client = createClient({ dispatcher: countingAgent(counter) });
    const bytes = 4 * 1_048_576;
    const response = await client.fetch(`${hostile.url}/chunked?bytes=${bytes}&chunk=16384`);
    let read = 0;
    for await (const chunk of response.body ?? []) {
      read += chunk.byteLength;
      await sleep(1); // a disk, say
    }
    expect(read).toBe(bytes);
    expect(counter.pauses).toBeGreaterThan(0);
    expect(counter.pauses).toBeLessThanOrEqual(bytes / 131_072);
  });
});
