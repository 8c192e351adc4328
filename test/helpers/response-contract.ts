// Every response of the API tests is checked against the published contract (issue 13, "validate
// every response of the API test suite against the published component schemas"): `testApp` installs
// `installResponseContract` on its Fastify instance. For a route listed in /openapi.json, the status
// must be documented for that operation, the Content-Type must be one the document declares for that
// status, and a JSON body must validate, with a JSON Schema 2020-12 validator (Ajv2020), against the
// schema the document declares. A mismatch is recorded (`violations`) and the response is replaced by
// a 500 whose body names the mismatch, so the test that made the request fails where it happened;
// `dispose()` of the test app fails as well if anything was recorded.
import { appendFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, any>;

export interface ResponseContract {
  /** Mismatches seen so far (`METHOD path status: what`). */
  readonly violations: string[];
  /** How many responses were checked against a schema (tests of this helper). */
  readonly checked: { bodies: number; responses: number };
}

/** The OpenAPI path of a Fastify route (the same mapping as the document's `transform`). */
function openApiPath(request: FastifyRequest): string | null {
  const cfg = request.routeOptions.config as { openapi?: { path: string } } | undefined;
  if (cfg?.openapi?.path) return cfg.openapi.path;
  const url = request.routeOptions.url;
  if (!url) return null;
  // The hidden catch-all twins of the by-uri routes answer like the documented ones.
  if (url.endsWith('/by-uri/*')) return `${url.slice(0, -1)}{uri}`;
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const mediaType = (v: unknown) => String(v ?? '').split(';')[0]!.trim().toLowerCase();

/** Installs the check (before `ready`). */
export function installResponseContract(app: FastifyInstance): ResponseContract {
  const violations: string[] = [];
  const checked = { bodies: 0, responses: 0 };
  let doc: Json | null = null;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: Json): ValidateFunction => {
    let v = validators.get(key);
    if (!v) {
      if (!doc) throw new Error('unreachable');
      v = ajv.compile({ ...schema, components: doc.components });
      validators.set(key, v);
    }
    return v;
  };

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (request.is404 && !request.routeOptions.url) return payload;
    doc ??= (app as unknown as { swagger(): Json }).swagger();
    const path = openApiPath(request);
    const method = request.method.toLowerCase();
    if (!path || method === 'head') return payload;
    const op = (doc.paths?.[path] as Json | undefined)?.[method] as Json | undefined;
    // Hidden routes (pages, catch-alls) are not in the contract; `/test/...` routes are a test's own scaffolding.
    if (!op || path.startsWith('/test/')) return payload;
    checked.responses++;
    // A web Response (the MCP transport) carries its own status and headers; Fastify copies them after onSend.
    const web = payload instanceof Response ? payload : null;
    const status = web ? web.status : reply.statusCode;
    const where = `${request.method} ${path} ${status}`;
    const fail = (what: string) => {
      violations.push(`${where}: ${what}`);
      if (process.env.LECTERN_CONTRACT_LOG) appendFileSync(process.env.LECTERN_CONTRACT_LOG, `${where}: ${what}\n`);
      reply.code(500).type('application/json');
      return JSON.stringify({ status: 'error', detail: { code: 'contract_violation', message: `${where}: ${what}` } });
    };
    const declared = (op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`] ?? op.responses?.default) as Json | undefined;
    if (!declared) return fail(`status ${status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`);
    // Headers every response of that status declares and always carries.
    if (declared.headers?.['X-Request-Id'] && !reply.getHeader('x-request-id')) return fail('X-Request-Id is documented but not sent');
    if (declared.headers?.['Retry-After'] && !(reply.getHeader('retry-after') ?? web?.headers.get('retry-after'))) return fail('Retry-After is documented but not sent');
    const content = declared.content as Record<string, Json> | undefined;
    if (status === 204 || status === 304 || (web && !web.body) || payload === undefined || payload === null || payload === '') return payload;
    const type = mediaType(reply.getHeader('content-type') ?? web?.headers.get('content-type'));
    if (!content) return fail(`a ${type || 'untyped'} body is sent but the document declares none`);
    const entry = content[type] ?? (type.startsWith('multipart/byteranges') ? content['multipart/byteranges'] : undefined);
    if (!entry) return fail(`Content-Type ${type} is not declared (declared: ${Object.keys(content).join(', ')})`);
    if (type !== 'application/json' || !entry.schema || web) return payload;
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (text === null) return payload; // a stream declared as JSON: not read here
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail('the body is not JSON');
    }
    const validate = validatorFor(`${method} ${path} ${status}`, entry.schema as Json);
    checked.bodies++;
    if (!validate(body)) return fail(`body does not match the schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}; body: ${text.slice(0, 400)}`);
    return payload;
  });
  return { violations, checked };
}
