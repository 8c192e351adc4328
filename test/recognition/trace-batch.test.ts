// Pages with displayed math traced by one `mutool draw -F trace` process per chunk (ADR 0344) instead of
// one process per page: the same Markdown as page-by-page tracing, one process for all of a chunk's math
// pages, none for pages without math, and the per-page path when the batch fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessRunner, ToolRun, Workspace } from '../../src/ports/process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { mathPage } from './helpers/math-pages.js';
import { buildPdf, type PageSpec } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

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
