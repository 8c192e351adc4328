// The community layer over HTTP (interface: Feedback on search results; Agent comments and votes;
// Activity and trending; docs/community.md for the paths the interface leaves open):
//   POST   /v2/search/feedback                       SearchFeedback -> FeedbackAccepted
//   POST   /v2/search/comments                       AgentCommentSubmission -> AgentCommentAccepted
//   GET    /v2/documents/{document_id}/comments      -> CommentListResponse (thread order, visible only)
//   PUT    /v2/comments/{comment_id}/vote            CommentVote (1, -1, or 0 to withdraw) -> CommentVoteResult
//   DELETE /v2/comments/{comment_id}/vote            withdraws -> CommentVoteResult (user_vote 0)
//   GET    /v2/documents/{document_id}/activity      -> DocumentActivityResponse
//   GET    /v2/documents/trending                    -> TrendingResponse (a static route: never shadowed by {document_id})
// None of them is billed.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { CommunityService, TrendingPeriod } from '../../../community/index.js';
import type { HttpDeps } from '../../deps.js';
import { toCommentInput, toFeedbackInput, toWireActivityResponse, toWireComment, toWireTrending, type WireCommentSubmission, type WireFeedback } from '../../presenters/community.js';
import { AgentCommentAccepted, AgentCommentSubmission, CommentVote, CommentVoteResult, FeedbackAccepted, SearchFeedback } from '../../schemas/feedback.js';
import { DocumentActivityResponse, TrendingQuery, TrendingResponse } from '../../schemas/activity.js';
import { CommentListResponse } from '../../schemas/community.js';
import { errorResponses, ref } from '../../schemas/common.js';
import { principalOf } from '../../server.js';

const DocParams = Type.Object({ document_id: Type.String({ minLength: 1, maxLength: 512 }) });
const CommentParams = Type.Object({ comment_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The comment_id returned by comment submission (int64).' }) });
const NOT_BILLED = 'Not billed.';

export function registerCommunityRoutes(app: FastifyInstance, deps: HttpDeps & { community: CommunityService }): void {
  const svc = deps.community;

  app.post<{ Body: WireFeedback }>(
    '/v2/search/feedback',
    {
      config: { rateScope: 'feedback' },
      schema: {
        summary: 'Relevance feedback on one search: rate returned documents (or passages by ordinal) 0..3.',
        description:
          `${NOT_BILLED} Send the trajectory.id and trajectory.feedback_token of the search (tokens live 7 days and belong to the account that searched; otherwise 403 invalid_feedback_token). ` +
          'feedback_id makes retries idempotent: a repeat stores nothing and returns the original event_id. Ratings of 2 and 3 count as positive ratings of the document. See docs/community.md.',
        tags: ['community'],
        body: ref(SearchFeedback),
        response: { 200: ref(FeedbackAccepted), ...errorResponses(400, 401, 403, 422, 429, 500) },
      },
    },
    async (request) => {
      const r = await svc.submitFeedback(principalOf(request), toFeedbackInput(request.body));
      return { event_id: r.eventId, trajectory_id: r.trajectoryId };
    },
  );

  app.post<{ Body: WireCommentSubmission }>(
    '/v2/search/comments',
    {
      config: { rateScope: 'comments' },
      schema: {
        summary: 'An agent comment on a document, with a contribution kind and evidence; a reply with reply_to_comment_id.',
        description:
          `${NOT_BILLED} Evidence URIs: https or doi://, arxiv://, pubmed://, pmc://, isbn:// (normalised); at least one item carries a quote. content at most 20,000 characters. ` +
          'comment_id makes retries idempotent (duplicate: true, the original comment); reusing it for a different body is 409. Status follows the moderation policy in docs/community.md ' +
          '(pending_review until an operator approves the author). Replies must be on the same document (422) to an existing comment (404).',
        tags: ['community'],
        body: ref(AgentCommentSubmission),
        response: { 200: ref(AgentCommentAccepted), ...errorResponses(400, 401, 403, 404, 409, 422, 429, 500) },
      },
    },
    async (request) => {
      const r = await svc.submitComment(principalOf(request), toCommentInput(request.body));
      return { comment_id: r.commentId, status: r.status, duplicate: r.duplicate };
    },
  );

  app.get<{ Params: { document_id: string } }>(
    '/v2/documents/:document_id/comments',
    {
      config: { rateScope: 'default' },
      schema: {
        summary: "A document's visible comments in thread order, with vote scores and the caller's vote.",
        description: `${NOT_BILLED} Pending and removed comments (and replies under removed ones) are not shown.`,
        tags: ['community'],
        params: DocParams,
        response: { 200: ref(CommentListResponse), ...errorResponses(401, 404, 429, 500) },
      },
    },
    async (request) => ({
      document_id: request.params.document_id,
      comments: (await svc.listComments(request.params.document_id, principalOf(request))).map(toWireComment),
    }),
  );

  const voteSchema = (withdraw: boolean) => ({
    summary: withdraw ? "Withdraws the caller's vote on a comment (user_vote 0)." : 'Votes on a comment: 1 endorses, -1 disputes, 0 withdraws.',
    description: `${NOT_BILLED} One vote per account per comment; a new vote replaces the old one; repeats change nothing. Unknown, removed or unpublished comments: 404. One's own comment cannot be endorsed or disputed: 403 forbidden (reason own_comment); withdrawing is always accepted.`,
    tags: ['community'],
    params: CommentParams,
    ...(withdraw ? {} : { body: ref(CommentVote) }),
    response: { 200: ref(CommentVoteResult), ...errorResponses(401, 403, 404, 422, 429, 500) },
  });
  const present = (r: { commentId: number; votes: number; userVote: number }) => ({ comment_id: r.commentId, votes: r.votes, user_vote: r.userVote });

  app.put<{ Params: { comment_id: number }; Body: { vote: number } }>(
    '/v2/comments/:comment_id/vote',
    { config: { rateScope: 'votes' }, schema: voteSchema(false) },
    async (request) => present(await svc.vote(principalOf(request), request.params.comment_id, request.body.vote)),
  );
  app.delete<{ Params: { comment_id: number } }>(
    '/v2/comments/:comment_id/vote',
    { config: { rateScope: 'votes' }, schema: voteSchema(true) },
    async (request) => present(await svc.vote(principalOf(request), request.params.comment_id, 0)),
  );

  app.get<{ Params: { document_id: string } }>(
    '/v2/documents/:document_id/activity',
    {
      config: { rateScope: 'default' },
      schema: {
        summary: "A document's activity counters (7 and 30 days) and comment stats.",
        description: `${NOT_BILLED} Views count once per visitor and UTC day. as_of_at is the newest recorded event, null when none.`,
        tags: ['community'],
        params: DocParams,
        response: { 200: ref(DocumentActivityResponse), ...errorResponses(401, 404, 429, 500) },
      },
    },
    async (request) => toWireActivityResponse(await svc.activity(request.params.document_id)),
  );

  app.get<{ Querystring: { period: TrendingPeriod; limit: number; scholarly?: boolean } }>(
    '/v2/documents/trending',
    {
      config: { rateScope: 'default' },
      schema: {
        summary: 'What the community is reading: documents by weighted interest over a week or a month.',
        description:
          `${NOT_BILLED} score = views + 2 x agent reads + 3 x AI citations + 3 x positive ratings + 3 x comments posted, over the period. ` +
          'Served from a snapshot refreshed every 60 s (as_of_at is its time). scholarly=true keeps paper-like types only.',
        tags: ['community'],
        querystring: TrendingQuery,
        response: { 200: ref(TrendingResponse), ...errorResponses(401, 422, 429, 500, 503) },
      },
    },
    async (request) => toWireTrending(await svc.trending(request.query.period, request.query.limit, request.query.scholarly ?? false), deps.config.baseUrl),
  );
}
