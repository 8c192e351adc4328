// Language -> Snowball stemmer (multilingual-stemmer: the official Snowball 3 algorithms compiled to
// WebAssembly; see docs/adr/0020-snowball-stemmer-library.md). Stemmers are created lazily and cached.
import { createStemmer } from 'multilingual-stemmer';
import { createEnglishStemmer } from './english.js';

/** ISO 639-1 codes with a Snowball stemmer in this engine. */
export const STEMMED_LANGUAGES: readonly string[] = [
  'en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'ru', 'sv', 'da', 'no', 'fi', 'ro', 'hu', 'tr', 'ca', 'cs', 'pl', 'el',
];

const cache = new Map<string, ((word: string) => string) | null>();

/**
 * The stem function for a language (ISO 639-1, case-insensitive, region suffix ignored: `en-GB` -> `en`),
 * or null when the language has no stemmer (tokens are then only normalised and folded).
 */
export function stemmerFor(language: string): ((word: string) => string) | null {
  const lang = normalizeLanguage(language);
  let s = cache.get(lang);
  if (s === undefined) {
    s = lang === 'en' ? createEnglishStemmer() : STEMMED_LANGUAGES.includes(lang) ? createStemmer(lang as Parameters<typeof createStemmer>[0]) : null;
    cache.set(lang, s);
  }
  return s;
}

/** Lower-cases a language tag and keeps its primary subtag (`pt-BR` -> `pt`); empty string stays empty. */
export function normalizeLanguage(language: string): string {
  const l = language.trim().toLowerCase();
  const dash = l.search(/[-_]/);
  return dash > 0 ? l.slice(0, dash) : l;
}
