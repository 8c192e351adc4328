// Helpers of the recognition job tests: multipart bodies, submitting, polling until a job finishes.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestApp } from '../helpers/app.js';
import { CEILING_MS } from '../helpers/wait.js';

/** A multipart/form-data body with one file part (and optional extra parts). */
export function multipart(parts: { name: string; filename?: string; contentType?: string; data: Uint8Array | string }[]): { body: Buffer; contentType: string } {
  const boundary = `----lectern-test-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename !== undefined ? `\r\nContent-Type: ${p.contentType ?? 'application/octet-stream'}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(typeof p.data === 'string' ? Buffer.from(p.data) : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /v1/recognitions with `data` in the part `file` (the file name says nothing about the format). */
export async function submit(app: TestApp, key: string, data: Uint8Array, filename = 'upload.bin') {
  const { body, contentType } = multipart([{ name: 'file', filename, data }]);
  return app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': key, 'content-type': contentType }, payload: body });
}

/** Polls GET /v1/recognitions/{id} until the job is completed, failed or cancelled. */
export async function waitFor(app: TestApp, key: string, id: string, timeoutMs = CEILING_MS): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${id}`, headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 200, res.body);
    const job = res.json();
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** The account's balance. */
export const balance = (app: TestApp, accountId: number) => app.storage.ledger.balance(accountId);
