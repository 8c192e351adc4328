// Process entry (`npm start`): read configuration, build the app, load the demo corpus on first start,
// listen, and shut down gracefully on SIGINT/SIGTERM (in-flight requests finish, up to
// limits.shutdownGraceMs).
// The composition root (app.js) and the local-cluster adapter are imported when a command needs them
// (ADR 0302): `lectern --help`, `lectern accounts ...` and the like never load the HTTP server, MCP or
// the drivers of stores they do not use.
import type { buildApp as BuildApp } from './app.js';
import { runCli } from './cli/main.js';
import { ConfigError, loadConfig, loadConfigWithEnv, processEnvironment, type Config } from './config/index.js';

/** The composition root, loaded on first use. */
const composition = () => import('./app.js');
const localCluster = () => import('./adapters/cluster/local-cluster.js');

export async function serve(config: Config): Promise<void> {
  const { attachMembership, buildApp, startCluster } = await composition();
  // the indexes catch up with the store after the server listens; /readyz says when they have (ADR 0243)
  const app = await buildApp(config, { deferIndexCatchUp: true });
  const log = app.logger;
  // a search node holds one shard, fed from the log (issue 24): it never loads the demo corpus itself
  const searchNode = config.cluster.role.split(',').includes('search');
  const loaded = searchNode ? null : await app.loadDemoCorpusIfEmpty();
  if (!searchNode) await logCorpus(app, loaded !== null);
  app.startBackgroundWork();
  const address = await app.http.listen({ host: config.host, port: config.port });
  const cluster = await startCluster(app, address);
  await attachMembership(app, cluster); // role api: the shards' live replicas (ADR 0202)
  log.info({ base_url: config.baseUrl, mcp_url: config.mcpUrl, store: app.storage.kind, data_dir: config.dataDir, chat_models: app.chatModels.names() }, 'Lectern is listening');
  // Recognition formats whose tools are missing are refused at submission (503 format_unavailable).
  void app.recognitions.formats().then(
    (formats) => {
      for (const f of formats.filter((x) => !x.available || (x.format !== 'epub' && !x.ocr))) {
        log.warn({ format: f.format, available: f.available, ocr: f.ocr, missing_tools: f.missingTools }, 'recognition: tools missing (scripts/system-packages.txt)');
      }
    },
    (err: unknown) => log.warn({ err }, 'recognition: probing the tools failed'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      log.warn('shutdown grace period over; exiting');
      process.exit(1);
    }, config.limits.shutdownGraceMs);
    timer.unref();
    (cluster ? cluster.stop() : Promise.resolve()).then(() => app.close()).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Says at start which corpus the store holds, and how to start empty (docs/ingest.md "The demo corpus"). */
async function logCorpus(app: Awaited<ReturnType<typeof BuildApp>>, loadedNow: boolean): Promise<void> {
  const total = await app.storage.documents.count();
  const demo = await app.demoCorpus.status();
  if (demo.present) {
    const own = total - demo.documents;
    app.logger.info(
      { documents: total, demo_documents: demo.documents, own_documents: own },
      `corpus: the demo corpus (${demo.documents} documents${loadedNow ? ', loaded now because the store was empty' : ''})${own > 0 ? ` and ${own} documents of your own` : ''}. ` +
        'To serve only your own collection: lectern demo remove, and set LECTERN_LOAD_DEMO_CORPUS=false so an empty store is not filled again.',
    );
  } else if (total === 0) {
    app.logger.info({ documents: 0 }, 'corpus: the store is empty (load_demo_corpus is off); add documents with `lectern ingest FILE`');
  } else {
    app.logger.info({ documents: total }, `corpus: ${total} documents of your own (no demo corpus)`);
  }
}

/** Entry for `npm start` (no arguments: serve) and for the `lectern` command (bin/lectern.mjs). */
export async function main(argv: readonly string[]): Promise<number> {
  return runCli(argv, {
    loadConfig: (extraEnv) => (extraEnv ? loadConfigWithEnv(extraEnv) : loadConfig()),
    cluster: {
      up: async (o) => (await localCluster()).clusterUp({ ...o, baseEnv: processEnvironment() }),
      status: async (dir) => (await localCluster()).clusterStatus(dir),
      down: async (dir) => (await localCluster()).clusterDown(dir),
      env: async (dir) => (await localCluster()).clusterEnv(dir),
      snapshots: async (config) => (await composition()).openSnapshotAdmin(config),
    },
    openApp: async (config) => (await composition()).buildCore(config),
    serve,
    backup: async (config, dir) => (await composition()).backupData(config, dir),
    restore: async (config, dir) => (await composition()).restoreData(config, dir),
    // loaded on first use, so a process that never runs an encoder never loads the ONNX runtime
    loadTextEncoder: async (options) => (await import('./adapters/onnx/onnx-text-encoder.js')).loadOnnxTextEncoder(options),
  });
}

const isEntry = import.meta.url === `file://${process.argv[1]}`;
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (err: unknown) => {
      if (err instanceof ConfigError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      void composition().then(
        ({ createLogger }) => {
          createLogger({ logLevel: 'info' }).fatal({ err }, 'failed');
          process.exit(1);
        },
        () => {
          process.stderr.write(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
          process.exit(1);
        },
      );
    },
  );
}
