/** Overview: a placeholder until the server's statistics endpoint (GET /api/stats) exists. */
import { href } from '../router.js';

export function OverviewView() {
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <div class="card">
        <p>
          Charts of request rate, errors and latency per route, invocations, deliveries and scheduler lateness will appear here
          once this server offers its statistics endpoint (<code>GET /api/stats</code>, not in this version yet).
        </p>
        <p>
          Meanwhile: <a href={href('functions')}>functions</a>, <a href={href('apis')}>APIs and routes</a>,{' '}
          <a href={href('webhooks')}>webhooks</a>, <a href={href('events')}>events</a>, and Prometheus metrics at <a href="/metrics">/metrics</a>.
        </p>
      </div>
    </section>
  );
}
