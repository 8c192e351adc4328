// Text PostgreSQL cannot store (U+0000 in a string, and unpaired UTF-16 surrogates, which no UTF-8
// database holds faithfully) is refused at the edge with 422 `validation_failed`, the same on SQLite and
// PostgreSQL, for JSON bodies, query strings, path parameters and form posts, API and web pages alike
// (issue 25: `%00` in a path or query, `\u0000` in JSON reached PostgreSQL and answered 500). The fuzz
// below walks every operation of /openapi.json and puts the character in each place a string goes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';
import { Browser, csrfOf, person } from '../auth/helpers.js';

type Schema = Record<string, any>;
const GENEROUS = { capacity: 1e6, refillPerSecond: 1e6 };
const LIMITS = { default: GENEROUS, search: GENEROUS, documents: GENEROUS, conversations: GENEROUS, feedback: GENEROUS, recognition: GENEROUS, oauth: GENEROUS, signin: GENEROUS, authFailures: GENEROUS };

function suite(name: string, open: () => Promise<{ app: TestApp; drop(): Promise<void> }>) {
  describe(name, () => {
    let app: TestApp;
    let drop: () => Promise<void>;
    let key: string;
    let spec: Schema;
    before(async () => {
      ({ app, drop } = await open());
      key = (await app.account({ credits: 1_000_000 })).key;
      await seed(app, [doc('W1', { title: 'Hydrogen storage in salt caverns', abstract: 'Cushion gas keeps pressure.', uris: ['doi://10.1/w1'] })]);
      await app.indexes!.catchUp();
      spec = (await app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
    });
    after(async () => {
      await app.dispose();
      await drop();
    });

    const refused = (res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): any }, where: string, status = 422) => {
      assert.equal(res.statusCode, status, `${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.ok(res.headers['x-request-id'], where);
      if (String(res.headers['content-type']).startsWith('application/json')) assert.equal(res.json().detail.code, status === 422 ? 'validation_failed' : 'bad_request', where);
    };

    test('the requests of issue 25 answer 422, API and web pages alike', async () => {
      const api = { 'x-api-key': key };
      for (const url of ['/v2/documents/a%00b', '/v2/documents/by-uri/doi%3A%2F%2F10.1%2Fa%00b', '/v2/search?query=a%00b', '/v2/documents/W1?text_filter=a%00b', '/v2/documents/trending?period=week%00']) {
        refused(await app.http.inject({ method: 'GET', url, headers: api }), url);
      }
      for (const url of ['/documents/a%00b', '/ask/a%00b', '/search?q=a%00b', '/documents/W1?comment=%00']) {
        refused(await app.http.inject({ method: 'GET', url, headers: { accept: 'text/html' } }), url);
      }
      // The OAuth endpoints answer in their RFCs' shape (400 with `error`), as for every other bad request there.
      for (const payload of [
        { client_name: 'a\u0000b', redirect_uris: ['http://127.0.0.1:4711/callback'], token_endpoint_auth_method: 'none' },
        { client_name: 'ok', redirect_uris: ['http://127.0.0.1:4711/cb\u0000'], token_endpoint_auth_method: 'none' },
      ]) {
        const res = await app.http.inject({ method: 'POST', url: '/v2/oauth/register', payload });
        assert.equal(res.statusCode, 400, res.body);
        assert.match(res.json().error_description, /U\+0000/);
      }
      refused(await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: api, payload: { query: 'hydrogen\u0000', llm_config: { model_name: 'lectern-extractive' } } }), 'conversation', 400);
      refused(await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: api, payload: { query: 'hydrogen \ud800 storage', llm_config: { model_name: 'lectern-extractive' } } }), 'lone surrogate', 400);
      refused(await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { ...api, 'content-type': 'application/json' }, payload: '{"query":"x","llm_config":{"model_name":"lectern-extractive"},"\\u0000":1}' }), 'NUL in a key', 400);
      refused(await app.http.inject({ method: 'POST', url: '/v2/search/feedback', headers: api, payload: { trajectory_id: 't', feedback_token: 'x', feedback_id: 'f\u0000', ratings: [] } }), 'feedback');
      refused(await app.http.inject({ method: 'POST', url: '/v2/search/comments', headers: api, payload: { trajectory_id: 't', feedback_token: 'x', comment_id: 'c', document_id: 'W1', model: 'm', contribution: 'summary', content: 'a\u0000', evidence: [] } }), 'comment');
      // Conversation turns answer schema violations with 400 (interface), and so this one.
      // A well-formed pair (an emoji) is ordinary text.
      const ok = await app.http.inject({ method: 'POST', url: '/v2/search', headers: api, payload: { query: 'hydrogen 🔬' } });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    test('a form post with NUL answers a 422 page', async () => {
      const who = await person(app);
      const browser = new Browser(app);
      await browser.signIn(who.email, who.password);
      const page = await browser.get('/documents/W1');
      const res = await browser.post('/documents/W1/comments', { csrf: csrfOf(page.body), content: 'hello\u0000world' });
      refused(res, 'web comment');
      assert.match(String(res.headers['content-type']), /text\/html/);
      const signIn = await new Browser(app).post('/v2/auth/sign-in', { csrf: 'x', email: 'a\u0000@example.org', password: 'p' });
      refused(signIn, 'sign-in form');
    });

    test('fuzz: NUL and lone surrogates in every path parameter, query parameter and body string of every operation: no 5xx', async () => {
      const resolve = (s: Schema | undefined): Schema | undefined => (s && typeof s.$ref === 'string' ? resolve(spec.components.schemas[s.$ref.split('/').pop()!]) : s);
      const sample = (s0: Schema | undefined, depth = 0): unknown => {
        const s = resolve(s0);
        if (!s || depth > 6) return null;
        if ('default' in s) return s.default;
        if (s.const !== undefined) return s.const;
        if (s.enum) return s.enum[0];
        if (s.anyOf) return sample(s.anyOf.find((x: Schema) => resolve(x)?.type !== 'null') ?? s.anyOf[0], depth + 1);
        if (s.type === 'string') return 'hydrogen storage';
        if (s.type === 'integer' || s.type === 'number') return Math.max(s.minimum ?? 1, 1);
        if (s.type === 'boolean') return true;
        if (s.type === 'array') return s.minItems ? [sample(s.items, depth + 1)] : [];
        if (s.type === 'object') {
          const o: Record<string, unknown> = {};
          for (const k of s.required ?? []) o[k] = sample(s.properties?.[k], depth + 1);
          return o;
        }
        return null;
      };
      /** Copies of `v` with `bad` put into each string in turn (keys too, at the top level). */
      const poisoned = (v: unknown, bad: string): unknown[] => {
        if (typeof v === 'string') return [`${v}${bad}`, bad];
        if (Array.isArray(v)) return v.flatMap((x, i) => poisoned(x, bad).map((p) => v.map((y, j) => (j === i ? p : y))));
        if (v && typeof v === 'object') {
          const o = v as Record<string, unknown>;
          const out: unknown[] = Object.keys(o).flatMap((k) => poisoned(o[k], bad).map((p) => ({ ...o, [k]: p })));
          out.push({ ...o, [`k${bad}`]: 'x' });
          return out;
        }
        return [];
      };
      const failures: string[] = [];
      let requests = 0;
      for (const [path, ops] of Object.entries(spec.paths as Record<string, Record<string, Schema>>)) {
        for (const [method, op] of Object.entries(ops)) {
          const params = ((op.parameters ?? []) as Schema[]).map((p) => resolve(p)!);
          const bodySchema = op.requestBody?.content?.['application/json']?.schema;
          const body = bodySchema ? sample(bodySchema) : undefined;
          const good = path.replace(/\{[^}]+\}/g, 'W1');
          const cases: { url: string; payload?: string; must?: boolean }[] = [];
          for (const enc of ['%00', '%ED%A0%80']) {
            if (path.includes('{')) cases.push({ url: path.replace(/\{[^}]+\}/g, `W${enc}1`), must: true });
            // A query value that is not UTF-8 is kept as written (`a%ED%A0%80b`), which is storable text.
            for (const q of params.filter((p) => p.in === 'query')) cases.push({ url: `${good}?${encodeURIComponent(q.name)}=a${enc}b`, must: enc === '%00' });
          }
          if (bodySchema) for (const bad of ['\u0000', '\ud800', '\udc00x']) for (const p of poisoned(body, bad)) cases.push({ url: good, payload: JSON.stringify(p), must: true });
          for (const c of cases) {
            for (const auth of [true, false]) {
              const headers: Record<string, string> = auth ? { 'x-api-key': key } : {};
              if (path === '/mcp' || path === '/v2/mcp') Object.assign(headers, { accept: 'application/json, text/event-stream' });
              if (c.payload !== undefined) headers['content-type'] = 'application/json';
              const res = await app.http.inject({ method: method.toUpperCase() as 'GET', url: c.url, headers, ...(c.payload !== undefined ? { payload: c.payload } : {}) });
              requests++;
              const where = `${method.toUpperCase()} ${c.url.slice(0, 80)} ${String(c.payload ?? '').slice(0, 80)} auth=${auth}`;
              if (res.statusCode >= 500) failures.push(`${res.statusCode} ${where}: ${res.body.slice(0, 160)}`);
              // %ED%A0%80 is not UTF-8 at all (a surrogate's encoding): 400 from the router is fine.
              else if (c.must && res.statusCode < 400) failures.push(`accepted ${res.statusCode} ${where}`);
            }
          }
        }
      }
      assert.ok(requests > 300, `only ${requests} requests`);
      assert.deepEqual(failures.slice(0, 30), []);
    });
  });
}

suite('unstorable text on SQLite', async () => ({ app: await testApp({ rateLimits: LIMITS } as never), drop: async () => {} }));

if (!databaseUrl) {
  test('unstorable text on PostgreSQL', { skip: postgresSkip('unstorable text on PostgreSQL') }, () => {});
} else {
  const url = databaseUrl;
  suite('unstorable text on PostgreSQL', async () => {
    const schema = await createTestSchema(url);
    const app = await testApp({ rateLimits: LIMITS } as never, { storage: await openPostgresStorage(schema.url, { max: 4 }) });
    return { app, drop: () => schema.drop() };
  });
}
