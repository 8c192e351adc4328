// The page model every backend produces (PDF text layer, OCR, DJVU text layer) and the structure passes
// consume. It is plain JSON so a page can be checkpointed and resumed (see checkpoint.ts).
// Coordinates are in PDF points (1/72 inch) with y growing downwards; OCR and DJVU pixels are converted
// with the page's resolution, so relative font sizes mean the same thing in every backend.

/** An axis-aligned box in points, y down. */
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** One visual line of text. */
export interface LayoutLine extends Box {
  readonly text: string;
  /** Dominant font size in points (by characters); for OCR and DJVU estimated from word heights. */
  readonly size: number;
  /** Most characters are in a bold font (false when unknown, as for OCR). */
  readonly bold: boolean;
  /** Most characters are in an italic font. */
  readonly italic: boolean;
  /** Most characters are in a monospaced font. */
  readonly mono: boolean;
  /** Index of the source block (mutool block, tesseract block/paragraph, DJVU paragraph); lines of one block belong together. */
  readonly block: number;
  /** True when `size` was estimated from word heights (OCR, DJVU) rather than read from a font. */
  readonly sizeEstimated?: boolean;
  /** Mean word confidence 0..100 for OCR lines; absent for text layers. */
  readonly confidence?: number;
  /** The line with its math-font runs as LaTeX (`$...$` segments, ADR 0097); absent when it has none. */
  readonly math?: string;
  /**
   * LaTeX of a whole displayed equation rebuilt from the page's glyphs (ADR 0320), `\tag{n}` for its number;
   * such a line stands for all the lines of the equation.
   */
  readonly display?: string;
  /**
   * The parts of a text-layer line set apart by gaps of more than 0.8 em (MuPDF's own line breaks inside a
   * row, joined back into one line up to 1.5 ems): the cells of a table row set with LaTeX's 12 pt column
   * separation, which table detection may cut the line into (ADR 0341). Absent when the line has none.
   */
  readonly segments?: readonly LineSegment[];
  /**
   * The line's first words when they are set in bold, italic or small capitals and the rest of the line is
   * not (with a section number before them in any text face): a run-in title's candidate ("1.1 Essential
   * Initial Commands."). Text layers only; absent when the line has none.
   */
  readonly lead?: string;
}

/** A part of a line between wide gaps (see {@link LayoutLine.segments}). */
export interface LineSegment {
  readonly text: string;
  readonly x0: number;
  readonly x1: number;
}

/** How a page's text was obtained. */
export type PageKind = 'text-layer' | 'ocr' | 'empty' | 'failed' | 'skipped';

/** One extracted page: the unit of checkpointing. */
export interface PageExtraction {
  /** 1-based page number. */
  readonly page: number;
  readonly kind: PageKind;
  /** Page size in points. */
  readonly width: number;
  readonly height: number;
  /** Lines in reading (stream) order. */
  readonly lines: readonly LayoutLine[];
  /** Image boxes (figures, scans) in points. */
  readonly images: readonly Box[];
  /** OCR facts when kind is `ocr`. */
  readonly ocr?: {
    /** Word confidences 0..100, rounded, in reading order. */
    readonly wordConfidences: readonly number[];
    /** Clockwise rotation applied before recognition (0, 90, 180, 270). */
    readonly rotation: number;
    /** Render resolution in dots per inch. */
    readonly dpi: number;
    /** Mean word confidence 0..100 (0 when no word was found). */
    readonly meanConfidence: number;
  };
  /** Why the page went the way it did (warning codes, e.g. `GARBLED_TEXT_LAYER`, `PAGE_TIMEOUT`). */
  readonly notes: readonly string[];
  /** Time spent on this page in ms (extraction plus OCR). */
  readonly ms: number;
}

/** Pre-built Markdown for formats that carry their own structure (EPUB chapters). */
export interface MarkdownUnit {
  /** 1-based unit number (spine position). */
  readonly page: number;
  readonly kind: 'markup' | 'failed';
  readonly markdown: string;
  /** Counts from the markup: headings per level, paragraphs, lists, tables, figures, footnotes... */
  readonly counts: Readonly<Record<string, number>>;
  readonly notes: readonly string[];
  readonly ms: number;
}
