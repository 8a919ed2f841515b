/**
 * The gateway's pre-resolved series (counterHandle, histogramHandle in
 * src/telemetry/metrics.ts) add to prom-client's own entries: what they record
 * must be exactly what prom-client's inc/observe record, also across a
 * removal and a reset. An upgrade of prom-client that changes its internals
 * fails here.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { counterHandle, histogramHandle } from '../../src/telemetry/metrics.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const VALUES = [0.0005, 0.001, 0.004, 0.05, 0.5, 1, 3, 0];

function pair() {
  const make = () => {
    const registry = new Registry();
    return {
      registry,
      counter: new Counter({ name: 'c_total', help: 'h', labelNames: ['api', 'route', 'status'], registers: [registry] }),
      histogram: new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['api', 'route'], buckets: BUCKETS, registers: [registry] }),
    };
  };
  return { own: make(), handled: make() };
}

describe('pre-resolved metric handles', () => {
  it('record what prom-client records, across a removal and a reset', async () => {
    const { own, handled } = pair();
    const c = counterHandle(handled.counter, 'a', 'GET /x', '200');
    const h = histogramHandle(handled.histogram, 'a', 'GET /x');
    const step = () => {
      for (const v of VALUES) {
        own.counter.inc({ api: 'a', route: 'GET /x', status: '200' });
        own.histogram.observe({ api: 'a', route: 'GET /x' }, v);
        c.inc();
        h.observe(v);
      }
    };
    step();
    expect(await handled.registry.metrics()).toBe(await own.registry.metrics());
    // A removed series starts again from its next use, as prom-client's own would.
    for (const m of [own, handled]) {
      m.counter.remove('a', 'GET /x', '200');
      m.histogram.remove('a', 'GET /x');
    }
    expect(await handled.registry.metrics()).toBe(await own.registry.metrics());
    step();
    expect(await handled.registry.metrics()).toBe(await own.registry.metrics());
    for (const m of [own, handled]) {
      m.counter.reset();
      m.histogram.reset();
    }
    step();
    const text = await handled.registry.metrics();
    expect(text).toBe(await own.registry.metrics());
    expect(text).toContain('c_total{api="a",route="GET /x",status="200"} 8');
    expect(text).toContain('h_seconds_bucket{le="0.01",api="a",route="GET /x"} 4');
    expect(text).toContain('h_seconds_count{api="a",route="GET /x"} 8');
  });

  it('lists a counter series from its handle on, at 0', async () => {
    const { handled } = pair();
    counterHandle(handled.counter, 'a', '', '404');
    expect(await handled.registry.metrics()).toContain('c_total{api="a",route="",status="404"} 0');
  });
});
