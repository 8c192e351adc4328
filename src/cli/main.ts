// The `lectern` command. Parses arguments, calls services, prints JSON results on stdout and
// progress/errors on stderr. Exit codes: 0 ok, 1 failure, 2 usage error. The composition root hands in
// a factory (CliContext), so the CLI never builds adapters itself.
import { parseArgs } from 'node:util';
import type { AccountService } from '../accounts/account-service.js';
import type { ApiKeyService } from '../accounts/api-keys.js';
import { redactLlmModels, type Config } from '../config/index.js';
import { AppError } from '../domain/errors.js';
import type { IngestReport, IngestService } from '../ingest/ingest-service.js';
import { INGEST_FORMATS, type IngestFormat } from '../ingest/ingest-formats.js';
import type { ProcessRunner } from '../ports/process-runner.js';
import type { DeadLetter } from '../ports/job-queue.js';
import type { RecognitionJob } from '../ports/recognition-job-store.js';
import type { TextEncoder, TextEncoderLoader } from '../ports/text-encoder.js';
import type { EncoderVectorizer } from '../search/encoder-vectorizer.js';
import type { Storage } from '../ports/storage.js';
import type { IndexSet } from '../search/index-set.js';
import type { CorpusModels, ModelManifest } from '../search/corpus-models.js';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { CommunityService } from '../community/index.js';
import { configDocs } from './config-docs.js';
import { CLUSTER_HELP, CLUSTER_USAGE, ClusterFailure, ClusterUsageError, clusterCommand, type ClusterCommands } from './cluster.js';
import { clusterRoles } from '../cluster/roles.js';
import type { RateLimitService } from '../limits/rate-limit-service.js';
import { progressBar } from './progress.js';
import { RANKING_HELP, RANKING_USAGE, RankingUsageError, rankingCommand } from './ranking.js';
import type { RankerTraining } from '../ranking/ranker-training.js';
import type { CandidateSource } from '../ranking/train-ranker.js';
import type { SearchMode } from '../search/search-types.js';

/** What the CLI needs from an opened app. */
export interface CliApp {
  readonly config: Config;
  readonly storage: Storage;
  readonly accounts: AccountService;
  readonly apiKeys: ApiKeyService;
  readonly ingest: IngestService;
  /** The bundled demo corpus in this store (lectern demo, the note before an ingest). */
  readonly demoCorpus: { status(): Promise<{ present: boolean; documents: number }>; remove(): Promise<number> };
  /** Runs the recognition tools (ingest --recognize). */
  readonly runner: ProcessRunner;
  /** Sign-in passwords (accounts set-password). */
  readonly auth: { readonly people: { setPassword(accountId: number, password: string): Promise<void> } };
  /** Rate limits and their per-account overrides (accounts rate-limit; ADR 0084). */
  readonly rateLimits: Pick<RateLimitService<string>, 'scopes' | 'ruleFor' | 'setOverride' | 'clearOverride'>;
  /** Comment moderation (comments ...; docs/community.md). */
  readonly community: Pick<CommunityService, 'pending' | 'approveAuthor' | 'suspendAuthor' | 'removeComment' | 'publishComment'>;
  openIndexes(options?: { catchUp?: boolean }): Promise<IndexSet>;
  tryOpenIndexes(options?: { catchUp?: boolean }): Promise<IndexSet | null>;
  /** The store sequence the indexes of this data directory have committed (ingest --wait). */
  indexCheckpoint(): number;
  readonly corpusModels: CorpusModels;
  refreshModels(): string[];
  /** A cluster's published corpus models (ADR 0267); null on one node. */
  readonly sharedModels: { publishAll(names?: readonly IndexName[]): Promise<(ModelManifest | null)[]> } | null;
  /** `lectern ranking train`: judgments, training and the model file; pools over open indexes. */
  readonly rankerTraining: RankerTraining;
  rankingSource(indexes: IndexSet, mode: SearchMode): CandidateSource;
  /** The dense encoder of dense_encoder.dir and its vectorizer (models encode). */
  readonly encoder: TextEncoder | null;
  readonly encoderVectorizer: EncoderVectorizer | null;
  readonly sparseEncoder: { readonly info: unknown } | null;
  /** The recognition jobs' queue as the operator sees it (lectern jobs; ADR 0250); closed by the caller. */
  openRecognitionJobs(): Promise<RecognitionJobAdmin>;
  close(): Promise<void>;
}

/** What `lectern jobs` uses of the recognition job service. */
export interface RecognitionJobAdmin {
  readonly queue: { readonly kind: string; readonly retries: boolean };
  deadLetters(limit: number): Promise<DeadLetter[]>;
  retryDeadLetter(jobId: string): Promise<RecognitionJob>;
  /** ADR 0296: the dead letter goes for good, its upload with it (unless another job needs the content). */
  discardDeadLetter(jobId: string): Promise<{ job: RecognitionJob; uploadDeleted: boolean }>;
  /** ADR 0296: the upload retention sweep, now. */
  sweepUploads(): Promise<{ discarded: readonly string[]; deleted: readonly string[] }>;
  close(): Promise<void>;
}

export interface CliContext {
  /** The configuration, from the environment (plus `extraEnv`: a local cluster's, ingest --cluster DIR). */
  loadConfig(extraEnv?: Record<string, string>): Config;
  /** Local clusters (lectern cluster; issue 24). */
  cluster?: ClusterCommands;
  openApp(config: Config): Promise<CliApp>;
  serve(config: Config): Promise<void>;
  /** Loads an operator-supplied encoder model (models check-encoder); absent: the command says it is unavailable. */
  loadTextEncoder?: TextEncoderLoader;
  // --- backup and restore (issue 25, ADR 0215) ---
  /** `lectern backup DIR`: an online copy of the data directory (throws a BackupError to refuse). */
  backup?(config: Config, dir: string): Promise<BackupSummary>;
  /** `lectern restore DIR`: a checked backup into the empty data directory. */
  restore?(config: Config, dir: string): { manifest: BackupSummary; files: number } | Promise<{ manifest: BackupSummary; files: number }>;
  // --- end backup and restore ---
}

/** What the CLI prints of a backup's manifest (backup.json). */
export interface BackupSummary {
  readonly created_at: string;
  readonly lectern_version: string;
  readonly store: string;
  readonly database: string;
  readonly secret: string;
  readonly indexes: Record<string, unknown>;
  readonly files: readonly unknown[];
  readonly total_bytes: number;
}

const USAGE = `Usage: lectern <command> [options]

  serve                                   start the HTTP service (same as npm start)
  ingest [--format F] [--batch N] FILE... load JSONL files (.gz ok) and index them; F: ${INGEST_FORMATS.join(', ')}
  ingest [--site HOST] DIR/Posts.xml      load a Stack Exchange data dump (Users.xml read from beside it)
  ingest --wait ...                       return only once the documents are searchable by the running server
  ingest --recognize FILE...              convert PDF, EPUB or DJVU files to Markdown and index each as a document
  ingest --cluster DIR FILE...            ingest into the local cluster in DIR (its search nodes index from the log)
${CLUSTER_USAGE}
  demo status | demo remove               is the bundled demo corpus in the store; delete its documents
  index rebuild                           rebuild the search indexes from the store (server stopped)
  index merge                             run the merges the index wants now (server stopped; a server merges in the background)
  index stats                             document counts and index sizes
  models train [--index NAME] [--full] [--dims N] [--cluster DIR]
                                          train the corpus models (sparse expansion, dense vectors) from the
                                          store: resumable and incremental; a running server installs them
                                          (on a cluster: published, every node installs them)
  models status                           trained models, their SHA-256 and the vectors of each index
  models encode                           compute the dense_encoder model's document vectors now (a running
                                          server does it in the background)
  models check-encoder DIR [--text T]...  load an ONNX encoder placed in DIR (docs/models.md), print its
                                          SHA-256 id, dimensions and pooling, and the cosine similarities of
                                          the texts (the first as a query, the others as documents)
${RANKING_USAGE}
  accounts create --email E [--credits N] [--eligible]
                                          create an account; prints its id and a new API key
  accounts show ACCOUNT                   an account (ACCOUNT: id or email) with its balance
  accounts set-eligible ACCOUNT true|false
                                          allow or forbid downloading originals
  accounts set-password ACCOUNT           set the browser sign-in password (read from standard input)
  accounts rate-limit ACCOUNT [--scope S --burst N --per-second R] [--clear]
                                          the account's request budgets; with --burst/--per-second its own
                                          budget for scope S (search, documents, ...); --clear [--scope S]
                                          returns it to the configured rateLimits (applied within 10 s)
  keys create --account ACCOUNT [--label L]   a new API key (shown once)
  keys list --account ACCOUNT             key ids (never the keys)
  keys revoke KEY_OR_ID                   revoke a key
  credits add --account ACCOUNT --amount N [--note TEXT]
  credits show --account ACCOUNT [--entries N]
  jobs dead [--limit N]                   recognition jobs in the dead letters (pg-boss queue): id, reason, attempts
  jobs retry JOB_ID                       put a dead-lettered job back on the queue with fresh attempts
  jobs discard JOB_ID                     delete a dead letter for good, with its upload (no retry then)
  jobs sweep                              discard dead letters past recognition.deadLetterDays, delete unneeded uploads
  comments pending [--limit N]            comments waiting in review, oldest first (docs/community.md)
  comments approve-author ACCOUNT         publish the author's pending comments and all later ones
  comments suspend-author ACCOUNT         return the author's published comments to review
  comments remove COMMENT_ID              remove a comment (and hide its replies)
  comments publish COMMENT_ID             publish one pending comment without approving its author
  backup DIR                              copy the data directory (database, indexes, models, blobs) into
                                          the new directory DIR while the server runs (docs/operations.md)
  restore DIR                             restore a backup into the empty data directory (LECTERN_DATA_DIR)
  config docs                             print docs/configuration.md (generated from the schema)
  config check                            validate the configuration and print it (secrets hidden)

Configuration comes from environment variables (docs/configuration.md), e.g. LECTERN_DATA_DIR, DATABASE_URL.`;

/** `lectern COMMAND --help`: what each command does, its options, and an example. */
const HELP: Readonly<Record<string, string>> = {
  serve: `Usage: lectern serve

Starts the HTTP service (the same as npm start) with the configuration from the environment
(docs/configuration.md). On first start with an empty store it loads the bundled demo corpus unless
LECTERN_LOAD_DEMO_CORPUS=false; the log says which corpus the store holds.`,
  ingest: `Usage: lectern ingest [--format F] [--batch N] [--wait [--wait-timeout S]] FILE...
       lectern ingest [--site HOST] DIR/Posts.xml
       lectern ingest --recognize FILE...

Loads records into the store and indexes them (a running server picks them up within a second).
  FILE              JSONL, one record per line (.gz ok): OpenAlex works, BEIR corpus lines, Stack Exchange
                    posts, or Lectern's own shape (docs/ingest.md). Re-ingesting updates, never duplicates.
  DIR/Posts.xml     a Stack Exchange data dump as published (unpack the site's .7z first); Users.xml beside
                    it gives the authors' names. Posts.xml.gz works too.
  --format F        ${INGEST_FORMATS.join(', ')} (default auto: each line's shape decides)
  --batch N         records per store transaction (default 500)
  --site HOST       the dump's site, e.g. ai.stackexchange.com (default: the directory name of Posts.xml)
  --recognize       convert PDF, EPUB or DJVU files to Markdown and store each as a document
  --wait            return only when the documents are searchable by the server running on this data
                    directory (its indexes committed the store's sequence after the ingest); exit 1 if
                    that takes longer than --wait-timeout seconds (default 300)
Bad lines are reported by number and skipped; a file whose first records are all bad, a missing file,
or a PDF given without --recognize is refused with one line. Exit 1 when anything failed.
Example: lectern ingest works.jsonl.gz ai.stackexchange.com/Posts.xml`,
  ranking: RANKING_HELP,
  models: `Usage: lectern models train [--index NAME] [--full] [--dims N] [--cluster DIR]
       lectern models status
       lectern models encode
       lectern models check-encoder DIR [--text T]... [--pooling mean|cls] [--max-tokens N]
                                    [--query-prefix P] [--document-prefix P]

The retrieval models behind the sparse, short_document and binary modes, and an operator-supplied
encoder (docs/models.md).
  train           train the corpus models (sparse expansion, dense vectors) from the store; resumable and
                  incremental, --full starts over; --index ${INDEX_NAMES.join('|')} (default: both);
                  --dims N dense dimensions (a multiple of 32, at most 1024). A running server installs
                  the new models within seconds; without one, the vectors are computed here. On a
                  cluster (a cluster role, or --cluster DIR for a local one) the models are published
                  to the database and every api and search node installs them within seconds.
  status          the trained models with their SHA-256, the configured encoders and each index's vectors
  encode          compute the dense_encoder / sparse_encoder model's document vectors now (a running
                  server does it in the background)
  check-encoder   load the ONNX encoder in DIR, print its SHA-256 id, dimensions and pooling, and the
                  cosine similarities of the texts (the first --text as a query, the others as documents)
Example: lectern models train --index documents && lectern models status`,
  cluster: CLUSTER_HELP,
  index: `Usage: lectern index rebuild | lectern index merge | lectern index stats

  rebuild   rebuild the search indexes from the store (stop the server first)
  merge     run every merge the merge policy wants now, e.g. after a bulk ingest (stop the server first)
  stats     document counts in the store and the indexes' sizes`,
  accounts: `Usage: lectern accounts create --email E [--credits N] [--eligible]
       lectern accounts show ACCOUNT
       lectern accounts set-eligible ACCOUNT true|false
       lectern accounts set-password ACCOUNT      (the password on standard input)
       lectern accounts rate-limit ACCOUNT [--scope S --burst N --per-second R] [--clear [--scope S]]

ACCOUNT is an account id or email. create prints the account id and a new API key (shown once).
rate-limit shows the account's request budgets; with --burst/--per-second it sets the account's own
budget for scope S (search, documents, ...); --clear returns it to the configured rateLimits (applied
within 10 s).`,
  keys: `Usage: lectern keys create --account ACCOUNT [--label L]
       lectern keys list --account ACCOUNT
       lectern keys revoke KEY_OR_ID

API keys of an account; a new key is shown once, list shows ids and labels only.`,
  credits: `Usage: lectern credits add --account ACCOUNT --amount N [--note TEXT]
       lectern credits show --account ACCOUNT [--entries N]

Top up an account, or show its balance and last ledger entries.`,
  jobs: `Usage: lectern jobs dead [--limit N]
       lectern jobs retry JOB_ID
       lectern jobs discard JOB_ID
       lectern jobs sweep

The recognition jobs' dead letters (recognition.queue pg-boss, the default of a cluster; docs/scale.md "Jobs"):
a job whose attempts all failed, or whose worker died on each, is kept there with its reason. dead lists
them, oldest first, as JSON; retry puts one back on the queue (its job returns to pending) once the cause
is fixed. discard deletes a dead letter for good, with its upload and checkpoints (unless another job has
the same content): the job stays failed and cannot be retried. The workers do the same by themselves to
dead letters older than recognition.deadLetterDays (default 30), every recognition.uploadSweepMinutes,
and delete stored uploads that no job needs any more (ADR 0296); sweep runs that sweep now.
With the store's leases (the all-in-one default) nothing is dead-lettered: a failed job is final.
Example: lectern jobs dead --limit 20`,
  comments: `Usage: lectern comments pending [--limit N]
       lectern comments approve-author ACCOUNT | suspend-author ACCOUNT
       lectern comments remove COMMENT_ID | publish COMMENT_ID

Moderation of agents' comments (docs/community.md).`,
  demo: `Usage: lectern demo status | lectern demo remove

The demo corpus (corpus/demo/: 3,684 OpenAlex works, 4 works with originals, 2,842 Stack Exchange posts)
is loaded on first start when the store is empty (LECTERN_LOAD_DEMO_CORPUS, default true).
  status   whether the store holds the demo corpus, and how many of its documents
  remove   delete the demo corpus's documents (your own stay); set LECTERN_LOAD_DEMO_CORPUS=false so an
           emptied store is not filled again at the next start`,
  backup: `Usage: lectern backup DIR

Copies the configured data directory into DIR (which must not exist yet) while the server runs: the
SQLite database through SQLite's online backup API, each search index by its committed manifest, the
trained models, the blobs (originals, uploads) and the secret, with backup.json listing every file's
size and SHA-256. The copy is written beside DIR and renamed into place when whole, so an interrupted
backup leaves no DIR. With DATABASE_URL (PostgreSQL) the database is not copied: run pg_dump right
after (docs/operations.md "Backup and restore").
Example: lectern backup /backups/lectern-2026-11-29`,
  restore: `Usage: lectern restore DIR

Checks every file of the backup in DIR against backup.json, then writes it into the configured data
directory (LECTERN_DATA_DIR; blobs into LECTERN_BLOB_DIR when set), which must be empty or missing.
Start the server afterwards: it accepts the same API keys and serves the same documents. A backup made
with PostgreSQL needs DATABASE_URL set to the database restored with pg_restore first.
Example: LECTERN_DATA_DIR=/srv/lectern/data lectern restore /backups/lectern-2026-11-29`,
  config: `Usage: lectern config docs | lectern config check

  docs    print docs/configuration.md (generated from the configuration schema)
  check   validate the configuration from the environment and print it (secrets hidden)`,
};

class UsageError extends Error {}

/** rateLimits scopes kept per client address, not per account. */
const ADDRESS_SCOPES: readonly string[] = ['oauth', 'oauthAddress', 'signin', 'authFailures'];

const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

async function findAccount(app: CliApp, ref: string | undefined) {
  if (!ref) throw new UsageError('--account is required (an account id or email)');
  const account = await app.accounts.find(ref);
  if (!account) throw new AppError('not_found', `No account ${ref}.`);
  return account;
}

function intOption(v: string | undefined, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

async function withApp<T>(ctx: CliContext, fn: (app: CliApp) => Promise<T>): Promise<T> {
  const app = await ctx.openApp(ctx.loadConfig());
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

async function ingest(ctx: CliContext, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'auto' },
      batch: { type: 'string' },
      recognize: { type: 'boolean', default: false },
      site: { type: 'string' },
      wait: { type: 'boolean', default: false },
      'wait-timeout': { type: 'string' },
      cluster: { type: 'string' },
    },
  });
  // into a local cluster: its configuration, as a process that writes to the store (the relay publishes)
  if (values.cluster !== undefined) ctx = await inCluster(ctx, values.cluster);
  if (positionals.length === 0) throw new UsageError('ingest needs at least one FILE');
  if (values['wait-timeout'] !== undefined && !values.wait) throw new UsageError('--wait-timeout needs --wait');
  if (values.wait && values.cluster !== undefined) throw new UsageError('--wait is not available with --cluster: `lectern cluster status --dir DIR` shows the store sequence each search node has applied (seq)');
  const wait = values.wait ? { timeoutMs: (intOption(values['wait-timeout'], 'wait-timeout', 1) ?? 300) * 1000 } : null;
  if (values.recognize) return ingestRecognized(ctx, positionals, wait);
  const format = values.format as IngestFormat;
  if (!INGEST_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${INGEST_FORMATS.join(', ')}`);
  const batchSize = intOption(values.batch, 'batch', 1);
  return withApp(ctx, async (app) => {
    // in a cluster the search nodes index from the log (issue 24): no local index
    const inCluster = !clusterRoles(app.config.cluster).all;
    const indexes = inCluster ? null : await app.tryOpenIndexes();
    // The notes concern records that were read: a refused file (missing, a directory, a PDF...) gets its
    // one line and nothing else (issue 25).
    const notes: string[] = [];
    if (inCluster) notes.push('note: cluster: the search nodes index these documents from the log within seconds of each batch.');
    else if (!indexes) notes.push('note: a running Lectern server holds the search indexes; it will index these documents within a second of each batch.');
    const demo = await app.demoCorpus.status();
    if (demo.present) {
      notes.push(`note: this store also holds the demo corpus (${demo.documents} documents loaded at first start); your records are added beside them. \`lectern demo remove\` deletes the demo documents.`);
    }
    const reports: IngestReport[] = [];
    const flushNotes = () => {
      for (const n of notes.splice(0)) process.stderr.write(`${n}\n`);
    };
    const refused: { file: string; error: { code: string; message: string } }[] = [];
    for (const file of positionals) {
      let bar: ReturnType<typeof progressBar> | null = null;
      let shown = 0;
      try {
        const r = await app.ingest.ingestFile(file, {
          format,
          batchSize,
          ...(values.site ? { site: values.site } : {}),
          onProgress: (p) => (bar ??= (flushNotes(), progressBar(file.split('/').pop() ?? file))).update(p.bytesRead, p.bytesTotal, `${p.inserted + p.updated + p.unchanged} docs, ${p.failed} bad lines`),
          // The first bad lines are shown as they come; the rest are counted (the JSON report lists the first 100).
          onLineError: (line, message) => {
            flushNotes();
            if (++shown <= MAX_SHOWN_LINE_ERRORS) process.stderr.write(`\n${file}:${line}: ${message}\n`);
            else if (shown === MAX_SHOWN_LINE_ERRORS + 1) process.stderr.write(`\n${file}: more bad lines follow; they are counted, not shown\n`);
          },
        });
        flushNotes();
        (bar ?? progressBar(file.split('/').pop() ?? file)).finish(`${r.inserted} new, ${r.updated} updated, ${r.unchanged} unchanged, ${r.failed} bad lines`);
        reports.push(r);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        if (bar) process.stderr.write('\n');
        process.stderr.write(`lectern: ${e.message}\n`);
        refused.push({ file, error: { code: e.code, message: e.message } });
      }
    }
    // Only refusals: their lines on stderr say it all (no report of nothing read on stdout).
    if (reports.length === 0) return 1;
    const waited = wait ? await waitSearchable(app, indexes !== null, wait.timeoutMs) : true;
    print([
      ...reports.map((r) => ({ file: r.file, ...(r.site ? { site: r.site, users_file: r.usersFile ?? null } : {}), lines: r.lines, inserted: r.inserted, updated: r.updated, unchanged: r.unchanged, failed: r.failed, errors: r.errors })),
      ...refused,
    ]);
    return !waited || refused.length > 0 || reports.some((r) => r.failed > 0) ? 1 : 0;
  });
}

/**
 * `ingest --wait` (docs/ingest.md "Waiting until searchable", ADR 0244): waits until the indexes of this
 * data directory committed the store's sequence as of now (every change the ingest wrote). With the
 * indexes held here the ingest committed them itself; otherwise a running server is their writer and
 * its commit (which its search threads see at once) is read from the index manifests, every 50 ms,
 * for at most `timeoutMs`. Returns false (with a line on stderr) at the timeout.
 */
async function waitSearchable(app: CliApp, heldHere: boolean, timeoutMs: number): Promise<boolean> {
  const target = await app.storage.documents.maxSeq();
  if (heldHere) return true;
  const started = Date.now();
  let seen = app.indexCheckpoint();
  while (seen < target) {
    if (Date.now() - started >= timeoutMs) {
      process.stderr.write(`lectern: --wait: the running server's indexes reached change ${seen} of ${target} within ${Math.round(timeoutMs / 1000)} s; the documents are stored and will become searchable when it catches up.\n`);
      return false;
    }
    await new Promise((r) => setTimeout(r, 50));
    seen = app.indexCheckpoint();
  }
  process.stderr.write(`searchable: the running server indexed through change ${seen} (${((Date.now() - started) / 1000).toFixed(1)} s after the ingest)\n`);
  return true;
}

/** Bad lines printed one by one before the CLI only counts them. */
const MAX_SHOWN_LINE_ERRORS = 10;

async function demo(ctx: CliContext, args: string[]): Promise<number> {
  const [sub] = args;
  if (sub !== 'status' && sub !== 'remove') throw new UsageError('demo status|remove');
  return withApp(ctx, async (app) => {
    if (sub === 'status') {
      const st = await app.demoCorpus.status();
      print({ demo_corpus: st.present ? 'loaded' : 'absent', demo_documents: st.documents, store_documents: await app.storage.documents.count(), load_on_first_start: app.config.loadDemoCorpus });
      return 0;
    }
    await app.tryOpenIndexes();
    const removed = await app.demoCorpus.remove();
    print({ removed, store_documents: await app.storage.documents.count(), load_on_first_start: app.config.loadDemoCorpus });
    if (app.config.loadDemoCorpus) process.stderr.write('note: LECTERN_LOAD_DEMO_CORPUS is true: if the store is empty at the next start, the demo corpus is loaded again.\n');
    return 0;
  });
}

/**
 * `ingest --recognize FILE...`: each file is converted (format from its content) and stored as one
 * document; a file that cannot be read is reported and skipped (exit 1).
 */
async function ingestRecognized(ctx: CliContext, files: string[], wait: { timeoutMs: number } | null = null): Promise<number> {
  // the converters are loaded by the one command that runs them (ADR 0302)
  const { isRecognitionError, recognizeForIngest } = await import('../recognition/index.js');
  return withApp(ctx, async (app) => {
    const indexes = await app.tryOpenIndexes();
    if (!indexes) process.stderr.write('note: a running Lectern server holds the search indexes; it will index these documents within a second.\n');
    const rc = app.config.recognition;
    const out: unknown[] = [];
    let failed = 0;
    for (const file of files) {
      process.stderr.write(`${file}: converting\n`);
      try {
        const r = await app.ingest.ingestRecognizedFile(file, (bytes) =>
          recognizeForIngest(bytes, {
            runner: app.runner,
            limits: { maxBytes: app.config.limits.uploadBytes, maxPages: app.config.limits.uploadPages },
            ocr: { enabled: true, languages: rc.ocrLanguages.split('+') },
            pageConcurrency: rc.pageConcurrency,
          }),
        );
        process.stderr.write(`${file}: ${r.outcome} as ${r.id} (${r.pages} pages, grade ${r.grade})\n`);
        out.push(r);
      } catch (e) {
        if (!isRecognitionError(e) && (e as { code?: string }).code !== 'ENOENT') throw e;
        failed++;
        const code = isRecognitionError(e) ? e.code : 'not_found';
        process.stderr.write(`${file}: ${code}: ${(e as Error).message}\n`);
        out.push({ file, error: { code, message: (e as Error).message } });
      }
    }
    const waited = wait ? await waitSearchable(app, indexes !== null, wait.timeoutMs) : true;
    // nothing converted: the lines above say it all (no report of nothing on stdout)
    if (failed < files.length) print(out);
    return !waited || failed > 0 ? 1 : 0;
  });
}

async function index(ctx: CliContext, args: string[]): Promise<number> {
  const [sub] = args;
  if (sub === 'rebuild') {
    return withApp(ctx, async (app) => {
      // Opened without catching up: the rebuild below re-indexes everything once, with its progress bar.
      const indexes = await app.tryOpenIndexes({ catchUp: false });
      if (!indexes) throw new AppError('conflict', 'A running Lectern server holds the search indexes; stop it before rebuilding.');
      const bar = progressBar('index rebuild');
      const r = await indexes.rebuild((p) => bar.update(p.seq, p.target, `${p.applied} changes`));
      bar.finish(`${r.applied} changes applied`);
      print({ applied: r.applied, seq: r.seq, indexes: indexes.stats() });
      return 0;
    });
  }
  if (sub === 'merge') {
    // Runs every merge the policy wants now (a running server does this in the background, in slices).
    return withApp(ctx, async (app) => {
      const indexes = await app.tryOpenIndexes();
      if (!indexes) throw new AppError('conflict', 'A running Lectern server holds the search indexes (it merges them in the background); stop it to merge here.');
      const t0 = Date.now();
      let merges = 0;
      for (;;) {
        const s = indexes.mergeStep(10_000_000);
        if (s === 'idle') break;
        if (s === 'merged') merges++;
      }
      print({ merges, seconds: (Date.now() - t0) / 1000, indexes: indexes.stats() });
      return 0;
    });
  }
  if (sub === 'stats') {
    return withApp(ctx, async (app) => {
      const indexes = await app.tryOpenIndexes();
      print({
        store: { documents: await app.storage.documents.count('documents'), social: await app.storage.documents.count('social'), seq: await app.storage.documents.maxSeq() },
        indexes: indexes ? { checkpoint: indexes.checkpoint(), ...indexes.stats() } : 'held by a running server',
      });
      return 0;
    });
  }
  throw new UsageError('index rebuild|merge|stats');
}

/** The context of a process of the local cluster in `dir` (its configuration, role api: no index of its own). */
async function inCluster(ctx: CliContext, dir: string): Promise<CliContext> {
  if (!ctx.cluster) throw new UsageError('--cluster is not available in this build');
  let shared: Record<string, string>;
  try {
    shared = await ctx.cluster.env(dir);
  } catch (e) {
    throw new UsageError(`--cluster: ${(e as Error).message}`);
  }
  const env = { ...shared, LECTERN_CLUSTER_ROLE: 'api' };
  return { ...ctx, loadConfig: (extra) => ctx.loadConfig({ ...env, ...extra }) };
}

async function models(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'train') {
    const { values } = parseArgs({ args: rest, options: { index: { type: 'string' }, full: { type: 'boolean', default: false }, dims: { type: 'string' }, cluster: { type: 'string' } } });
    // a local cluster's models: trained here from its store, published for every node (ADR 0267)
    if (values.cluster !== undefined) ctx = await inCluster(ctx, values.cluster);
    if (values.index !== undefined && !(INDEX_NAMES as readonly string[]).includes(values.index)) throw new UsageError(`--index must be one of ${INDEX_NAMES.join(', ')}`);
    const dims = intOption(values.dims, 'dims', 32);
    if (dims !== undefined && (dims % 32 !== 0 || dims > 1024)) throw new UsageError('--dims must be a multiple of 32, at most 1024');
    const names = values.index ? [values.index as IndexName] : [...INDEX_NAMES];
    return withApp(ctx, async (app) => {
      const reports = [];
      for (const name of names) {
        const bar = progressBar(`models train ${name}`);
        const r = await app.corpusModels.train(name, {
          full: values.full,
          ...(dims !== undefined ? { dims } : {}),
          onProgress: (p) => bar.update(p.phase === 'reading' ? p.done : p.done, p.total, p.phase === 'reading' ? `reading store changes (seq ${p.done}/${p.total})` : `training (step ${p.done}/${p.total}: SVD passes, then fine-tuning epochs)`),
        });
        bar.finish(r.skipped ?? `${r.documents} documents, read ${r.readMs} ms, trained ${r.trainMs} ms`);
        reports.push(r);
      }
      // On a cluster the models are published to the store every node reads (ADR 0267); each node
      // installs them within seconds (its model refresh pulls them).
      const published = app.sharedModels ? await app.sharedModels.publishAll(reports.filter((r) => r.manifest !== null).map((r) => r.index)) : null;
      if (published) {
        print({ models: reports.map((r) => ({ index: r.index, documents: r.documents, changes: r.changes, resumed: r.resumed, read_ms: r.readMs, train_ms: r.trainMs, skipped: r.skipped ?? null, manifest: r.manifest })), published: published.filter((m) => m !== null).map((m) => ({ index: m.index, dense: m.dense.sha256, sparse: m.sparse.sha256 })), vectors: 'every node of the cluster installs them within seconds' });
        return 0;
      }
      // When this process can open the indexes (no server running), vectorize them now; otherwise the
      // running server installs the new models within seconds.
      const indexes = await app.tryOpenIndexes();
      if (indexes) app.refreshModels();
      const installed = indexes ? Object.fromEntries(INDEX_NAMES.map((n) => [n, indexes.get(n).vectorStatus()])) : 'a running server installs them within seconds';
      print({ models: reports.map((r) => ({ index: r.index, documents: r.documents, changes: r.changes, resumed: r.resumed, read_ms: r.readMs, train_ms: r.trainMs, skipped: r.skipped ?? null, manifest: r.manifest })), vectors: installed });
      return 0;
    });
  }
  if (sub === 'status') {
    return withApp(ctx, async (app) => {
      const indexes = await app.tryOpenIndexes();
      if (indexes) app.refreshModels();
      const pending = app.encoderVectorizer?.pending() ?? null;
      print({
        ...Object.fromEntries(INDEX_NAMES.map((n) => [n, { manifest: app.corpusModels.manifest(n), vectors: indexes ? indexes.get(n).vectorStatus() : 'held by a running server' }])),
        dense_encoder: app.encoder ? app.encoder.info : null,
        sparse_encoder: app.sparseEncoder ? { ...(app.sparseEncoder.info as object), impacts: indexes ? Object.fromEntries(INDEX_NAMES.map((n) => [n, indexes.get(n).impactStatus()])) : 'held by a running server' } : null,
        pending: app.encoder || app.sparseEncoder ? (indexes && app.encoderVectorizer ? pending : 'held by a running server (it encodes in the background)') : null,
      });
      return 0;
    });
  }
  if (sub === 'encode') {
    if (rest.length > 0) throw new UsageError('models encode takes no arguments');
    return withApp(ctx, async (app) => {
      if (app.encoder === null && app.sparseEncoder === null) {
        process.stderr.write('lectern: no encoder is configured; set dense_encoder.dir (LECTERN_DENSE_ENCODER_DIR) or sparse_encoder.dir (LECTERN_SPARSE_ENCODER_DIR) to a model directory (docs/models.md)\n');
        return 1;
      }
      const indexes = await app.tryOpenIndexes();
      if (!indexes || !app.encoderVectorizer) {
        print({ encoded: 'a running server holds the indexes and computes the vectors in the background; see `lectern models status`' });
        return 0;
      }
      const bar = progressBar('models encode');
      const t0 = performance.now();
      const r = await app.encoderVectorizer.run((p) => bar.update(p.done, p.total, `${p.kind} ${p.index} ${p.segment}`));
      bar.finish(`${r.documents} documents in ${r.segments} segments`);
      print({ dense_encoder: app.encoder?.info ?? null, sparse_encoder: app.sparseEncoder?.info ?? null, segments: r.segments, documents: r.documents, ms: Math.round(performance.now() - t0), vectors: Object.fromEntries(INDEX_NAMES.map((n) => [n, indexes.get(n).vectorStatus()])) });
      return 0;
    });
  }
  if (sub === 'check-encoder') return checkEncoder(ctx, rest);
  throw new UsageError('models train|status|encode|check-encoder');
}

/** `models check-encoder DIR`: loads an operator-supplied encoder and encodes a few texts (no app opened). */
async function checkEncoder(ctx: CliContext, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      text: { type: 'string', multiple: true },
      pooling: { type: 'string' },
      'max-tokens': { type: 'string' },
      'query-prefix': { type: 'string' },
      'document-prefix': { type: 'string' },
    },
  });
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw new UsageError('models check-encoder takes one model directory');
  if (values.pooling !== undefined && values.pooling !== 'mean' && values.pooling !== 'cls') throw new UsageError('--pooling must be mean or cls');
  const maxTokens = intOption(values['max-tokens'], 'max-tokens', 2);
  if (ctx.loadTextEncoder === undefined) {
    process.stderr.write('lectern: this build cannot load encoder models\n');
    return 1;
  }
  const t0 = performance.now();
  let encoder;
  try {
    encoder = await ctx.loadTextEncoder({
      dir,
      ...(values.pooling !== undefined ? { pooling: values.pooling as 'mean' | 'cls' } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(values['query-prefix'] !== undefined ? { queryPrefix: values['query-prefix'] } : {}),
      ...(values['document-prefix'] !== undefined ? { documentPrefix: values['document-prefix'] } : {}),
    });
  } catch (e) {
    process.stderr.write(`lectern: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    const loadMs = Math.round(performance.now() - t0);
    const [query, ...docs] = values.text ?? [];
    let similarities: { text: string; cosine: number }[] = [];
    const t1 = performance.now();
    if (query !== undefined && docs.length > 0) {
      const [q] = await encoder.encode([query], 'query');
      const ds = await encoder.encode(docs, 'document');
      similarities = ds.map((d, i) => ({ text: docs[i]!, cosine: Math.round(d.reduce((s, x, j) => s + x * q![j]!, 0) * 1e4) / 1e4 }));
    }
    const i = encoder.info;
    print({ id: i.id, dims: i.dims, pooling: i.pooling, max_tokens: i.maxTokens, source: i.source, load_ms: loadMs, encode_ms: Math.round(performance.now() - t1), query: query ?? null, similarities });
    return 0;
  } finally {
    await encoder.close();
  }
}

async function accounts(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, credits: { type: 'string' }, eligible: { type: 'boolean', default: false } } });
    if (!values.email) throw new UsageError('accounts create needs --email');
    const credits = intOption(values.credits, 'credits', 0) ?? 0;
    return withApp(ctx, async (app) => {
      const r = await app.accounts.create({ email: values.email!, credits, eligible: values.eligible });
      print({ account_id: r.account.id, email: r.account.email, eligible_for_originals: r.account.eligibleForOriginals, balance: r.balance, api_key: r.apiKey });
      return 0;
    });
  }
  if (sub === 'show') {
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, rest[0]);
      print({ account_id: a.id, email: a.email, email_verified: a.emailVerified, eligible_for_originals: a.eligibleForOriginals, created_at: a.createdAt, balance: await app.storage.ledger.balance(a.id) });
      return 0;
    });
  }
  if (sub === 'set-eligible') {
    if (rest[1] !== 'true' && rest[1] !== 'false') throw new UsageError('accounts set-eligible ACCOUNT true|false');
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, rest[0]);
      const u = await app.storage.accounts.update(a.id, { eligibleForOriginals: rest[1] === 'true' });
      print({ account_id: a.id, eligible_for_originals: u?.eligibleForOriginals });
      return 0;
    });
  }
  if (sub === 'set-password') {
    // The password is read from standard input (never from the command line, which other users and
    // the shell history can see): `printf '%s' "$PW" | lectern accounts set-password ACCOUNT`.
    const password = (await readStdin()).replace(/\r?\n$/, '');
    if (!password) throw new UsageError('accounts set-password ACCOUNT reads the password from standard input');
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, rest[0]);
      try {
        await app.auth.people.setPassword(a.id, password);
      } catch (e) {
        if (e instanceof Error && e.name === 'FormProblem') throw new UsageError(e.message);
        throw e;
      }
      print({ account_id: a.id, email: a.email, password_set: true, email_verified: a.emailVerified });
      return 0;
    });
  }
  if (sub === 'rate-limit') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { scope: { type: 'string' }, burst: { type: 'string' }, 'per-second': { type: 'string' }, clear: { type: 'boolean', default: false } },
    });
    const setting = values.burst !== undefined || values['per-second'] !== undefined;
    // Budgets per client address (OAuth, sign-in, failed credentials) are not an account's to change.
    if (values.scope && ADDRESS_SCOPES.includes(values.scope)) throw new UsageError(`--scope ${values.scope} is a budget per client address, not per account`);
    if (setting && values.clear) throw new UsageError('accounts rate-limit: give --burst and --per-second, or --clear, not both');
    if (setting && (values.burst === undefined || values['per-second'] === undefined || !values.scope)) {
      throw new UsageError('accounts rate-limit ACCOUNT --scope S --burst N --per-second R (all three)');
    }
    const perSecond = values['per-second'] === undefined ? undefined : Number(values['per-second']);
    if (perSecond !== undefined && !Number.isFinite(perSecond)) throw new UsageError(`--per-second must be a number, got ${JSON.stringify(values['per-second'])}`);
    const burst = intOption(values.burst, 'burst', 1);
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, positionals[0]);
      if (setting) await app.rateLimits.setOverride(a.id, values.scope!, { capacity: burst!, refillPerSecond: perSecond! });
      let cleared: number | undefined;
      if (values.clear) cleared = await app.rateLimits.clearOverride(a.id, values.scope);
      const budgets: Record<string, { burst: number; per_second: number; overridden: boolean }> = {};
      for (const scope of app.rateLimits.scopes.filter((x) => !ADDRESS_SCOPES.includes(x))) {
        const r = await app.rateLimits.ruleFor(scope, a.id);
        budgets[scope] = { burst: r.capacity, per_second: r.refillPerSecond, overridden: r.overridden };
      }
      print({ account_id: a.id, ...(cleared === undefined ? {} : { cleared }), rate_limits: budgets });
      return 0;
    });
  }
  throw new UsageError('accounts create|show|set-eligible|set-password|rate-limit');
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('pipe the password on standard input');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function keys(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create' || sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, label: { type: 'string' } } });
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, values.account);
      if (sub === 'create') {
        const { key, record } = await app.apiKeys.create(a.id, values.label ?? null);
        print({ account_id: a.id, key_id: record.id, api_key: key });
      } else {
        const list = await app.storage.apiKeys.listByAccount(a.id);
        print(list.map((k) => ({ key_id: k.id, label: k.label, created_at: k.createdAt, revoked_at: k.revokedAt })));
      }
      return 0;
    });
  }
  if (sub === 'revoke') {
    if (!rest[0]) throw new UsageError('keys revoke KEY_OR_ID');
    return withApp(ctx, async (app) => {
      const ok = await app.apiKeys.revoke(rest[0]!);
      print({ revoked: ok });
      return ok ? 0 : 1;
    });
  }
  throw new UsageError('keys create|list|revoke');
}

async function credits(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { account: { type: 'string' }, amount: { type: 'string' }, note: { type: 'string' }, entries: { type: 'string' } } });
  if (sub === 'add') {
    const amount = intOption(values.amount, 'amount', 1);
    if (amount === undefined) throw new UsageError('credits add needs --amount N');
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, values.account);
      print({ account_id: a.id, balance: await app.accounts.topUp(a.id, amount, values.note ?? null) });
      return 0;
    });
  }
  if (sub === 'show') {
    const n = intOption(values.entries, 'entries', 0) ?? 10;
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, values.account);
      const entries = await app.storage.ledger.entries(a.id, n);
      print({
        account_id: a.id,
        balance: await app.storage.ledger.balance(a.id),
        entries: entries.map((e) => ({ id: e.id, amount: e.amount, balance_after: e.balanceAfter, operation: e.operation, reference: e.reference, created_at: e.createdAt })),
      });
      return 0;
    });
  }
  throw new UsageError('credits add|show');
}

async function jobs(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'dead' && sub !== 'retry' && sub !== 'discard' && sub !== 'sweep') throw new UsageError('jobs dead [--limit N] | jobs retry JOB_ID | jobs discard JOB_ID | jobs sweep');
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { limit: { type: 'string' } } });
  if ((sub === 'retry' || sub === 'discard') && positionals.length !== 1) throw new UsageError(`jobs ${sub} needs one JOB_ID (lectern jobs dead lists them)`);
  if (sub === 'sweep' && (positionals.length > 0 || values.limit !== undefined)) throw new UsageError('jobs sweep takes no arguments');
  const limit = intOption(values.limit, 'limit', 1) ?? 100;
  return withApp(ctx, async (app) => {
    const admin = await app.openRecognitionJobs();
    try {
      if (sub === 'dead') {
        if (!admin.queue.retries) process.stderr.write(`lectern: the recognition queue is ${admin.queue.kind}: failed jobs are final and nothing is dead-lettered (recognition.queue pg-boss keeps dead letters)\n`);
        const letters = await admin.deadLetters(limit);
        print(letters.map((l) => ({ job_id: l.id, sha256: l.key, reason: { code: l.reason.code, message: l.reason.message }, attempts: l.attempts, dead_at: l.deadAt })));
        return 0;
      }
      if (sub === 'sweep') {
        const r = await admin.sweepUploads();
        print({ discarded: r.discarded, deleted_uploads: r.deleted });
        return 0;
      }
      try {
        if (sub === 'discard') {
          const r = await admin.discardDeadLetter(positionals[0]!);
          print({ job_id: r.job.id, status: r.job.status, dead_letter: 'discarded', upload_deleted: r.uploadDeleted });
          return 0;
        }
        const job = await admin.retryDeadLetter(positionals[0]!);
        print({ job_id: job.id, status: job.status });
        return 0;
      } catch (e) {
        if (e instanceof AppError) {
          process.stderr.write(`lectern: ${e.message}\n`);
          return 1;
        }
        throw e;
      }
    } finally {
      await admin.close();
    }
  });
}

async function comments(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'pending') {
    const { values } = parseArgs({ args: rest, options: { limit: { type: 'string' } } });
    const limit = intOption(values.limit, 'limit', 1) ?? 100;
    return withApp(ctx, async (app) => {
      const list = await app.community.pending(limit);
      print(list.map((c) => ({ comment_id: c.id, account_id: c.accountId, document_id: c.documentId, reply_to_comment_id: c.parentId, model: c.model, contribution: c.contribution, content: c.content, evidence: c.evidence, created_at: c.createdAt })));
      return 0;
    });
  }
  if (sub === 'approve-author' || sub === 'suspend-author') {
    return withApp(ctx, async (app) => {
      const a = await findAccount(app, rest[0]);
      await (sub === 'approve-author' ? app.community.approveAuthor(a.id) : app.community.suspendAuthor(a.id));
      print({ account_id: a.id, author: sub === 'approve-author' ? 'approved' : 'pending' });
      return 0;
    });
  }
  if (sub === 'remove' || sub === 'publish') {
    const id = intOption(rest[0], 'COMMENT_ID', 1);
    if (id === undefined) throw new UsageError(`comments ${sub} COMMENT_ID`);
    return withApp(ctx, async (app) => {
      const ok = await (sub === 'remove' ? app.community.removeComment(id) : app.community.publishComment(id));
      if (!ok) throw new AppError('not_found', `No comment ${id}.`);
      print({ comment_id: id, status: sub === 'remove' ? 'removed' : 'published' });
      return 0;
    });
  }
  throw new UsageError('comments pending|approve-author|suspend-author|remove|publish');
}

// --- backup and restore (issue 25, ADR 0215) ---
async function backup(ctx: CliContext, args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('backup DIR (one new directory)');
  if (!ctx.backup) throw new AppError('feature_unavailable', 'this build cannot make backups');
  const config = ctx.loadConfig();
  if (config.databaseUrl) {
    process.stderr.write('note: DATABASE_URL is set: this backup holds the indexes, models, blobs and secret, not the PostgreSQL database; run pg_dump right after it (docs/operations.md "Backup and restore").\n');
  }
  const m = await backupOrRefuse(() => ctx.backup!(config, positionals[0]!));
  print({ backup: positionals[0], created_at: m.created_at, store: m.store, database: m.database, secret: m.secret, indexes: m.indexes, files: m.files.length, bytes: m.total_bytes });
  return 0;
}

async function restore(ctx: CliContext, args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('restore DIR (a directory made by lectern backup)');
  if (!ctx.restore) throw new AppError('feature_unavailable', 'this build cannot restore backups');
  const config = ctx.loadConfig();
  const r = await backupOrRefuse(async () => ctx.restore!(config, positionals[0]!));
  print({ restored: positionals[0], data_dir: config.dataDir, created_at: r.manifest.created_at, store: r.manifest.store, files: r.files, bytes: r.manifest.total_bytes });
  if (r.manifest.store === 'postgresql') process.stderr.write('note: the database is not in this backup: DATABASE_URL must name the database restored with pg_restore from the dump taken with it.\n');
  return 0;
}

/** A refusal of backup or restore (BackupError) is one line and exit 1, like an AppError. */
async function backupOrRefuse<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if ((e as Error).name === 'BackupError') throw new AppError('conflict', (e as Error).message);
    throw e;
  }
}
// --- end backup and restore ---

function config(ctx: CliContext, args: string[]): number {
  if (args[0] === 'docs') {
    process.stdout.write(configDocs());
    return 0;
  }
  if (args[0] === 'check') {
    const c = ctx.loadConfig();
    const hide = (u: string | undefined) => (u ? u.replace(/\/\/([^@/]*)@/, '//[redacted]@') : u);
    print({ ...c, secret: c.secret ? '[redacted]' : undefined, databaseUrl: hide(c.databaseUrl), redisUrl: hide(c.redisUrl), mail: { ...c.mail, smtpUrl: hide(c.mail.smtpUrl) }, llmModels: redactLlmModels(c.llmModels), cluster: { ...c.cluster, secret: c.cluster.secret ? '[redacted]' : '' } });
    return 0;
  }
  throw new UsageError('config docs|check');
}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const [command, ...args] = argv;
  // `lectern COMMAND --help` (anywhere after the command) and `lectern help COMMAND`: no app is opened.
  const helpFor = command === 'help' ? (args[0] === '--help' || args[0] === '-h' ? undefined : args[0]) : command !== undefined && (args.includes('--help') || args.includes('-h')) ? command : undefined;
  if (helpFor !== undefined) {
    const text = HELP[helpFor];
    if (text === undefined) {
      process.stderr.write(`lectern: unknown command ${JSON.stringify(helpFor)}\n\n${USAGE}\n`);
      return 2;
    }
    process.stdout.write(`${text}\n`);
    return 0;
  }
  try {
    switch (command) {
      case undefined:
      case 'serve':
        await ctx.serve(ctx.loadConfig());
        return 0;
      case 'ingest':
        return await ingest(ctx, args);
      case 'index':
        return await index(ctx, args);
      case 'models':
        return await models(ctx, args);
      case 'ranking':
        try {
          return await rankingCommand(ctx, args, withApp);
        } catch (e) {
          if (e instanceof RankingUsageError) throw new UsageError(e.message);
          throw e;
        }
      case 'accounts':
        return await accounts(ctx, args);
      case 'keys':
        return await keys(ctx, args);
      case 'credits':
        return await credits(ctx, args);
      case 'comments':
        return await comments(ctx, args);
      case 'jobs':
        return await jobs(ctx, args);
      case 'config':
        return config(ctx, args);
      case 'cluster':
        try {
          return await clusterCommand(args, (extra) => ctx.loadConfig(extra), ctx.cluster, print);
        } catch (e) {
          if (e instanceof ClusterUsageError) throw new UsageError(e.message);
          if (e instanceof ClusterFailure) {
            process.stderr.write(`lectern: ${e.message}\n`);
            return 1;
          }
          throw e;
        }
      case 'demo':
        return await demo(ctx, args);
      case 'backup':
        return await backup(ctx, args);
      case 'restore':
        return await restore(ctx, args);
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`lectern: ${(e as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (e instanceof AppError || (e as Error).name === 'ConfigError') {
      process.stderr.write(`lectern: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
}
