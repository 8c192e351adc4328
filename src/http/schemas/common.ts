// Building blocks for the wire schemas. Every resource schema carries a `$id` (its name in the
// interface) and is registered once with Fastify (`registerSchemas`), so it drives request validation,
// response serialization, the TypeScript types (`Static<typeof X>`) and `components.schemas` of
// `/openapi.json`. Parents embed children with `ref(Child)`: the JSON is `{"$ref": "Child"}` while
// the TypeScript type stays the child's.
import { Type, type TSchema, type TUnsafe } from 'typebox';

/**
 * A `$ref` to a registered schema, typed as the schema itself. `options` become siblings of the
 * `$ref` (allowed in JSON Schema 2020-12 / OpenAPI 3.1), e.g. `{default: 'hybrid'}`.
 */
export function ref<T extends TSchema>(schema: T, options: Record<string, unknown> = {}): T {
  const id = (schema as { $id?: string }).$id;
  if (!id) throw new Error('ref() needs a schema with $id');
  return Type.Unsafe({ $ref: `${id}#`, ...options }) as TUnsafe<unknown> as unknown as T;
}

/** `T | null`. */
export const Nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) => Type.Union([schema, Type.Null()], options);

/** int32 with bounds (JSON numbers; `1e999` and fractions are refused). */
export const Int32 = (options: { minimum?: number; maximum?: number; default?: number; description?: string } = {}) =>
  Type.Integer({ minimum: -2147483648, maximum: 2147483647, ...options, format: 'int32' });

/** int64 limited to the exactly representable JSON range (±2^53-1). */
export const Int64 = (options: { minimum?: number; maximum?: number; default?: number; description?: string } = {}) =>
  Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, ...options, format: 'int64' });

/** A finite double (bounded so that Infinity never validates). */
export const Double = (options: { minimum?: number; maximum?: number; default?: number; description?: string } = {}) =>
  Type.Number({ minimum: -1e300, maximum: 1e300, ...options });

/** A map of string to `value`. */
export const StringMap = <T extends TSchema>(value: T, options: Record<string, unknown> = {}) =>
  Type.Record(Type.String(), value, options);

/** ApiError (interface, Resources): every error response body. */
export const ApiError = Type.Object(
  {
    status: Type.Literal('error'),
    detail: Type.Union([
      Type.String(),
      Type.Object({ code: Type.String() }, { additionalProperties: true }),
    ]),
  },
  {
    $id: 'ApiError',
    description:
      'Error body. `detail` is `Unauthorized` for 401 and otherwise an object with `code` (see docs/errors.md); 429 adds `retry_after_seconds` and `scope`.',
  },
);

/** Standard error responses for OpenAPI, keyed by status. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = ref(ApiError);
  return out;
}

/**
 * A response documented by media type (OpenAPI `content`), for bodies that are not one JSON schema:
 * files, HTML pages, Markdown, event streams. `types` maps each media type to the body's schema.
 */
export function mediaResponse(description: string, types: Record<string, TSchema>, headers?: Record<string, TSchema>): TSchema {
  const content = Object.fromEntries(Object.entries(types).map(([t, schema]) => [t, { schema }]));
  return { description, content, ...(headers ? { headers } : {}) } as unknown as TSchema;
}

/** A binary body (a file or part of one). */
export const Binary = (description?: string) => Type.String({ format: 'binary', contentMediaType: 'application/octet-stream', ...(description ? { description } : {}) });

/** An HTML page (sign-in, consent, claim approval, error pages). */
export const HtmlPage = (description: string) => mediaResponse(description, { 'text/html': Type.String() });

/** A response without a body (e.g. 302 redirects, 202 accepted). */
export const NoBody = (description: string) => Type.Null({ description });

/** The keyword that marks a document slot (see {@link documentSlot}). */
export const DOCUMENT_SLOT = 'x-lectern-document';

/**
 * The `document` of hits, search documents and trending entries: the Document component (ADR 0220).
 * Typed as the Document's wire type and published in /openapi.json as a `$ref` to the Document component
 * (`null` allowed when `nullable`; openapi-document.ts writes it), while the serializer writes the
 * object as built by the presenter (toWireDocument) with JSON.stringify, as the hits' specialized
 * serializer does (ADR 0150, 0195): the slot has no `type`, so fast-json-stringify does not compile the
 * Document schema a second time or validate it per hit.
 */
export function documentSlot<N extends boolean>(nullable: N, description: string) {
  // the Document's type by import type (documents.ts imports search.ts, which uses this slot)
  return Type.Unsafe<N extends true ? import('./documents.js').WireDocument | null : import('./documents.js').WireDocument>({ [DOCUMENT_SLOT]: nullable ? 'nullable' : 'object', description });
}
