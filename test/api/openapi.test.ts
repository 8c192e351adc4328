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

  test('errors are documented as ApiError', () => {
    const op = doc.paths['/v2/documents/{document_id}'].get;
    assert.equal(op.responses['404'].content['application/json'].schema.$ref, '#/components/schemas/ApiError');
  });
});
