// The configuration schema: every option with its default and description. Each leaf can be set from
// a JSON file (LECTERN_CONFIG=path, same nesting) or from the environment variable named by
// `envName(path)` (LECTERN_ + the path in SCREAMING_SNAKE_CASE, e.g. prices.searchPerHit ->
// LECTERN_PRICES_SEARCH_PER_HIT), plus the conventional aliases in ENV_ALIASES. docs/configuration.md
// is generated from this file (`npx lectern config docs`) and a test keeps it in sync.
import { Type, type Static, type TSchema } from 'typebox';

const rate = (capacity: number, refillPerSecond: number, what: string) =>
  Type.Object(
    {
      capacity: Type.Integer({ minimum: 1, maximum: 1_000_000, default: capacity, description: `Burst size (tokens) for ${what}.` }),
      refillPerSecond: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, default: refillPerSecond, description: `Sustained requests per second for ${what}.` }),
    },
    { additionalProperties: false, default: {} },
  );

export const ConfigSchema = Type.Object(
  {
    host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Listen address.' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'Listen port (0 picks a free port).' }),
    baseUrl: Type.Optional(
      Type.String({ format: 'uri', description: 'Public base URL of the HTTP API ({base_url}). Default: http://{host}:{port}.' }),
    ),
    authUrl: Type.Optional(Type.String({ format: 'uri', description: 'Authorization server address ({auth_url}). Default: base_url.' })),
    mcpUrl: Type.Optional(Type.String({ format: 'uri', description: 'MCP resource address ({mcp_url}). Default: base_url + /mcp.' })),
    legacyMcpUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description:
          'Legacy MCP resource address, still served with its own protected resource metadata; OAuth tokens may be issued for it (resource parameter). Default: base_url + /v2/mcp.',
      }),
    ),
    autoConsent: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 320,
        description:
          'TEST ONLY. Email of an existing account that is treated as signed in on every sign-in page and approves every authorization request and service_auth claim automatically (headless OAuth tests). Refused unless base_url is a loopback address. Never set it in production.',
      }),
    ),
    mcpAllowedOrigins: Type.String({
      default: '',
      description:
        'Comma-separated browser origins (scheme://host[:port]) allowed to call the MCP endpoint, besides the service\'s own origins and loopback origins (localhost, 127.0.0.1, [::1]); `*` allows any origin. Other Origin headers get 403.',
    }),
    dataDir: Type.String({ minLength: 1, default: './data', description: 'Directory for the embedded database, search indexes and blobs.' }),
    databaseUrl: Type.Optional(
      Type.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL connection URL; when absent, embedded SQLite in data_dir is used.' }),
    ),
    redisUrl: Type.Optional(
      Type.String({ pattern: '^rediss?://', description: 'Redis URL; when set, rate limits are shared by every instance through Redis.' }),
    ),
    blobDir: Type.Optional(Type.String({ minLength: 1, description: 'Directory for originals and uploads. Default: {data_dir}/blobs.' })),
    logLevel: Type.Union(
      [Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')],
      { default: 'info', description: 'Log level of the structured JSON log.' },
    ),
    displayCacheRecords: Type.Integer({
      minimum: 0,
      maximum: 10_000_000,
      default: 10_000,
      description: 'Display records (what a search hit shows: no full text) kept in memory per serving process and per search thread, with their work links and the body texts snippets were cut from, within display_cache_bytes: search hits take their records from it before the index segments (ADR 0280) or the store, each from its second load on (ADR 0359), as do the other reads of display records. 0 turns the cache off. A record leaves it when it is written or deleted (docs/storage.md, ADR 0135); a search thread empties its cache at every index snapshot.',
    }),
    displayCacheBytes: Type.Integer({
      minimum: 0,
      maximum: 2 ** 40,
      default: 32 * 2 ** 20,
      description: 'Memory budget of each display cache (the serving process\'s and each search thread\'s; display_cache_records), bytes: every record is estimated as it is admitted (its fields and work links, its body text, the wire bytes a search thread keeps for it, the cache\'s own indexes) and the least recently used leave while the sum is over this; a body text over 1/16 of it is never kept (ADR 0370). The resident memory a cache adds is more than this when it churns (queries spread over the corpus: evicted records wait in V8\'s old generation for its next full collection; docs/operations.md). 0 turns the cache off.',
    }),
    loadDemoCorpus: Type.Boolean({ default: true, description: 'Load the bundled demo corpus on first start (when the store is empty).' }),
    secret: Type.Optional(
      Type.String({ minLength: 32, description: 'Server secret for signed tokens (feedback tokens). Default: generated once and kept in {data_dir}/secret.' }),
    ),
    searchThreads: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 256,
        description:
          'Search threads: each search\'s engine work, records and snippets run on this many worker threads over one shared copy of the index, while the main thread answers HTTP, bills and writes the index (ADR 0110). Default: the available cores less one (os.availableParallelism() - 1, at least 1): the main thread keeps a core. 0: searches run on the main thread. With threads, one more (the reserved lane, ADR 0270) runs a search of an account that has no other in progress while other accounts\' searches hold every search thread.',
      }),
    ),
    backgroundThreadNice: Type.Integer({
      minimum: 0,
      maximum: 19,
      default: 10,
      description:
        'Scheduling priority (nice value) of the background threads that build and merge index segments (ADR 0180): at 10 they get about a tenth of a core that busy searches share with them (and every idle cycle), so an ingest or a merge barely slows searches on a busy machine and still finishes; 19 yields almost everything (an ingest under a saturating search load may then wait for minutes). Applies to those threads only (Linux: setpriority on the thread id); a no-op where the platform cannot set one thread\'s priority. 0: normal priority.',
    }),
    freshnessBoundMs: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 1000,
      description:
        'When the search indexes have been behind the document store for longer than this, ms, the search threads pace themselves (each rests after a search for as long as it ran, at most 50 ms) until the indexes caught up, so the builder thread (backgroundThreadNice) gets CPU under a saturating search load and new documents become searchable (ADR 0244; docs/ingest.md "Waiting until searchable"). Searches answer slower meanwhile. 0: never pace.',
    }),
    trustProxy: Type.Boolean({ default: false, description: 'Trust X-Forwarded-* headers from a reverse proxy.' }),
    limits: Type.Object(
      {
        jsonBodyBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024, description: 'Largest JSON or form request body, bytes.' }),
        requestTimeoutMs: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 120_000, description: 'Longest time a request (headers and body) may take to arrive, ms; slower requests get 408 and the connection is closed.' }),
        uploadBytes: Type.Integer({ minimum: 1024, maximum: 4 * 1024 * 1024 * 1024, default: 100 * 1024 * 1024, description: 'Largest recognition upload (the file part of POST /v1/recognitions), bytes; larger uploads get 413.' }),
        uploadPages: Type.Integer({ minimum: 1, maximum: 100_000, default: 2000, description: 'Most pages (or EPUB spine items) a recognition upload may have; more fail the job with too_many_pages before any page is converted (nothing charged).' }),
        queryMaxTerms: Type.Integer({ minimum: 1, maximum: 100_000, default: 256, description: 'Most distinct index terms one search query evaluates (words, their variants and phrase terms): a longer query is answered with its most common unquoted words left out, flagged in the trace (pruned evaluation, docs/operations.md). Only quoted phrases with more terms are refused (422, detail budget "terms").' }),
        queryMaxPostings: Type.Integer({ minimum: 1000, maximum: 1_000_000_000, default: 5_000_000, description: 'Work limit of one search: most postings its terms may have in one index searched (the sum of their document frequencies): beyond it the most common unquoted words are left out, flagged in the trace. Refused (422, budget "postings") only when its quoted phrases or its one word alone are over. About 25 ns of engine time each.' }),
        queryMaxResultTerms: Type.Integer({ minimum: 100, maximum: 100_000_000, default: 10_000, description: 'Work limit of the per-hit work of one search (passages, snippets, proximity): results (offset + limit, or the ranking pool) times query words. Beyond it that work reads the weightiest words only (at least 16), flagged in the trace; never refused.' }),
        searchConcurrency: Type.Integer({ minimum: 1, maximum: 10_000, default: 4, description: 'Most searches one account may have running or waiting for their turn at once in one serving process (searches take fair turns across accounts, two at a time); more: 429 rate_limited (scope search_concurrency, Retry-After 1).' }),
        shutdownGraceMs: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000, description: 'How long shutdown waits for in-flight requests, ms.' }),
        inlineSearchMaxWork: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'With search threads: a search whose work estimate (about 25 ns of engine time a unit: its postings, plus 40 a result x query word, plus 1000) is at most this runs on the main thread when it is alone (no other search in progress, billing included; none on the threads, in a turn or waiting; no pacing), saving the hand-off to a search thread and back (ADR 0326). 0 (the default): every search goes to a search thread; on our loaded 2-core machine it cut CPU per search but lowered throughput at 1-2 clients and raised p99 at 16, so try it on yours (e.g. 250000).' })),
        pacedResponseChunkBytes: Type.Optional(Type.Integer({ minimum: 0, maximum: 16_777_216, default: 0, description: 'Search responses larger than this are written paced: the search thread\'s bytes without a copy, one chunk of this size per turn of the event loop, only as fast as the client reads (ADR 0305; same bytes and Content-Length). 0 (the default): one buffer, as measured no worse on our shared machine; 65536 to try it.' })),
      },
      { additionalProperties: false, default: {} },
    ),
    billing: Type.Object(
      {
        holdHeartbeatMs: Type.Integer({ minimum: 50, maximum: 600_000, default: 5_000, description: 'How often a serving process records that it is alive; the credits it holds for requests in progress are kept while it does (docs/billing.md), ms.' }),
        holdStaleMs: Type.Integer({ minimum: 200, maximum: 3_600_000, default: 20_000, description: 'Credits held by a process that has not recorded itself alive for this long (it crashed) are released, at start-up and by every running process, ms. Keep it several times holdHeartbeatMs.' }),
        groupCommit: Type.Boolean({ default: true, description: 'Commit the holds, extensions and captures of concurrent requests together, one transaction per batch; each request still waits for its own commit (docs/billing.md, ADR 0136). false: one transaction per write.' }),
        groupCommitWindowMs: Type.Integer({ minimum: 0, maximum: 100, default: 0, description: 'With groupCommit, how long a batch waits for more writes before committing, ms; 0 commits what arrived by the next turn of the event loop or during the previous commit.' }),
        standingHolds: Type.Boolean({ default: true, description: "One standing hold per account and serving process covers the account's requests in progress: a request's credits are reserved from it in memory and its charge is drawn from it at delivery, one ledger write per request instead of two (docs/billing.md, ADR 0332). false: a hold of its own per operation." }),
        standingHoldIdleMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000, description: "With standingHolds, how long an account's standing hold is kept after its last request here ended, ms; until then its unused credits count as held for other processes and for the account's balance views." }),
      },
      { additionalProperties: false, default: {} },
    ),
    recognition: Type.Object(
      {
        workers: Type.Integer({
          minimum: 0,
          maximum: 256,
          default: 0,
          description:
            'Recognition conversions run at once, each in its own worker thread with its tools (mutool, tesseract, djvulibre) as processes: about one core each. 0: one less than the available cores (os.availableParallelism()), at least 1.',
        }),
        ocrLanguages: Type.String({ pattern: '^[A-Za-z_]+(\\+[A-Za-z_]+)*$', default: 'eng', description: 'Tesseract languages for OCR, `+`-joined (e.g. eng+deu); each needs its traineddata installed. A document whose first OCR page reads as German, French, Spanish, Italian, Portuguese, Dutch or Swedish is read with that language first when its traineddata is installed (ADR 0365).' }),
        pageConcurrency: Type.Integer({ minimum: 1, maximum: 16, default: 1, description: 'Pages of one document processed at once (OCR-heavy scans benefit on idle machines).' }),
        leaseSeconds: Type.Integer({
          minimum: 6,
          maximum: 3600,
          default: 60,
          description:
            'How long a service instance holds a recognition job without renewing its claim (renewed every third of it), seconds. After a crash (no graceful shutdown) its jobs resume when the lease ends; with several instances on one database, another instance takes them over.',
        }),
        queue: Type.Union([Type.Literal('auto'), Type.Literal('leases'), Type.Literal('pg-boss')], {
          default: 'auto',
          description:
            'How recognition jobs reach a worker (docs/scale.md "Jobs", ADR 0250). `leases`: the job rows and their leases (ADR 0035; every failure final). `pg-boss`: a pg-boss 10 queue in PostgreSQL (needs database_url) with retries, backoff and dead letters (lectern jobs dead). `auto`: pg-boss for a cluster role (cluster.role other than all) on PostgreSQL, else leases.',
        }),
        queueSchema: Type.String({
          pattern: '^([a-z_][a-z0-9_]{0,62})?$',
          default: '',
          description:
            "pg-boss's schema in the database (created when missing); every process of a cluster uses the same one. Empty: beside Lectern's tables, `pgboss` when they are in `public`, else `<their schema>_pgboss` (DATABASE_URL's search_path), so two installations in one database never share a queue.",
        }),
        retryLimit: Type.Integer({ minimum: 0, maximum: 100, default: 3, description: 'With the pg-boss queue: retries of a recognition job after its first attempt failed or its worker died, before it is dead-lettered.' }),
        retryDelaySeconds: Type.Integer({ minimum: 0, maximum: 3600, default: 10, description: 'With the pg-boss queue: delay before the first retry, seconds; each further retry waits about twice as long (with jitter).' }),
        attemptExpireSeconds: Type.Integer({
          minimum: 60,
          maximum: 86_000,
          default: 2400,
          description: "With the pg-boss queue: pg-boss's own limit on one attempt, seconds (the backstop for a worker alive but stuck; a killed worker's job is taken over when its lease runs out). Keep it above a conversion's time limit (30 minutes).",
        }),
        queueMaintenanceSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 60, description: "With the pg-boss queue: how often pg-boss's maintenance (expiring attempts, archiving) runs, seconds; one process of the cluster does it at a time." }),
        queuePollMs: Type.Integer({ minimum: 500, maximum: 60_000, default: 1000, description: 'With the pg-boss queue: how often a worker with a free slot asks for a job, ms.' }),
        deadLetterDays: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'With the pg-boss queue: days a dead-lettered job is kept for inspection and retry, with its upload; then the workers\' upload sweep discards the dead letter and deletes the upload (and its checkpoints) unless the job was retried (ADR 0296). Stored uploads that no job needs any more are deleted after as long, with either queue.' }),
        uploadSweepMinutes: Type.Integer({ minimum: 0, maximum: 10_080, default: 60, description: 'How often each process that runs recognition jobs sweeps stored uploads: dead letters older than deadLetterDays are discarded and uploads no unfinished job or kept dead letter needs are deleted (ADR 0296). 0: never (lectern jobs discard JOB_ID still deletes one at once).' }),
      },
      { additionalProperties: false, default: {} },
    ),
    prices: Type.Object(
      {
        search: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 10, description: 'Credits per search request.' }),
        searchPerHit: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1, description: 'Credits per returned search hit.' }),
        documentFetch: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 50, description: 'Credits for a full document fetch; also the cap for a cut document, and the price of the text on a document page (charged once per account, document and UTC day: docs/web.md).' }),
        documentTokensPerCredit: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          default: 100,
          description: 'A document cut by max_tokens/max_chars costs ceil(returned tokens / this), at most document_fetch.',
        }),
        documentPassages: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 15, description: 'Credits for in-document passages (text_filter).' }),
        conversationTurn: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 100, description: 'Credits per conversation turn.' }),
        conversationEdit: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 100, description: 'Credits per conversation step edit (recomputation).' }),
        similar: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 10, description: 'Credits per similar-documents request.' }),
        recognitionPerPage: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1, description: 'Credits per page of a recognised document (billed once per document).' }),
      },
      { additionalProperties: false, default: {} },
    ),
    rateLimits: Type.Object(
      {
        search: rate(600, 100, 'search requests per account'),
        documents: rate(600, 100, 'document fetches per account'),
        downloads: rate(30, 5, 'original downloads per account'),
        conversations: rate(10, 1, 'conversation turns per account'),
        feedback: rate(60, 1, 'relevance feedback per account (web forms: per client address)'),
        comments: rate(20, 0.2, 'comments and replies per account (web forms: per client address)'),
        votes: rate(60, 1, 'comment votes and their withdrawals per account (web forms: per client address)'),
        recognition: rate(10, 0.2, 'recognition uploads per account'),
        oauth: rate(30, 1, 'OAuth requests per client address and subject: token requests per grant and client (and refresh token, claim or assertion), registrations per client name, revocations per client, identity and claim requests per email or claim'),
        oauthAddress: rate(3000, 50, 'all OAuth requests (registration, identity, claim, token, revocation) per client address: a flood guard that agents sharing an address (NAT, hosted platforms) do not reach in normal use'),
        signin: rate(10, 0.1, 'password sign-in, sign-up and email requests per client address'),
        authFailures: rate(30, 0.5, 'failed credential checks (unknown API keys or tokens) per client address; when spent, every failed check from that address gets 429 until it refills, while a valid credential is checked first and still accepted (guesses from the same address do not lock out a working key)'),
        default: rate(1200, 200, 'any other authenticated request per account'),
      },
      { additionalProperties: false, default: {} },
    ),
    auth: Type.Object(
      {
        accessTokenTtlSeconds: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600, description: 'Lifetime of OAuth access tokens, seconds (interface: 3600).' }),
        codeTtlSeconds: Type.Integer({ minimum: 10, maximum: 600, default: 60, description: 'Lifetime of authorization codes, seconds (single use).' }),
        refreshTokenTtlSeconds: Type.Integer({ minimum: 3600, maximum: 31_536_000, default: 2_592_000, description: 'Lifetime of a refresh token family without use, seconds (each rotation starts it again).' }),
        refreshGraceSeconds: Type.Integer({ minimum: 0, maximum: 3600, default: 60, description: 'How long a just-rotated refresh token still answers with its successor (concurrent refreshes), seconds.' }),
        claimTtlSeconds: Type.Integer({ minimum: 60, maximum: 3600, default: 900, description: 'Lifetime of a service_auth claim attempt and its claim token, seconds (interface: 900).' }),
        claimIntervalSeconds: Type.Integer({ minimum: 1, maximum: 60, default: 5, description: 'Minimum seconds between claim polls (interface: 5); faster polls get slow_down.' }),
        claimMaxCodeAttempts: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Wrong user codes typed on a verification page before the attempt is refused.' }),
        identityAssertionTtlSeconds: Type.Integer({ minimum: 3600, maximum: 31_536_000, default: 7_776_000, description: 'Lifetime of a service_auth agent connection and its identity assertion, seconds.' }),
        sessionTtlSeconds: Type.Integer({ minimum: 300, maximum: 31_536_000, default: 604_800, description: 'Lifetime of a browser sign-in session, seconds.' }),
        signingKeyRotationSeconds: Type.Integer({ minimum: 3600, maximum: 31_536_000, default: 2_592_000, description: 'Age at which the token signing key is replaced, seconds; old public keys stay published while tokens they signed can live.' }),
        allowSignUp: Type.Boolean({ default: true, description: 'Let people create accounts (with no credits) on the sign-up page.' }),
        signUpCredits: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Credits a new self-service account (sign-up page) starts with; 0: none until the operator tops it up.' }),
        allowInsecureHttp: Type.Boolean({
          default: false,
          description: 'Allow a plain-http auth_url on a non-loopback host (OAuth requires https in production; only for private test networks).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    llmModels: Type.String({
      default: '[]',
      description:
        'Chat models offered to conversations besides the built-in lectern-extractive answerer: a JSON list of {"name", "provider": "openai"|"anthropic", "base_url", "model", "api_key"?, "context_tokens"? (default 8192), "timeout_ms"? (default 60000)}; `openai` covers any OpenAI-compatible server (OpenAI, vLLM, llama.cpp server, Ollama, OpenRouter). Every entry is checked at start. api_key is a secret: redacted by `config check`, never logged. See docs/models.md.',
    }),
    denseEncoder: Type.Object(
      {
        dir: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              'Directory of an operator-supplied ONNX bi-encoder (model.onnx + tokenizer.json, e.g. bge-small-en-v1.5, e5-small-v2, all-MiniLM-L6-v2; docs/models.md). When set it is the dense model of every index (short_document, binary, hybrid, similar documents) instead of the corpus-trained one: loaded at start (an unusable model stops the server naming the file), document vectors computed in the background after ingest and recorded under the model\'s SHA-256 (another model rebuilds them; `lectern models encode|status`). Never downloaded.',
          }),
        ),
        pooling: Type.Union([Type.Literal('auto'), Type.Literal('mean'), Type.Literal('cls')], { default: 'auto', description: 'Pooling of token vectors: `auto` reads 1_Pooling/config.json (sentence-transformers), else mean; bge models use cls.' }),
        queryPrefix: Type.String({ maxLength: 200, default: '', description: 'Text put before every query (e5: "query: "; bge-small-en-v1.5: "Represent this sentence for searching relevant passages: ").' }),
        documentPrefix: Type.String({ maxLength: 200, default: '', description: 'Text put before every document title+abstract (e5: "passage: ").' }),
        maxTokens: Type.Integer({ minimum: 0, maximum: 8192, default: 0, description: 'Longest token sequence fed to the encoder (longer texts are truncated). 0: tokenizer_config.json model_max_length, at most 512.' }),
        threads: Type.Integer({ minimum: 1, maximum: 256, default: 1, description: 'Threads of the ONNX runtime (queries and background document encoding share them).' }),
      },
      { additionalProperties: false, default: {} },
    ),
    sparseEncoder: Type.Object(
      {
        dir: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              'Directory of an operator-supplied SPLADE-style ONNX model (model.onnx with MLM `logits` [batch, tokens, vocabulary] + tokenizer.json, e.g. naver/splade-cocondenser-ensembledistil or prithivida/Splade_PP_en_v1; docs/models.md). When set, `mode: sparse` and hybrid\'s sparse vote score documents by the SPLADE dot product of the query\'s and the document\'s vectors instead of the corpus-trained expansion; document vectors are computed in the background after ingest and stored with the index under the model\'s SHA-256 (`lectern models encode|status`). Loaded at start; never downloaded.',
          }),
        ),
        queryPrefix: Type.String({ maxLength: 200, default: '', description: 'Text put before every query given to the sparse model.' }),
        maxTokens: Type.Integer({ minimum: 0, maximum: 8192, default: 0, description: 'Longest token sequence fed to the sparse model. 0: tokenizer_config.json model_max_length, at most 512.' }),
        threads: Type.Integer({ minimum: 1, maximum: 256, default: 1, description: 'Threads of the ONNX runtime for the sparse model.' }),
      },
      { additionalProperties: false, default: {} },
    ),
    mail: Type.Object(
      {
        transport: Type.Union([Type.Literal('outbox'), Type.Literal('smtp')], {
          default: 'outbox',
          description: 'How email (verification and password links) is sent: `outbox` writes each message to outbox_dir and logs its path (development); `smtp` sends through smtp_url.',
        }),
        smtpUrl: Type.Optional(Type.String({ pattern: '^smtps?://', description: 'SMTP server URL, e.g. smtps://user:password@mail.example.org:465 (transport smtp).' })),
        from: Type.String({ minLength: 3, default: 'Lectern <lectern@localhost>', description: 'Sender address of Lectern email.' }),
        outboxDir: Type.Optional(Type.String({ minLength: 1, description: 'Directory of the outbox transport. Default: {data_dir}/outbox.' })),
      },
      { additionalProperties: false, default: {} },
    ),
    ranking: Type.Object(
      {
        candidateDepth: Type.Integer({ minimum: 10, maximum: 500, default: 100, description: 'Candidates the L1 formula and L2 model rank: the fused list\'s top N (each channel is asked for at least N; at least offset + limit). docs/ranking.md.' }),
        formulaDocuments: Type.String({ maxLength: 4096, default: '', description: 'Default L1 formula of the documents ranking profile: used by candidate_ranking auto (and formula) when the request sends no l1. Empty: none (auto ranks by RRF). Checked at start.' }),
        formulaPassages: Type.String({ maxLength: 4096, default: '', description: 'Default L1 formula of the passages ranking profile (ranking_mode passages). Empty: none.' }),
        formulaModes: Type.String({ maxLength: 200, default: 'hybrid', description: 'Search modes the profile formulas (formulaDocuments, formulaPassages) run in: comma-separated, the modes they were fitted for (`lectern ranking train --formula --mode M` prints it). In other modes candidate_ranking auto ranks by RRF and the trace says why. docs/ranking.md.' }),
        l2Models: Type.String({ maxLength: 8192, default: '', description: 'L2 models per corpus and search mode: comma-separated INDEX=PATH or INDEX:MODE=PATH entries of CatBoost JSON exports (e.g. documents=/srv/lectern/l2.json, documents:fulltext=/srv/lectern/l2-fulltext.json), trained by `lectern ranking train` or CatBoost with columns named after the ranking features. A model runs only for requests of the mode and channels it was trained for (recorded in the file by `lectern ranking train`; a file that records no mode is taken as hybrid unless its entry names one); elsewhere it is skipped and the trace says why. Loaded and checked at start.' }),
        l2Auto: Type.Boolean({ default: true, description: 'Whether l2_rerank auto (the default) runs the configured L2 model of every corpus searched; false: only l2_rerank catboost runs them.' }),
        crossEncoderDir: Type.Optional(Type.String({ minLength: 1, description: 'Directory of an operator-supplied ONNX cross-encoder (model.onnx + tokenizer.json; a reranker such as ms-marco-MiniLM exported to ONNX). Unset: cross_rerank has no effect. Loaded at start; nothing is downloaded.' })),
        lexicalFeedbackTerms: Type.Integer({ minimum: 0, maximum: 50, default: 0, description: 'Pseudo-relevance feedback of the fulltext channel, in modes fulltext and hybrid (ADR 0315): terms taken from the top document\'s title and abstract and added to the query (10 is the measured setting: fulltext +0.009 and hybrid +0.005 nDCG@10 on average over seven judged sets, docs/quality.md). Costs a one-hit probe, a record read and a second lexical pass (about 5x fulltext\'s CPU per query at 100k documents); single node only (not across cluster shards). 0: off.' }),
        lexicalFeedbackWeight: Type.Number({ exclusiveMinimum: 0, maximum: 10, default: 0.3, description: 'Weight of the strongest feedback term (lexicalFeedbackTerms); the others in proportion to their score.' }),
        crossRerankCandidates: Type.Integer({ minimum: 1, maximum: 256, default: 32, description: 'Candidates the cross-encoder reranks when a request sends cross_rerank_candidates 0.' }),
        crossRerankMax: Type.Integer({ minimum: 1, maximum: 256, default: 100, description: 'Cap on cross_rerank_candidates (the internal maximum pool).' }),
      },
      { additionalProperties: false, default: {} },
    ),
    // --- cluster: replication and roles (issue 24, docs/scale.md "Roles and configuration") ---
    cluster: Type.Object(
      {
        role: Type.String({
          pattern: '^(all|api|search|worker)(,(api|search|worker))*$',
          default: 'all',
          description: 'What this process does: `all` (the all-in-one service, as without a cluster), or a comma-separated list of `api` (HTTP, MCP, web; relays the outbox), `search` (one shard replica, fed from the log), `worker` (background jobs; relays the outbox). Roles other than all need database_url and cluster.nats_url.',
        }),
        // --- cluster search (scatter-gather; issue 24, docs/scale.md "Scatter-gather", ADRs 0201-0203) ---
        secret: Type.String({
          default: '',
          description: 'Shared secret of the cluster (at least 16 characters): a search node answers its internal shard endpoints (/internal/v1/shards/...) only to callers that present it as a bearer token, and the api nodes present it. Empty: derived from `secret`, which must then be set to the same value in every process (roles api and search need one of the two). A secret: redacted by `config check`, never logged.',
        }),
        searchNodes: Type.String({
          default: '',
          description: 'Role api: the search replicas as a comma-separated list of `<shard>=<url>` (e.g. `0=http://10.0.0.5:8080,1=http://10.0.0.6:8080`). Empty: the live search members of the cluster\'s membership bucket.',
        }),
        hedgeAfterMs: Type.Integer({ minimum: 1, maximum: 60_000, default: 150, description: 'Role api: a shard call not answered after this many ms is sent to another replica of the shard as well (hedging); the first answer wins.' }),
        shardDeadlineMs: Type.Integer({ minimum: 10, maximum: 600_000, default: 5_000, description: 'Role api: a shard with no answer from any replica after this many ms is left out; the response then carries `partial_results`.' }),
        shardTransport: Type.Union([Type.Literal('frames'), Type.Literal('http')], {
          default: 'frames',
          description: 'Role api: how shard calls reach the search nodes. `frames`: length-prefixed frames multiplexed on one persistent connection per search node, opened by an HTTP upgrade on its port with the cluster secret (ADR 0291); `http`: one HTTP request per call (ADR 0203). Both are served by every search node.',
        }),
        // --- end cluster search ---
        natsUrl: Type.String({ default: '', description: 'Comma-separated NATS server URLs of the cluster (nats://127.0.0.1:4222,...). Empty: no cluster (documents reach the index straight from the store).' }),
        name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,31}$', default: 'lectern', description: 'Name of the cluster: the prefix of its log subjects (`<name>.shard.<n>`), stream (`<NAME>_SHARDS`) and key-value buckets.' }),
        shards: Type.Integer({ minimum: 1, maximum: 4096, default: 1, description: 'Shards of the index (works are routed by a stable hash of the work key). Fixed for the life of a cluster: the first process records it in the cluster bucket and others must agree.' }),
        replicas: Type.Integer({ minimum: 1, maximum: 16, default: 1, description: 'Search replicas per shard the cluster is meant to run (reported by `lectern cluster status`).' }),
        shard: Type.Integer({ minimum: 0, maximum: 4095, default: 0, description: 'Role search: the shard this replica holds.' }),
        replica: Type.Integer({ minimum: 0, maximum: 15, default: 0, description: 'Role search: this replica\'s number within its shard (names its durable position in the log).' }),
        logReplicas: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'Copies the NATS cluster keeps of the log and the buckets (3 on a three-node NATS cluster; 1 on one server).' }),
        logMaxAgeHours: Type.Integer({ minimum: 1, maximum: 87_600, default: 168, description: 'How long the log keeps a change, hours. A replica down longer rebuilds its shard from the store.' }),
        heartbeatMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 2_000, description: 'Membership heartbeat of every process, ms; a member is live while its last beat is younger than three heartbeats.' }),
        snapshotIntervalMinutes: Type.Integer({ minimum: 0, maximum: 10_080, default: 60, description: 'Role search: how often a replica publishes a snapshot of its shard (its committed segment files and the log sequence they cover) into the `<name>-snapshots` object store when its index moved past the shard\'s newest snapshot; a new replica installs the newest one and follows the log from there (docs/scale.md, ADR 0255). 0: only on request (POST /internal/v1/shards/{shard}/snapshot).' }),
        snapshotKeep: Type.Integer({ minimum: 1, maximum: 100, default: 2, description: 'Role search: snapshots kept per shard in the object store (the newest); a publish deletes older ones.' }),
      },
      { additionalProperties: false, default: {} },
    ),
    // --- end cluster ---
  },
  { additionalProperties: false },
);

/** Configuration as written by the operator (before derivation). */
export type ConfigInput = Static<typeof ConfigSchema>;

/** The validated, derived, frozen configuration the app is built from. */
export type Config = Readonly<
  Omit<ConfigInput, 'baseUrl' | 'authUrl' | 'mcpUrl' | 'blobDir' | 'legacyMcpUrl' | 'mail' | 'searchThreads'> & {
    /** Search threads (0: in-process); the default is the available cores. */
    searchThreads: number;
    baseUrl: string;
    authUrl: string;
    mcpUrl: string;
    /** The legacy MCP resource address (default base_url + /v2/mcp). */
    legacyMcpUrl: string;
    blobDir: string;
    mail: ConfigInput['mail'] & { outboxDir: string };
  }
>;

/** Rate-limit scopes known to the service. */
export type RateScope = keyof ConfigInput['rateLimits'];

/** Environment names that do not follow the LECTERN_ rule (conventional names). */
export const ENV_ALIASES: Readonly<Record<string, string>> = {
  host: 'HOST',
  port: 'PORT',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'REDIS_URL',
};

/** The environment variable that sets the option at `path` (e.g. ['prices', 'searchPerHit']). */
export function envName(path: readonly string[]): string {
  const joined = path.join('.');
  const alias = ENV_ALIASES[joined];
  if (alias) return alias;
  return 'LECTERN_' + path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_');
}

/** Every leaf option: its path, schema and environment variable (for loading and for docs). */
export function configLeaves(schema: TSchema = ConfigSchema, path: string[] = []): { path: string[]; schema: TSchema; env: string }[] {
  const s = schema as { type?: string; properties?: Record<string, TSchema> };
  if (s.type === 'object' && s.properties) {
    return Object.entries(s.properties).flatMap(([k, v]) => configLeaves(v, [...path, k]));
  }
  return [{ path, schema, env: envName(path) }];
}
