// /openapi.json is a valid OpenAPI 3.1 document (checked by a validator), titled and licensed as the
// interface says, with every resource schema as a component and every route that exists.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ALL_SCHEMAS } from '../../src/http/schemas/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { testApp, type TestApp } from '../helpers/app.js';

describe('/openapi.json', () => {
  let app: TestApp;
  let doc: Record<string, any>;
  before(async () => {
    app = await testApp();
    const res = await app.http.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
  });
  after(() => app.dispose());

  test('validates as OpenAPI 3.1', async () => {
    const v = new Validator();
    const r = await v.validate(doc);
    assert.equal(v.version, '3.1');
    assert.deepEqual(r.errors ?? [], []);
    assert.equal(r.valid, true);
  });

  test('every component is valid JSON Schema 2020-12; defaulted request fields are not required; the interface example validates', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'lectern', components: doc.components });
    const errors: string[] = [];
    for (const name of Object.keys(doc.components.schemas)) {
      try {
        ajv.getSchema(`lectern#/components/schemas/${name}`);
      } catch (e) {
        errors.push(`${name}: ${(e as Error).message}`);
      }
    }
    assert.deepEqual(errors, []);
    const search = doc.components.schemas.SearchRequestV2;
    for (const k of search.required ?? []) assert.equal('default' in search.properties[k], false, k);
    const validate = ajv.getSchema('lectern#/components/schemas/SearchRequestV2')!;
    assert.equal(validate({ query: 'hydrogen storage', limit: 5 }), true, JSON.stringify(validate.errors));
    assert.equal(validate({ query: 'x', bogus: 1 }), false);
    const snippet = ajv.getSchema('lectern#/components/schemas/Snippet')!;
    assert.equal(snippet({ field: 'abstract', text: 'abc', highlights: [[0, 1]] }), true, JSON.stringify(snippet.errors));
    assert.equal(snippet({ field: 'abstract', text: 'abc', highlights: [[0, 1, 2]] }), false);
  });

  test('fields the interface leaves optional are not required: as_of_at of activity and trending (BatchInfo requires it)', () => {
    const s = doc.components.schemas;
    for (const name of ['DocumentActivity', 'DocumentActivityResponse', 'TrendingResponse']) {
      assert.ok(s[name].properties.as_of_at, `${name} has as_of_at`);
      assert.equal((s[name].required ?? []).includes('as_of_at'), false, `${name}.as_of_at is optional`);
    }
    assert.ok(s.DocumentActivity.required.includes('views_7d'), 'the counters stay required');
    assert.ok(s.BatchInfo.required.includes('as_of_at'), 'BatchInfo.as_of_at is R in the interface');
  });

  test('title, version 0.1.0 and MIT licence for the description', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '0.1.0');
    assert.equal(doc.info.license.identifier, 'MIT');
    assert.match(doc.info.title, /Lectern/);
  });

  test('every resource schema is a component', () => {
    for (const s of ALL_SCHEMAS) {
      const id = (s as { $id: string }).$id;
      assert.ok(doc.components.schemas[id], `missing component ${id}`);
    }
  });

  test('every route that exists is listed (and nothing else)', () => {
    const toOpenApi = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const expected = app.http.lecternRoutes.filter((r) => !r.hidden).map((r) => `${r.method.toLowerCase()} ${toOpenApi(r.url)}`).sort();
    const listed = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== 'parameters').map((m) => `${m} ${path}`))
      .sort();
    assert.deepEqual(listed, expected);
    for (const p of ['/v2/documents/{document_id}', '/v2/documents/by-uri/{uri}', '/v2/downloads/{document_id}.{extension}', '/v2/downloads/by-uri/{uri}']) {
      assert.ok(doc.paths[p], `missing ${p}`);
    }
  });

  test('every operation has a stable, readable, unique operationId (issue 25); generated clients need not invent names', () => {
    const ids: string[] = [];
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        if (typeof op.operationId !== 'string') missing.push(`${method.toUpperCase()} ${path}`);
        else {
          assert.match(op.operationId, /^[a-z][A-Za-z]{2,60}$/, `${method} ${path}`);
          ids.push(op.operationId);
        }
      }
    }
    assert.deepEqual(missing, [], 'operations without an operationId: add them to src/http/operation-ids.ts');
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.equal(doc.paths['/v2/search/'].post.operationId, 'searchDocuments');
    assert.equal(doc.paths['/v2/documents/{document_id}'].get.operationId, 'getDocument');
    assert.equal(doc.paths['/v2/conversations/{conversation_id_or_slug}/edit-step/{step_id}/stream'].put.operationId, 'streamConversationStepEdit');
    assert.equal(doc.paths['/v2/documents/{document_id}/activity'].get.operationId, 'getDocumentActivity');
  });

  test("hits' and trending entries' `document` is the Document component, not unknown (issue 25)", () => {
    const s = doc.components.schemas;
    assert.deepEqual(s.V2Hit.properties.document.anyOf, [{ $ref: '#/components/schemas/Document' }, { type: 'null' }]);
    assert.ok(s.V2Hit.required.includes('document'));
    assert.equal(s.TrendingDocument.properties.document.$ref, '#/components/schemas/Document');
    assert.ok(!JSON.stringify(doc).includes('x-lectern-document'), 'the internal marker is not published');
    assert.ok(s.Document.required.includes('title') && s.Document.properties.is_retracted);
  });

  test('errors are documented as ApiError', () => {
    const op = doc.paths['/v2/documents/{document_id}'].get;
    assert.equal(op.responses['404'].content['application/json'].schema.$ref, '#/components/schemas/ApiError');
  });

  test('downloads are described with their media types, 206 (one range or multipart/byteranges), 304 and 416', () => {
    for (const p of ['/v2/downloads/{document_id}.{extension}', '/v2/downloads/by-uri/{uri}']) {
      const r = doc.paths[p].get.responses;
      assert.deepEqual(Object.keys(r['200'].content).sort(), ['application/epub+zip', 'application/pdf', 'image/vnd.djvu']);
      assert.deepEqual(Object.keys(r['206'].content).sort(), ['application/epub+zip', 'application/pdf', 'image/vnd.djvu', 'multipart/byteranges']);
      assert.equal(r['200'].content['application/pdf'].schema.format, 'binary');
      assert.equal(r['304'].content, undefined);
      assert.equal(r['416'].content['application/json'].schema.$ref, '#/components/schemas/ApiError');
      assert.ok(r['416'].headers['Content-Range'] && r['206'].headers['Content-Range'] && r['200'].headers.ETag && r['200'].headers['Accept-Ranges']);
      assert.equal(r['429'].headers['Retry-After'].schema.type, 'integer');
      assert.ok(r['401'].headers['WWW-Authenticate'] && r['404'].headers['X-Request-Id']);
    }
  });

  test('every operation documents a success and its errors; authenticated ones list API key, bearer and oauth2 (search)', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        const statuses = Object.keys(op.responses ?? {});
        const where = `${method.toUpperCase()} ${path}`;
        if (!statuses.some((s) => /^2/.test(s))) problems.push(`${where}: no success response`);
        for (const s of statuses) if (!op.responses[s].description) problems.push(`${where} ${s}: no description`);
        if (op.security === undefined) problems.push(`${where}: no security requirement`);
        if (op.security?.length > 0) {
          assert.deepEqual(op.security.slice(0, 3), [{ apiKey: [] }, { bearer: [] }, { oauth2: ['search'] }], where);
          for (const s of ['401', '429', '500']) if (!op.responses[s]) problems.push(`${where}: ${s} not documented`);
          for (const s of ['401', '429', '500']) {
            const schema = op.responses[s]?.content?.['application/json']?.schema;
            if (schema && schema.$ref !== '#/components/schemas/ApiError') problems.push(`${where} ${s}: not an ApiError`);
          }
          if (op.requestBody) for (const s of ['400', '408', '413', '415']) if (!op.responses[s]) problems.push(`${where}: ${s} not documented`);
          // 422 wherever a body has a schema to violate (the MCP endpoint takes any JSON-RPC message).
          const bodySchema = op.requestBody?.content?.['application/json']?.schema;
          if (bodySchema && Object.keys(bodySchema).some((k) => k !== 'description') && !op.responses['422']) problems.push(`${where}: 422 not documented`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(doc.paths['/v2/search/'].post.responses['402']);
    assert.equal(doc.paths['/mcp'].post.security.length, 3);
    assert.deepEqual(doc.paths['/v2/oauth/token'].post.security, []);
  });

  test('an oauth2 security scheme: authorization code with PKCE at the real endpoints, and the service_auth grant', () => {
    const s = doc.components.securitySchemes;
    assert.equal(s.apiKey.name, 'X-Api-Key');
    assert.equal(s.bearer.scheme, 'bearer');
    const code = s.oauth2.flows.authorizationCode;
    assert.equal(code.authorizationUrl, `${app.config.authUrl}/v2/oauth/authorize`);
    assert.equal(code.tokenUrl, `${app.config.authUrl}/v2/oauth/token`);
    assert.equal(code.refreshUrl, code.tokenUrl);
    assert.deepEqual(Object.keys(code.scopes), ['search']);
    assert.match(s.oauth2.description, /S256 PKCE/);
    assert.equal(s.oauth2['x-service-auth'].grantType, 'urn:lectern:agent-auth:grant-type:claim');
    assert.equal(s.oauth2['x-service-auth'].identityEndpoint, `${app.config.authUrl}/v2/agent/identity`);
  });

  test('defaulted query parameters are optional; a request body with defaults is written in place', () => {
    const params = doc.paths['/v2/documents/trending'].get.parameters as { name: string; required: boolean }[];
    assert.equal(params.find((p) => p.name === 'period')?.required, false);
    assert.equal(params.find((p) => p.name === 'limit')?.required, false);
    const body = doc.paths['/v2/search/'].post.requestBody.content['application/json'].schema;
    assert.equal(body.title, 'SearchRequestV2');
    assert.equal(body.required, undefined);
  });
});
