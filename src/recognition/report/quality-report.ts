// The per-document quality report (shape proposed in the recognition guide). Every field is documented
// in docs/recognition.md; keep the two in sync (a test checks that each field name appears there).
import type { DocumentFormat } from '../format-detection.js';

/** Warning codes: problems that still leave a usable result. */
export type WarningCode =
  /** Pages had no text layer, only images; they went through OCR (or stayed empty without it). */
  | 'IMAGE_ONLY_PAGES'
  /** OCR pages whose mean word confidence is below 60. */
  | 'OCR_LOW_CONFIDENCE'
  /** Pages recognised after turning them by 90, 180 or 270 degrees. */
  | 'ROTATED_PAGES_CORRECTED'
  /** The text layer maps glyphs to wrong characters (broken font encoding); OCR replaced it. */
  | 'GARBLED_TEXT_LAYER'
  /** The PDF's cross-reference table was broken and rebuilt by the reader. */
  | 'DAMAGED_FILE_REPAIRED'
  /** The PDF is encrypted with an empty user password (readable; permissions may restrict use). */
  | 'ENCRYPTED'
  /** Pages with no text at all. */
  | 'EMPTY_PAGES'
  /** DJVU pages without a hidden text layer; they went through OCR. */
  | 'DJVU_NO_TEXT_LAYER'
  /** No heading was found: the Markdown is a flat sequence of paragraphs. */
  | 'NO_HEADINGS_DETECTED'
  /** The conversion stopped before the last page (overall time limit); later pages are missing. */
  | 'TRUNCATED'
  /** Pages that could not be converted (tool failure, per-page time limit, page too large). */
  | 'PAGES_FAILED'
  /** Pages needed OCR but tesseract is not installed or OCR was disabled. */
  | 'OCR_UNAVAILABLE'
  /** More pages needed OCR than `limits.maxOcrPages`; the rest were left empty. */
  | 'OCR_PAGE_LIMIT'
  /** A page was larger than the pixel limit allows at a readable resolution. */
  | 'PAGE_TOO_LARGE'
  /** An EPUB spine item points to a file missing from the archive. */
  | 'MISSING_SPINE_ITEM'
  /** The EPUB spine lists one content document several times (manifest ids with `#fragment`s); it was converted once. */
  | 'DUPLICATE_SPINE_ITEMS'
  /** EPUB fonts are obfuscated (IDPF/Adobe font mangling); the text is unaffected. */
  | 'FONT_OBFUSCATION'
  /** A passage of 120+ words repeats verbatim (duplicated text layer or extraction loop). */
  | 'REPETITION_DETECTED'
  /** Right-to-left script: the reading order of mixed-direction lines may be imperfect. */
  | 'RIGHT_TO_LEFT_TEXT'
  /** Displayed equations were kept as plain text (no LaTeX). */
  | 'EQUATIONS_AS_TEXT'
  /** The text has a high share of non-letter garbage characters. */
  | 'LOW_TEXT_QUALITY'
  /** Runs of glyphs without a character mapping were left out as `<!-- unreadable text: N characters -->`. */
  | 'UNMAPPED_GLYPHS';

/** One warning with the pages it concerns (1-based; empty when document-wide). */
export interface QualityWarning {
  readonly code: WarningCode;
  readonly message: string;
  readonly pages: readonly number[];
}

/** Letter grade of the overall score: A >= 0.9, B >= 0.8, C >= 0.65, D >= 0.5, F below. */
export type QualityGrade = 'A' | 'B' | 'C' | 'D' | 'F';

/** The quality report of one converted document. */
export interface QualityReport {
  /** Report schema version (1). */
  readonly schemaVersion: 1;
  /** Extraction pipeline version (see checkpoint.ts). */
  readonly pipeline: string;
  readonly input: {
    /** SHA-256 of the input bytes, lower-case hex. */
    readonly sha256: string;
    readonly format: DocumentFormat;
    /** Input size in bytes. */
    readonly bytes: number;
    /** Pages (PDF, DJVU) or spine items (EPUB). */
    readonly pages: number;
    /** PDF with an Encrypt dictionary, or EPUB with encrypted resources. */
    readonly encrypted: boolean;
    /** The reader had to repair the file (PDF cross-reference rebuilt). */
    readonly repaired: boolean;
    /** PDF Producer (or EPUB generator); null when absent. */
    readonly producer: string | null;
    /** Document metadata: title, authors, language, subject, keywords, publisher, created, identifier. */
    readonly metadata: DocumentMetadata;
  };
  readonly engine: {
    /** Backends used, e.g. `mutool-stext`, `tesseract`, `djvused`, `epub-xhtml`. */
    readonly backends: readonly string[];
    /** Tool name to version line, for every external tool run. */
    readonly tools: Readonly<Record<string, string>>;
    /** Milliseconds: `total`, and per step (`inspect`, `extract`, `ocr`, `layout`, `render`). */
    readonly timings: Readonly<Record<string, number>>;
  };
  readonly pages: {
    readonly total: number;
    /** Pages read from the text layer (PDF) or hidden text (DJVU), or EPUB spine items read from markup. */
    readonly textLayer: number;
    readonly ocr: number;
    readonly empty: number;
    readonly failed: number;
    /** Pages not reached (time limit). */
    readonly skipped: number;
    /**
     * Pages billed (ADR 0236): pages whose text was read (text layer or OCR with words), or EPUB content
     * documents with content, each distinct file once. Empty, failed and skipped pages are free.
     */
    readonly billable: number;
    /** Page numbers of each kind (1-based). */
    readonly which: {
      readonly textLayer: readonly number[];
      readonly ocr: readonly number[];
      readonly empty: readonly number[];
      readonly failed: readonly number[];
      readonly skipped: readonly number[];
    };
  };
  readonly text: TextStatistics;
  readonly ocr: {
    /** Pages recognised by OCR. */
    readonly pages: number;
    /** Mean word confidence 0..100 over all OCR words; null without OCR. */
    readonly meanConfidence: number | null;
    /** 10th percentile of word confidence 0..100; null without OCR. */
    readonly p10Confidence: number | null;
    /** OCR pages whose mean confidence is below 60. */
    readonly pagesBelow60: readonly number[];
    /** Pages turned before recognition, with the clockwise angle. */
    readonly rotatedPages: readonly { readonly page: number; readonly degrees: number }[];
  };
  readonly structure: {
    readonly headings: {
      readonly total: number;
      /** Count per Markdown level, keys "1".."6". */
      readonly byLevel: Readonly<Record<string, number>>;
      /** Count per source: outline, numbering, font-size, bold, emphasis, layout, title, markup. */
      readonly bySource: Readonly<Record<string, number>>;
    };
    readonly paragraphs: number;
    readonly lists: number;
    readonly listItems: number;
    readonly tables: number;
    readonly figures: number;
    readonly captions: number;
    readonly equations: number;
    readonly footnotes: number;
    readonly references: number;
    readonly codeBlocks: number;
    /** Running header/footer and page-number lines removed. */
    readonly removedHeaderFooterLines: number;
    /** Share 0..1 of text lines sharing their row with another line (columns, tables, forms): reading-order risk. */
    readonly layoutComplexity: number;
    /** Share 0..1 of text lines (table cells left out) that the reading order reaches sideways from a line on the same row. */
    readonly rowSwitches: number;
    /** Lines kept in the top or bottom band of a page that look like page furniture by position (short, small, set apart). */
    readonly marginLinesKept: number;
    /** Text-layer pages whose images cover over half the page while they carry under 200 characters: text drawn in images is not read. */
    readonly imageDominatedPages: number;
    /**
     * Share 0..1 of heading-like lines on text-layer pages (short lines set at least 15% larger than the body
     * text, or whole bold lines standing as a block of their own) whose text is in no Markdown heading: a
     * heading missed (ADR 0352). Optional: reports stored before it was added lack it.
     */
    readonly missedHeadingRatio?: number;
    /**
     * Share 0..1 of the letters and digits of the text-layer pages' lines (as MuPDF read them) that the Markdown
     * does not hold: text dropped, or page furniture removed (ADR 0352). Optional: reports stored before it was
     * added lack it.
     */
    readonly droppedTextRatio?: number;
    /**
     * Share 0..1 of heading-like blocks the Markdown shows as paragraphs (a numbered title standing alone or run
     * into its paragraph, a short capitalised line between a closed block and running text), of those and the
     * headings (two headings added to the count): headings missed (ADR 0356). Optional: reports stored before
     * it was added lack it.
     */
    readonly headingParagraphRatio?: number;
    /** Share 0..1 of the headings that read as prose (11+ words, or cut after a comma, hyphen or function word; ADR 0356). Optional. */
    readonly proseHeadingRatio?: number;
    /** Share 0..1 of table body rows that are prose read across (two cells of 7+ words, or a cell ending in a hyphenated break; ADR 0356). Optional. */
    readonly proseCellRatio?: number;
    /** Share 0..1 of running-text blocks holding a line that is a table row read as text (numbers 40%+ of 3-20 tokens; ADR 0356). Optional. */
    readonly looseRowRatio?: number;
    /**
     * Share 0..1 of the words of running text (code, mathematics, tables, addresses left out), each distinct token
     * once, that are a run of 20+ letters or two words joined at a case change ("SyntaxHelpers"): spaces lost
     * (ADR 0366). Optional: reports stored before it was added lack it.
     */
    readonly longTokenRatio?: number;
    /** Share 0..1 of the body cells of tables of 2+ body rows that are empty: columns misaligned or merged (ADR 0366). Optional. */
    readonly emptyCellRatio?: number;
    /** Share 0..1 of running-text blocks of 1-3 words, not a label and not a closed sentence: text cut into fragments (ADR 0366). Optional. */
    readonly fragmentBlockRatio?: number;
    /**
     * Share 0..1 of single-line text blocks that are a dotted section number and a short title ("2.1 Class
     * options"), of those and the headings (two headings added): numbered titles left as text wherever they
     * stand (ADR 0376). Optional: reports stored before it was added lack it.
     */
    readonly numberedLineRatio?: number;
    /** Runs of 4+ single letters in running text per 1000 of its words: letter-spaced words, spurious spaces (ADR 0376). Optional. */
    readonly letterRunRate?: number;
  };
  readonly warnings: readonly QualityWarning[];
  readonly score: {
    /** Overall quality 0..1 (see docs/recognition.md for the formula and its calibration). */
    readonly value: number;
    readonly grade: QualityGrade;
    /** The factors multiplied into `value`, each 0..1. */
    readonly components: Readonly<Record<string, number>>;
  };
}

/** Text statistics over the final Markdown text (markup removed). */
export interface TextStatistics {
  /** Characters, whitespace excluded. */
  readonly characters: number;
  /** Whitespace-separated tokens. */
  readonly words: number;
  /** Share 0..1 of non-whitespace characters that are replacement, private-use, control or unassigned-looking symbols. */
  readonly garbageRatio: number;
  /** Share 0..1 of non-whitespace characters that are letters (any script). */
  readonly letterRatio: number;
  /** Share 0..1 of non-whitespace characters that are the digits 0-9 (tables and figures of numbers are not garbage). */
  readonly digitRatio: number;
  /** Share 0..1 of paragraphs that stop mid-sentence before another paragraph (cut text, misread reading order). */
  readonly brokenParagraphRatio: number;
  /** Share 0..1 of word tokens that are a single character (high in broken OCR or letter-spaced text). */
  readonly singleCharTokenRatio: number;
  /**
   * Share 0..1 of words (tokens with a letter) of an odd shape: a capital after a lower-case letter, a digit
   * between lower-case letters, punctuation or a symbol inside the word ("tHe", "l0ng", "wa,ter"). High in
   * noisy OCR and in text layers whose glyphs map to the wrong characters. Optional: reports stored before it
   * was added lack it.
   */
  readonly oddTokenRatio?: number;
  /**
   * Share 0..1 of words that show a lost or spurious space, judged from the document's own vocabulary: a
   * word split in two ("Nov ember" where "November" occurs elsewhere) or words run together into one rare
   * token that falls apart into words the document uses ("resultsofthe"). Optional: reports stored before
   * it was added lack it.
   */
  readonly spacingFaultRatio?: number;
  /**
   * Share 0..1 of displayed equations (`$$...$$`) that are broken: a fragment of at most two LaTeX tokens,
   * a placeholder or replacement character, or unbalanced braces (ADR 0339). Optional: reports stored before
   * it was added lack it.
   */
  readonly brokenEquationRatio?: number;
  /**
   * Share 0..1 of table cells holding a number that hold two or more numbers apart ("12.5 13.7": columns
   * merged, ADR 0339). Optional: reports stored before it was added lack it.
   */
  readonly mergedCellRatio?: number;
  /** Longest word sequence that occurs at least twice: its length in words, occurrences and the first words. */
  readonly longestRepeatedNgram: { readonly words: number; readonly occurrences: number; readonly sample: string } | null;
  /** Language guess (ISO 639-1, `und` when unknown) and its confidence 0..1. */
  readonly language: { readonly code: string; readonly confidence: number };
  /** Share 0..1 of letters in right-to-left scripts. */
  readonly rtlRatio: number;
}

/** Bibliographic facts found in the document (for ingest). */
export interface DocumentMetadata {
  readonly title: string | null;
  readonly authors: readonly string[];
  readonly language: string | null;
  readonly subject: string | null;
  readonly keywords: readonly string[];
  readonly publisher: string | null;
  /** Creation or publication date as given by the document. */
  readonly created: string | null;
  /** DOI, ISBN or other identifier when the document names one. */
  readonly identifier: string | null;
}
