// node:test reporter that writes one JSON line per test file with its wall time, and one per failed test:
//   {"file":"dist/test/...","ms":1234,"ok":true,"start":<ms since run start>,"end":<ms>}
//   {"file":"dist/test/...","failed":"<test name>","ms":<its duration>}
// and at the end {"tests":{"<file>":<tests run>,...},"wall":<ms>}.
// scripts/run-tests.mjs adds it when TEST_TIMINGS=<path> is set; scripts/test-timings.mjs prints the table.
import { relative } from 'node:path';

const t0 = Date.now();

export default async function* timingsReporter(source) {
  const counts = new Map();
  const starts = new Map();
  for await (const event of source) {
    const data = event.data;
    if (!data?.file) continue;
    const file = relative(process.cwd(), data.file);
    if (event.type === 'test:dequeue' && data.name === data.file && !starts.has(file)) {
      starts.set(file, Date.now() - t0);
    }
    if ((event.type === 'test:pass' || event.type === 'test:fail') && data.name !== data.file) {
      if (data.details?.type !== 'suite') counts.set(file, (counts.get(file) ?? 0) + 1);
      if (event.type === 'test:fail' && data.details?.type !== 'suite') {
        yield `${JSON.stringify({ file, failed: data.name, ms: Math.round(data.details?.duration_ms ?? 0) })}\n`;
      }
      continue;
    }
    if (event.type === 'test:complete' && data.name === data.file) {
      yield `${JSON.stringify({
        file,
        ms: Math.round(data.details?.duration_ms ?? 0),
        ok: data.details?.passed === true,
        start: starts.get(file) ?? null,
        end: Date.now() - t0,
      })}\n`;
    }
  }
  // Test counts arrive after the file's end when files run concurrently: one line at the end.
  yield `${JSON.stringify({ tests: Object.fromEntries(counts), wall: Date.now() - t0 })}\n`;
}
