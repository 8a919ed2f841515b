/**
 * The named shapes of `GET /api/stats` and of the deliveries stream's events
 * (registered with the others in schemas.ts).
 */
const count = { type: 'array', items: { type: 'integer' } } as const;
const ms = { type: 'array', items: { type: ['number', 'null'] } } as const;
const nullableMs = { type: ['number', 'null'] } as const;

export const StatsSchema = {
  $id: 'Stats',
  type: 'object',
  description:
    'Per-minute statistics of every process and node on the database, for charts: `time` holds the start of each ' +
    'minute of the window (Unix seconds, oldest first, the current minute last) and every series is an array ' +
    'parallel to it (0, or null for a percentile, where a minute saw nothing). Percentiles are estimated from ' +
    'latency buckets (bounds 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000 ms). ' +
    "A process adds its counts every 5 s; the answering process's own are always included.",
  properties: {
    from: { type: 'string', format: 'date-time', description: 'Start of the first minute' },
    to: { type: 'string', format: 'date-time', description: 'End of the last (current) minute' },
    minutes: { type: 'integer' },
    time: { type: 'array', items: { type: 'integer' }, description: 'Start of each minute, Unix seconds' },
    routes: {
      type: 'array',
      description: 'Invocation requests per API and route (the matched route), busiest first',
      items: {
        type: 'object',
        properties: {
          api_id: { type: 'string' },
          method: { type: 'string' },
          path: { type: 'string', description: "The route's path pattern, e.g. `/users/:id`" },
          count: count,
          errors: { ...count, description: 'Answers of 500 and above (function errors, timeouts, a 5xx of the function)' },
          p50_ms: ms,
          p99_ms: ms,
          total: {
            type: 'object',
            description: 'The whole window',
            properties: { count: { type: 'integer' }, errors: { type: 'integer' }, p50_ms: nullableMs, p99_ms: nullableMs },
            required: ['count', 'errors', 'p50_ms', 'p99_ms'],
          },
        },
        required: ['api_id', 'method', 'path', 'count', 'errors', 'p50_ms', 'p99_ms', 'total'],
      },
    },
    invocations: {
      type: 'array',
      description: 'Function invocations through APIs by outcome: `ok`, or the error code (function_error, function_timeout, invalid_result, ...)',
      items: {
        type: 'object',
        properties: { outcome: { type: 'string' }, count: count, total: { type: 'integer' } },
        required: ['outcome', 'count', 'total'],
      },
    },
    deliveries: {
      type: 'array',
      description:
        'Delivery attempts by target kind and outcome: `succeeded`, `retrying` (failed, another attempt follows), `failed` (for good) ' +
        "or `cancelled` (a webhook's transformation cancelled the delivery)",
      items: {
        type: 'object',
        properties: {
          target: { type: 'string', enum: ['webhook', 'function'] },
          outcome: { type: 'string', enum: ['succeeded', 'retrying', 'failed', 'cancelled'] },
          count: count,
          total: { type: 'integer' },
        },
        required: ['target', 'outcome', 'count', 'total'],
      },
    },
    lateness: {
      type: 'object',
      description: "Scheduled deliveries' first attempts: how long after their slot they started",
      properties: { count: count, p50_ms: ms, p99_ms: ms, max_ms: ms },
      required: ['count', 'p50_ms', 'p99_ms', 'max_ms'],
    },
    failures: {
      type: 'array',
      description:
        'The 20 newest failures, newest first: invocations through an API (`id` is the request id, as in the log lines) ' +
        'and deliveries that failed for good (`id` is the delivery id: `GET /api/deliveries/{id}`, or ' +
        '`GET /api/functions/{function}/invocations/{id}`)',
      items: {
        type: 'object',
        properties: {
          source: { type: 'string', enum: ['invocation', 'webhook', 'function'] },
          id: { type: 'string' },
          function: { type: ['string', 'null'] },
          webhook_id: { type: ['string', 'null'] },
          code: { type: 'string' },
          message: { type: 'string' },
          time: { type: 'string', format: 'date-time' },
        },
        required: ['source', 'id', 'function', 'webhook_id', 'code', 'message', 'time'],
      },
    },
  },
  required: ['from', 'to', 'minutes', 'time', 'routes', 'invocations', 'deliveries', 'lateness', 'failures'],
} as const;

export const AttemptEventSchema = {
  $id: 'AttemptEvent',
  type: 'object',
  description: 'One recorded delivery attempt (`event: attempt` of `GET /api/deliveries/stream`)',
  properties: {
    seq: { type: 'integer', description: 'The cursor (also the event id): resume after it with `?since=` or `Last-Event-ID`' },
    delivery_id: { type: 'string' },
    target: { type: 'string', enum: ['webhook', 'function'] },
    webhook_id: { type: ['string', 'null'] },
    function: { type: ['string', 'null'] },
    attempt: { type: 'integer' },
    outcome: { type: 'string', enum: ['succeeded', 'retrying', 'failed', 'cancelled'] },
    status: { type: ['integer', 'null'], description: "The target's HTTP status (webhooks)" },
    invocation_outcome: { type: ['string', 'null'], description: 'Functions: `ok` or the error code' },
    error: { type: ['string', 'null'] },
    started_at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'number' },
  },
  required: ['seq', 'delivery_id', 'target', 'webhook_id', 'function', 'attempt', 'outcome', 'status', 'invocation_outcome', 'error', 'started_at', 'duration_ms'],
} as const;
