import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { textReply } from './reply.js';
import { WrappingModel } from './wrapping-model.js';

/** How a server words its refusals. */
export interface RefusalForm {
  /** Status of a refusal (429, or 503 as some gateways send). */
  readonly status: number;
  /**
   * A Retry-After the server always sends, in seconds, whatever the real wait
   * (a lazy constant); absent: the wrapped model's own header stands.
   */
  readonly retryAfterS?: number;
}

/** Rewrites the wrapped model's 429s in another {@link RefusalForm}; other replies pass. */
export class RefusalFormModel extends WrappingModel {
  readonly #form: RefusalForm;

  constructor(inner: ServerModel, form: RefusalForm) {
    super(inner);
    this.#form = form;
  }

  arrive(request: ModelRequest): ModelReply {
    const reply = this.inner.arrive(request);
    if (reply.status !== 429) return reply;
    const { status, retryAfterS } = this.#form;
    const headers = { ...reply.headers };
    if (retryAfterS !== undefined) headers['retry-after'] = String(retryAfterS);
    return textReply(status, { headers, ttfbMs: reply.ttfbMs });
  }
}
