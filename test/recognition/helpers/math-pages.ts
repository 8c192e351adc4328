// A page with two displayed equations set as a word processor sets them (Times Italic variables, Symbol
// Greek and summation, a drawn fraction rule, the numbers at the right margin), shared by the equation
// tests (math-layout, trace-batch).
import type { PageSpec } from './pdf-builder.js';

/** A page with two displayed equations in Times and Symbol numbered from `n`. */
export function mathPage(n: number): PageSpec {
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
