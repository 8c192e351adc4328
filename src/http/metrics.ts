// Prometheus metrics for HTTP: request counts and latencies by route, method and status.
import { Counter, Histogram, Registry } from 'prom-client';
import { histogramSeries } from './histogram-series.js';

export interface HttpMetrics {
  readonly registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'lectern_http_requests_total', help: 'HTTP requests by route and status.', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'lectern_http_request_duration_seconds',
    help: 'HTTP request latency by route and status, seconds.',
    labelNames,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // the latency series per (method, route, status), observed without prom-client's per-call label work
  // (histogram-series.ts; ADR 0371); routes are the registered patterns or 'unmatched', so the map holds
  // no more entries than the metric has series
  const series = new Map<string, (seconds: number) => void>();
  return {
    registry,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      const key = `${method} ${labels.status} ${route}`;
      let observe = series.get(key);
      if (!observe) series.set(key, (observe = histogramSeries(latency, labels)));
      observe(seconds);
    },
  };
}
