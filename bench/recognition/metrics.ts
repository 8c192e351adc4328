// Metrics of the recognition benchmark (definitions in docs/recognition.md, "How quality is measured").
import { distance } from 'fastest-levenshtein';

/**
 * Normalises Markdown before edit distance: comments (page markers, image placeholders) removed, HTML
 * entities and backslash escapes decoded, heading/list/quote markers, emphasis, code fences, link and
 * image syntax and table rules removed, table pipes turned into spaces, dot leaders (four or more full
 * stops, spaced or not, as in a table of contents) removed, Unicode NFKC, whitespace collapsed.
 * Case and punctuation are kept: they are part of the text. Dot leaders are layout, not text: issue 17 asks
 * the converter to drop them while some reference Markdown (docling's) keeps them, so neither keeping nor
 * dropping them counts.
 */
export function normalizeForDistance(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/^\s*(```|~~~).*$/gm, ' ')
    .replace(/^\|?(\s*:?-{1,}:?\s*\|)+\s*:?-*:?\s*$/gm, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[\^(\w+)\]:?/g, '$1')
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|\s)[*_](?=\S)([^*_\n]*?\S)[*_](?=\s|$|[.,;:!?])/g, '$1$2')
    .replace(/\|/g, ' ')
    .replace(/(?:[ \t]?[.\u2024\u2026]){4,}/g, ' ')
    .normalize('NFKC')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Levenshtein distance divided by the longer length (0 = identical, 1 = nothing in common). */
export function normalizedEditDistance(a: string, b: string): number {
  const x = normalizeForDistance(a);
  const y = normalizeForDistance(b);
  const n = Math.max(x.length, y.length);
  return n === 0 ? 0 : distance(x, y) / n;
}

/** Headings of a Markdown text (ATX), normalised: NFKC, lower case, letters and digits only. */
export function headingKeys(md: string): string[] {
  return [...md.matchAll(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)]
    .map((m) => m[1]!.replace(/&amp;/g, '&').replace(/\\(.)/g, '$1').normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''))
    .filter(Boolean);
}

/** Heading precision, recall and F1 by multiset matching of normalised heading texts (levels ignored). */
export function headingScores(predicted: string, reference: string): { precision: number; recall: number; f1: number; predicted: number; reference: number; matched: number } {
  const pred = headingKeys(predicted);
  const ref = headingKeys(reference);
  const pool = new Map<string, number>();
  for (const r of ref) pool.set(r, (pool.get(r) ?? 0) + 1);
  let matched = 0;
  for (const p of pred) {
    const n = pool.get(p) ?? 0;
    if (n > 0) {
      matched++;
      pool.set(p, n - 1);
    }
  }
  const precision = pred.length ? matched / pred.length : ref.length ? 0 : 1;
  const recall = ref.length ? matched / ref.length : 1;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, predicted: pred.length, reference: ref.length, matched };
}

/** Pearson correlation coefficient. */
export function pearson(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxx && syy ? sxy / Math.sqrt(sxx * syy) : 0;
}

/** Spearman rank correlation (average ranks for ties). */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rank = (v: readonly number[]): number[] => {
    const idx = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < idx.length; ) {
      let j = i;
      while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
      for (let k = i; k <= j; k++) r[idx[k]![1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  return pearson(rank(xs), rank(ys));
}
