// Every README command works for a new user (issue 25: the BEIR example named a `scifact/` folder it
// never said how to get): a file or folder that a README command reads is in the repository, or an
// earlier line of the same example downloads or unpacks it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

/** The shell examples of the README (synopsis lines with `[...]` or `a|b` are not commands to run). */
function shellBlocks(md: string): string[][] {
  return [...md.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.split('\n').filter((l) => l.trim() !== ''));
}

/** The paths a `lectern ingest` or `ranking train --beir` line reads (relative, not placeholders). */
function readPaths(line: string): string[] {
  const command = line.split('#')[0]!;
  if (/\[|\|/.test(command.replace(/\|\|/g, ''))) return [];
  const out: string[] = [];
  for (const part of command.split('&&')) {
    const words = part.trim().split(/\s+/);
    const at = words.indexOf('lectern');
    if (at < 0) continue;
    const sub = words.slice(at + 1);
    if (sub[0] === 'ingest') out.push(...sub.slice(1).filter((w, i, a) => !w.startsWith('-') && !['--format', '--site', '--batch'].includes(a[i - 1] ?? '')));
    if (sub[0] === 'ranking' && sub.includes('--beir')) out.push(sub[sub.indexOf('--beir') + 1]!);
  }
  return out.filter((p) => p !== undefined && !/^[A-Z_]+(\.\.\.)?$/.test(p) && !p.startsWith('$'));
}

test('README: every file a lectern command reads exists in the repository or is fetched by the example first', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const problems: string[] = [];
  let checked = 0;
  for (const block of shellBlocks(readme)) {
    block.forEach((line, i) => {
      for (const p of readPaths(line)) {
        checked++;
        const top = p.replace(/^\.\//, '').split('/')[0]!;
        // a download or unpack that names the folder, on an earlier line or before `lectern` on this one
        const fetchedBefore = block.slice(0, i + 1).some((l) => {
          const before = l.split('#')[0]!.split(/\blectern\b/)[0]!;
          return /\b(curl|wget|unzip|tar|git clone)\b/.test(before) && before.includes(top);
        });
        if (!existsSync(join(repoRoot, p)) && !fetchedBefore) problems.push(`${line.trim()}: ${p} is neither in the repository nor fetched before`);
      }
    });
  }
  assert.ok(checked >= 2, `the README's ingest and ranking examples were found (${checked})`);
  assert.deepEqual(problems, []);
});
