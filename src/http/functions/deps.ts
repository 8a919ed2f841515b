/** What the function routes are given (one deps object); apart from index.ts so each operation's file can import it. */
import type { FunctionInvocations } from '../../functions/invocations.js';
import type { FunctionService } from '../../functions/service.js';
import type { Idempotency } from '../../events/idempotency.js';
import type { RequestSpans } from '../request-spans.js';

export interface FunctionRouteDeps {
  functions: FunctionService;
  /** Background invocations: `x-invocation-type: Event` and the invocations routes. */
  background: FunctionInvocations;
  /** Idempotency-Key on background invokes. */
  idempotency: Idempotency;
  /** The requests' spans while tracing: an invoke runs in its request's trace. Absent: off. */
  spans?: RequestSpans | null;
}
