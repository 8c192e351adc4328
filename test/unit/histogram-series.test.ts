import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { histogramSeries } from '../../src/http/histogram-series.js';

/** Two histograms of the same shape in their own registries: one observed by prom-client, one by histogramSeries. */
function pair() {
  const make = () => {
    const registry = new Registry();
    const h = new Histogram({ name: 'x_seconds', help: 'x', labelNames: ['route', 'stage'] as const, buckets: [0.001, 0.01, 0.1, 1], registers: [registry] });
    return { registry, h };
  };
  return { ref: make(), fast: make() };
}

test('histogramSeries: the exposition is what prom-client observing the same values gives (issue 29)', async () => {
  const { ref, fast } = pair();
  const a = histogramSeries(fast.h, { route: '/v2/search/', stage: 'engine' });
  const b = histogramSeries(fast.h, { route: '/v2/search/', stage: 'total' });
  const c = histogramSeries(fast.h, { route: '/v2/other', stage: 'engine' });
  // bounds exactly, between, above every bucket (+Inf only), zero, negative
  const values = [0.001, 0.0005, 0.01, 0.05, 0.1, 0.7, 1, 3.5, 0, -2, 0.00099, 12];
  for (const v of values) {
    ref.h.observe({ route: '/v2/search/', stage: 'engine' }, v);
    a(v);
    ref.h.observe({ route: '/v2/search/', stage: 'total' }, v * 2);
    b(v * 2);
  }
  ref.h.observe({ route: '/v2/other', stage: 'engine' }, 0.2);
  c(0.2);
  assert.equal(await fast.registry.metrics(), await ref.registry.metrics());
  // a value that is not finite is refused as prom-client refuses it
  assert.throws(() => a(Number.NaN), /not a valid number/);
  // after a reset the series start again
  ref.h.reset();
  fast.h.reset();
  for (const v of [0.002, 0.3]) {
    ref.h.observe({ route: '/v2/search/', stage: 'engine' }, v);
    a(v);
  }
  assert.equal(await fast.registry.metrics(), await ref.registry.metrics());
  assert.match(await fast.registry.metrics(), /x_seconds_count\{route="\/v2\/search\/",stage="engine"\} 2/);
});
