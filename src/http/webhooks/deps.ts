/** What the webhook routes are given (one deps object); apart from index.ts so each operation's file can import it. */
import type { ApplicationScope } from '../../applications/types.js';
import type { EventCatalogue } from '../../events/catalogue.js';
import type { Idempotency } from '../../events/idempotency.js';
import type { EventBus } from '../../webhooks/events.js';
import type { WebhookService } from '../../webhooks/service.js';
import type { RequestSpans } from '../request-spans.js';

export interface WebhookRouteDeps {
  webhooks: WebhookService;
  events: EventBus;
  /** Idempotency-Key on publish and test-fire, an event's own id. */
  idempotency: Idempotency;
  /** Test-fires send a catalogued type's example; absent: never. */
  catalogue?: EventCatalogue;
  /** `?application=` of the webhook list; absent: refused. */
  applications?: ApplicationScope;
  /** The requests' spans while tracing: a publish joins its request's trace. Absent: off. */
  spans?: RequestSpans | null;
}
