// Preloaded into each test file's process by scripts/run-tests.mjs when TEST_TIMINGS is set
// (`node --import`): at exit, appends the CPU seconds of the file's process and of the child processes
// it waited for (servers, CLIs, Chromium: /proc/self/stat utime+stime, cutime+cstime) to
// `${TEST_TIMINGS}.cpu` as one JSON line. Linux only; elsewhere it writes nothing.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const out = process.env.TEST_TIMINGS ? `${process.env.TEST_TIMINGS}.cpu` : null;
const file = process.argv[1];
if (out && file?.endsWith('.test.js')) {
  process.on('exit', () => {
    try {
      // Fields after the command name "(...)": state is field 3; utime 14, stime 15, cutime 16, cstime 17.
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const tick = 100; // USER_HZ on Linux
      const self = (Number(f[11]) + Number(f[12])) / tick;
      const children = (Number(f[13]) + Number(f[14])) / tick;
      appendFileSync(out, `${JSON.stringify({ file: relative(process.cwd(), file), cpuSelf: self, cpuChildren: children })}\n`);
    } catch {
      // not Linux: no CPU line
    }
  });
}
