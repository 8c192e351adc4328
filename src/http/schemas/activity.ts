// Activity counters and trending (interface: Activity and trending).
import { Type } from 'typebox';
import { Int32, Int64, Nullable, documentSlot, ref } from './common.js';
import { Contribution } from './feedback.js';

const counter = (description: string) => Int64({ minimum: 0, description });

export const DocumentActivityFields = {
  document_id: Type.String(),
  views_7d: counter('Page views, once per visitor and UTC day, last 7 days.'),
  views_30d: counter('Page views, last 30 days.'),
  shown_7d: counter('Times returned by authenticated searches, last 7 days.'),
  shown_30d: counter('Times returned by authenticated searches, last 30 days.'),
  agent_reads_7d: counter('Agents fetched or searched inside the document, last 7 days.'),
  agent_reads_30d: counter('Agent reads, last 30 days.'),
  ai_citations_7d: counter('Cited in generated answers, last 7 days.'),
  ai_citations_30d: counter('Cited in generated answers, last 30 days.'),
  positive_ratings_7d: counter('Relevance feedback graded 2 or 3, last 7 days.'),
  positive_ratings_30d: counter('Positive ratings, last 30 days.'),
  // optional in the interface (no R): always sent by Lectern, never required of a reader (issue 25)
  as_of_at: Type.Optional(Nullable(Int64({ description: 'Snapshot time; null when no recorded activity. Optional in the interface; Lectern always sends it.' }))),
};

export const DocumentActivity = Type.Object(DocumentActivityFields, { $id: 'DocumentActivity' });

export const ContributionStats = Type.Object(
  { contribution: ref(Contribution), comments: Int64({ minimum: 0 }), votes: Int64() },
  { $id: 'ContributionStats' },
);

export const CommentStats = Type.Object(
  {
    comments: Int64({ minimum: 0, description: 'Comments and replies, all time (visible comments only).' }),
    comments_7d: Int64({ minimum: 0 }),
    comments_30d: Int64({ minimum: 0 }),
    votes: Int64({ description: 'Sum over those comments.' }),
    contributions: Type.Array(ref(ContributionStats), { description: 'Comments that have a kind, most comments first.' }),
  },
  { $id: 'CommentStats' },
);

export const DocumentActivityResponse = Type.Object({ ...DocumentActivityFields, comments: ref(CommentStats) }, { $id: 'DocumentActivityResponse' });

export const TrendingPeriod = Type.Union([Type.Literal('week'), Type.Literal('month')], { $id: 'TrendingPeriod' });

export const TrendingDocument = Type.Object(
  {
    id: Type.String(),
    uris: Type.Array(Type.String()),
    document: documentSlot(false, 'The document without its content (see docs/api.md, "The document object").'),
    activity: ref(DocumentActivity),
    comments: ref(CommentStats),
    score: Type.Number({ description: 'views + 2 x agent reads + 3 x AI citations + 3 x positive ratings + 3 x comments posted, over the period.' }),
  },
  { $id: 'TrendingDocument' },
);

export const TrendingResponse = Type.Object(
  {
    period: ref(TrendingPeriod),
    documents: Type.Array(ref(TrendingDocument), { description: 'Ordered by weighted interest, without content.' }),
    as_of_at: Type.Optional(Nullable(Int64({ description: 'Snapshot time; null when no recorded activity. Optional in the interface; Lectern always sends it.' }))),
  },
  { $id: 'TrendingResponse' },
);

/** Query parameters of GET /v2/documents/trending. */
export const TrendingQuery = Type.Object(
  {
    period: ref(TrendingPeriod, { default: 'week' }),
    limit: Int32({ minimum: 1, maximum: 50, default: 20 }),
    scholarly: Type.Optional(Type.Boolean({ description: 'Limit to paper-like types.' })),
  },
  { additionalProperties: false },
);

export const ACTIVITY_SCHEMAS = [DocumentActivity, ContributionStats, CommentStats, DocumentActivityResponse, TrendingPeriod, TrendingDocument, TrendingResponse];
