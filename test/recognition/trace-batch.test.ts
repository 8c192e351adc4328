// Pages with displayed math traced by one `mutool draw -F trace` process per chunk (ADR 0344) instead of
// one process per page: the same Markdown as page-by-page tracing, one process for all of a chunk's math
// pages, none for pages without math, and the per-page path when the batch fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessRunner, ToolRun, Workspace } from '../../src/ports/process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { buildPdf, type PageSpec } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

/** A page with two displayed equations in Times and Symbol (as in math-layout.test.ts), numbered from `n`. */
function mathPage(n: number): PageSpec {
  return {
    runs: [
      { x: 72, y: 100, text: 'The identity below is famous and appears in nearly every textbook on complex analysis.', size: 11 },
      { x: 260, y: 150, text: 'e', size: 12, font: 'times-italic' },
      { x: 266, y: 144, text: 'i', size: 8, font: 'times-italic' },
      { x: 269, y: 144, text: 'p', size: 8, font: 'symbol' },
      { x: 281, y: 150, text: '+', size: 12, font: 'times' },
      { x: 293, y: 150, text: '1', size: 12, font: 'times' },
      { x: 305, y: 150, text: '=', size: 12, font: 'times' },
      { x: 317, y: 150, text: '0', size: 12, font: 'times' },
      { x: 530, y: 150, text: `(${n})`, size: 12, font: 'times' },
      { x: 72, y: 190, text: 'The harmonic numbers are the partial sums of the harmonic series, defined as follows.', size: 11 },
      { x: 240, y: 240, text: 'S', size: 12, font: 'times-italic' },
      { x: 252, y: 240, text: '=', size: 12, font: 'times' },
      { x: 266, y: 245, text: '\u00e5', size: 18, font: 'symbol' },
      { x: 270, y: 226, text: 'n', size: 8, font: 'times-italic' },
      { x: 265, y: 256, text: 'k', size: 8, font: 'times-italic' },
      { x: 269.5, y: 256, text: '=', size: 8, font: 'times' },
      { x: 275, y: 256, text: '1', size: 8, font: 'times' },
      { x: 292, y: 234, text: '1', size: 12, font: 'times' },
      { x: 292, y: 249, text: 'k', size: 12, font: 'times-italic' },
      { x: 530, y: 240, text: `(${n + 1})`, size: 12, font: 'times' },
      { x: 72, y: 290, text: 'They grow like the logarithm, which the next section shows with an integral bound.', size: 11 },
    ],
    rules: [{ x0: 289, x1: 301, y: 237, width: 0.5 }],
  };
}
const prosePage: PageSpec = {
  runs: [
    { x: 72, y: 100, text: 'A page of prose between the pages with equations, which has nothing to trace at all.', size: 11 },
    { x: 72, y: 114, text: 'Its lines are plain sentences set in one text font, so no trace process is needed.', size: 11 },
  ],
};

/** The trace runs a conversion made (their page arguments), optionally failing the batched ones. */
function counting(failBatch: boolean): { runner: ProcessRunner; traces: string[] } {
  const traces: string[] = [];
  const wrapped: ProcessRunner = {
    probe: (t) => runner.probe(t),
    async createWorkspace(): Promise<Workspace> {
      const ws = await runner.createWorkspace();
      return {
        writeFile: (n, b) => ws.writeFile(n, b),
        readFile: (n, m) => ws.readFile(n, m),
        list: () => ws.list(),
        remove: (n) => ws.remove(n),
        dispose: () => ws.dispose(),
        async run(r: ToolRun) {
          if (r.args[0] === 'draw' && r.args.includes('trace') && !r.args.includes('-K')) {
            traces.push(r.args[r.args.length - 1]!);
            // A batch whose process fails (exit 1, its files half written): the pages are traced one by one.
            if (failBatch && r.args.includes('trace-%d.xml')) {
              await ws.run(r);
              return { ...(await ws.run({ ...r, args: ['draw', '-F', 'trace', '-o', 'trace-%d.xml', 'input.pdf', '0'] })), exitCode: 1 };
            }
          }
          return ws.run(r);
        },
      };
    },
  };
  return { runner: wrapped, traces };
}

const pdf = buildPdf([mathPage(1), prosePage, mathPage(3)]);
const displays = (md: string): string[] => [...md.matchAll(/\$\$([\s\S]+?)\$\$/g)].map((m) => m[1]!);

test('the pages with displayed math are traced by one process; the Markdown is what tracing each page alone gives', { skip }, async () => {
  const batched = counting(false);
  const r = await convertDocument(pdf, { runner: batched.runner });
  assert.deepEqual(batched.traces, ['1,3'], 'one trace process for pages 1 and 3, none for the prose page');
  assert.deepEqual(displays(r.markdown), [
    'e^{i \\pi} + 1 = 0 \\tag{1}',
    'S = \\sum_{k = 1}^{n} \\frac{1}{k} \\tag{2}',
    'e^{i \\pi} + 1 = 0 \\tag{3}',
    'S = \\sum_{k = 1}^{n} \\frac{1}{k} \\tag{4}',
  ]);
  // The third page alone (one math page, so traced on its own) gives the same displays.
  const alone = await convertDocument(buildPdf([mathPage(3)]), { runner });
  assert.deepEqual(displays(alone.markdown), displays(r.markdown).slice(2));
});

test('a failed batch leaves each page to its own trace, with the same Markdown', { skip }, async () => {
  const ok = await convertDocument(pdf, { runner: counting(false).runner });
  const failing = counting(true);
  const r = await convertDocument(pdf, { runner: failing.runner });
  assert.deepEqual(failing.traces, ['1,3', '1', '3']);
  assert.equal(r.markdown, ok.markdown);
});
