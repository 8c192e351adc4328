// The Stack Exchange data dump as published (archive.org/details/stackexchange, one 7z per site):
// `Posts.xml` with a `<row …/>` per post, and `Users.xml` beside it for the authors' names. Rows are
// read with a streaming XML parser (saxes), so a dump of any size is read in constant memory apart from
// two maps (user id -> display name, question id -> title and tags) that answers need.
//
// Each question (PostTypeId 1) and answer (PostTypeId 2) becomes the same raw record as a line of the
// JSONL shape (formats/stackexchange.ts), so both inputs give identical documents. Other post types
// (tag wikis, moderator nominations, …) are skipped. Licence per post: the row's `ContentLicense`
// (dumps since 2020) or, in older dumps, the licence in force on the date of the post's last edit, as
// Stack Exchange documents it (stackoverflow.com/help/licensing): CC BY-SA 2.5 before 2011-04-08,
// CC BY-SA 3.0 before 2018-05-02, CC BY-SA 4.0 since.
import { SaxesParser } from 'saxes';
import { parse } from 'node-html-parser';
import { canonicalUri } from '../../domain/canonical-uri.js';
import { cleanMarkup } from './clean-text.js';

/** One `<row>` of a dump file: its attributes, decoded. */
export type DumpRow = Readonly<Record<string, string>>;

/** What a dump reader yields: a row with its number and the bytes read so far. */
export interface DumpItem {
  number: number;
  row: DumpRow;
  bytesRead: number;
}

/**
 * Rows of a Stack Exchange dump file (`<posts><row …/>…</posts>`), streamed from text chunks. Throws
 * an Error with the XML parser's message (line and column) when the file is not well-formed XML, and
 * when its root element is not `root` (a Users.xml given as Posts.xml).
 */
export async function* dumpRows(chunks: AsyncIterable<{ text: string; bytesRead: number }>, root: string): AsyncIterable<DumpItem> {
  const parser = new SaxesParser();
  const queue: DumpRow[] = [];
  let depth = 0;
  let failure: Error | null = null;
  parser.on('opentag', (node) => {
    depth++;
    if (depth === 1 && node.name !== root) failure ??= new Error(`the root element is <${node.name}>, not <${root}>`);
    else if (depth === 2 && node.name === 'row') queue.push(node.attributes as Record<string, string>);
  });
  parser.on('closetag', () => {
    depth--;
  });
  parser.on('error', (e) => {
    failure ??= e;
  });
  let number = 0;
  let bytesRead = 0;
  for await (const chunk of chunks) {
    bytesRead = chunk.bytesRead;
    parser.write(chunk.text);
    if (failure) throw failure;
    for (const row of queue.splice(0)) yield { number: ++number, row, bytesRead };
  }
  parser.close();
  if (failure) throw failure;
  for (const row of queue.splice(0)) yield { number: ++number, row, bytesRead };
}

/** Licence dates of Stack Exchange content (UTC): contributions on or after each date. */
const LICENCES: readonly [number, string][] = [
  [Date.UTC(2018, 4, 2) / 1000, 'CC BY-SA 4.0'],
  [Date.UTC(2011, 3, 8) / 1000, 'CC BY-SA 3.0'],
  [-Infinity, 'CC BY-SA 2.5'],
];

/** The licence of content contributed at `unixSeconds`. */
export const licenceAt = (unixSeconds: number): string => LICENCES.find(([from]) => unixSeconds >= from)![1];

/** Dump dates are UTC without a zone (`2018-03-12T17:18:12.707`). */
function dumpDate(v: string | undefined): number | null {
  if (!v) return null;
  const t = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

/** Tags as `<a><b>` (older dumps) or `|a|b|` (dumps since 2024). */
export function dumpTags(v: string | undefined): string[] {
  if (!v) return [];
  const parts = v.startsWith('<') ? [...v.matchAll(/<([^<>]+)>/g)].map((m) => m[1]!) : v.split('|');
  return parts.map((t) => t.trim()).filter((t) => t !== '');
}

const num = (v: string | undefined): number | null => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : null);

/** Turns dump rows into raw Stack Exchange records (the JSONL shape), keeping what answers need. */
export class StackExchangeDumpMapper {
  readonly #questions = new Map<number, { title: string | null; tags: string[]; accepted: number | null }>();
  readonly #prefix: string;

  constructor(
    private readonly site: string,
    private readonly users: ReadonlyMap<number, string>,
  ) {
    this.#prefix = site.split('.')[0] ?? site;
  }

  /** The raw record of a question or an answer; null for the other post types. */
  map(row: DumpRow): Record<string, unknown> | null {
    const id = num(row.Id);
    const type = row.PostTypeId === '1' ? 'question' : row.PostTypeId === '2' ? 'answer' : null;
    if (id === null || type === null) return null;
    const created = dumpDate(row.CreationDate);
    const edited = dumpDate(row.LastEditDate) ?? created;
    const questionId = type === 'question' ? id : num(row.ParentId);
    const question = questionId === null ? undefined : this.#questions.get(questionId);
    const title = type === 'question' ? (row.Title ?? null) : (question?.title ?? null);
    const tags = type === 'question' ? dumpTags(row.Tags) : (question?.tags ?? []);
    if (type === 'question') this.#questions.set(id, { title, tags, accepted: num(row.AcceptedAnswerId) });
    const owner = num(row.OwnerUserId);
    const html = row.Body ?? '';
    const links = parse(html)
      .querySelectorAll('a')
      .map((a) => a.getAttribute('href'))
      .filter((h): h is string => typeof h === 'string' && /^https?:\/\//i.test(h));
    const uris = links.map((h) => canonicalUri(h));
    return {
      id: `${this.#prefix}:${id}`,
      site: this.site,
      post_id: id,
      post_type: type,
      url: type === 'question' ? `https://${this.site}/questions/${id}` : `https://${this.site}/a/${id}`,
      question_id: questionId,
      title,
      body_text: cleanMarkup(html, { paragraphs: true }),
      tags,
      created_at_unix: created,
      score: num(row.Score),
      answer_count: type === 'question' ? num(row.AnswerCount) : null,
      is_accepted_answer: type === 'answer' ? question?.accepted === id : null,
      author: (owner !== null ? this.users.get(owner) : undefined) ?? row.OwnerDisplayName ?? null,
      author_url: owner !== null && owner > 0 ? `https://${this.site}/users/${owner}` : null,
      license: row.ContentLicense ?? (edited !== null ? licenceAt(edited) : null),
      linked_arxiv_ids: uris.filter((u): u is string => u?.startsWith('arxiv://') ?? false).map((u) => u.slice('arxiv://'.length)),
      linked_dois: uris.filter((u): u is string => u?.startsWith('doi://') ?? false).map((u) => u.slice('doi://'.length)),
      linked_urls: links,
    };
  }
}
