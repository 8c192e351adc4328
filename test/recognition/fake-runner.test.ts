// Failure paths through a runner that misbehaves on purpose: a page whose extraction times out, missing
// tools, and the formats reported as available.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessRunner, ToolProbe, ToolResult, ToolRun, Workspace } from '../../src/ports/process-runner.js';
import { availableFormats, convertDocument, isRecognitionError } from '../../src/recognition/index.js';
import { sampleArticle } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

/** Wraps the real runner; `intercept` may answer a run instead of the tool. */
function wrap(real: ProcessRunner, intercept: (run: ToolRun) => ToolResult | null, missing: string[] = []): ProcessRunner {
  return {
    probe: (t: string): Promise<ToolProbe | null> => (missing.includes(t) ? Promise.resolve(null) : real.probe(t)),
    async createWorkspace(): Promise<Workspace> {
      const ws = await real.createWorkspace();
      return {
        writeFile: (n, b) => ws.writeFile(n, b),
        readFile: (n) => ws.readFile(n),
        list: () => ws.list(),
        remove: (n) => ws.remove(n),
        dispose: () => ws.dispose(),
        run: (r) => Promise.resolve(intercept(r)).then((x) => x ?? ws.run(r)),
      };
    },
  };
}

const timedOut: ToolResult = { exitCode: null, signal: 'SIGKILL', stdout: new Uint8Array(), stderr: '', timedOut: true, aborted: false, outputLimitExceeded: false, spawnFailed: false, durationMs: 20_000 };

test('a page whose text layer times out is failed and reported; the other pages convert', { skip: await needs('mutool') }, async () => {
  // Any stext run that covers page 2 "hangs": the start script (facts and pages 1-32 in one `mutool run`)
  // and any text-script or `mutool convert` range with page 2. The separate facts calls and the chunk run
  // instead, the chunk is retried page by page, so only page 2 is lost.
  const flaky = wrap(runner, (r) => {
    if (r.tool === 'mutool' && r.args[0] === 'run' && r.args[1] === 'lectern-start.js') return timedOut;
    if (r.tool !== 'mutool' || (r.args[0] !== 'convert' && r.args[0] !== 'run')) return null;
    const range = r.args[r.args.length - 1]!;
    const [a, b] = range.split('-').map(Number) as [number, number?];
    return a! <= 2 && (b ?? a!) >= 2 ? timedOut : null;
  });
  const r = await convertDocument(sampleArticle(3), { runner: flaky });
  assert.deepEqual(r.report.pages.which.failed, [2]);
  assert.deepEqual(r.report.pages.which.textLayer, [1, 3]);
  assert.deepEqual(r.report.warnings.find((w) => w.code === 'PAGES_FAILED')?.pages, [2]);
  assert.equal(r.report.score.components.coverage, Math.round((2 / 3) * 1000) / 1000);
  assert.match(r.markdown, /<!-- page 2 -->\n\n<!-- page 3 -->/);
});

test('a mutool whose script API differs: the separate calls convert, and the scripts are dropped after three tries', { skip: await needs('mutool') }, async () => {
  const apiError: ToolResult = { exitCode: 1, signal: null, stdout: new Uint8Array(), stderr: "ReferenceError: 'Document' is not defined\n\tat lectern-start.js:2\n", timedOut: false, aborted: false, outputLimitExceeded: false, spawnFailed: false, durationMs: 5 };
  let starts = 0;
  let texts = 0;
  const inner = wrap(runner, (r) => {
    if (r.tool === 'mutool' && r.args[0] === 'run') {
      if (r.args[1] === 'lectern-start.js') starts++;
      else texts++;
      return apiError;
    }
    return null;
  });
  // A version of its own, so the outcome does not affect the other tests' (real) mutool.
  const other: ProcessRunner = { ...inner, createWorkspace: () => inner.createWorkspace(), probe: async (t) => (t === 'mutool' ? { tool: t, version: 'mutool version 9.99 (test)' } : inner.probe(t)) };
  for (let i = 0; i < 4; i++) {
    const r = await convertDocument(sampleArticle(2), { runner: other });
    assert.deepEqual(r.report.pages.which.textLayer, [1, 2]);
  }
  assert.equal(starts, 3);
  // The text script fails the same way on the first two conversions (one chunk each, then `mutool convert`);
  // from the third start script's failure on, neither script is tried.
  assert.equal(texts, 2);
});

test('a missing tool makes its format unavailable, with a typed error', async () => {
  const none = wrap(runner, () => null, ['mutool', 'djvused', 'djvudump', 'ddjvu', 'tesseract']);
  await assert.rejects(convertDocument(sampleArticle(1), { runner: none }), (e: unknown) => isRecognitionError(e) && e.code === 'format_unavailable');
  const formats = await availableFormats(none);
  assert.deepEqual(
    formats.map((f) => [f.format, f.available, f.ocr]),
    [['pdf', false, false], ['epub', true, false], ['djvu', false, false]],
  );
  assert.deepEqual(formats.find((f) => f.format === 'pdf')?.missingTools, ['mutool', 'tesseract']);
});

test('available formats on this machine', { skip: await needs('mutool', 'tesseract', 'djvused', 'djvudump', 'ddjvu') }, async () => {
  const formats = await availableFormats(runner);
  assert.ok(formats.every((f) => f.available));
  assert.deepEqual(formats.map((f) => f.ocr), [true, false, true]);
});
