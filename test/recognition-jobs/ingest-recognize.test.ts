// `lectern ingest --recognize FILES...`: converted files become documents that search finds and the
// documents API returns; a file that cannot be read is reported and the others still go in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recognizedDocumentId } from '../../src/ingest/recognized-file.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { runCliOn } from '../helpers/cli.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs, recognitionData } from '../recognition/helpers/tools.js';
import { createHash } from 'node:crypto';

const mutool = await needs('mutool');
let app: TestApp;
before(async () => {
  app = await testApp();
});
after(() => app.dispose());

const cli = (args: string[]) => runCliOn(app, args);

test('ingest --recognize: PDF and EPUB become searchable, fetchable documents; unreadable files are reported', { skip: mutool }, async () => {
  const pdf = join(app.dir, 'article.bin'); // the name says nothing: the format comes from the bytes
  const bytes = sampleArticle(3);
  writeFileSync(pdf, bytes);
  const junk = join(app.dir, 'junk.pdf');
  writeFileSync(junk, 'not a pdf at all');
  const files = [pdf, junk];
  const epub = recognitionData ? join(app.dir, 'poetry.epub') : null;
  if (epub) copyFileSync(join(recognitionData!, 'docling-epub', 'epub_purvis_poetry.epub'), epub);
  if (epub) files.push(epub);
  const r = await cli(['ingest', '--recognize', ...files]);
  assert.equal(r.code, 1, 'one file failed');
  const out = JSON.parse(r.stdout) as Record<string, any>[];
  const id = recognizedDocumentId(createHash('sha256').update(bytes).digest('hex'));
  assert.equal(out[0]!.id, id);
  assert.equal(out[0]!.outcome, 'inserted');
  assert.equal(out[0]!.pages, 3);
  assert.equal(out[1]!.error.code, 'unsupported_format');
  const a = await app.account({ credits: 1000 });
  const doc = await app.http.inject({ method: 'GET', url: `/v2/documents/${id}`, headers: { 'x-api-key': a.key } });
  assert.equal(doc.statusCode, 200, doc.body);
  const d = doc.json().document;
  assert.equal(d.title, 'Synthetic Documents for Testing');
  assert.match(d.content, /non-governmental organisation/);
  assert.doesNotMatch(d.content, /<!-- page/);
  const search = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': a.key, 'content-type': 'application/json' }, payload: { query: 'synthetic documents testing', limit: 5 } });
  assert.equal(search.statusCode, 200, search.body);
  assert.ok(search.json().hits.some((h: { id: string }) => h.id === id), search.body);
  if (epub) {
    assert.equal(out[2]!.outcome, 'inserted');
    const e = await app.http.inject({ method: 'GET', url: `/v2/documents/${out[2]!.id}`, headers: { 'x-api-key': a.key } });
    assert.equal(e.json().document.title, 'Poetry');
  }
  // Again: the same documents, unchanged.
  const again = await cli(['ingest', '--recognize', pdf]);
  assert.equal(again.code, 0);
  assert.equal(JSON.parse(again.stdout)[0].outcome, 'unchanged');
});
