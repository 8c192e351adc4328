// CPU cost of displayed-equation reconstruction (issue 28, ADRs 0320 and 0347): each PDF is converted by a
// base build and by this build in turn (A/B alternated, each conversion in its own Node process), and the
// CPU time of the process and of the tools it ran (user + system, children included: `mutool draw -F
// trace` for pages with displays) is read from /usr/bin/time. Load average before and after is recorded.
//   node dist/bench/recognition/equations-cost.bench.js --base BASE_DIST --rounds 3 --out FILE PDF...
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { repoRoot } from '../../test/helpers/paths.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const base = resolve(opt('base') ?? '');
const rounds = Number(opt('rounds') ?? 3);
const out = opt('out');
const pdfs = args.filter((a, i) => a.endsWith('.pdf') && !['--out'].includes(args[i - 1] ?? ''));

/** Converts one PDF with the build in `dist`; CPU seconds (user + system of the process and its tools) and the Markdown's display count. */
function convertOnce(dist: string, pdf: string): { cpuS: number; displays: number } {
  const script = `const {convertDocument}=await import(${JSON.stringify(join(dist, 'src/recognition/index.js'))});const {LocalProcessRunner}=await import(${JSON.stringify(join(dist, 'src/adapters/process/local-process-runner.js'))});const fs=await import('node:fs');const r=await convertDocument(new Uint8Array(fs.readFileSync(${JSON.stringify(pdf)})),{runner:new LocalProcessRunner()});console.log((r.markdown.match(/\\$\\$[\\s\\S]+?\\$\\$/g)||[]).length)`;
  const r = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`conversion failed (${dist}, ${pdf}): ${r.stderr.slice(-500)}`);
  return { cpuS: Number(m[1]) + Number(m[2]), displays: Number(r.stdout.trim()) };
}

if (process.argv[1]?.endsWith('equations-cost.bench.js')) {
  const load0 = loadavg();
  const builds = { base: base, branch: join(repoRoot, 'dist') };
  const results: Record<string, { base: number[]; branch: number[]; displays: { base: number; branch: number } }> = {};
  for (const pdf of pdfs) {
    const res = { base: [] as number[], branch: [] as number[], displays: { base: 0, branch: 0 } };
    for (let k = 0; k < rounds; k++) {
      // Alternated, the order swapped every round.
      for (const which of k % 2 === 0 ? (['base', 'branch'] as const) : (['branch', 'base'] as const)) {
        const c = convertOnce(builds[which], pdf);
        res[which].push(c.cpuS);
        res.displays[which] = c.displays;
      }
      console.log(`${basename(pdf)} round ${k + 1}: base ${res.base.at(-1)} s, branch ${res.branch.at(-1)} s`);
    }
    results[basename(pdf)] = res;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary = {
    bench: 'recognition-equations-cost',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavgBefore: load0, loadavgAfter: loadavg(), note: 'shared 2-core machine loaded by other sessions; CPU seconds (user + system) of the converting process and its tools (mutool) from /usr/bin/time, base and branch alternated' },
    base: builds.base,
    rounds,
    documents: Object.fromEntries(Object.entries(results).map(([n, r]) => [n, { ...r, medianCpuS: { base: median(r.base), branch: median(r.branch) }, change: Math.round((median(r.branch) / median(r.base) - 1) * 1000) / 10 + '%' }])),
  };
  const json = JSON.stringify(summary, null, 1);
  if (out) writeFileSync(out, json);
  console.log(json);
}
