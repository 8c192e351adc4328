// The ingest pipeline: batches, idempotence, bad lines with their numbers, originals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { testApp, type TestApp } from '../helpers/app.js';

describe('ingest', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp();
  });
  after(() => app.dispose());

  test('mixed good and bad lines: bad ones reported by number, the rest ingested', async () => {
    const file = join(app.dir, 'mixed.jsonl');
    writeFileSync(file, [
      JSON.stringify({ id: 'a', title: 'Alpha', doi: '10.1234/a' }),
      '{not json',
      JSON.stringify({ id: 'b' }),
      '',
      JSON.stringify([1, 2]),
      JSON.stringify({ id: 'c', title: 'Gamma' }),
    ].join('\n'));
    const errors: [number, string][] = [];
    const r = await app.ingest.ingestFile(file, { onLineError: (l, m) => errors.push([l, m]) });
    assert.equal(r.inserted, 2);
    assert.equal(r.failed, 3);
    assert.deepEqual(errors.map(([l]) => l), [2, 3, 5]);
    assert.match(errors[0]![1], /not JSON/);
    assert.match(errors[1]![1], /no title/);
    assert.ok(await app.storage.documents.getByUri('doi://10.1234/a'));
  });

  test('re-ingesting updates and never duplicates; unchanged records are not rewritten', async () => {
    const file = join(app.dir, 'twice.jsonl.gz');
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ _id: `t${i}`, title: `T ${i}`, text: `text ${i}` }));
    writeFileSync(file, gzipSync(lines.join('\n')));
    const first = await app.ingest.ingestFile(file, { batchSize: 7 });
    assert.equal(first.inserted, 30);
    const seq = await app.storage.documents.maxSeq();
    const second = await app.ingest.ingestFile(file, { batchSize: 7 });
    assert.equal(second.inserted, 0);
    assert.equal(second.unchanged, 30);
    assert.equal(await app.storage.documents.maxSeq(), seq);
    lines[3] = JSON.stringify({ _id: 't3', title: 'T 3 revised', text: 'text 3' });
    writeFileSync(file, gzipSync(lines.join('\n')));
    const third = await app.ingest.ingestFile(file);
    assert.equal(third.updated, 1);
    assert.equal((await app.storage.documents.get('t3'))!.title, 'T 3 revised');
  });

  test('originals are copied into the blob store and checked against their SHA-256', async () => {
    mkdirSync(join(app.dir, 'src', 'originals'), { recursive: true });
    const pdf = Buffer.from('%PDF-1.4\n% test\n');
    writeFileSync(join(app.dir, 'src', 'originals', 'x.pdf'), pdf);
    const sha = createHash('sha256').update(pdf).digest('hex');
    const file = join(app.dir, 'src', 'works.jsonl');
    writeFileSync(file, [
      JSON.stringify({ id: 'withpdf', title: 'Has a PDF', originals: [{ path: 'originals/x.pdf', media_type: 'application/pdf', sha256: sha, license: 'CC BY 4.0' }] }),
      JSON.stringify({ id: 'badsha', title: 'Wrong hash', originals: [{ path: 'originals/x.pdf', sha256: '00' }] }),
      JSON.stringify({ id: 'missing', title: 'No file', originals: [{ path: 'originals/none.pdf' }] }),
    ].join('\n'));
    const r = await app.ingest.ingestFile(file);
    assert.equal(r.inserted, 1);
    assert.deepEqual(r.errors.map((e) => e.line), [2, 3]);
    const d = await app.storage.documents.get('withpdf');
    assert.equal(d!.originals[0]!.sha256, sha);
    assert.equal((await app.blobs.stat(d!.originals[0]!.blobKey))!.bytes, pdf.length);
  });
});
