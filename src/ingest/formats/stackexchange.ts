// Stack Exchange posts (questions and answers) for the `social` index. Posts are CC BY-SA: the post
// URL, author and licence are kept as attribution and must be shown with the post. Links to arXiv
// papers and DOIs become references, so "documents citing X" also finds discussions of X.
import { asString, asStringArray, blankRecord, canonicalList, checkId, RecordError, type ParsedRecord } from './common.js';

export function parseStackExchange(raw: Record<string, unknown>): ParsedRecord {
  const id = checkId(asString(raw.id) ?? `${asString(raw.site)?.split('.')[0] ?? 'se'}:${String(raw.post_id ?? '')}`);
  const body = asString(raw.body_text);
  const title = asString(raw.title);
  if (!title && !body) throw new RecordError(`Stack Exchange post ${id} has no title and no body`);
  const postType = asString(raw.post_type) === 'answer' ? 'answer' : 'question';
  const url = asString(raw.url);
  const rec = blankRecord(id, 'social', 'stackexchange');
  rec.uris = canonicalList([url]);
  rec.title = title ?? body!.slice(0, 120);
  rec.abstract = body;
  rec.type = postType;
  rec.language = 'en';
  rec.issuedAt = typeof raw.created_at_unix === 'number' ? raw.created_at_unix : null;
  rec.publisher = asString(raw.site);
  rec.venue = asString(raw.site);
  rec.references = canonicalList([...asStringArray(raw.linked_arxiv_ids).map((a) => `arxiv://${a}`), ...asStringArray(raw.linked_dois).map((d) => `doi://${d}`)]);
  rec.license = asString(raw.license);
  rec.attribution = { author: asString(raw.author), authorUrl: asString(raw.author_url), url, site: asString(raw.site), license: asString(raw.license) };
  rec.extra = Object.fromEntries(
    Object.entries({
      post_type: postType,
      question_id: raw.question_id,
      score: raw.score,
      tags: asStringArray(raw.tags),
      is_accepted_answer: raw.is_accepted_answer,
      answer_count: raw.answer_count,
      linked_urls: asStringArray(raw.linked_urls),
    }).filter(([, v]) => v !== undefined && v !== null),
  );
  return { record: rec, originals: [] };
}

export const looksLikeStackExchange = (raw: Record<string, unknown>): boolean => 'post_type' in raw && 'site' in raw;
