// A small language guess: the script decides for non-Latin text (Hangul -> ko, Kana -> ja, Han -> zh,
// Cyrillic -> ru, Greek -> el, Hebrew -> he, Arabic -> ar or fa by Persian-only letters, Devanagari -> hi,
// Thai -> th); Latin text is scored by frequent function words of eight languages. Enough to fill the
// document model's language and to flag text that is not what the OCR language expected.

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

const SCRIPTS: [RegExp, string][] = [
  [/[\uac00-\ud7af\u1100-\u11ff]/g, 'ko'],
  [/[\u3040-\u30ff]/g, 'ja'],
  [/[\u4e00-\u9fff]/g, 'zh'],
  [/[\u0400-\u04ff]/g, 'ru'],
  [/[\u0370-\u03ff]/g, 'el'],
  [/[\u0590-\u05ff]/g, 'he'],
  [/[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]/g, 'ar'],
  [/[\u0900-\u097f]/g, 'hi'],
  [/[\u0e00-\u0e7f]/g, 'th'],
];

/** Guesses the main language of a text; `und` with confidence 0 when there is too little to go on. */
export function guessLanguage(text: string): { code: string; confidence: number } {
  const sample = text.length > 200_000 ? text.slice(0, 200_000) : text;
  const letters = (sample.match(/\p{L}/gu) ?? []).length;
  if (letters < 20) return { code: 'und', confidence: 0 };
  let bestScript = '';
  let bestCount = 0;
  for (const [re, code] of SCRIPTS) {
    const n = (sample.match(re) ?? []).length;
    if (n > bestCount) {
      bestCount = n;
      bestScript = code;
    }
  }
  // Japanese mixes Kana with Han: any Kana share decides for ja over zh.
  if (bestScript === 'zh' && (sample.match(/[\u3040-\u30ff]/g) ?? []).length > bestCount * 0.1) bestScript = 'ja';
  if (bestCount / letters > 0.3) {
    if (bestScript === 'ar' && /[پچژگ]/.test(sample) && (sample.match(/[پچژگی]/g) ?? []).length > bestCount * 0.01) bestScript = 'fa';
    return { code: bestScript, confidence: Math.min(1, Math.round((bestCount / letters) * 100) / 100) };
  }
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  const counts: Record<string, number> = {};
  const sets = Object.fromEntries(Object.entries(STOPWORDS).map(([k, v]) => [k, new Set(v)]));
  for (const w of words) for (const [k, s] of Object.entries(sets)) if (s.has(w)) counts[k] = (counts[k] ?? 0) + 1;
  const ranked = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const [top, second] = ranked;
  if (!top || top[1] < 3) return { code: 'und', confidence: 0 };
  const margin = second ? (top[1] - second[1]) / top[1] : 1;
  const coverage = top[1] / Math.max(1, words.length);
  return { code: top[0], confidence: Math.round(Math.min(1, margin * Math.min(1, coverage * 5)) * 100) / 100 };
}
