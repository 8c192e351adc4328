// The overall quality score: a product of factors in 0..1, each reading one failure mode the evaluation
// sets show. Documented with its calibration in docs/recognition.md (bench/recognition measures the
// correlation between the score and the edit distance to reference Markdown).
import type { QualityGrade, QualityReport } from './quality-report.js';

type Inputs = Pick<QualityReport, 'pages' | 'text' | 'ocr' | 'structure'> & { readonly format: string };

/** Words from which the single-character-token penalty applies in full. */
export const SINGLES_FULL_EVIDENCE_WORDS = 200;

const clamp = (x: number): number => Math.max(0, Math.min(1, x));

/** Computes the score components and their product. */
export function scoreReport(r: Inputs): QualityReport['score'] {
  const total = Math.max(1, r.pages.total);
  // Coverage: pages that yielded text, out of pages that should have (blank pages are not penalised).
  const lost = r.pages.failed + r.pages.skipped;
  const coverage = clamp(1 - lost / total);
  // Text sanity: garbage characters, too few letters, letter-spaced or broken OCR tokens.
  const garbage = clamp(1 - 10 * r.text.garbageRatio);
  // Digits are text too: a table of figures is not garbled (ADR 0095).
  const letters = r.text.characters === 0 ? 0 : clamp(0.3 + 0.75 * (r.text.letterRatio + r.text.digitRatio));
  // A short text gives weak evidence ("like é or ç" is 3 singles in 9 words): the penalty grows with the
  // number of words and is whole from SINGLES_FULL_EVIDENCE_WORDS on.
  const evidence = Math.min(1, r.text.words / SINGLES_FULL_EVIDENCE_WORDS);
  const singles = clamp(1 - 2 * Math.max(0, r.text.singleCharTokenRatio - 0.03) * evidence);
  // OCR: pages read by OCR weigh by their confidence (95 -> 0.855, 90 -> 0.81, 60 -> 0.54, 30 -> 0.27).
  // Even confident OCR misreads characters (CER 0.04-0.09 measured here) and loses the fonts that headings
  // come from, so a fully OCR'd document is never graded A (issue 17: scans graded A had errors).
  const ocrShare = r.ocr.pages / total;
  const conf = r.ocr.meanConfidence ?? 100;
  const ocr = 1 - ocrShare * (1 - 0.9 * clamp(conf / 100));
  // Layout (ADR 0095): what the output still reads across a row (a form, an undetected table, columns read
  // row by row) is the main risk; a complex page read column by column keeps a small one (blocks may still
  // be out of order).
  const layout = clamp(1 - 0.1 * Math.min(1, r.structure.layoutComplexity / 0.5) - 0.4 * Math.min(1, r.structure.rowSwitches / 0.25));
  // Page furniture kept: short, small lines set apart in the top or bottom band, per page with text.
  const textPages = Math.max(1, r.pages.textLayer + r.pages.ocr);
  const margins = 1 - 0.15 * Math.min(1, r.structure.marginLinesKept / textPages);
  // Paragraphs cut mid-sentence (furniture between them, blocks out of order, lines never joined), beyond
  // the fifth that labels and captions account for; weighed by how many paragraphs there are.
  const paragraphs = 1 - 0.3 * Math.max(0, r.text.brokenParagraphRatio - 0.2) * Math.min(1, r.structure.paragraphs / 10);
  // Pages that are mostly image with almost no text of their own: the text drawn in the images is lost.
  const images = 1 - 0.5 * (r.structure.imageDominatedPages / total);
  // Repetition: a passage of 120+ words repeated verbatim is a duplicated text layer or a loop.
  const rep = r.text.longestRepeatedNgram;
  const repetition = rep && rep.words >= 120 ? 0.9 : 1;
  // Right-to-left pages: visual-to-logical reordering is heuristic for mixed-direction lines.
  const direction = 1 - 0.1 * clamp(r.text.rtlRatio);
  // Structure: long documents without any heading are harder to navigate.
  const structure = r.structure.headings.total > 0 || r.pages.total < 2 || r.format === 'epub' ? 1 : 0.9;
  const components = { coverage, garbage, letters, singles, ocr, layout, margins, paragraphs, images, repetition, direction, structure };
  const value = Object.values(components).reduce((a, b) => a * b, 1);
  const rounded = Object.fromEntries(Object.entries(components).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
  return { value: Math.round(value * 1000) / 1000, grade: gradeOf(value), components: rounded };
}

/** A >= 0.9, B >= 0.8, C >= 0.65, D >= 0.5, F below. */
export function gradeOf(value: number): QualityGrade {
  return value >= 0.9 ? 'A' : value >= 0.8 ? 'B' : value >= 0.65 ? 'C' : value >= 0.5 ? 'D' : 'F';
}
