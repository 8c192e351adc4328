// BEIR corpora (`corpus.jsonl` lines `{"_id", "title", "text"}`). The `_id` is kept as the document id
// so evaluation tools map hits to relevance judgments; `text` becomes the abstract.
import { cleanMarkup, cleanNullable } from './clean-text.js';
import { asString, blankRecord, checkId, RecordError, type ParsedRecord } from './common.js';

export function parseBeir(raw: Record<string, unknown>): ParsedRecord {
  const rawId = raw._id;
  const id = checkId(typeof rawId === 'number' ? String(rawId) : (asString(rawId) ?? ''));
  const text = asString(raw.text);
  const title = asString(raw.title) ?? (text ? text.slice(0, 120) : null);
  if (!title) throw new RecordError(`BEIR record ${id} has neither title nor text`);
  const rec = blankRecord(id, 'documents', 'beir');
  rec.title = cleanMarkup(title) || title;
  rec.abstract = cleanNullable(text, { paragraphs: true });
  rec.language = 'en';
  if (raw.metadata && typeof raw.metadata === 'object') rec.extra = { metadata: raw.metadata };
  return { record: rec, originals: [] };
}

export const looksLikeBeir = (raw: Record<string, unknown>): boolean => '_id' in raw && ('text' in raw || 'title' in raw);
