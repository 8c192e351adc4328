// The structured document the layout passes build and the Markdown renderer writes. Kept apart from the
// page model (layout-model.ts) because EPUB produces Markdown directly and never builds these blocks.

/** Where a heading's level came from (reported per source in the quality report). */
export type HeadingSource = 'outline' | 'numbering' | 'font-size' | 'bold' | 'emphasis' | 'layout' | 'title' | 'markup';

/**
 * One structural block, in reading order. `page` is the 1-based page where the block starts. The text of a
 * paragraph and of a list item is Markdown (inline math as `$...$`, a dollar of the text escaped as `\$`,
 * ADR 0355); the other texts are plain, and the renderer escapes them.
 */
export type DocBlock =
  | { readonly kind: 'heading'; readonly page: number; readonly level: number; readonly text: string; readonly source: HeadingSource }
  | { readonly kind: 'paragraph'; readonly page: number; readonly text: string }
  | { readonly kind: 'list'; readonly page: number; readonly ordered: boolean; readonly items: readonly string[] }
  | { readonly kind: 'table'; readonly page: number; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: 'figure'; readonly page: number }
  | { readonly kind: 'caption'; readonly page: number; readonly text: string; readonly target: 'figure' | 'table' | 'other' }
  | { readonly kind: 'code'; readonly page: number; readonly text: string }
  /** A displayed equation; `latex` when its math fonts allowed rebuilding it (rendered `$$...$$`). */
  | { readonly kind: 'equation'; readonly page: number; readonly text: string; readonly latex?: string }
  | { readonly kind: 'footnote'; readonly page: number; readonly label: string; readonly text: string }
  | { readonly kind: 'reference'; readonly page: number; readonly text: string };

/** Counts of structure found, reported in `structure` of the quality report. */
export interface StructureCounts {
  readonly headingsByLevel: Record<string, number>;
  readonly headingsBySource: Record<string, number>;
  readonly paragraphs: number;
  readonly lists: number;
  readonly listItems: number;
  readonly tables: number;
  readonly figures: number;
  readonly captions: number;
  readonly equations: number;
  /** Displayed equations kept as plain text (no LaTeX could be rebuilt); PDF and DJVU only. */
  readonly equationsAsText?: number;
  readonly footnotes: number;
  readonly references: number;
  readonly codeBlocks: number;
}

/** Counts the blocks of a document. */
export function countBlocks(blocks: readonly DocBlock[]): StructureCounts {
  const byLevel: Record<string, number> = {};
  const bySource: Record<string, number> = {};
  const c = { paragraphs: 0, lists: 0, listItems: 0, tables: 0, figures: 0, captions: 0, equations: 0, equationsAsText: 0, footnotes: 0, references: 0, codeBlocks: 0 };
  for (const b of blocks) {
    switch (b.kind) {
      case 'heading':
        byLevel[String(b.level)] = (byLevel[String(b.level)] ?? 0) + 1;
        bySource[b.source] = (bySource[b.source] ?? 0) + 1;
        break;
      case 'paragraph':
        c.paragraphs++;
        break;
      case 'list':
        c.lists++;
        c.listItems += b.items.length;
        break;
      case 'table':
        c.tables++;
        break;
      case 'figure':
        c.figures++;
        break;
      case 'caption':
        c.captions++;
        break;
      case 'code':
        c.codeBlocks++;
        break;
      case 'equation':
        c.equations++;
        if (b.latex === undefined) c.equationsAsText++;
        break;
      case 'footnote':
        c.footnotes++;
        break;
      case 'reference':
        c.references++;
        break;
    }
  }
  return { headingsByLevel: byLevel, headingsBySource: bySource, ...c };
}
