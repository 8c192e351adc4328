// Request validation. Fastify's default validator drops unknown properties and coerces types; the
// interface wants unknown properties rejected (where it says so) and wrong types refused, so bodies
// are validated strictly (no coercion, no removal), while query strings and path parameters, which
// are text on the wire, are coerced to their declared types. Defaults are applied in both.
import { Ajv, type AnySchema } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../domain/errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean, schemas: readonly TSchema[]): Ajv {
  const ajv = addFormats(
    new Ajv({ allErrors: true, useDefaults: true, coerceTypes: coerce, removeAdditional: false, strict: false, allowUnionTypes: true }),
  );
  for (const s of schemas) ajv.addSchema(s as AnySchema);
  return ajv;
}

/**
 * The strict body validator the HTTP endpoints use (no coercion, no removal, defaults applied, formats
 * checked), for other transports that take the same bodies (the shard frames, http/shard-frames.ts).
 */
export function strictBodyAjv(schemas: readonly TSchema[] = []): Ajv {
  return makeAjv(false, schemas);
}

/** Registers the shared schemas and the strict/coercing validators on `app`. */
export function installValidation(app: FastifyInstance, schemas: readonly TSchema[]): void {
  for (const s of schemas) app.addSchema(s as { $id: string });
  const body = makeAjv(false, schemas);
  const text = makeAjv(true, schemas);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema as AnySchema));
}

/**
 * Text no store can hold faithfully: U+0000 (PostgreSQL refuses it in `text`; SQLite would cut C strings
 * at it) and unpaired UTF-16 surrogates (not Unicode scalar values: UTF-8 encoders silently replace them).
 */
function unstorable(s: string): boolean {
  return s.includes('\u0000') || !(s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Objects the check walks into: plain objects and arrays, not bytes or streams. */
function walkable(v: unknown): v is object {
  return v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer) && typeof (v as { pipe?: unknown }).pipe !== 'function';
}

/**
 * Whether `value` holds an unstorable string (or object key): the check every request pays (issue 29),
 * so it builds no location strings; findUnstorableText walks again for the location only when it does.
 */
function holdsUnstorableText(value: unknown): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++seen > 1_000_000) return false; // bodies are size-limited long before this
    if (typeof v === 'string') {
      if (unstorable(v)) return true;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (walkable(v)) {
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        if (unstorable(k)) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

/** The location of the first unstorable string (or object key) in `value`, walked without recursion. */
export function findUnstorableText(value: unknown, context: string): string | null {
  if (!holdsUnstorableText(value)) return null;
  const stack: [unknown, string][] = [[value, context]];
  let seen = 0;
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (++seen > 1_000_000) return null; // bodies are size-limited long before this
    if (typeof v === 'string') {
      if (unstorable(v)) return at;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}/${i}`]);
    } else if (walkable(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (unstorable(k)) return `${at} (a property name)`;
        stack.push([x, `${at}/${k}`]);
      }
    }
  }
  return null;
}

/**
 * One check at the edge for every route (issue 25): path parameters, the query string and a parsed body
 * (JSON or form) holding U+0000 or an unpaired surrogate are refused as a schema violation (422
 * `validation_failed`, or 400 where the interface says 400 for the operation) before
 * validation and before any handler or store sees them, so both stores answer alike (PostgreSQL
 * answered 500). Uploads and other raw bodies are not text and are not inspected.
 */
export function installUnstorableTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const at =
      findUnstorableText(request.params, 'params') ?? findUnstorableText(request.query, 'querystring') ?? findUnstorableText(request.body, 'body');
    if (at === null) return done();
    const message = 'must not contain U+0000 (NUL) or an unpaired UTF-16 surrogate; remove the character';
    // As a schema violation: 422, or 400 where the interface says so for the operation (conversation turns).
    const status = (request.routeOptions.config as { validationStatus?: number } | undefined)?.validationStatus;
    done(new AppError(status === 400 ? 'bad_request' : 'validation_failed', `${at} ${message}.`, { extra: { errors: [{ path: at, message }] } }));
  });
}
