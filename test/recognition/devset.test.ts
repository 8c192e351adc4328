// The generated development set (bench/recognition/devset) end to end through mutool: every olmOCR-bench
// style check passes on every born-digital document, and the Markdown equals the ground truth after the
// benchmark's normalisation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/recognition/index.js';
import { buildPdf } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';
import { devDocuments } from '../../bench/recognition/devset/documents.js';
import { check } from '../../bench/recognition/devset/checks.js';
import { normalizedEditDistance } from '../../bench/recognition/metrics.js';

const skip = await needs('mutool');

for (const doc of devDocuments()) {
  test(`development set: ${doc.name} passes its checks`, { skip }, async () => {
    const r = await convertDocument(buildPdf(doc.pages), { runner, pageMarkers: false });
    const failed = doc.checks.filter((c) => !check(c, r.markdown));
    assert.deepEqual(failed, [], r.markdown);
    assert.ok(normalizedEditDistance(r.markdown, doc.truth) < 0.01, r.markdown);
  });
}

test('development-set checks fail on a plain text dump with the known defects', () => {
  const [notice] = devDocuments();
  const dump = 'Downloaded from https://notices.example.org on 12 March 2024\nNotice of Water Supply Interruption\nPage 1 of 1';
  assert.ok(notice!.checks.filter((c) => !check(c, dump)).length >= 3);
});
