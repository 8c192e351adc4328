// A small language guess: the script decides for non-Latin text (Hangul -> ko, Kana -> ja, Han -> zh,
// Cyrillic -> ru, Greek -> el, Hebrew -> he, Arabic -> ar or fa by Persian-only letters, Devanagari -> hi,
// Thai -> th); Latin text is scored by frequent function words of eight languages. Enough to fill the
// document model's language and to flag text that is not what the OCR language expected.

import { isLetterCode } from '../structure/patterns.js';

const STOPWORDS: Record<string, string[]> = {
  en: ['the', 'and', 'of', 'to', 'in', 'is', 'that', 'for', 'with', 'as', 'are', 'this', 'by', 'on', 'be', 'it', 'was', 'which'],
  de: ['der', 'die', 'und', 'das', 'ist', 'nicht', 'mit', 'den', 'von', 'zu', 'ein', 'eine', 'sich', 'auf', 'für', 'dem', 'des', 'werden'],
  fr: ['le', 'la', 'les', 'et', 'des', 'est', 'une', 'dans', 'pour', 'que', 'qui', 'pas', 'sur', 'avec', 'du', 'au', 'sont', 'par'],
  es: ['el', 'la', 'los', 'las', 'y', 'de', 'que', 'en', 'es', 'por', 'una', 'para', 'con', 'del', 'se', 'como', 'más', 'al'],
  it: ['il', 'la', 'di', 'che', 'e', 'per', 'un', 'una', 'non', 'sono', 'con', 'del', 'della', 'gli', 'le', 'nel', 'anche', 'è'],
  pt: ['o', 'a', 'os', 'as', 'de', 'que', 'e', 'do', 'da', 'em', 'um', 'uma', 'para', 'com', 'não', 'por', 'são', 'mais'],
  nl: ['de', 'het', 'een', 'en', 'van', 'is', 'dat', 'op', 'te', 'zijn', 'voor', 'met', 'niet', 'aan', 'ook', 'als', 'worden', 'door'],
  sv: ['och', 'att', 'det', 'som', 'en', 'är', 'på', 'av', 'för', 'med', 'till', 'den', 'har', 'inte', 'om', 'ett', 'var', 'vi'],
};

/** Script of a code point, by Unicode block; '' for Latin and everything else. */
function scriptOf(cp: number): string {
  if ((cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0x1100 && cp <= 0x11ff)) return 'ko';
  if (cp >= 0x3040 && cp <= 0x30ff) return 'ja';
  if (cp >= 0x4e00 && cp <= 0x9fff) return 'zh';
  if (cp >= 0x0400 && cp <= 0x04ff) return 'ru';
  if (cp >= 0x0370 && cp <= 0x03ff) return 'el';
  if (cp >= 0x0590 && cp <= 0x05ff) return 'he';
  if ((cp >= 0x0600 && cp <= 0x06ff) || (cp >= 0x0750 && cp <= 0x077f) || (cp >= 0xfb50 && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfeff)) return 'ar';
  if (cp >= 0x0900 && cp <= 0x097f) return 'hi';
  if (cp >= 0x0e00 && cp <= 0x0e7f) return 'th';
  return '';
}

/** Each stop word's languages, in the order of STOPWORDS (so counts are first set in the same order as by a scan of every list). */
const STOP_LANGS = new Map<string, string[]>();
for (const [k, words] of Object.entries(STOPWORDS)) for (const w of new Set(words)) (STOP_LANGS.get(w) ?? STOP_LANGS.set(w, []).get(w)!).push(k);

/** Guesses the main language of a text (first 10,000 characters); `und` with confidence 0 when unsure. */
export function guessLanguage(text: string): { code: string; confidence: number } {
  const sample = text.length > 10_000 ? text.slice(0, 10_000) : text;
  const scripts = new Map<string, number>();
  let letters = 0;
  let persian = 0;
  for (let i = 0; i < sample.length; i++) {
    const cp = sample.charCodeAt(i);
    const isLetter = isLetterCode(cp);
    if (!isLetter) continue;
    letters++;
    const s = cp < 0x370 ? '' : scriptOf(cp);
    if (s) scripts.set(s, (scripts.get(s) ?? 0) + 1);
    // Persian-only letters: peh, tcheh, jeh, gaf, farsi yeh.
    if (cp === 0x067e || cp === 0x0686 || cp === 0x0698 || cp === 0x06af || cp === 0x06cc) persian++;
  }
  if (letters < 20) return { code: 'und', confidence: 0 };
  let bestScript = '';
  let bestCount = 0;
  for (const [k, n] of scripts) if (n > bestCount) [bestScript, bestCount] = [k, n];
  // Japanese mixes Kana with Han: any Kana share decides for ja over zh.
  if (bestScript === 'zh' && (scripts.get('ja') ?? 0) > bestCount * 0.1) bestScript = 'ja';
  if (bestCount / letters > 0.3) {
    if (bestScript === 'ar' && persian > bestCount * 0.01) bestScript = 'fa';
    return { code: bestScript, confidence: Math.min(1, Math.round((bestCount / letters) * 100) / 100) };
  }
  const counts = new Map<string, number>();
  let words = 0;
  for (const w of sample.toLowerCase().split(/[^\p{L}]+/u)) {
    if (!w) continue;
    words++;
    const langs = STOP_LANGS.get(w);
    if (langs) for (const k of langs) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  const [top, second] = ranked;
  if (!top || top[1] < 3) return { code: 'und', confidence: 0 };
  const margin = second ? (top[1] - second[1]) / top[1] : 1;
  const coverage = top[1] / Math.max(1, words);
  return { code: top[0], confidence: Math.round(Math.min(1, margin * Math.min(1, coverage * 5)) * 100) / 100 };
}
