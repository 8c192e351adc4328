// Loads the configuration once at start: defaults < JSON file (LECTERN_CONFIG) < environment.
// Every problem is collected and reported together (ConfigError.problems); the result is frozen.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { ConfigSchema, configLeaves, type Config, type ConfigInput } from './schema.js';
import { parseLlmModels } from './llm-models.js';


/** Thrown when the configuration is invalid; `problems` lists every one of them. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function coerce(raw: string, schema: TSchema): { ok: true; value: unknown } | { ok: false; why: string } {
  const s = schema as { type?: string; anyOf?: { const?: unknown }[] };
  switch (s.type) {
    case 'integer':
    case 'number': {
      const n = Number(raw.trim());
      if (raw.trim() === '' || !Number.isFinite(n)) return { ok: false, why: `expected a number, got ${JSON.stringify(raw)}` };
      return { ok: true, value: n };
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return { ok: true, value: true };
      if (['0', 'false', 'no', 'off'].includes(v)) return { ok: true, value: false };
      return { ok: false, why: `expected true or false, got ${JSON.stringify(raw)}` };
    }
    default:
      return { ok: true, value: raw };
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

// The validator is made on the first loadConfig, not at import (ADR 0302). Compiling the schema with
// ajv costs ~150 ms of CPU in every process, so the build (`npm run build`, scripts/setup.mjs) also
// writes ajv's standalone code for it beside this module (config-validator.cjs), stamped with a hash
// of the schema and of ajv's version; a process loads that file when the stamp matches and compiles
// otherwise (a build by plain tsc, a schema changed since). Both give the same errors and defaults.
// ajv is CommonJS, so it is required synchronously and loadConfig stays synchronous.
const require = createRequire(import.meta.url);
const AJV_OPTIONS = { allErrors: true, useDefaults: true, strict: false, coerceTypes: false } as const;
const GENERATED = fileURLToPath(new URL('./config-validator.cjs', import.meta.url));
let compiled: ValidateFunction | null = null;

/** The stamp of the generated validator: the schema and the ajv and ajv-formats versions. */
function validatorStamp(): string {
  const versions = ['ajv/package.json', 'ajv-formats/package.json'].map((p) => (require(p) as { version: string }).version);
  return createHash('sha256').update(JSON.stringify([versions, ConfigSchema])).digest('hex');
}

function newAjv(source: boolean): Ajv {
  const { Ajv: AjvClass, _ } = require('ajv') as { Ajv: new (options: object) => Ajv; _: (s: TemplateStringsArray) => unknown };
  const addFormats = require('ajv-formats') as ((ajv: Ajv) => Ajv) & { default?: (ajv: Ajv) => Ajv };
  const code = source ? { code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } } : {};
  return (addFormats.default ?? addFormats)(new AjvClass({ ...AJV_OPTIONS, ...code }));
}

/** The standalone validator at `path` when its stamp matches this schema and ajv; null otherwise. */
export function standaloneConfigValidator(path: string = GENERATED): ValidateFunction | null {
  try {
    const text = readFileSync(path, 'utf8');
    return text.startsWith(`// stamp ${validatorStamp()}\n`) ? (require(path) as ValidateFunction) : null;
  } catch {
    return null; // absent or unreadable
  }
}

/** The configuration's validator compiled by ajv now (what a process does without the build's file). */
export function compileConfigValidator(): ValidateFunction {
  return newAjv(false).compile(ConfigSchema as object);
}

function validator(): ValidateFunction {
  compiled ??= standaloneConfigValidator() ?? compileConfigValidator();
  return compiled;
}

/** Writes the standalone validator (default: config-validator.cjs beside this module, for the build); returns its path. */
export function writeConfigValidator(path: string = GENERATED): string {
  const ajv = newAjv(true);
  const validate = ajv.compile(ConfigSchema as object);
  const { default: standaloneCode } = require('ajv/dist/standalone') as { default: (ajv: Ajv, fn: ValidateFunction) => string };
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `// stamp ${validatorStamp()}\n// Generated by scripts/config-validator.mjs from src/config/schema.ts (ADR 0302); do not edit.\n${standaloneCode(ajv, validate)}`);
  renameSync(tmp, path);
  return path;
}

/** Option path for an ajv error, e.g. `prices.search`. */
function errorPath(instancePath: string, missing?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (missing) parts.push(missing);
  return parts.join('.') || '(root)';
}

/**
 * An MCP resource address in the one form every consumer compares against (RFC 9728 §3.3, RFC 8707):
 * lowercase scheme and host, no default port, no trailing slash. Query and fragment are kept so the
 * caller can refuse them.
 */
function resourceUrl(raw: string): string {
  const u = new URL(raw);
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.protocol}//${u.host}${path}${u.search}${u.hash}`;
}

/**
 * Reads, validates, derives and freezes the configuration.
 * @param env environment variables (default: process.env)
 * @param overrides values applied after the environment (used by tests and the CLI)
 */
export function loadConfig(env: Env = process.env, overrides: Partial<ConfigInput> = {}): Config {
  const problems: string[] = [];
  let input: Record<string, unknown> = {};

  const file = env.LECTERN_CONFIG;
  if (file) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) problems.push(`LECTERN_CONFIG ${file}: must hold a JSON object`);
      else input = parsed as Record<string, unknown>;
    } catch (e) {
      problems.push(`LECTERN_CONFIG ${file}: ${(e as Error).message}`);
    }
  }

  const leaves = configLeaves();
  for (const leaf of leaves) {
    const raw = env[leaf.env];
    if (raw === undefined || raw === '') continue;
    const c = coerce(raw, leaf.schema);
    if (c.ok) setPath(input, leaf.path, c.value);
    else problems.push(`${leaf.env} (${leaf.path.join('.')}): ${c.why}`);
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) input[k] = typeof v === 'object' && v !== null ? { ...(input[k] as object), ...v } : v;
  }

  const validate = validator();
  if (!validate(input)) {
    const envByPath = new Map(leaves.map((l) => [l.path.join('.'), l.env]));
    const byPath = new Map<string, string[]>();
    const allowed = new Map<string, unknown[]>();
    for (const err of validate.errors ?? []) {
      const missing = err.keyword === 'required' ? String((err.params as { missingProperty?: string }).missingProperty) : undefined;
      const extra = err.keyword === 'additionalProperties' ? String((err.params as { additionalProperty?: string }).additionalProperty) : undefined;
      const path = errorPath(err.instancePath, missing ?? extra);
      if (err.keyword === 'const') allowed.set(path, [...(allowed.get(path) ?? []), (err.params as { allowedValue: unknown }).allowedValue]);
      if (err.keyword === 'const' || err.keyword === 'anyOf') continue;
      byPath.set(path, [...(byPath.get(path) ?? []), extra ? 'unknown option' : (err.message ?? 'is invalid')]);
    }
    for (const [path, values] of allowed) byPath.set(path, [...(byPath.get(path) ?? []), `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`]);
    for (const [path, messages] of byPath) {
      const envHint = envByPath.get(path);
      for (const m of messages) problems.push(`${path}${envHint ? ` (${envHint})` : ''}: ${m}`);
    }
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);

  const c = input as ConfigInput;
  const urlHost = c.host === '0.0.0.0' || c.host === '::' ? '127.0.0.1' : c.host.includes(':') ? `[${c.host}]` : c.host;
  const trim = (u: string) => u.replace(/\/+$/, '');
  const baseUrl = trim(c.baseUrl ?? `http://${urlHost}:${c.port}`);
  const dataDir = isAbsolute(c.dataDir) ? c.dataDir : resolve(c.dataDir);
  const config: Config = {
    ...c,
    baseUrl,
    authUrl: trim(c.authUrl ?? baseUrl),
    mcpUrl: resourceUrl(c.mcpUrl ?? `${baseUrl}/mcp`),
    legacyMcpUrl: resourceUrl(c.legacyMcpUrl ?? `${baseUrl}/v2/mcp`),
    dataDir,
    // one core is the main thread's (HTTP, billing, the index writer): measured on 2 cores, 2 search
    // threads answered fewer searches than 1 (docs/operations.md, "Serving")
    searchThreads: c.searchThreads ?? Math.max(1, availableParallelism() - 1),
    blobDir: c.blobDir ? resolve(c.blobDir) : join(dataDir, 'blobs'),
    mail: { ...c.mail, outboxDir: c.mail.outboxDir ? resolve(c.mail.outboxDir) : join(dataDir, 'outbox') },
  };
  const resourceProblems = (['mcpUrl', 'legacyMcpUrl'] as const).flatMap((k) => {
    const u = new URL(config[k]);
    return u.search || u.hash || (u.protocol !== 'http:' && u.protocol !== 'https:') ? [`${k}: must be an http(s) URL without query or fragment (RFC 8707 resource)`] : [];
  });
  if (resourceProblems.length > 0) throw new ConfigError(resourceProblems);
  if (new URL(config.authUrl).origin !== new URL(baseUrl).origin) {
    throw new ConfigError([`authUrl (LECTERN_AUTH_URL): must be on the same host as base_url (interface: {auth_url} is the same host as {base_url})`]);
  }
  const authProblems = authConfigProblems(config);
  if (authProblems.length > 0) throw new ConfigError(authProblems);
  return deepFreeze(config);
}

/** True for http(s) URLs whose host is a loopback address (127.0.0.0/8, [::1], localhost). */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Rules of the authorization server's options (auth requirements 88; issue 4 item 5). */
function authConfigProblems(c: Config): string[] {
  const problems: string[] = [];
  if (c.autoConsent !== undefined && !isLoopbackUrl(c.baseUrl)) {
    problems.push(`autoConsent (LECTERN_AUTO_CONSENT): test-only automatic consent is refused because base_url ${c.baseUrl} is not a loopback address`);
  }
  if (new URL(c.authUrl).protocol !== 'https:' && !isLoopbackUrl(c.authUrl) && !c.auth.allowInsecureHttp) {
    problems.push(
      `authUrl: the authorization server needs https outside loopback (OAuth 2.1 §1.5); set LECTERN_BASE_URL to the public https address, or LECTERN_AUTH_ALLOW_INSECURE_HTTP=true on a private test network`,
    );
  }
  if (c.legacyMcpUrl === c.mcpUrl) problems.push('legacyMcpUrl (LECTERN_LEGACY_MCP_URL): must differ from mcp_url');
  if (c.mail.transport === 'smtp' && !c.mail.smtpUrl) problems.push('mail.smtpUrl (LECTERN_MAIL_SMTP_URL): required when mail.transport is smtp');
  problems.push(...parseLlmModels(c.llmModels).problems);
  return problems;
}

/** loadConfig over the process environment plus `extra` (a local cluster's shared variables; issue 24). */
export function loadConfigWithEnv(extra: Readonly<Record<string, string>>): Config {
  return loadConfig({ ...process.env, ...extra });
}

/** The process environment (a copy): what `lectern cluster up` gives the processes it starts, plus their own variables. */
export function processEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}
