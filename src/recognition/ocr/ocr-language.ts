// The OCR language of a document from its own text (issue 28, ADR 0365). Tesseract reads with the
// languages it is given; the configured ones (`eng` by default) misread the letters of other languages
// ("Fakultat", "solugao") and the words around them, and on the real set a Portuguese thesis scanned at
// 200 dpi passed 1 of 12 text checks with `eng` and 12 of 12 with `por+eng`. So the first OCR page with
// enough words is read as usual, its text's language is guessed (function words, report/language-guess.ts:
// they survive English OCR), and when that is a language tesseract has installed but was not given, the
// page is read again with that language first and the configured ones after it, and so are the document's
// later pages. English text, a guess without confidence and a language without traineddata change nothing.
import { guessLanguage } from '../report/language-guess.js';

/** Tesseract's traineddata names of the languages the guess scores (ISO 639-1 -> tesseract, ISO 639-2/T). */
export const TESSERACT_LANGUAGE: Readonly<Record<string, string>> = {
  en: 'eng',
  de: 'deu',
  fr: 'fra',
  es: 'spa',
  it: 'ita',
  pt: 'por',
  nl: 'nld',
  sv: 'swe',
};

/** Words a page's OCR text needs before its language is judged (fewer, or an unsure guess: the next OCR page decides). */
export const MIN_LANGUAGE_WORDS = 40;
/** Smallest confidence of the language guess (0..1) that adds a language. */
export const MIN_LANGUAGE_CONFIDENCE = 0.5;

/** Traineddata names from `tesseract --list-langs` (one per line after the header; `osd` is not a language). */
export function parseListLangs(out: string): Set<string> {
  const langs = new Set<string>();
  for (const line of out.split('\n').slice(1)) {
    const l = line.trim();
    if (/^[A-Za-z_]+$/.test(l) && l !== 'osd') langs.add(l);
  }
  return langs;
}

/** The language of a page's OCR text (ISO 639-1), or undefined when it is too short or the guess unsure. */
export function textLanguage(text: string): string | undefined {
  const words = text.split(/[^\p{L}]+/u).filter((w) => w.length > 0).length;
  if (words < MIN_LANGUAGE_WORDS) return undefined;
  const g = guessLanguage(text);
  return g.code === 'und' || g.confidence < MIN_LANGUAGE_CONFIDENCE ? undefined : g.code;
}

/**
 * The tesseract languages for a document in language `code` (ISO 639-1): `X+configured` when X is
 * installed and not configured, else null (keep the configured ones).
 */
export function languagesFor(code: string, configured: string, installed: ReadonlySet<string>): string | null {
  const t = TESSERACT_LANGUAGE[code];
  if (!t || configured.split('+').includes(t) || !installed.has(t)) return null;
  return `${t}+${configured}`;
}

/** One document's OCR language: the configured languages until a page's text decides (once). */
export class OcrLanguageChoice {
  #current: string;
  #decided = false;
  #installed: Promise<Set<string>> | null = null;

  /** `configured`: tesseract languages joined with `+`. `listInstalled`: the installed traineddata (asked once, when needed). */
  constructor(
    readonly configured: string,
    private readonly listInstalled: () => Promise<Set<string>>,
  ) {
    this.#current = configured;
  }

  /** The languages to read the next page with. */
  get current(): string {
    return this.#current;
  }

  /** Whether a page has decided the document's language. */
  get decided(): boolean {
    return this.#decided;
  }

  /**
   * Judges one page's OCR text (read with `current`). Returns the languages to read that page again with
   * when they changed, else null.
   */
  async consider(text: string): Promise<string | null> {
    if (this.#decided) return null;
    // A page too short or too garbled to tell leaves the decision to the next one.
    const code = textLanguage(text);
    if (code === undefined) return null;
    this.#decided = true;
    // Only a language that is not configured asks which are installed.
    if (!TESSERACT_LANGUAGE[code] || this.configured.split('+').includes(TESSERACT_LANGUAGE[code]!)) return null;
    this.#installed ??= this.listInstalled().catch(() => new Set<string>());
    const next = languagesFor(code, this.configured, await this.#installed);
    if (next === null || next === this.#current) return null;
    this.#current = next;
    return next;
  }
}
