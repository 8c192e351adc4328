// Recognition in the browser (issue 11): upload a PDF, EPUB or DJVU file (multipart form with the CSRF
// field before the file), follow the job's progress (the page reloads itself while it runs: no script
// needed), read the quality report and the Markdown, download the Markdown, cancel. The same
// RecognitionJobService as /v1/recognitions; jobs of other accounts are 404.
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import type { RecognitionJob } from '../../../ports/recognition-job-store.js';
import type { StagedUpload } from '../../../recognition-jobs/index.js';
import { toAppError } from '../../errors.js';
import { html } from '../../pages/html.js';
import { errorMessage, jobBody, recognizeHomeBody, type JobView } from '../../pages/web-pages.js';
import type { Person } from '../auth/web.js';
import { sessionPrincipal, type PageContext } from './index.js';

const hide = { hide: true };
const pageConfig = { auth: 'none' as const, rateScope: null };
export const RECOGNIZE_PATH = '/recognize';
const jobHref = (id: string) => `${RECOGNIZE_PATH}/${encodeURIComponent(id)}`;
const when = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');

export const jobView = (j: RecognitionJob): JobView => ({
  id: j.id,
  href: jobHref(j.id),
  format: j.format,
  bytes: j.bytes,
  status: j.status,
  pagesDone: j.pagesDone,
  pagesTotal: j.pagesTotal,
  error: j.error ? j.error.message : null,
  charged: j.chargedCredits,
  created: when(j.createdAt),
});

export async function registerRecognizePages(app: FastifyInstance, ctx: PageContext): Promise<void> {
  const { web, deps } = ctx;
  const jobs = deps.recognitions;
  if (!jobs) return;
  const maxBytes = deps.config.limits.uploadBytes;

  const home = async (request: FastifyRequest, reply: FastifyReply, person: Person, problem?: AppError) => {
    const list = await jobs.list(sessionPrincipal(person), 20);
    return ctx.send(
      request,
      reply,
      'Convert a document',
      recognizeHomeBody({
        csrf: web.csrf(request, reply, person),
        action: RECOGNIZE_PATH,
        maxBytes,
        jobs: list.jobs.map(jobView),
        problem: problem ? errorMessage({ status: problem.status, code: problem.code, message: problem.message, retryAfter: problem.headers['Retry-After'] ?? null }, { accountHref: ctx.accountHref }) : null,
      }),
      { person, wide: false, status: problem?.status },
    );
  };

  app.get(RECOGNIZE_PATH, { config: pageConfig, schema: hide }, async (request, reply) => {
    const person = await ctx.requirePerson(request, reply);
    if (!person) return reply;
    return home(request, reply, person);
  });

  // The upload: multipart only here; the CSRF field must come before the file (the form puts it first).
  await app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: true, limits: { fileSize: maxBytes + 1, files: 1, parts: 10, fields: 5, fieldSize: 4096, headerPairs: 100 } });
    scope.post(RECOGNIZE_PATH, { config: { auth: 'none', rateScope: 'recognition' }, schema: hide }, async (request, reply) => {
      const person = await web.person(request);
      if (!person) return reply.code(303).redirect(web.signInLocation(RECOGNIZE_PATH));
      let staged: StagedUpload | null = null;
      try {
        if (!request.isMultipart()) throw new AppError('unsupported_media_type', 'Upload the file with the form on this page.');
        let csrfChecked = false;
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (part.fieldname === 'csrf') {
              web.checkCsrf(request, reply, person, part.value);
              csrfChecked = true;
            }
            continue;
          }
          if (!csrfChecked) {
            part.file.resume();
            throw new AppError('forbidden', 'This form has expired or did not come from Lectern. Go back, reload the page and try again.');
          }
          if (part.fieldname !== 'file' || staged) {
            part.file.resume();
            throw new AppError('bad_request', 'Upload one file with the form on this page.');
          }
          staged = await jobs.stage(part.file);
          if (part.file.truncated) throw new AppError('payload_too_large', `The file is larger than ${maxBytes} bytes, the upload limit.`);
        }
        if (!staged) throw new AppError('bad_request', 'Choose a file to upload.');
        const r = await jobs.submitStaged(sessionPrincipal(person), staged);
        staged = null;
        return reply.code(303).redirect(jobHref(r.job.id));
      } catch (e) {
        if (staged) await jobs.discard(staged);
        const err = (e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE' ? new AppError('payload_too_large', `The file is larger than ${maxBytes} bytes, the upload limit.`) : toAppError(e, request);
        if (err.status >= 500) throw e;
        for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
        return home(request, reply, person, err);
      }
    });
  });

  app.get<{ Params: { id: string } }>(`${RECOGNIZE_PATH}/:id`, { config: pageConfig, schema: hide }, async (request, reply) => {
    const person = await ctx.requirePerson(request, reply);
    if (!person) return reply;
    const principal = sessionPrincipal(person);
    const job = await jobs.get(principal, request.params.id);
    const view = jobView(job);
    let report: { label: string; value: string }[] | null = null;
    let warnings: string[] = [];
    let markdown: string | null = null;
    if (job.status === 'completed') {
      const r = await jobs.result(principal, job.id);
      markdown = r.markdown;
      const q = r.report;
      report = [
        { label: 'Score', value: `${q.score.value.toFixed(2)} (grade ${q.score.grade})` },
        { label: 'Pages', value: `${q.pages.total} (${q.pages.textLayer} with a text layer, ${q.pages.ocr} by OCR, ${q.pages.empty} empty, ${q.pages.failed} failed)` },
        { label: 'Words', value: q.text.words.toLocaleString('en') },
        { label: 'Language', value: `${q.text.language.code} (${Math.round(q.text.language.confidence * 100)}%)` },
        { label: 'Structure', value: `${q.structure.headings.total} headings, ${q.structure.paragraphs} paragraphs, ${q.structure.tables} tables, ${q.structure.figures} figures, ${q.structure.equations} equations` },
        ...(q.ocr.pages ? [{ label: 'OCR confidence', value: q.ocr.meanConfidence === null ? 'unknown' : `${Math.round(q.ocr.meanConfidence)} mean` }] : []),
      ];
      warnings = q.warnings.map((w) => `${w.message}${w.pages.length ? ` (pages ${w.pages.slice(0, 10).join(', ')}${w.pages.length > 10 ? ', …' : ''})` : ''}`);
    }
    const running = job.status === 'pending' || job.status === 'processing';
    if (running) reply.header('Refresh', '3');
    const body = jobBody({ job: view, report, warnings, markdown, downloadHref: markdown !== null ? `${jobHref(job.id)}/markdown` : null, cancel: running ? { action: `${jobHref(job.id)}/cancel`, csrf: web.csrf(request, reply, person) } : null });
    return ctx.send(request, reply, running ? 'Converting…' : job.status === 'completed' ? 'Conversion done' : `Conversion ${job.status}`, html`${body}<p><a href="${RECOGNIZE_PATH}">All conversions</a></p>`, { person, wide: true });
  });

  app.get<{ Params: { id: string } }>(`${RECOGNIZE_PATH}/:id/markdown`, { config: pageConfig, schema: hide }, async (request, reply) => {
    const person = await ctx.requirePerson(request, reply);
    if (!person) return reply;
    const r = await jobs.result(sessionPrincipal(person), request.params.id);
    return reply
      .type('text/markdown; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${r.job.id}.md"`)
      .header('Cache-Control', 'private, no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(r.markdown);
  });

  app.post<{ Params: { id: string } }>(`${RECOGNIZE_PATH}/:id/cancel`, { config: { auth: 'none', rateScope: 'signin' }, schema: hide }, async (request, reply) => {
    const person = await ctx.requirePerson(request, reply);
    if (!person) return reply;
    web.checkCsrf(request, reply, person, (request.body as Record<string, unknown> | undefined)?.csrf);
    await jobs.cancel(sessionPrincipal(person), request.params.id);
    return reply.code(303).redirect(jobHref(request.params.id));
  });
}
