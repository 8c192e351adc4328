// Writes structural blocks as CommonMark with GitHub tables. Page markers are HTML comments
// `<!-- page N -->` on a line of their own before the first block that starts on page N (a paragraph
// continued from the previous page belongs to the page where it starts); Markdown viewers hide them and
// tools can split on them. Figures are `<!-- image -->` placeholders.
import type { DocBlock } from '../structure/document-blocks.js';
import { escapeDollars } from '../structure/math-latex.js';
import { collapseWhitespace } from '../structure/patterns.js';

/** Options of {@link renderMarkdown}. */
export interface RenderOptions {
  /** Emit `<!-- page N -->` markers (default true). */
  readonly pageMarkers?: boolean;
  /** Total pages, so markers of trailing empty pages are emitted too. */
  readonly pageCount?: number;
}

/** The page-marker line for page `n` (1-based). */
export const pageMarker = (n: number): string => `<!-- page ${n} -->`;

/** Escapes text that would otherwise start a Markdown construct. */
export function escapeLineStart(text: string): string {
  // A backslash escapes punctuation only: a numbered line start is escaped at its dot ("08\. 2007"; "\08."
  // would show the backslash).
  if (/^\d{1,9}[.)]\s/.test(text)) return text.replace(/^(\d{1,9})([.)])/, '$1\\$2');
  return text.replace(/^(#{1,6}\s|[-+*]\s|>|```|~~~|<!--)/, (m) => `\\${m}`);
}

const cell = (s: string): string => collapseWhitespace(escapeDollars(s).replace(/\|/g, '\\|')).trim();

/**
 * Plain text of a block as Markdown: its dollar signs escaped (ADR 0355), so that none pairs with a
 * formula's delimiter, and a line start that would open a construct escaped. Paragraph and list-item texts
 * are Markdown already (layout analysis escapes their text around the inline math it writes); code is
 * fenced and left as it is (no Markdown renderer reads math or escapes inside a fence).
 */
const prose = (text: string): string => escapeLineStart(escapeDollars(text));

/** Renders blocks to Markdown. */
export function renderMarkdown(blocks: readonly DocBlock[], options: RenderOptions = {}): string {
  const markers = options.pageMarkers ?? true;
  const parts: string[] = [];
  let page = 0;
  const advance = (to: number): void => {
    if (!markers) return;
    while (page < to) parts.push(pageMarker(++page));
  };
  for (const b of blocks) {
    advance(b.page);
    switch (b.kind) {
      case 'heading':
        parts.push(`${'#'.repeat(Math.max(1, Math.min(6, b.level)))} ${collapseWhitespace(escapeDollars(b.text)).trim()}`);
        break;
      case 'equation':
        parts.push(b.latex !== undefined ? `$$${b.latex}$$` : prose(b.text));
        break;
      case 'paragraph':
        parts.push(escapeLineStart(b.text));
        break;
      case 'caption':
      case 'reference':
        parts.push(prose(b.text));
        break;
      case 'list':
        // An item's text after its marker is escaped like a line start: "2. * Here another is." (a numbered
        // example judged ungrammatical) is no bullet list nested in item 2 (ADR 0374).
        parts.push(
          b.items
            .map((it) => {
              const num = b.ordered ? /^\d{1,9}[.)]\s+/.exec(it) : null;
              return num ? `${num[0]}${escapeLineStart(it.slice(num[0].length))}` : `- ${escapeLineStart(it)}`;
            })
            .join('\n'),
        );
        break;
      case 'table': {
        const width = Math.max(...b.rows.map((r) => r.length));
        const rows = b.rows.map((r) => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`);
        rows.splice(1, 0, `| ${Array.from({ length: width }, () => '---').join(' | ')} |`);
        parts.push(rows.join('\n'));
        break;
      }
      case 'figure':
        parts.push('<!-- image -->');
        break;
      case 'code': {
        const fence = b.text.includes('```') ? '~~~~' : '```';
        parts.push(`${fence}\n${b.text}\n${fence}`);
        break;
      }
      case 'footnote':
        parts.push(/^\d+$/.test(b.label) ? `[^${b.label}]: ${escapeDollars(b.text)}` : `${b.label} ${escapeDollars(b.text)}`);
        break;
    }
  }
  if (options.pageCount) advance(options.pageCount);
  return foldUnreadable(parts.join('\n\n') + (parts.length ? '\n' : ''));
}

/** Five or more glyphs without a character mapping (U+FFFD, private use), spaces between them allowed. */
const UNREADABLE_RUN_RE = /[\ufffd\ue000-\uf8ff](?:[ \t]*[\ufffd\ue000-\uf8ff]){4,}/g;
/** The comment that stands for such a run; `plainText` expands it again for the report's statistics. */
export const UNREADABLE_COMMENT_RE = /<!-- unreadable text: (\d+) characters -->/g;

/**
 * Text set in a font without a character mapping comes out as runs of U+FFFD that say nothing to a reader
 * or a search index: a run of five or more becomes `<!-- unreadable text: N characters -->` (the report
 * still counts the characters as garbage and warns with `UNMAPPED_GLYPHS`). Single marks stay in place.
 */
export function foldUnreadable(markdown: string): string {
  return markdown.replace(UNREADABLE_RUN_RE, (run) => `<!-- unreadable text: ${run.replace(/[ \t]/g, '').length} characters -->`);
}
