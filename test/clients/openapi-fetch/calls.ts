// Calls through a client generated from Lectern's own /openapi.json (issue 13, "a generated client
// that works"): `openapi-typescript` turns the live document into `generated/lectern-api.ts`, this
// file is compiled against it with the project's `tsc` (strict; see tsconfig.json here), and
// test/api/generated-client.test.ts runs the result against a running server. Every call below is
// typed by the generated `paths`: a wrong path, parameter or body field does not compile (the
// `@ts-expect-error` lines prove the types are not `any`), and the results are used as the generated
// component types.
import assert from 'node:assert/strict';
import createClient from 'openapi-fetch';
import type { Readable } from 'openapi-typescript-helpers';
import type { components, operations, paths } from './generated/lectern-api.js';

// Operations carry Lectern's own operationIds (issue 25), not names a generator made up from the path.
const NAMED_OPERATIONS: (keyof operations)[] = ['searchDocuments', 'getDocument', 'getDocumentActivity', 'streamConversationStepEdit', 'voteOnComment'];
// @ts-expect-error a generator-invented name is not an operation
const INVENTED: keyof operations = 'putV2ConversationsByConversationIdOrSlugEditStepByStepIdStream';
void NAMED_OPERATIONS;
void INVENTED;

/**
 * A component as openapi-fetch hands it over: `Readable<...>` (it maps arrays element-wise, so the
 * `[start, end]` tuples of Snippet.highlights arrive typed as `number[]`).
 */
type Schemas = { [K in keyof components['schemas']]: Readable<components['schemas'][K]> };

export interface Fixture {
  baseUrl: string;
  /** An eligible account with credits. */
  key: string;
  /** An account without credits. */
  brokeKey: string;
  /** An account that may not download originals. */
  ineligibleKey: string;
  /** A document with a PDF original of `pdfBytes` bytes, and its DOI. */
  documentId: string;
  doi: string;
  pdfBytes: number;
}

/** Runs the calls; returns the name of each check that passed (an assertion throws otherwise). */
export async function run(f: Fixture): Promise<string[]> {
  const passed: string[] = [];
  const check = async (name: string, fn: () => Promise<void>) => {
    await fn();
    passed.push(name);
  };
  const client = createClient<paths>({ baseUrl: f.baseUrl, headers: { 'X-Api-Key': f.key } });
  const broke = createClient<paths>({ baseUrl: f.baseUrl, headers: { Authorization: `Bearer ${f.brokeKey}` } });
  const ineligible = createClient<paths>({ baseUrl: f.baseUrl, headers: { 'X-Api-Key': f.ineligibleKey } });
  const anonymous = createClient<paths>({ baseUrl: f.baseUrl });

  // Compile-time proofs that the generated types are precise (each line must be an error).
  if (passed.length < 0) {
    // @ts-expect-error an unknown path
    await client.GET('/v2/no-such-path');
    // @ts-expect-error limit is a number
    await client.POST('/v2/search/', { body: { query: 'x', limit: 'ten' } });
    // @ts-expect-error document_id is required
    await client.GET('/v2/documents/{document_id}', { params: { path: {} } });
  }

  let trajectory: Schemas['SearchTrajectory'] | null | undefined;
  await check('search: the interface example (query + limit) gives typed hits, exact totals', async () => {
    const { data, error, response } = await client.POST('/v2/search/', { body: { query: 'hydrogen storage', limit: 2 } });
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.ok(data);
    const result: Schemas['V2SearchResponse'] = data;
    const hits: Schemas['V2Hit'][] = result.hits;
    assert.ok(hits.length > 0 && hits.length <= 2);
    const mode: Schemas['RankingMode'] = result.ranking_mode;
    assert.notEqual(mode, 'auto');
    const total: number = result.total_hits;
    assert.ok(total >= hits.length);
    assert.equal(result.has_next, total > hits.length);
    // the hit's document is the Document component (issue 25: it was `unknown`)
    const first: Schemas['Document'] | null = hits[0]!.document;
    const title: string | undefined = hits[0]!.document?.title;
    assert.equal(typeof title, 'string');
    assert.equal(typeof first?.is_retracted, 'boolean');
    // @ts-expect-error a Document has no such field
    assert.equal(hits[0]!.document?.no_such_field, undefined);
    const snippets: Schemas['Snippet'][] = hits[0]!.snippets;
    assert.ok(Array.isArray(snippets));
    trajectory = result.trajectory;
    assert.ok(trajectory?.feedback_token);
  });

  await check('search: an offset past the end gives no hits, the same total, has_next false', async () => {
    const { data } = await client.POST('/v2/search/', { body: { query: 'hydrogen storage', limit: 10, offset: 400 } });
    assert.ok(data);
    assert.equal(data.hits.length, 0);
    assert.equal(data.has_next, false);
  });

  await check('search: a 422 is a typed ApiError', async () => {
    const { data, error, response } = await client.POST('/v2/search/', { body: { query: 'x', limit: 0 } });
    assert.equal(response.status, 422);
    assert.equal(data, undefined);
    assert.ok(error);
    const e: Schemas['ApiError'] = error;
    assert.equal(e.status, 'error');
    assert.equal(typeof e.detail === 'object' ? e.detail.code : e.detail, 'validation_failed');
    assert.ok(response.headers.get('x-request-id'));
  });

  await check('401 without a credential (ApiError detail Unauthorized, WWW-Authenticate)', async () => {
    const { error, response } = await anonymous.POST('/v2/search/', { body: { query: 'x' } });
    assert.equal(response.status, 401);
    assert.equal(error?.detail, 'Unauthorized');
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  await check('402 for an account without credits', async () => {
    const { error, response } = await broke.POST('/v2/search/', { body: { query: 'hydrogen' } });
    assert.equal(response.status, 402);
    assert.equal(typeof error?.detail === 'object' ? error.detail.code : null, 'insufficient_credits');
  });

  await check('document by id, whole and cut', async () => {
    const { data, response } = await client.GET('/v2/documents/{document_id}', { params: { path: { document_id: f.documentId } } });
    assert.equal(response.status, 200);
    assert.ok(data);
    const d: Schemas['V2DocumentResponse'] = data;
    assert.equal(d.id, f.documentId);
    assert.ok(d.uris.includes(f.doi));
    const cut = await client.GET('/v2/documents/{document_id}', { params: { path: { document_id: f.documentId }, query: { max_tokens: 3 } } });
    assert.equal(cut.response.status, 200);
    assert.equal((cut.data?.document as { truncated?: boolean }).truncated, true);
  });

  await check('document by id: 404 is a typed ApiError', async () => {
    const { error, response } = await client.GET('/v2/documents/{document_id}', { params: { path: { document_id: 'no-such-document' } } });
    assert.equal(response.status, 404);
    assert.equal(error?.status, 'error');
  });

  await check('document by URI (percent-encoded by the client), and passages with text_filter', async () => {
    const { data, response } = await client.GET('/v2/documents/by-uri/{uri}', { params: { path: { uri: f.doi } } });
    assert.equal(response.status, 200);
    assert.ok(data && 'id' in data);
    const passages = await client.GET('/v2/documents/by-uri/{uri}', { params: { path: { uri: f.doi }, query: { text_filter: 'salt caverns' } } });
    assert.equal(passages.response.status, 200);
    assert.ok(passages.data && 'hits' in passages.data);
  });

  await check('download: the whole PDF, a byte range (206), an unsatisfiable range (416), 403 when not eligible', async () => {
    const whole = await client.GET('/v2/downloads/{document_id}.{extension}', { params: { path: { document_id: f.documentId, extension: 'pdf' } }, parseAs: 'arrayBuffer' });
    assert.equal(whole.response.status, 200);
    assert.equal(whole.response.headers.get('content-type'), 'application/pdf');
    assert.equal((whole.data as ArrayBuffer).byteLength, f.pdfBytes);
    const part = await client.GET('/v2/downloads/{document_id}.{extension}', {
      params: { path: { document_id: f.documentId, extension: 'pdf' } },
      headers: { Range: 'bytes=0-7' },
      parseAs: 'arrayBuffer',
    });
    assert.equal(part.response.status, 206);
    assert.equal(part.response.headers.get('content-range'), `bytes 0-7/${f.pdfBytes}`);
    assert.equal(Buffer.from(part.data as ArrayBuffer).toString('latin1'), '%PDF-1.4');
    const beyond = await client.GET('/v2/downloads/by-uri/{uri}', { params: { path: { uri: f.doi }, query: { format: 'pdf' } }, headers: { Range: `bytes=${f.pdfBytes + 10}-` } });
    assert.equal(beyond.response.status, 416);
    assert.equal(beyond.error?.status, 'error');
    assert.equal(beyond.response.headers.get('content-range'), `bytes */${f.pdfBytes}`);
    const refused = await ineligible.GET('/v2/downloads/{document_id}.{extension}', { params: { path: { document_id: f.documentId, extension: 'pdf' } } });
    assert.equal(refused.response.status, 403);
  });

  await check('feedback on the search, then an agent comment and the thread', async () => {
    assert.ok(trajectory?.feedback_token);
    const fb = await client.POST('/v2/search/feedback', {
      body: { trajectory_id: trajectory.id, feedback_token: trajectory.feedback_token, feedback_id: crypto.randomUUID(), ratings: [{ document_id: f.documentId, relevance: 3 }] },
    });
    assert.equal(fb.response.status, 200, JSON.stringify(fb.error));
    const accepted: Schemas['FeedbackAccepted'] = fb.data!;
    assert.equal(accepted.trajectory_id, trajectory.id);
    const comment = await client.POST('/v2/search/comments', {
      body: {
        trajectory_id: trajectory.id,
        feedback_token: trajectory.feedback_token,
        comment_id: crypto.randomUUID(),
        document_id: f.documentId,
        model: 'generated-client-test',
        contribution: 'supports',
        content: 'An independent field test reports the same tightness of salt caverns.',
        evidence: [{ uri: 'https://doi.org/10.1000/xyz.123', quote: 'no measurable hydrogen loss' }],
      },
    });
    assert.equal(comment.response.status, 200, JSON.stringify(comment.error));
    const c: Schemas['AgentCommentAccepted'] = comment.data!;
    const status: Schemas['AgentCommentStatus'] = c.status;
    assert.ok(['published', 'pending_review'].includes(status));
    assert.equal(c.duplicate, false);
    const thread = await client.GET('/v2/documents/{document_id}/comments', { params: { path: { document_id: f.documentId } } });
    assert.equal(thread.response.status, 200);
    const list: Schemas['CommentListResponse'] = thread.data!;
    assert.ok(Array.isArray(list.comments));
    const vote = await client.PUT('/v2/comments/{comment_id}/vote', { params: { path: { comment_id: c.comment_id } }, body: { vote: 1 } });
    // A comment still pending review cannot be voted on; a published one not by its own author (403).
    if (status === 'published') assert.equal(vote.response.status, 403);
    else assert.equal(vote.response.status, 404);
  });

  await check('activity and trending', async () => {
    const act = await client.GET('/v2/documents/{document_id}/activity', { params: { path: { document_id: f.documentId } } });
    assert.equal(act.response.status, 200);
    const a: Schemas['DocumentActivityResponse'] = act.data!;
    assert.equal(a.document_id, f.documentId);
    const trending = await client.GET('/v2/documents/trending', { params: { query: { period: 'month', limit: 5 } } });
    assert.equal(trending.response.status, 200);
    const t: Schemas['TrendingResponse'] = trending.data!;
    assert.equal(t.period, 'month');
    const bad = await client.GET('/v2/documents/trending', { params: { query: { limit: 500 } } }); // period defaults to week
    assert.equal(bad.response.status, 422);
  });

  await check('a conversation: ask, list, read, share, edit a step, delete', async () => {
    const ask = await client.POST('/v2/conversations/', { body: { query: 'How tight are salt caverns for hydrogen?', llm_config: { model_name: 'lectern-extractive' } } });
    assert.equal(ask.response.status, 200, JSON.stringify(ask.error));
    const answer: Schemas['ConversationResponse'] = ask.data!;
    assert.ok(answer.answer.length > 0);
    const id = answer.conversation_id;
    const list = await client.GET('/v2/conversations/', {});
    const mine: Schemas['ListConversationsResponse'] = list.data!;
    assert.ok(mine.conversations.some((c) => c.id === id));
    const read = await client.GET('/v2/conversations/{slug}', { params: { path: { slug: id } } });
    const full: Schemas['FullConversation'] = read.data!;
    assert.equal(full.conversation_metadata.id, id);
    const shared = await client.PATCH('/v2/conversations/{slug}', { params: { path: { slug: id } }, body: { is_shared: true } });
    assert.equal(shared.data?.conversation_metadata.is_shared, true);
    const edited = await client.PUT('/v2/conversations/{conversation_id_or_slug}/edit-step/{step_id}', {
      params: { path: { conversation_id_or_slug: id, step_id: 0 } },
      body: { new_query: 'What limits hydrogen storage in salt caverns?' },
    });
    assert.equal(edited.response.status, 200, JSON.stringify(edited.error));
    const missingStep = await client.PUT('/v2/conversations/{conversation_id_or_slug}/edit-step/{step_id}', {
      params: { path: { conversation_id_or_slug: id, step_id: 99 } },
      body: { new_query: 'x' },
    });
    assert.equal(missingStep.response.status, 404);
    const gone = await client.DELETE('/v2/conversations/{slug}', { params: { path: { slug: id } } });
    assert.equal(gone.response.status, 200);
    const after = await client.GET('/v2/conversations/{slug}', { params: { path: { slug: id } } });
    assert.equal(after.response.status, 404);
    assert.equal(after.error?.status, 'error');
  });

  await check('recognitions: list and formats', async () => {
    const list = await client.GET('/v1/recognitions', {});
    assert.equal(list.response.status, 200);
    const jobs: Schemas['RecognitionJobList'] = list.data!;
    assert.ok(jobs);
    const formats = await client.GET('/v1/recognitions/formats');
    const known: Schemas['RecognitionFormats'] = formats.data!;
    assert.ok(known);
    const missing = await client.GET('/v1/recognitions/{job_id}', { params: { path: { job_id: 'rec_missing' } } });
    assert.equal(missing.response.status, 404);
  });

  await check('discovery: OAuth metadata and the health check', async () => {
    const meta = await anonymous.GET('/.well-known/oauth-authorization-server');
    const m: Schemas['AuthorizationServerMetadata'] = meta.data!;
    assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
    assert.ok(m.agent_auth.identity_types_supported.includes('service_auth'));
    const health = await anonymous.GET('/healthz');
    assert.equal(health.data?.status, 'ok');
  });

  return passed;
}
