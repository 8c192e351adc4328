// One series of a prom-client histogram (a fixed label set) observed without prom-client's per-call work
// (issue 29, ADR 0371). `histogram.observe(labels, v)`, and a child from `histogram.labels(...)` alike,
// validates the labels, hashes them into the series key and allocates a closure on every call; a search
// request observes eight times (the stage histograms, the HTTP latency). Here the first observation of
// the series (and the first after `reset()`, or a value that is not finite) goes through prom-client's
// own `observe`, which creates the series; later ones add to that series as prom-client's observe does
// (sum, count, the first bucket whose upper bound holds the value). It reads two internals of
// prom-client's Histogram (`hashMap`, `upperBounds`); test/unit/histogram-series.test.ts compares the
// exposition with prom-client's own observations, so a prom-client that changes them fails that test.
import type { Histogram } from 'prom-client';

interface Series {
  labels: Record<string, string | number>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}
interface Internals {
  hashMap: Record<string, Series>;
  upperBounds: number[];
}

const sameLabels = (a: Record<string, string | number>, b: Record<string, string | number>): boolean => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => String(a[k]) === String(b[k]));
};

/** `observe(value)` for the series of `histogram` with `labels`. */
export function histogramSeries<T extends string>(histogram: Histogram<T>, labels: Partial<Record<T, string | number>>): (value: number) => void {
  const h = histogram as unknown as Internals;
  const want = labels as Record<string, string | number>;
  let map: Internals['hashMap'] | null = null;
  let series: Series | null = null;
  return (value: number) => {
    if (series === null || h.hashMap !== map || !Number.isFinite(value)) {
      histogram.observe(labels, value); // creates the series (or throws for a value that is not finite)
      map = h.hashMap;
      series = Object.values(map).find((s) => sameLabels(s.labels, want)) ?? null;
      return;
    }
    const bounds = h.upperBounds;
    let b = -1;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        b = bounds[i]!;
        break;
      }
    }
    series.sum += value;
    series.count += 1;
    if (Object.prototype.hasOwnProperty.call(series.bucketValues, b)) series.bucketValues[b]! += 1;
  };
}
