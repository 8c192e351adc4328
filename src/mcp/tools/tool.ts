// What a tool is: a name, a description written for agents (what it does, its limits, what it costs),
// JSON Schemas for its input and output (TypeBox, like the HTTP wire schemas), the rate-limit bucket
// it draws from (the same as its HTTP twin), and a `run` that calls a service and presents the result.
// Tools hold no business rules of their own.
import type { TSchema } from 'typebox';
import type { RateScope } from '../../config/index.js';
import type { Principal } from '../../domain/principal.js';
import type { DocumentRef } from '../../documents/document-service.js';

/** Who is calling and for which request (the X-Request-Id is the billing reference). */
export interface ToolContext {
  principal: Principal;
  requestId: string;
  /** The resource address the request came to. */
  resource: string;
}

export interface ToolOutput {
  /** Human-readable Markdown for the model. */
  text: string;
  /** The same result, machine-readable; matches the tool's outputSchema. */
  structured: Record<string, unknown>;
}

/** MCP tool annotations (hints, 2025-11-25 "Tool"). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: TSchema;
  outputSchema: TSchema;
  annotations: ToolAnnotations;
  rateScope: RateScope;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Read-only tools over Lectern's own corpus: they spend credits but change nothing else. */
export const readOnly = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

/** `document_id` or `uri`: exactly one, as the by-id and by-uri HTTP endpoints take them. */
export function documentRef(input: Record<string, unknown>): DocumentRef {
  const id = input.document_id;
  const uri = input.uri;
  if ((id === undefined) === (uri === undefined)) throw new ToolInputError('Give exactly one of document_id or uri.');
  return typeof id === 'string' ? { documentId: id } : { uri: uri as string };
}

/** An input the schema allows but the tool cannot use; reported to the agent as a tool error. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}
