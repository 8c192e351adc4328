// Whole-request search timings and the per-stage histograms of /metrics (ADR 0112).
// - `timings.total_us` of a response is the time from the request's arrival at the server (Fastify's
//   request start, before authentication, rate limits, validation and body parsing) to the start of
//   its serialization, not only the service method's share.
// - `lectern_search_stage_seconds{route,stage}`: engine (channels + fusion), records (loading the hits'
//   documents), snippets, billing (hold + charge), queue (waiting for a search thread), serialization
//   (the response to JSON) and total (arrival to the response handed to the socket).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyReply {
    /**
     * What the preSerialization hook does (whole-request total_us, stage histograms), for a route that
     * serializes its response itself (Fastify runs no preSerialization hook for a string or bytes).
     */
    beforeSerializing(payload: unknown): void;
  }
}
import { Histogram, type Registry } from 'prom-client';
import type { SearchStages } from '../search/search-types.js';
import { histogramSeries } from './histogram-series.js';

const STAGES = Symbol('searchStages');
const SERIALIZING = Symbol('serializingAt');

type Stamped = FastifyRequest & { [STAGES]?: SearchStages; [SERIALIZING]?: number };

/** Remembers a search's stage times for the histograms (the route calls it with the service's result). */
export function recordSearchStages(request: FastifyRequest, stages: SearchStages | undefined): void {
  if (stages) (request as Stamped)[STAGES] = stages;
}

function hasTimings(p: unknown): p is { timings: { total_us: number } } {
  const t = (p as { timings?: { total_us?: unknown } } | null)?.timings;
  return typeof t === 'object' && t !== null && typeof t.total_us === 'number';
}

export function installSearchTimings(app: FastifyInstance, registry: Registry): void {
  const stage = new Histogram({
    name: 'lectern_search_stage_seconds',
    help: 'Time of each stage of a search request by route, seconds: engine, records, snippets, billing, queue (waiting for a search thread), serialization, total (arrival to response sent).',
    labelNames: ['route', 'stage'] as const,
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  // each route's series, observed without prom-client's per-call label work (histogram-series.ts; ADR 0371)
  const STAGE_NAMES = ['engine', 'records', 'snippets', 'billing', 'queue', 'serialization', 'total'] as const;
  const byRoute = new Map<string, Record<(typeof STAGE_NAMES)[number], (value: number) => void>>();
  const seriesOf = (route: string) => {
    let c = byRoute.get(route);
    if (!c) {
      c = Object.fromEntries(STAGE_NAMES.map((name) => [name, histogramSeries(stage, { route, stage: name })])) as Record<(typeof STAGE_NAMES)[number], (value: number) => void>;
      byRoute.set(route, c);
    }
    return c;
  };
  const beforeSerializing = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const r = request as Stamped;
    if (hasTimings(payload)) payload.timings.total_us = Math.max(payload.timings.total_us, Math.round(reply.elapsedTime * 1000));
    const s = r[STAGES];
    if (s) {
      const c = seriesOf(request.routeOptions.url ?? 'unmatched');
      c.engine(s.engineUs / 1e6);
      c.records(s.recordsUs / 1e6);
      c.snippets(s.snippetsUs / 1e6);
      c.billing(s.billingUs / 1e6);
      c.queue(s.queueUs / 1e6);
      r[SERIALIZING] = performance.now();
    }
  };
  app.decorateReply('beforeSerializing', function (this: FastifyReply, payload: unknown) {
    beforeSerializing(this.request, this, payload);
  });
  app.addHook('preSerialization', (request, reply, payload, done) => {
    // a route that serializes its own response (a string or bytes) called reply.beforeSerializing itself
    beforeSerializing(request, reply, payload);
    done(null, payload);
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    const r = request as Stamped;
    const at = r[SERIALIZING];
    if (at !== undefined) seriesOf(request.routeOptions.url ?? 'unmatched').serialization((performance.now() - at) / 1000);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if ((request as Stamped)[STAGES]) seriesOf(request.routeOptions.url ?? 'unmatched').total(reply.elapsedTime / 1000);
    done();
  });
}
