// Cost and decisions of the OCR deskew (ADR 0365 and its amendment): this build's `deskew` against a base
// build's, on page images as the converter hands them to tesseract (P5 PGM files in --dir), alternated
// page by page (which build goes first flips every round).
//   node dist/bench/recognition/deskew-cost.bench.js --dir DIR --base DIST [--rounds 3] [--out FILE]
// Reports per page: the angle each build estimates and applies, the profile gain, milliseconds for the
// estimate and for the whole deskew (estimate + rotation), and the largest grey-level difference between
// the two straightened images.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as mine from '../../src/recognition/ocr/deskew.js';
import { parsePgm, type GrayImage } from '../../src/recognition/ocr/pgm.js';
import { machine } from '../lib/machine.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const dir = opt('dir');
const baseDist = opt('base');
if (!dir || !baseDist) throw new Error('usage: --dir DIR --base DIST [--rounds N] [--out FILE]');
const rounds = Number(opt('rounds') ?? 3);
const base = (await import(pathToFileURL(resolve(baseDist, 'src/recognition/ocr/deskew.js')).href)) as typeof mine;
const builds = { base, new: mine } as const;

const files = readdirSync(dir).filter((f) => f.endsWith('.pgm')).sort();
const pages = files.map((f) => ({ file: f, img: parsePgm(new Uint8Array(readFileSync(resolve(dir, f))))! }));
const loadBefore = loadavg();
type Acc = { est: number[]; all: number[] };
const times: Record<string, Acc[]> = { base: pages.map(() => ({ est: [], all: [] })), new: pages.map(() => ({ est: [], all: [] })) };
const decided: Record<string, { estimate: mine.SkewEstimate; applied: number; image: GrayImage }[]> = { base: [], new: [] };
for (let round = 0; round < rounds; round++) {
  for (let p = 0; p < pages.length; p++) {
    const order = (round + p) % 2 ? (['new', 'base'] as const) : (['base', 'new'] as const);
    for (const b of order) {
      const img = pages[p]!.img;
      let t = performance.now();
      const estimate = builds[b].estimateSkew(img);
      times[b]![p]!.est.push(performance.now() - t);
      t = performance.now();
      const d = builds[b].deskew(img);
      times[b]![p]!.all.push(performance.now() - t);
      if (round === 0) decided[b]![p] = { estimate, applied: d.degrees, image: d.image };
    }
  }
}
const loadAfter = loadavg();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const rows = pages.map((pg, p) => {
  const a = decided.base![p]!;
  const b = decided.new![p]!;
  let maxDiff = 0;
  if (a.image.data.length === b.image.data.length) for (let i = 0; i < a.image.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a.image.data[i]! - b.image.data[i]!));
  else maxDiff = -1;
  return {
    file: pg.file,
    size: `${pg.img.width}x${pg.img.height}`,
    base: { degrees: a.estimate.degrees, gain: +a.estimate.gain.toFixed(4), ink: a.estimate.inkPixels, applied: a.applied, estimateMs: +median(times.base![p]!.est).toFixed(1), deskewMs: +median(times.base![p]!.all).toFixed(1) },
    new: { degrees: b.estimate.degrees, gain: +b.estimate.gain.toFixed(4), ink: b.estimate.inkPixels, applied: b.applied, estimateMs: +median(times.new![p]!.est).toFixed(1), deskewMs: +median(times.new![p]!.all).toFixed(1) },
    angleDiff: +Math.abs(a.estimate.degrees - b.estimate.degrees).toFixed(2),
    maxGreyDiff: maxDiff,
  };
});
const sum = (f: (r: (typeof rows)[number]) => number): number => +rows.reduce((s, r) => s + f(r), 0).toFixed(1);
const summary = {
  pages: rows.length,
  sameAngle: rows.filter((r) => r.angleDiff === 0).length,
  within01: rows.filter((r) => r.angleDiff <= 0.1).length,
  sameApplied: rows.filter((r) => r.base.applied === r.new.applied).length,
  maxGreyDiff: Math.max(...rows.map((r) => r.maxGreyDiff)),
  msPerPage: {
    base: { estimate: +(sum((r) => r.base.estimateMs) / rows.length).toFixed(1), deskew: +(sum((r) => r.base.deskewMs) / rows.length).toFixed(1) },
    new: { estimate: +(sum((r) => r.new.estimateMs) / rows.length).toFixed(1), deskew: +(sum((r) => r.new.deskewMs) / rows.length).toFixed(1) },
  },
};
const out = { bench: 'deskew-cost', date: new Date().toISOString(), machine: machine(), load: { before: loadBefore, after: loadAfter }, rounds, dir, base: baseDist, summary, pages: rows };
console.log(JSON.stringify(summary, null, 1));
const file = opt('out');
if (file) writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
