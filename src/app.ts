// The one composition root: picks adapters from configuration, builds the services and the HTTP app.
// Nothing else knows both adapters and capabilities.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from './config/index.js';
import { ActivityBuffer } from './activity/activity-buffer.js';
import { ACTIVITY_PRUNE_INTERVAL_MS, pruneActivity } from './activity/retention.js';
import { CommunityService } from './community/index.js';
import { communityStoreFor } from './adapters/community-store-factory.js';
import { rateOverrideStoreFor } from './adapters/rate-override-store-factory.js';
import { SelfService } from './accounts/self-service.js';
import { AccountService } from './accounts/account-service.js';
import { ApiKeyService } from './accounts/api-keys.js';
import { CredentialChain, type CredentialVerifier } from './accounts/credentials.js';
import { BillingService } from './billing/billing-service.js';
import { DocumentService } from './documents/document-service.js';
import { useZlibStoredCodec } from './adapters/zlib/stored-codec.js';
import { WorkLinkedDocumentStore } from './documents/work-links.js';
import { DisplayRecordCache } from './documents/display-cache.js';
import { GroupCommitLedger } from './billing/group-commit-ledger.js';
import { DownloadService } from './downloads/download-service.js';
import { IngestService, type IngestReport } from './ingest/ingest-service.js';
import { DemoCorpus } from './ingest/demo-corpus.js';
import { committedCheckpoint } from './search/index-checkpoint.js';
import { RateLimitService } from './limits/rate-limit-service.js';
import { IndexSet } from './search/index-set.js';
// --- cluster (issue 24) ---
import type { NatsCluster } from './adapters/nats/nats-cluster.js';
import { OutboxRelay } from './cluster/outbox-relay.js';
import { Heartbeat, retrying } from './cluster/membership.js';
import { openReplica, SwitchableSource, type ShardFollower } from './cluster/shard-follower.js';
import { installLatestSnapshot, listSnapshots, publishSnapshot, Snapshotter } from './cluster/shard-snapshots.js';
import { SnapshotAdmin } from './cluster/snapshot-admin.js';
import { FsLocalIndexFiles } from './adapters/fs/index-snapshot-files.js';
import { clusterRoles } from './cluster/roles.js';
// --- end cluster ---
// --- cluster search (scatter-gather; issue 24, ADRs 0201-0203) ---
import { createHmac } from 'node:crypto';
import { HttpShardClient } from './adapters/cluster/http-shard-client.js';
import { FrameConnections, FrameShardClient } from './adapters/cluster/frame-shard-client.js';
import { ScatterGather } from './search/scatter-gather.js';
import { memoryIndexDirectories } from './adapters/memory/memory-index-directories.js';
import { ShardSearcher } from './search/shard-searcher.js';
import { LiveShardDirectory, parseSearchNodes, StaticShardDirectory } from './search/shard-directory.js';
import type { ShardClient, ShardDirectory } from './ports/shard-client.js';
import { liveWindowMs, replicasByShard } from './cluster/membership.js';
// --- end cluster search ---
import { PassageSearch } from './search/passage-search.js';
import { SearchService } from './search/search-service.js';
import { activityEngagement } from './search/ranking-bridge.js';
import type { McpHandler } from './http/deps.js';
import { ReferenceService } from './citations/reference-service.js';
import type { Clock } from './ports/clock.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Storage } from './ports/storage.js';
import type { BlobStore } from './ports/blob-store.js';
import { FsBlobStore } from './adapters/fs/fs-blob-store.js';
import { FsSourceFiles } from './adapters/fs/fs-source-files.js';
import { fsIndexDirectories, fsModelDirectories } from './adapters/fs/index-directories.js';
import { sharedFsIndexDirectories } from './adapters/fs/shared-index-directory.js';
import { SearchThreads, type Snapshot } from './search/search-threads.js';
import { ThreadedSegmentBuilder } from './search/segment-builder.js';
import { startBackgroundMerges } from './search/background-merge.js';
import { CorpusModels } from './search/corpus-models.js';
import { SharedCorpusModels } from './search/shared-corpus-models.js';
import { EncoderVectorizer } from './search/encoder-vectorizer.js';
import type { SparseTextEncoder, SparseTextEncoderLoader, TextEncoder, TextEncoderLoader, TextEncoderOptions } from './ports/text-encoder.js';
import { INDEX_NAMES } from './domain/document.js';
import { loadOrCreateSecret } from './adapters/fs/secret-file.js';
import { backupDataDir, restoreDataDir, type BackupManifest, type DataLocations } from './adapters/fs/data-backup.js';
import { MemoryRateLimiter } from './adapters/memory/memory-rate-limiter.js';
import type { PostgresHandle } from './adapters/postgres/postgres-storage.js';
import { openSqliteStorage, type SqliteHandle } from './adapters/sqlite/sqlite-storage.js';
import { systemClock } from './adapters/system-clock.js';
import { createAuth, type Auth, type AuthSettings } from './auth/index.js';
import { authStoreFor } from './adapters/auth-store-factory.js';
import { OutboxMailer } from './adapters/mail/outbox-mailer.js';
import { SmtpMailer } from './adapters/mail/smtp-mailer.js';
import type { Mailer } from './ports/mailer.js';
import type { AuthStore } from './ports/auth-store.js';
import type { ProcessRunner } from './ports/process-runner.js';
import type { RecognitionJobStore } from './ports/recognition-job-store.js';
import { LocalProcessRunner } from './adapters/process/local-process-runner.js';
import { recognitionJobStoreFor } from './adapters/recognition-job-store-factory.js';
import type { JobQueue } from './ports/job-queue.js';
import { RecognitionJobService, threadedConvert, type ConvertFn } from './recognition-jobs/index.js';
import type { RecognitionLimits } from './recognition/index.js';
import { ConversationService } from './conversations/index.js';
import type { ExtractiveOptions } from './conversations/extractive.js';
import { conversationStoreFor } from './adapters/conversation-store-factory.js';
import type { ChatModelRegistry } from './ports/chat-model.js';
import { chatModelRegistry } from './adapters/llm/chat-model-registry.js';
import { parseLlmModels } from './config/index.js';
import { rankingSettings } from './ranking/settings.js';
import { RankerTraining } from './ranking/ranker-training.js';
import { searchCandidateSource } from './ranking/training-source.js';
import type { CandidateSource } from './ranking/train-ranker.js';
import type { SearchMode } from './search/search-types.js';
import type { CrossEncoderLoader } from './ports/cross-encoder.js';

// segments' stored fields in native DEFLATE on this thread (ADR 0280)
useZlibStoredCodec();

/** The package root (where package.json and corpus/ are). */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), existsSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json')) ? '..' : '../..');

/** Lectern's version (package.json), reported by the MCP server. */
export const LECTERN_VERSION: string = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** The bundled demo corpus, in load order. */
/**
 * Trains the demo corpus's retrieval models in a child process (`lectern models train`, inheriting the
 * environment), logging the outcome; the server installs the models once written. Never throws.
 */
function trainDemoModelsInBackground(log: Logger): void {
  const started = Date.now();
  log.info('training the demo corpus retrieval models in the background (a minute or two); until then hybrid search is fulltext');
  const child = spawn(process.execPath, [join(packageRoot, 'dist', 'src', 'main.js'), 'models', 'train'], { stdio: 'ignore' }); // the same environment (inherited)
  child.on('error', (err) => log.warn({ err }, 'training the demo corpus models could not start; run `lectern models train`'));
  child.on('exit', (code) => {
    if (code === 0) log.info({ trainMs: Date.now() - started }, 'demo corpus models trained; the server installs them within 5 s');
    else log.warn({ code }, 'training the demo corpus models failed; run `lectern models train` to see why');
  });
  child.unref();
}

export const DEMO_FILES = ['corpus/demo/openalex-works.jsonl.gz', 'corpus/demo/works.jsonl', 'corpus/demo/stackexchange-posts.jsonl.gz'].map((f) => join(packageRoot, f));
/** The demo corpus's document ids, committed beside its files (ADR 0243). */
export const DEMO_IDS = join(packageRoot, 'corpus/demo/ids.txt');

export interface AppOverrides {
  clock?: Clock;
  logger?: Logger;
  storage?: OpenedStorage;
  rateLimiter?: RateLimiter;
  /** Credential verifiers tried after the API keys (tests: stand-in OAuth tokens). */
  credentialVerifiers?: readonly CredentialVerifier[];
  /** Mail transport (tests capture messages). */
  mailer?: Mailer;
  /** Auth store (tests inject failures). */
  authStore?: AuthStore;
  /**
   * Recognition jobs (tests): `wrapConvert` instruments the converter (a worker thread per conversion by
   * default), `limits` shortens time limits, `workers` sizes the pool.
   */
  recognition?: { wrapConvert?: (inner: ConvertFn) => ConvertFn; limits?: Partial<RecognitionLimits>; store?: RecognitionJobStore; workers?: number; leaseSeconds?: number };
  /** Chat models offered to conversations (tests: fakes); default: none (the extractive answerer only). */
  chatModels?: ChatModelRegistry;
  /** The extractive answerer's tunables (benchmarks calibrate them); default: the calibrated ones. */
  extractive?: Partial<ExtractiveOptions>;
  /**
   * Open the indexes without catching up with the store (the server: it listens first, catches up in
   * startBackgroundWork, and /readyz answers 503 until done); default: catch up before returning.
   */
  deferIndexCatchUp?: boolean;
  /** Loads the dense_encoder model (default: the ONNX adapter, imported on first use). */
  loadTextEncoder?: TextEncoderLoader;
  /** Loads the sparse_encoder model (default: the ONNX adapter, imported on first use). */
  loadSparseEncoder?: SparseTextEncoderLoader;
  /** Extra HTTP routes (tests). */
  extraRoutes?: readonly ((app: FastifyInstance) => Promise<void> | void)[];
  /** The shards the search service's lexical channel scatters to (tests: in-process shards); default: per cluster.* (ADR 0202). */
  shardDirectory?: ShardDirectory;
  /** Tests: the BlobStore a cluster's corpus models are published to and pulled from (ADR 0267). */
  sharedModelBlobs?: BlobStore;
  /** Loads ranking.crossEncoderDir (default: the ONNX adapter, imported on first use). */
  loadCrossEncoder?: CrossEncoderLoader;
}

/** How the indexes are opened. */
export interface OpenIndexesOptions {
  /** Apply the store's changes before returning (default true; `lectern index rebuild` does its own). */
  catchUp?: boolean;
}

/** Everything but the HTTP server (what the CLI needs). */
export interface Core {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly storage: OpenedStorage;
  readonly rateLimiter: RateLimiter;
  readonly blobs: BlobStore;
  /** Runs the recognition tools (mutool, tesseract, djvulibre) as separate processes. */
  readonly runner: ProcessRunner;
  readonly accounts: AccountService;
  readonly apiKeys: ApiKeyService;
  readonly billing: BillingService;
  readonly ingest: IngestService;
  readonly documents: DocumentService;
  /** The document store read as works: versions, notices and notice targets filled in (docs/works.md). */
  readonly works: WorkLinkedDocumentStore;
  /** The display cache behind `works` (ADR 0135), also in front of search hits' records and texts (ADR 0359). */
  readonly displayCache: DisplayRecordCache;
  readonly downloads: DownloadService;
  readonly references: ReferenceService;
  readonly rateLimits: RateLimitService<keyof Config['rateLimits']>;
  /** Buffered activity events (flushed every second and at close). */
  readonly activity: ActivityBuffer;
  /** Feedback, comments, votes, activity and trending (docs/community.md); also the operator's moderation. */
  readonly community: CommunityService;
  readonly secret: string;
  /** Sign-in, the OAuth authorization server and the service_auth claim flow (issue 4). */
  readonly auth: Auth;
  /** The chat models configured in llm_models (override: AppOverrides.chatModels); empty: the extractive answerer only. */
  readonly chatModels: ChatModelRegistry;
  /**
   * Opens the search indexes (taking their writer locks) and catches them up with the store.
   * Throws when another process holds them; `tryOpenIndexes` returns null instead.
   */
  openIndexes(options?: OpenIndexesOptions): Promise<IndexSet>;
  tryOpenIndexes(options?: OpenIndexesOptions): Promise<IndexSet | null>;
  /** The open indexes, or null. */
  readonly indexes: IndexSet | null;
  /** Where the indexes read changes from: the store, or on a search node its shard's log (issue 24). */
  readonly indexSource: SwitchableSource;
  /**
   * A search node's replica (issue 24, ADR 0255), set by startCluster: what it is doing while it is
   * brought up (readiness says it; null once it follows the log), and its on-request snapshot.
   */
  readonly replica: ReplicaHooks;
  /**
   * The store sequence the indexes of this data directory have committed (searchable), read from disk:
   * a running server's progress as seen by the CLI (`lectern ingest --wait`, ADR 0244).
   */
  indexCheckpoint(): number;
  /** The corpus-trained models of each index: training (`lectern models train`) and loading (docs/models.md). */
  readonly corpusModels: CorpusModels;
  /** Training L2 ranking models from judgments (`lectern ranking train`, docs/ranking.md). */
  readonly rankerTraining: RankerTraining;
  /** The served candidates and feature rows over open indexes (SearchService.candidatePool), what ranking train learns from. */
  rankingSource(indexes: IndexSet, mode: SearchMode): CandidateSource;
  /**
   * Installs the trained models whose manifest changed since the last call on the open indexes
   * (vectorizing segments as needed). Returns the names of the indexes whose models changed.
   */
  refreshModels(): string[];
  /** A cluster's published corpus models (ADR 0267): null on one node. */
  readonly sharedModels: SharedCorpusModels | null;
  /** Pulls the published models into the model directory (a cluster; nothing on one node). */
  pullModels(): Promise<void>;
  /** The operator-supplied dense encoder (dense_encoder.dir), or null. */
  readonly encoder: TextEncoder | null;
  /** Computes the encoders' document vectors for the open indexes (null: no encoder or indexes; docs/models.md). */
  readonly encoderVectorizer: EncoderVectorizer | null;
  /** The operator-supplied SPLADE-style sparse encoder (sparse_encoder.dir), or null. */
  readonly sparseEncoder: SparseTextEncoder | null;
  /** The index files and models as published to search threads (ADR 0110). */
  indexSnapshot(): Snapshot;
  /** The options the operator's encoders were loaded with (search threads load their own; ADR 0110). */
  readonly encoderOptions: { dense: TextEncoderOptions | null; sparse: TextEncoderOptions | null };
  /** Starts the server's background work: catching up with changes by other processes, merging. */
  startBackgroundWork(): void;
  /** Loads the demo corpus when configured and the store is empty, and trains its corpus models. */
  loadDemoCorpusIfEmpty(): Promise<IngestReport[] | null>;
  /** Whether the store holds the demo corpus, and its removal (lectern demo; docs/ingest.md). */
  readonly demoCorpus: DemoCorpus;
  /** The recognition jobs as the operator sees them (lectern jobs: dead letters, retry; ADR 0250); close it after use. */
  openRecognitionJobs(): Promise<RecognitionJobService>;
  close(): Promise<void>;
}

/** See Core.replica. */
export interface ReplicaHooks {
  state: string | null;
  snapshotNow: (() => Promise<unknown>) | null;
}

export interface App extends Core {
  readonly http: FastifyInstance;
  /** Recognition jobs and their worker pool (started with the app, stopped by close()). */
  readonly recognitions: RecognitionJobService;
  /** Conversations (turns, edits, sharing). */
  readonly conversations: ConversationService;
  /** The search service (its candidatePool feeds L2 training: ranking/training-source.ts). */
  readonly search: SearchService;
  /** Role api of a cluster without cluster.search_nodes: the replicas, from the membership once joined (attachMembership). */
  readonly shardDirectory: LiveShardDirectory | null;
}

/**
 * The recognition job queue the configuration selects (ADR 0250): pg-boss for `recognition.queue`
 * pg-boss, or auto with a cluster role on PostgreSQL; then only processes with the worker role (or all)
 * run jobs. Null: the store's own leases (the service's default), every process runs jobs.
 */
export async function recognitionQueue(core: Pick<Core, 'config' | 'storage' | 'clock' | 'logger'>, store: RecognitionJobStore, leaseSeconds: number): Promise<{ queue: JobQueue; work: boolean } | null> {
  const { config, storage } = core;
  const r = config.recognition;
  const roles = clusterRoles(config.cluster);
  const pgBoss = r.queue === 'pg-boss' || (r.queue === 'auto' && !roles.all && storage.kind === 'postgres');
  if (!pgBoss) return null;
  if (!('pool' in storage)) throw new Error('recognition.queue pg-boss needs PostgreSQL (database_url)');
  const { PgBossJobQueue } = await import('./adapters/queue/pg-boss-job-queue.js');
  const queue = new PgBossJobQueue({
    pool: storage.pool,
    schema: r.queueSchema,
    queue: 'recognition',
    leases: store,
    clock: core.clock,
    leaseSeconds,
    retryLimit: r.retryLimit,
    retryDelaySeconds: r.retryDelaySeconds,
    expireSeconds: r.attemptExpireSeconds,
    maintenanceSeconds: r.queueMaintenanceSeconds,
    pollMs: r.queuePollMs,
    deadRetentionDays: r.deadLetterDays,
    report: (err, context) => core.logger.error({ err }, context),
  });
  return { queue, work: roles.all || roles.worker };
}

/** Recognition workers: the configured number, or one less than the available cores (at least 1). */
export function recognitionWorkers(config: Config): number {
  return config.recognition.workers > 0 ? config.recognition.workers : Math.max(1, availableParallelism() - 1);
}

/** The service's logger (`destination`: where lines go, default stdout; tests capture them). */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.logLevel,
    base: { service: 'lectern' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets never reach the log (auth requirements 89): credentials in headers are redacted and
    // request URLs are logged without their query strings.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; routeOptions?: { url?: string }; ip?: string }) => ({
        method: req.method,
        path: req.url.split('?')[0],
        route: req.routeOptions?.url,
        remote: req.ip,
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** The opened store with its database handle (capabilities' own stores are built on the handle). */
export type OpenedStorage = (Storage & SqliteHandle) | (Storage & PostgresHandle);

/** Opens the store selected by configuration: PostgreSQL with DATABASE_URL, else SQLite in data_dir. */
export async function openStorage(config: Config, logger?: Logger): Promise<OpenedStorage> {
  if (!config.databaseUrl) return openSqliteStorage(join(config.dataDir, 'lectern.db'));
  const { openPostgresStorage } = await import('./adapters/postgres/postgres-storage.js');
  return openPostgresStorage(config.databaseUrl, { onIdleError: (err: unknown, context: string) => logger?.error({ err }, context) });
}

/** Builds the adapters and services (no HTTP server). */
export async function buildCore(config: Config, overrides: AppOverrides = {}): Promise<Core> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config);
  const storage = overrides.storage ?? (await openStorage(config, logger));
  const rateLimiter = overrides.rateLimiter ?? (config.redisUrl ? new (await import('./adapters/redis/redis-rate-limiter.js')).RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter(clock));
  // in a cluster, originals and uploads live in PostgreSQL so every node reaches them (issue 24)
  const clusterBlobs = !clusterRoles(config.cluster).all && 'pool' in storage;
  const blobs = clusterBlobs ? new (await import('./adapters/postgres/postgres-blob-store.js')).PostgresBlobStore(storage.pool) : new FsBlobStore(config.blobDir);
  const runner = new LocalProcessRunner();
  const secret = config.secret ?? loadOrCreateSecret(config.dataDir);
  const report = (err: unknown, context: string) => logger.warn({ err }, context);

  const apiKeys = new ApiKeyService(storage.apiKeys, storage.accounts, clock);
  // Group commit of the per-request ledger writes (ADR 0136); flushed at close before the store closes.
  // The group-commit ledger asks the billing service built over it how many requests are in progress.
  let billing: BillingService;
  const ledger = config.billing.groupCommit
    ? new GroupCommitLedger(storage.ledger, { maxBatch: 256, windowMs: config.billing.groupCommitWindowMs, othersActive: () => billing.inFlight > 1, lanes: storage.kind === 'postgres' ? 4 : 1 })
    : null;
  billing = new BillingService(ledger ?? storage.ledger, clock, { heartbeatMs: config.billing.holdHeartbeatMs, staleAfterMs: config.billing.holdStaleMs, report, standingHolds: config.billing.standingHolds, standingHoldIdleMs: config.billing.standingHoldIdleMs });
  const accounts = new AccountService(storage.accounts, storage.ledger, apiKeys, clock);
  const rateLimits = new RateLimitService(rateLimiter, config.rateLimits, clock, rateOverrideStoreFor(storage));
  const activity = new ActivityBuffer(storage.activity, report);
  const activityTimer = setInterval(() => void activity.flush(), 1000);
  activityTimer.unref();
  // Documents as works (docs/works.md): every read that shows documents goes through the work links;
  // ingest, the indexes and the change feed use the store itself.
  const displayCache = new DisplayRecordCache(config.displayCacheRecords, config.displayCacheBytes);
  const works = new WorkLinkedDocumentStore(storage.documents, displayCache);
  const documents = new DocumentService(works, activity, billing, config.prices, clock, report);
  const downloads = new DownloadService(documents, storage.accounts, blobs);
  // The community layer (docs/community.md): trending is served from a snapshot refreshed every minute.
  const community = new CommunityService({
    store: communityStoreFor(storage),
    activityStore: storage.activity,
    activity,
    documents: works,
    clock,
    secret,
    report,
  });
  const references = new ReferenceService(documents, works, billing, config.prices);
  let indexes: IndexSet | null = null;
  // Ingest indexes as it goes: after each committed batch the open indexes apply the new changes.
  const ingest = new IngestService(storage.documents, blobs, new FsSourceFiles(), clock, async (_ids, final) => {
    if (indexes) await indexes.catchUp({ commit: final ? 'always' : 'due' });
  });
  const demoCorpus = new DemoCorpus(new FsSourceFiles(), DEMO_IDS, storage.documents, clock, async () => {
    if (indexes) await indexes.catchUp({ commit: 'always' });
  });
  // index files in shared memory: the search threads view the writer's copy (ADR 0110)
  // the api role of a cluster without the search role holds no index (ADR 0249): empty indexes in memory
  // analyse query text and carry the corpus models; every corpus read goes to the shards
  const roles0 = clusterRoles(config.cluster);
  const apiOnly = !roles0.all && roles0.api && !roles0.search;
  const dirs = apiOnly ? memoryIndexDirectories() : sharedFsIndexDirectories(indexRoot(config));
  // a search node's index starts from nothing and is fed by startCluster (bootstrap, then its shard's log)
  const indexSource = new SwitchableSource(roles0.search || apiOnly ? { maxSeq: async () => 0, changesSince: async () => [] } : storage.documents);
  const corpusModels = new CorpusModels(fsModelDirectories(join(config.dataDir, 'models')), storage.documents, clock);
  // a cluster's corpus models: trained once, published to the BlobStore every node reaches, pulled by
  // every node into its model directory before the model refresh installs them (ADR 0267)
  const sharedModels = overrides.sharedModelBlobs ? new SharedCorpusModels(overrides.sharedModelBlobs, corpusModels) : clusterBlobs ? new SharedCorpusModels(blobs, corpusModels) : null;
  const pullModels = async (): Promise<void> => {
    if (!sharedModels) return;
    try {
      for (const r of await sharedModels.pullAll()) if (r.installed) logger.info({ index: r.index, models: r.published }, 'published corpus models pulled');
    } catch (err) {
      logger.warn({ err }, 'pulling the published corpus models failed; retried at the next refresh');
    }
  };
  const rankerTraining = new RankerTraining({ files: new FsSourceFiles(), feedback: communityStoreFor(storage), models: fsModelDirectories(join(config.dataDir, 'models')), clock });
  const rankingSource = (open: IndexSet, mode: SearchMode): CandidateSource => {
    const activityCounts = storage.activity;
    const search = new SearchService({
      indexes: open,
      store: works,
      workLinks: works,
      featureStore: storage.documents,
      activity,
      billing,
      prices: config.prices,
      clock,
      secret,
      report,
      engagement: activityEngagement(activityCounts),
    });
    return searchCandidateSource(search, mode);
  };
  const installed = new Map<string, string>();
  const refreshModels = (): string[] => {
    if (!indexes) return [];
    const changed: string[] = [];
    for (const name of INDEX_NAMES) {
      const m = corpusModels.manifest(name);
      const key = m ? `${m.dense.sha256}/${m.sparse.sha256}` : '';
      if ((installed.get(name) ?? '') === key) continue;
      const t0 = Date.now();
      installed.set(name, key);
      changed.push(name);
      let models;
      try {
        models = corpusModels.load(name);
      } catch (err) {
        // unreadable models: the index runs without them (its model modes answer 422) until retrained
        logger.error({ err, index: name }, 'the corpus models of this index cannot be loaded');
        indexes.setModels(name, { dense: null, sparse: null, manifest: null });
        continue;
      }
      const vectorized = indexes.setModels(name, models);
      if (m) logger.info({ index: name, dense: m.dense.sha256, sparse: m.sparse.sha256, vectorizedSegments: vectorized, ms: Date.now() - t0 }, 'corpus models installed');
    }
    return changed;
  };
  const timers: NodeJS.Timeout[] = [];
  // An operator-supplied dense encoder (ADR 0105) replaces the corpus dense model on every index; a model
  // that cannot be loaded stops the start with the adapter's message naming the file.
  let encoder: TextEncoder | null = null;
  let denseOptions: TextEncoderOptions | null = null;
  let sparseOptions: TextEncoderOptions | null = null;
  let vectorizer: EncoderVectorizer | null = null;
  const enc = config.denseEncoder;
  if (enc.dir !== undefined) {
    const load = overrides.loadTextEncoder ?? (async (o) => (await import('./adapters/onnx/onnx-text-encoder.js')).loadOnnxTextEncoder(o));
    denseOptions = {
      dir: enc.dir,
      threads: enc.threads,
      ...(enc.pooling !== 'auto' ? { pooling: enc.pooling } : {}),
      ...(enc.maxTokens > 0 ? { maxTokens: enc.maxTokens } : {}),
      ...(enc.queryPrefix !== '' ? { queryPrefix: enc.queryPrefix } : {}),
      ...(enc.documentPrefix !== '' ? { documentPrefix: enc.documentPrefix } : {}),
    };
    try {
      encoder = await load(denseOptions);
    } catch (err) {
      throw new Error(`dense_encoder.dir: ${(err as Error).message}`);
    }
    if (encoder.info.dims % 32 !== 0) {
      await encoder.close();
      throw new Error(`dense_encoder.dir: the encoder in ${enc.dir} gives ${encoder.info.dims}-dimensional vectors; Lectern needs a multiple of 32 (its binary codes are 32-bit words)`);
    }
    logger.info({ dir: enc.dir, sha256: encoder.info.id, dims: encoder.info.dims, pooling: encoder.info.pooling }, 'dense encoder loaded');
  }
  // An operator-supplied SPLADE-style model (ADR 0106) expands sparse queries instead of the corpus model.
  let sparseEncoder: SparseTextEncoder | null = null;
  const spl = config.sparseEncoder;
  if (spl.dir !== undefined) {
    const load = overrides.loadSparseEncoder ?? (async (o) => (await import('./adapters/onnx/onnx-text-encoder.js')).loadOnnxSparseEncoder(o));
    sparseOptions = { dir: spl.dir, threads: spl.threads, ...(spl.maxTokens > 0 ? { maxTokens: spl.maxTokens } : {}), ...(spl.queryPrefix !== '' ? { queryPrefix: spl.queryPrefix } : {}) };
    try {
      sparseEncoder = await load(sparseOptions);
    } catch (err) {
      await encoder?.close();
      throw new Error(`sparse_encoder.dir: ${(err as Error).message}`);
    }
    logger.info({ dir: spl.dir, sha256: sparseEncoder.info.id, vocabulary: sparseEncoder.info.vocabulary }, 'sparse encoder loaded');
  }
  let stopMerges = (): void => undefined;

  const openIndexes = async (options: OpenIndexesOptions = {}) => {
    if (!indexes) {
      indexes = IndexSet.open(dirs, indexSource, clock);
      // Records written by anyone (this process's ingest, the CLI, other instances) leave the display cache as the index applies them.
      indexes.onChanges((changes) => displayCache.invalidateChanges(changes.map((c) => (c.deleted ? { id: c.id } : { id: c.doc.id, doc: c.doc }))));
      if (sparseEncoder) indexes.setSparseEncoder(sparseEncoder);
      if (encoder) indexes.setEncoder(encoder);
      if (encoder || sparseEncoder) vectorizer = new EncoderVectorizer(indexes, storage.documents, encoder, sparseEncoder);
      const rebuilding = indexes.rebuildReason !== null;
      if (rebuilding) logger.warn({ reason: indexes.rebuildReason }, 'search indexes are rebuilt from the store (index format or text analysis changed)');
      if (options.catchUp !== false) {
        const t0 = Date.now();
        let logged = t0;
        const r = await indexes.catchUp({
          onProgress: (p) => {
            if (rebuilding && Date.now() - logged >= 10_000) {
              logged = Date.now();
              logger.info({ seq: p.seq, target: p.target }, 'rebuilding the search indexes');
            }
          },
        });
        if (r.applied > 0) logger.info({ applied: r.applied, seq: r.seq, ms: Date.now() - t0 }, 'search indexes caught up with the store');
      }
      await pullModels();
      try {
        refreshModels();
      } catch (err) {
        logger.error({ err }, 'loading the corpus models failed; channels that need them answer 422 until they are retrained');
      }
    }
    return indexes;
  };
  const auth = createAuth({
    store: overrides.authStore ?? authStoreFor(storage),
    accounts: storage.accounts,
    mailer: overrides.mailer ?? (config.mail.transport === 'smtp' ? new SmtpMailer(config.mail.smtpUrl!, config.mail.from) : new OutboxMailer(config.mail.outboxDir, config.mail.from, logger)),
    clock,
    settings: authSettings(config, secret),
    // Starting credits of self-service accounts (auth.signUpCredits, default 0; docs/web.md).
    onSignedUp: async (account) => {
      if (config.auth.signUpCredits <= 0) return;
      try {
        await accounts.topUp(account.id, config.auth.signUpCredits, 'sign-up credits');
      } catch (err) {
        logger.error({ err, account: account.id }, 'granting sign-up credits failed');
      }
    },
  });

  return {
    config,
    logger,
    clock,
    storage,
    rateLimiter,
    blobs,
    runner,
    accounts,
    apiKeys,
    billing,
    ingest,
    demoCorpus,
    documents,
    works,
    displayCache,
    downloads,
    references,
    rateLimits,
    activity,
    community,
    secret,
    auth,
    chatModels: overrides.chatModels ?? chatModelRegistry(parseLlmModels(config.llmModels).models),
    get indexes() {
      return indexes;
    },
    indexSource,
    replica: { state: !roles0.all && roles0.search ? 'joining the cluster' : null, snapshotNow: null },
    indexCheckpoint: () => (indexes ? indexes.checkpoint() : committedCheckpoint(fsIndexDirectories(indexRoot(config)))),
    openIndexes,
    corpusModels,
    rankerTraining,
    rankingSource,
    refreshModels,
    sharedModels,
    pullModels,
    encoder,
    sparseEncoder,
    get encoderVectorizer() {
      return vectorizer;
    },
    async tryOpenIndexes(options?: OpenIndexesOptions) {
      try {
        return await openIndexes(options);
      } catch (e) {
        if (/locked by process/.test((e as Error).message)) return null;
        throw e;
      }
    },
    startBackgroundWork() {
      if (!indexes || timers.length > 0) return;
      const idx = indexes;
      let polling = false;
      let encoding = false;
      let refreshing = false;
      // Changes written by another process (a CLI ingest while the server runs) are picked up here.
      timers.push(
        setInterval(() => {
          if (polling) return;
          polling = true;
          indexSource
            .maxSeq()
            .then((seq) => (seq > idx.checkpoint() ? idx.catchUp() : null))
            .catch((err: unknown) => logger.warn({ err }, 'index catch-up failed'))
            .finally(() => {
              polling = false;
            });
        }, 1000),
        // Models trained by `lectern models train` while the server runs (on a cluster: published by any
        // node, ADR 0267) are installed within seconds.
        setInterval(() => {
          if (refreshing) return;
          refreshing = true;
          void pullModels()
            .then(() => refreshModels())
            .catch((err: unknown) => logger.warn({ err }, 'installing the corpus models failed'))
            .finally(() => {
              refreshing = false;
            });
        }, 5000),
        // Documents committed since the last look get their dense-encoder vectors (one run at a time).
        setInterval(() => {
          if (!vectorizer || encoding) return;
          encoding = true;
          vectorizer
            .run()
            .then((r) => (r.documents > 0 ? logger.info(r, 'encoder document vectors attached') : undefined))
            .catch((err: unknown) => logger.warn({ err }, 'computing dense encoder vectors failed; retried in a second'))
            .finally(() => {
              encoding = false;
            });
        }, 1000),
      );
      for (const t of timers) t.unref();
      // The catch-up a server deferred to after it listens (deferIndexCatchUp), at once rather than at
      // the first poll; /readyz turns ready when it is done.
      {
        const t0 = Date.now();
        let logged = t0;
        polling = true;
        idx
          .catchUp({
            onProgress: (p) => {
              if (Date.now() - logged >= 10_000) {
                logged = Date.now();
                logger.info({ seq: p.seq, target: p.target }, 'catching up with the store');
              }
            },
          })
          .then((r) => (r.applied > 0 ? logger.info({ applied: r.applied, seq: r.seq, ms: Date.now() - t0 }, 'search indexes caught up with the store') : undefined))
          .catch((err: unknown) => logger.warn({ err }, 'index catch-up failed'))
          .finally(() => {
            polling = false;
          });
      }
      // merges in short slices, never one long one on the thread that answers requests (ADR 0111)
      stopMerges = startBackgroundMerges(idx, (err) => logger.warn({ err }, 'index merge step failed'));
    },
    async loadDemoCorpusIfEmpty() {
      if (!config.loadDemoCorpus || (await storage.documents.count()) > 0) return null;
      logger.info('loading the demo corpus (first start)');
      const reports: IngestReport[] = [];
      for (const file of DEMO_FILES) {
        const r = await ingest.ingestFile(file);
        logger.info({ file: r.file, inserted: r.inserted, failed: r.failed }, 'demo corpus file loaded');
        reports.push(r);
      }
      // The demo corpus is small: its corpus models are trained right away, so every search mode and
      // similar documents work on a fresh install (a real corpus is trained explicitly: lectern models
      // train). Training takes a minute or two of CPU: it runs as `lectern models train` in a child
      // process, so the first start listens at once; the running server installs the models when they
      // are written (within 5 s). Until then hybrid is fulltext and the trace names the missing channels.
      if (indexes) await indexes.catchUp();
      trainDemoModelsInBackground(logger);
      return reports;
    },
    encoderOptions: { dense: denseOptions, sparse: sparseOptions },
    indexSnapshot: () => Object.fromEntries(INDEX_NAMES.map((n) => [n, { files: dirs.files(n), models: installed.get(n) ?? '' }])) as Snapshot,
    async openRecognitionJobs() {
      // the operator's view of the jobs (lectern jobs): the configured queue, running nothing itself
      const store = recognitionJobStoreFor(storage);
      const q = await recognitionQueue({ config, storage, clock, logger }, store, config.recognition.leaseSeconds);
      const service = new RecognitionJobService({
        store,
        ...(q ? { queue: q.queue } : {}),
        blobs,
        runner,
        billing,
        prices: config.prices,
        clock,
        settings: { workers: 1, maxBytes: config.limits.uploadBytes, maxPages: config.limits.uploadPages, ocrLanguages: config.recognition.ocrLanguages.split('+'), pageConcurrency: 1, leaseSeconds: config.recognition.leaseSeconds, work: false, uploadRetentionSeconds: config.recognition.deadLetterDays * 86_400 },
        report: (err, context) => logger.error({ err }, context),
      });
      await service.start();
      return service;
    },
    async close() {
      for (const t of timers) clearInterval(t);
      stopMerges();
      clearInterval(activityTimer);
      await activity.flush();
      await vectorizer?.stop(); // an encoding run in flight ends before its indexes and models close
      await billing.idle();
      await ledger?.flush();
      indexes?.close();
      await encoder?.close();
      await sparseEncoder?.close();
      await rateLimiter.close();
      await storage.close();
    },
  };
}

// --- backup and restore (issue 25; docs/operations.md "Backup and restore", ADR 0215) ---
/** `lectern backup DIR`: an online, consistent copy of the data directory (the server may run). */
export function backupData(config: Config, dir: string): Promise<BackupManifest> {
  return backupDataDir(dataLocations(config), dir);
}

/** `lectern restore DIR`: a checked backup into the configured (empty) data directory. */
export function restoreData(config: Config, dir: string): { manifest: BackupManifest; files: number } {
  return restoreDataDir(dataLocations(config), dir);
}

function dataLocations(config: Config): DataLocations {
  return { dataDir: config.dataDir, blobDir: config.blobDir, postgres: Boolean(config.databaseUrl), secretConfigured: Boolean(config.secret), indexNames: INDEX_NAMES, version: LECTERN_VERSION };
}
// --- end backup and restore ---

/** Where the search indexes' directories live ({data_dir}/index/<name>). */
function indexRoot(config: Config): string {
  return join(config.dataDir, 'index');
}

/**
 * The bearer token of the internal shard endpoints: cluster.secret, or a key derived from the server
 * secret every process of a cluster shares anyway (the server secret itself never travels); '' when
 * neither is set.
 */
function clusterSecretOf(config: Config): string {
  return config.cluster.secret !== '' ? config.cluster.secret : config.secret ? createHmac('sha256', config.secret).update('lectern cluster shard calls').digest('base64url') : '';
}

/** Builds the core and the HTTP application over it. */
export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<App> {
  // --- cluster search: checked before anything is opened (ADR 0203) ---
  const roles = clusterRoles(config.cluster);
  // cluster.secret, or a key derived from the server secret every process of a cluster shares anyway
  // (the server secret itself never travels)
  const clusterSecret = clusterSecretOf(config);
  if (!roles.all && (roles.api || roles.search) && clusterSecret.length < 16) throw new Error('cluster roles api and search need cluster.secret (at least 16 characters) or secret, the same in every process of the cluster');
  // --- end cluster search ---
  const core = await buildCore(config, overrides);
  const { storage, rateLimiter } = core;
  // The server defers the catch-up to after it listens (startBackgroundWork); /readyz says when the
  // indexes reached the store's sequence as of now (ADR 0243).
  const indexes = await core.openIndexes(overrides.deferIndexCatchUp ? { catchUp: false } : {});
  const readyTarget = await storage.documents.maxSeq();
  let indexesReady = false;
  const report = (err: unknown, context: string) => core.logger.warn({ err }, context);
  // the ranking pipeline (docs/ranking.md): profile formulas, L2 models and the cross-encoder, checked at start
  const ranking = await rankingSettings(config.ranking, {
    readFile: (path) => readFileSync(path),
    loadCrossEncoder: overrides.loadCrossEncoder ?? (async (o) => (await import('./adapters/onnx/onnx-cross-encoder.js')).loadOnnxCrossEncoder(o)),
  });
  const activityCounts = storage.activity;
  // Search threads (ADR 0110): they open the store themselves, so a store handed in by the caller
  // (tests' overrides) keeps searches on this thread. The main thread's clock reading travels with each search.
  const threads =
    config.searchThreads > 0 && !overrides.storage && !(!roles.all && roles.api && !roles.search) ? new SearchThreads(new URL('./search-worker.js', import.meta.url), config.searchThreads, { config, encoders: core.encoderOptions }, () => core.indexSnapshot(), report) : null;
  if (threads) indexes.onChange = () => threads.publish();
  // catch-up builds segments on a builder thread: analysis never runs on the main thread (ADR 0111);
  // merges run whole on a thread of their own (ADR 0180). Both write the files they build and run at
  // the configured (low) scheduling priority.
  const background = { nice: config.backgroundThreadNice, indexRoot: indexRoot(config) };
  const builder = threads ? new ThreadedSegmentBuilder(new URL('./segment-builder-worker.js', import.meta.url), background) : null;
  const merger = threads ? new ThreadedSegmentBuilder(new URL('./segment-builder-worker.js', import.meta.url), background) : null;
  if (builder) indexes.builder = builder;
  if (merger) indexes.merger = merger;
  // --- cluster search (scatter-gather; issue 24, docs/scale.md "Scatter-gather", ADRs 0201-0203) ---
  let shardDirectory: ShardDirectory | null = overrides.shardDirectory ?? null;
  let liveDirectory: LiveShardDirectory | null = null;
  if (!shardDirectory && !roles.all && roles.api) {
    const S = config.cluster.shards;
    // one framed connection per search node, shared by the clients of the shards it holds (ADR 0291)
    const frames = new FrameConnections();
    const client = (shard: number, url: string): ShardClient => (config.cluster.shardTransport === 'http' ? new HttpShardClient(shard, url, clusterSecret) : new FrameShardClient(shard, url, clusterSecret, frames));
    if (config.cluster.searchNodes.trim() !== '') {
      const byShard: ShardClient[][] = Array.from({ length: S }, () => []);
      for (const n of parseSearchNodes(config.cluster.searchNodes, S)) byShard[n.shard]!.push(client(n.shard, n.url));
      shardDirectory = new StaticShardDirectory(S, byShard);
    } else shardDirectory = liveDirectory = new LiveShardDirectory(S, client, report);
  }
  const scatter = shardDirectory ? new ScatterGather(shardDirectory, { hedgeAfterMs: config.cluster.hedgeAfterMs, deadlineMs: config.cluster.shardDeadlineMs }) : null;
  // a search node answers the coordinators' shard calls over its shard's indexes
  const shardRouteList = !roles.all && roles.search ? [(await import('./http/shard-server.js')).shardRoutes({ searchers: [new ShardSearcher(config.cluster.shard, indexes)], secret: clusterSecret, snapshot: () => (core.replica.snapshotNow ? core.replica.snapshotNow() : Promise.resolve(null)) })] : [];
  // --- end cluster search ---
  // Freshness under load (ADR 0244): when the indexes have been behind the store for longer than
  // freshnessBoundMs, the search threads pace themselves so the (low-priority) builder thread progresses;
  // pacing ends when the indexes caught up. Checked four times a second (one max(seq) of the store).
  let lagSince: number | null = null;
  let lagChanges = 0;
  let lagChecking = false;
  const paceTimer =
    threads && config.freshnessBoundMs > 0
      ? setInterval(() => {
          if (lagChecking) return;
          lagChecking = true;
          storage.documents
            .maxSeq()
            .then((seq) => {
              lagChanges = Math.max(0, seq - indexes.checkpoint());
              if (lagChanges === 0) {
                lagSince = null;
                threads.pace(false);
                return;
              }
              const now = performance.now();
              lagSince ??= now;
              threads.pace(now - lagSince >= config.freshnessBoundMs);
            })
            .catch((err: unknown) => report(err, 'index lag check failed'))
            .finally(() => {
              lagChecking = false;
            });
        }, 250)
      : null;
  paceTimer?.unref();
  const inlineMaxWork = config.limits.inlineSearchMaxWork ?? 0;
  const search = new SearchService({
    ...(scatter ? { shards: scatter } : {}),
    ranking,
    lexicalFeedback: { terms: config.ranking.lexicalFeedbackTerms, weight: config.ranking.lexicalFeedbackWeight },
    featureStore: storage.documents,
    engagement: activityEngagement(activityCounts),
    indexes,
    store: core.works,
    // hits show the records the index segments store, with their work links (ADR 0280)
    workLinks: core.works,
    // hot hits' records, links and body texts from memory (ADR 0359; the search threads have their own)
    hitRecordCache: core.displayCache,
    activity: core.activity,
    billing: core.billing,
    prices: config.prices,
    clock: core.clock,
    secret: core.secret,
    report,
    budget: { maxTerms: config.limits.queryMaxTerms, maxPostings: config.limits.queryMaxPostings, maxResultTerms: config.limits.queryMaxResultTerms, concurrency: config.limits.searchConcurrency, slots: Math.max(2, 2 * config.searchThreads) },
    // scatter-gather runs where the request is (search threads hold this process's index, not the shards)
    ...(threads && !scatter ? { executor: threads } : {}),
    // cheap searches while nothing else searches run here, without the hand-off (ADR 0326)
    ...(threads && !scatter && inlineMaxWork > 0 ? { inline: { maxWork: inlineMaxWork, encodeHits: (await import('./http/presenters/search.js')).wireHitEncoder(config.baseUrl) } } : {}),
  });
  const passages = new PassageSearch(indexes, core.documents, core.billing, config.prices, core.clock, core.secret, scatter);
  const conversations = new ConversationService({
    store: conversationStoreFor(storage),
    search,
    documents: core.works,
    billing: core.billing,
    prices: config.prices,
    activity: core.activity,
    clock: core.clock,
    models: core.chatModels,
    report,
    secret: core.secret,
    ...(overrides.extractive ? { extractive: overrides.extractive } : {}),
  });
  // Turns a crash interrupted (issue 25, ADR 0225): a SQLite database has one server process, so every
  // turn lease in it is stale; PostgreSQL keeps the live leases of other processes.
  const repaired = await conversations.repairInterrupted(storage.kind !== 'postgres');
  if (repaired.danglingRequests + repaired.emptyConversations > 0) core.logger.warn(repaired, 'conversation turns interrupted by a crash were removed');
  const community = core.community;
  const trendingTimer = setInterval(() => void community.refreshTrendingIfDue().catch((err: unknown) => report(err, 'trending refresh failed')), 10_000);
  trendingTimer.unref();
  // Activity retention (docs/community.md): raw events past 2 days and counters past 31 days, hourly.
  const pruneActivityNow = () =>
    pruneActivity(storage.activity, Math.floor(core.clock.nowMs() / 1000))
      .then((n) => (n.raw + n.daily > 0 ? core.logger.info(n, 'activity rows pruned') : undefined))
      .catch((err: unknown) => report(err, 'activity pruning failed'));
  const activityPruneTimer = setInterval(pruneActivityNow, ACTIVITY_PRUNE_INTERVAL_MS);
  activityPruneTimer.unref();
  const metricsRegistry = new Registry();
  collectDefaultMetrics({ register: metricsRegistry, prefix: 'lectern_' });
  new Gauge({ name: 'lectern_search_threads', help: 'Search threads serving searches (0: searches run on the main thread; ADR 0110).', registers: [metricsRegistry] }).set(threads?.size ?? 0);
  new Gauge({ name: 'lectern_index_lag_changes', help: 'Store changes not yet committed to the search indexes (as of the last check, every 250 ms with search threads).', registers: [metricsRegistry], collect() { this.set(lagChanges); } });
  new Gauge({ name: 'lectern_search_threads_paced', help: '1 while the search threads pace themselves so the index catch-up progresses (freshnessBoundMs; ADR 0244).', registers: [metricsRegistry], collect() { this.set(threads?.pacing ? 1 : 0); } });
  new Gauge({ name: 'lectern_search_threads_pacing_rests', help: 'Rests the search threads took after a search while pacing, since start (ADR 0244).', registers: [metricsRegistry], collect() { this.set(threads?.pacingRests ?? 0); } });
  new Gauge({ name: 'lectern_search_inline_searches', help: 'Searches run on the main thread because they were cheap and nothing else was searching (limits.inlineSearchMaxWork; ADR 0326), since start.', registers: [metricsRegistry], collect() { this.set(search.inlineSearches); } });
  new Gauge({ name: 'lectern_search_reserved_lane_searches', help: 'Searches run on the reserved search lane (light searches of an account while other accounts hold the search threads; ADR 0270), since start.', registers: [metricsRegistry], collect() { this.set(threads?.reservedServed ?? 0); } });
  new Gauge({ name: 'lectern_search_threads_inflight', help: 'Searches sent to search threads and not answered yet.', registers: [metricsRegistry], collect() { this.set(threads?.inflight ?? 0); } });

  // Recognition jobs: a FIFO pool over the job store, a worker thread per conversion (ADR 0035).
  const jobOutcomes = new Counter({
    name: 'lectern_recognition_jobs_total',
    help: 'Recognition jobs that reached a final state, by outcome (completed, failed, cancelled) and reason (failure code).',
    labelNames: ['outcome', 'reason'] as const,
    registers: [metricsRegistry],
  });
  const wrap = overrides.recognition?.wrapConvert ?? ((inner: ConvertFn) => inner);
  const recognitionStore = overrides.recognition?.store ?? recognitionJobStoreFor(storage);
  const leaseSeconds = overrides.recognition?.leaseSeconds ?? config.recognition.leaseSeconds;
  const jobQueue = await recognitionQueue(core, recognitionStore, leaseSeconds);
  const recognitions = new RecognitionJobService({
    store: recognitionStore,
    ...(jobQueue ? { queue: jobQueue.queue } : {}),
    blobs: core.blobs,
    runner: core.runner,
    billing: core.billing,
    prices: config.prices,
    clock: core.clock,
    settings: {
      workers: overrides.recognition?.workers ?? recognitionWorkers(config),
      maxBytes: config.limits.uploadBytes,
      maxPages: config.limits.uploadPages,
      ocrLanguages: config.recognition.ocrLanguages.split('+'),
      pageConcurrency: config.recognition.pageConcurrency,
      leaseSeconds,
      limits: overrides.recognition?.limits,
      work: jobQueue?.work ?? true,
      uploadRetentionSeconds: config.recognition.deadLetterDays * 86_400,
      uploadSweepMs: config.recognition.uploadSweepMinutes * 60_000,
    },
    report: (err, context) => core.logger.error({ err }, context),
    convert: wrap(threadedConvert(new URL('./recognition-worker.js', import.meta.url))),
    onOutcome: (outcome, reason) => jobOutcomes.inc({ outcome, reason: reason ?? '' }),
  });
  new Gauge({
    name: 'lectern_recognition_queue_depth',
    help: 'Recognition conversions waiting for a worker.',
    registers: [metricsRegistry],
    collect() {
      this.set(recognitions.stats().queued);
    },
  });
  new Gauge({
    name: 'lectern_recognition_running',
    help: 'Recognition conversions running.',
    registers: [metricsRegistry],
    collect() {
      this.set(recognitions.stats().running);
    },
  });
  new Gauge({
    name: 'lectern_recognition_jobs_in_progress',
    help: 'Recognition jobs held by this instance, queued or converting (jobs of one content share a conversion).',
    registers: [metricsRegistry],
    collect() {
      this.set(recognitions.stats().jobs);
    },
  });
  new Gauge({ name: 'lectern_recognition_workers', help: 'Recognition worker pool size.', registers: [metricsRegistry] }).set(recognitions.workers);

  // the HTTP server and MCP are loaded here, not by the CLI's commands that only build the core (ADR 0302)
  const [{ buildHttpServer }, { McpEndpoint }] = await Promise.all([import('./http/server.js'), import('./mcp/index.js')]);
  const mcp: McpHandler = new McpEndpoint({
    baseUrl: config.baseUrl,
    prices: config.prices,
    documents: core.documents,
    references: core.references,
    search,
    passages,
    rateLimits: core.rateLimits,
    secret: core.secret,
    logger: core.logger,
    version: LECTERN_VERSION,
    conversations,
    community,
  });

  const http = await buildHttpServer({
    config,
    logger: core.logger,
    metricsRegistry,
    credentials: new CredentialChain([core.apiKeys, core.auth.accessTokens, ...(overrides.credentialVerifiers ?? [])]),
    mcp,
    auth: core.auth,
    rateLimits: core.rateLimits,
    billing: core.billing,
    documents: core.documents,
    downloads: core.downloads,
    search,
    passages,
    recognitions,
    conversations,
    community,
    references: core.references,
    activity: core.activity,
    selfService: new SelfService(core.apiKeys, storage.apiKeys, storage.ledger),
    extraRoutes: [...(overrides.extraRoutes ?? []), ...shardRouteList],
    readiness: async () => {
      const checks: Record<string, string> = {};
      // ready once caught up with the start's sequence, and ready from then on (a later ingest's lag is
      // freshness, reported by index_seq, not unreadiness)
      const indexSeq = indexes.checkpoint();
      if (!indexesReady && indexSeq >= readyTarget) indexesReady = true;
      checks.indexes = indexesReady ? 'ok' : `catching up with the store (indexed through change ${indexSeq} of ${readyTarget})`;
      // a search node: ready only once its replica is installed (snapshot or store) and follows the log (ADR 0255)
      if (core.replica.state !== null) checks.replica = core.replica.state;
      else if (!roles.all && roles.search) checks.replica = 'ok';
      try {
        await storage.ping();
        checks.storage = 'ok';
      } catch (e) {
        checks.storage = `unreachable (${(e as Error).message})`;
      }
      if (isPingable(rateLimiter)) {
        try {
          await rateLimiter.ping();
          checks.rate_limiter = 'ok';
        } catch (e) {
          checks.rate_limiter = `unreachable (${(e as Error).message})`;
        }
      }
      return { checks, indexSeq };
    },
  });

  if (config.autoConsent) {
    core.logger.warn({ account: config.autoConsent }, 'LECTERN_AUTO_CONSENT is set: TEST ONLY, every authorization and claim is approved automatically for this account');
  }
  // Housekeeping of expired codes, tokens, sessions and links, hourly.
  const purge = () => core.auth.store.oauth.purgeExpired(Math.floor(core.clock.nowMs() / 1000)).catch((err: unknown) => core.logger.warn({ err }, 'auth purge failed'));
  const purgeTimer = setInterval(purge, 3_600_000);
  purgeTimer.unref();

  // Credit holds (ADR 0078): this process's heartbeat, and holds left by a crashed process released.
  const stopHolds = await core.billing.startHoldKeeper();
  const resumed = await recognitions.start();
  if (resumed > 0) core.logger.info({ jobs: resumed, workers: recognitions.workers }, 'recognition jobs resumed');


  return Object.assign(Object.create(null) as object, core, {
    http,
    recognitions,
    conversations,
    search,
    shardDirectory: liveDirectory,
    async close() {
      liveDirectory?.stop();
      clearInterval(purgeTimer);
      clearInterval(trendingTimer);
      clearInterval(activityPruneTimer);
      if (paceTimer) clearInterval(paceTimer);
      // Running conversions are aborted first; their jobs stay resumable (checkpoints per page).
      await recognitions.close();
      await http.close();
      await threads?.close();
      indexes.builder = null;
      indexes.merger = null;
      await builder?.close();
      await merger?.close();
      stopHolds();
      await ranking.crossEncoder?.close();
      await core.close();
    },
  }) as App;
}

/** What the auth capability is told (it never reads configuration itself). */
export function authSettings(config: Config, secret: string): AuthSettings {
  const a = config.auth;
  return {
    issuer: config.authUrl,
    resources: { current: config.mcpUrl, legacy: config.legacyMcpUrl },
    secret,
    accessTokenTtlSeconds: a.accessTokenTtlSeconds,
    codeTtlSeconds: a.codeTtlSeconds,
    refreshTokenTtlSeconds: a.refreshTokenTtlSeconds,
    refreshGraceSeconds: a.refreshGraceSeconds,
    claimTtlSeconds: a.claimTtlSeconds,
    claimIntervalSeconds: a.claimIntervalSeconds,
    claimMaxCodeAttempts: a.claimMaxCodeAttempts,
    identityAssertionTtlSeconds: a.identityAssertionTtlSeconds,
    sessionTtlSeconds: a.sessionTtlSeconds,
    signingKeyRotationSeconds: a.signingKeyRotationSeconds,
    allowSignUp: a.allowSignUp,
    autoConsent: config.autoConsent ? config.autoConsent.trim().toLowerCase() : null,
  };
}

// --- cluster roles (issue 24, docs/scale.md "Roles and configuration") ---

/** How long a process waits at start for the NATS cluster's streams and buckets to answer, ms. */
const STARTUP_MS = 60_000;

/** What startCluster started; stop() ends it (before the app closes). */
export interface ClusterHandle {
  readonly nats: NatsCluster;
  readonly relay: OutboxRelay | null;
  readonly follower: ShardFollower | null;
  stop(): Promise<void>;
}

/**
 * Joins the cluster configured in `cluster.*` (nothing when role is `all`): connects to NATS, records or
 * checks the shard map, turns the outbox on; api and worker processes run the outbox relay (one active
 * at a time), a search process brings its shard replica up from the log (bootstrapping from the store
 * when it has no index); every process announces itself in the membership bucket. `url`: where this
 * process answers HTTP, if it does.
 */
export async function startCluster(core: Core, url: string | null): Promise<ClusterHandle | null> {
  const { config, logger, storage, clock } = core;
  const c = config.cluster;
  const roles = clusterRoles(c);
  if (roles.all) return null;
  if (storage.kind !== 'postgres' || !('pool' in storage)) throw new Error('cluster.role other than all needs PostgreSQL (database_url)');
  if (c.natsUrl === '') throw new Error('cluster.role other than all needs cluster.nats_url');
  if (roles.search && c.shard >= c.shards) throw new Error(`cluster.shard ${c.shard} is not below cluster.shards ${c.shards}`);
  const report = (err: unknown, context: string) => logger.warn({ err }, context);
  const id = roles.search ? `search-${c.shard}-${c.replica}` : `${roles.api ? 'api' : 'worker'}-${process.pid}`;
  const nats = await connectClusterNats(c, `lectern ${id}`);
  let relay: OutboxRelay | null = null;
  let follower: ShardFollower | null = null;
  let snapshotter: Snapshotter | null = null;
  let heartbeat: Heartbeat | null = null;
  try {
    await retrying(() => nats.ensureStream(), STARTUP_MS);
    const map = await retrying(() => nats.claimShardMap({ shards: c.shards, replicas: c.replicas }), STARTUP_MS);
    if (map.shards !== c.shards) throw new Error(`the cluster '${c.name}' has ${map.shards} shards; this process is configured with cluster.shards ${c.shards}`);
    const { PostgresOutbox } = await import('./adapters/postgres/postgres-outbox.js');
    const outbox = new PostgresOutbox(storage.pool);
    await outbox.enable();
    if (roles.api || roles.worker) {
      relay = new OutboxRelay(outbox, nats.publisher(), { shards: c.shards, report });
      relay.start();
    }
    if (roles.search) {
      const indexes = core.indexes ?? (await core.openIndexes());
      const durable = `shard-${c.shard}-replica-${c.replica}`;
      // snapshots of the shard in the cluster's object store (ADR 0255): installed by a new replica,
      // published by this one every cluster.snapshot_interval_minutes and on request
      const objects = await retrying(() => nats.snapshotObjects(), STARTUP_MS);
      const local = new FsLocalIndexFiles(indexRoot(config), INDEX_NAMES);
      // readiness shows every state; the log gets each kind once and a download's progress every 10 s
      let logged = { kind: '', at: 0 };
      const setState = (state: string | null) => {
        core.replica.state = state;
        if (state === null) return;
        const kind = state.split(':')[0]!;
        if (kind === logged.kind && clock.nowMs() - logged.at < 10_000) return;
        logged = { kind, at: clock.nowMs() };
        logger.info({ shard: c.shard, replica: c.replica, state }, 'shard replica');
      };
      follower = await openReplica({
        index: indexes,
        source: core.indexSource,
        store: storage.documents,
        shard: c.shard,
        shards: c.shards,
        subscribed: () => retrying(() => nats.consumerExists(durable), STARTUP_MS),
        behindRetention: () => retrying(() => nats.behindRetention(durable), STARTUP_MS),
        subscribe: (start) => retrying(() => nats.subscribe(c.shard, durable, start), STARTUP_MS),
        unsubscribe: () => retrying(() => nats.deleteConsumer(durable), STARTUP_MS),
        installSnapshot: () =>
          installLatestSnapshot({
            objects,
            local,
            shard: c.shard,
            shards: c.shards,
            logHoldsAfter: (seq) => retrying(() => nats.logHoldsAfter(seq), STARTUP_MS),
            replace: (install) => indexes.replace(install),
            nowMs: () => clock.nowMs(),
            onState: setState,
          }),
        nowMs: () => clock.nowMs(),
        report,
        onState: setState,
        onBootstrap: (b) =>
          b.source === 'snapshot'
            ? logger.info({ shard: c.shard, replica: c.replica, seq: b.seq, ms: b.ms, snapshot: b.snapshot }, 'shard replica installed a snapshot; following the log from just after it')
            : logger.info({ shard: c.shard, replica: c.replica, seq: b.seq, ms: b.ms, ...(b.snapshotRefused ? { snapshot_refused: b.snapshotRefused } : {}) }, 'shard replica bootstrapped from the store'),
      });
      follower.start();
      snapshotter = new Snapshotter({
        publish: () => publishSnapshot({ objects, local, shard: c.shard, shards: c.shards, node: id, logPosition: () => nats.logPosition(durable), keep: c.snapshotKeep, nowMs: () => clock.nowMs() }),
        latest: async () => (await listSnapshots(objects, c.shard))[0] ?? null,
        checkpoint: () => indexes.checkpoint(),
        intervalMs: c.snapshotIntervalMinutes * 60_000,
        nowMs: () => clock.nowMs(),
        report,
        onPublished: (r) => logger.info({ shard: c.shard, id: r.snapshot.id, seq: r.snapshot.seq, log_seq: r.snapshot.logSeq, bytes: r.snapshot.totalBytes, files: r.snapshot.files.length, ms: r.ms, deleted: r.deleted }, 'shard snapshot published'),
      });
      snapshotter.start();
      const s = snapshotter;
      core.replica.snapshotNow = () => s.snapshotNow();
    }
    const members = await retrying(() => nats.membership(), STARTUP_MS);
    const role = roles.search ? 'search' : roles.api ? 'api' : 'worker';
    heartbeat = new Heartbeat(
      members,
      clock,
      () => ({
        id,
        role,
        pid: process.pid,
        ...(url ? { url } : {}),
        ...(roles.search ? { shard: c.shard, replica: c.replica, seq: core.indexes?.checkpoint() ?? 0, docs: INDEX_NAMES.reduce((n, name) => n + (core.indexes?.get(name).stats().docs ?? 0), 0) } : {}),
      }),
      c.heartbeatMs,
      report,
    );
    await heartbeat.start();
    logger.info({ id, roles: c.role, shards: c.shards, nats: c.natsUrl }, 'joined the cluster');
  } catch (e) {
    await relay?.stop();
    await snapshotter?.stop();
    await follower?.stop();
    await nats.close();
    throw e;
  }
  return {
    nats,
    relay,
    follower,
    async stop() {
      await heartbeat?.stop();
      await relay?.stop();
      core.replica.snapshotNow = null;
      await snapshotter?.stop();
      await follower?.stop();
      await nats.close();
    },
  };
}
// --- end cluster roles ---

/** The cluster's NATS (log, membership, object store) as `cluster.*` configures it; loaded on use (ADR 0302). */
async function connectClusterNats(c: Config['cluster'], connectionName: string, connectTimeoutMs?: number): Promise<NatsCluster> {
  const { NatsCluster } = await import('./adapters/nats/nats-cluster.js');
  return NatsCluster.connect({
    servers: c.natsUrl.split(',').map((x) => x.trim()).filter((x) => x !== ''),
    name: c.name,
    replicas: c.logReplicas,
    logMaxAgeMs: c.logMaxAgeHours * 3_600_000,
    membershipMaxAgeMs: Math.max(10_000, c.heartbeatMs * 10),
    connectionName,
    ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}),
  });
}

/**
 * `lectern cluster snapshot create|list|prune` (ADR 0295): the cluster's shard snapshots as an operator
 * sees them, over the cluster configured in `cluster.*` (NATS for membership and the object store, the
 * search nodes' internal endpoint with the cluster secret). Closed by the caller.
 */
export async function openSnapshotAdmin(config: Config): Promise<SnapshotAdmin & { close(): Promise<void> }> {
  const c = config.cluster;
  if (c.natsUrl === '') throw new Error('no cluster is configured: set cluster.nats_url (LECTERN_CLUSTER_NATS_URL and the other cluster variables) or give --dir DIR of a local cluster');
  const secret = clusterSecretOf(config);
  if (secret.length < 16) throw new Error('the search nodes answer only with the cluster secret: set cluster.secret or secret as in the cluster\'s processes');
  const nats = await connectClusterNats(c, 'lectern cluster snapshot', 10_000);
  try {
    const members = await nats.membership({ open: true });
    const objects = await nats.snapshotObjects();
    const admin = new SnapshotAdmin({
      shards: c.shards,
      liveMembers: () => members.live(Date.now(), liveWindowMs(c.heartbeatMs)),
      requestSnapshot: async (url, shard) => {
        const client = new HttpShardClient(shard, url, secret);
        try {
          return await client.snapshot();
        } finally {
          client.close();
        }
      },
      objects,
      nowMs: () => Date.now(),
    });
    return Object.assign(admin, { close: () => nats.close() });
  } catch (e) {
    await nats.close();
    throw e;
  }
}

// --- cluster search (scatter-gather; issue 24, ADR 0202) ---
/**
 * Role api without cluster.search_nodes: the coordinator's replicas are the live search members of the
 * cluster (each announces its shard and the URL of its HTTP app, which serves the internal shard routes),
 * refreshed every second.
 */
export async function attachMembership(app: App, cluster: ClusterHandle | null): Promise<void> {
  const dir = app.shardDirectory;
  if (!dir || !cluster) return;
  const members = await cluster.nats.membership();
  const window = liveWindowMs(app.config.cluster.heartbeatMs);
  await dir.attach(async () => {
    const live = await members.live(app.clock.nowMs(), window);
    return [...replicasByShard(live, dir.shards)].flatMap(([shard, ms]) => ms.flatMap((m) => (m.url ? [{ shard, url: m.url }] : [])));
  });
  dir.start(1_000);
}
// --- end cluster search ---

/** A rate limiter on a remote store (Redis) that /readyz checks; the in-memory one has no ping. */
function isPingable(limiter: RateLimiter): limiter is RateLimiter & { ping(): Promise<unknown> } {
  return typeof (limiter as { ping?: unknown }).ping === 'function';
}
