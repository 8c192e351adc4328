// Entry point of a search thread (ADR 0110): opens its own connection to the document store (records
// for hits), reads the corpus models, and serves the search executions the main thread sends
// (src/search/search-threads.ts). Like main.ts, an entry point: it may import adapters, and nothing
// imports it (the pool loads it by URL). It never writes: no billing, activity or index files here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TextEncoderOptions } from './ports/text-encoder.js';
import { rankingSettings } from './ranking/settings.js';
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStorage } from './adapters/sqlite/sqlite-storage.js';
import { fsModelDirectories } from './adapters/fs/index-directories.js';
import { systemClock } from './adapters/system-clock.js';
import type { Config } from './config/index.js';
import { WorkLinkedDocumentStore } from './documents/work-links.js';
import { DisplayRecordCache } from './documents/display-cache.js';
import { CorpusModels } from './search/corpus-models.js';
import { SearchService } from './search/search-service.js';
import { activityEngagement } from './search/ranking-bridge.js';
import { serveSearches, ThreadIndexes } from './search/search-threads.js';
import { wireHitEncoder } from './http/presenters/search.js';
import type { BillingService } from './billing/billing-service.js';
import type { ActivityRecorder } from './activity/activity-buffer.js';
import { useZlibStoredCodec } from './adapters/zlib/stored-codec.js';

// segments' stored fields in native DEFLATE on this thread (ADR 0280)
useZlibStoredCodec();

export interface SearchWorkerData {
  config: Config;
  /** The options the writer loaded the operator's encoders with (null: none configured). */
  encoders: { dense: TextEncoderOptions | null; sparse: TextEncoderOptions | null };
}

/** Billing and activity stay on the main thread: a search thread that reached them would be a bug. */
const mainThreadOnly = (what: string) =>
  new Proxy({}, {
    get: () => () => {
      throw new Error(`search thread: ${what} runs on the main thread`);
    },
  });

async function start(): Promise<void> {
  if (!parentPort) return;
  const port = parentPort;
  const { config, encoders } = workerData as SearchWorkerData;
  // the PostgreSQL driver is loaded only by a thread whose server uses it (ADR 0302)
  const storage = config.databaseUrl
    ? await (await import('./adapters/postgres/postgres-storage.js')).openPostgresStorage(config.databaseUrl, { max: 2 })
    : openSqliteStorage(join(config.dataDir, 'lectern.db'));
  // The thread's own display cache (ADR 0135): the writer publishes a snapshot after every commit, and
  // the thread then forgets what it held, so a changed record is never shown stale past its commit.
  const displayCache = new DisplayRecordCache(config.displayCacheRecords, config.displayCacheBytes);
  const store = new WorkLinkedDocumentStore(storage.documents, displayCache);
  const models = new CorpusModels(fsModelDirectories(join(config.dataDir, 'models')), storage.documents, systemClock);
  // the thread's own encoder sessions and ranking models (the writer checked them at start)
  const onnx = encoders.dense || encoders.sparse ? await import('./adapters/onnx/onnx-text-encoder.js') : null;
  const dense = encoders.dense && onnx ? await onnx.loadOnnxTextEncoder(encoders.dense) : null;
  const sparse = encoders.sparse && onnx ? await onnx.loadOnnxSparseEncoder(encoders.sparse) : null;
  const ranking = await rankingSettings(config.ranking, {
    readFile: (path) => readFileSync(path),
    loadCrossEncoder: async (o) => (await import('./adapters/onnx/onnx-cross-encoder.js')).loadOnnxCrossEncoder(o),
  });
  const activityCounts = storage.activity;
  const indexes = new ThreadIndexes((name) => models.load(name), { dense, sparse });
  const service = new SearchService({
    ranking,
    lexicalFeedback: { terms: config.ranking.lexicalFeedbackTerms, weight: config.ranking.lexicalFeedbackWeight },
    // the thread evaluates long queries pruned to the same budget the main thread checked (ADR 0231)
    budget: { maxTerms: config.limits.queryMaxTerms, maxPostings: config.limits.queryMaxPostings, maxResultTerms: config.limits.queryMaxResultTerms, concurrency: config.limits.searchConcurrency, slots: 1 },
    featureStore: storage.documents,
    engagement: activityEngagement(activityCounts),
    indexes,
    store,
    // hits show the records the index segments store, with their work links: no display read here (ADR 0280)
    workLinks: store,
    // the thread's display cache in front of the hits' records and body texts (ADR 0359); emptied at every snapshot
    hitRecordCache: displayCache,
    activity: mainThreadOnly('activity') as ActivityRecorder,
    billing: mainThreadOnly('billing') as BillingService,
    prices: config.prices,
    clock: systemClock,
    secret: '',
    report: () => undefined,
  });
  // the HTTP route's hits are serialized here, next to the work that found them (ADR 0150)
  serveSearches(port, indexes, (r, nowMs) => service.execute(r, nowMs), () => displayCache.clear(), wireHitEncoder(config.baseUrl));
}

void start();
