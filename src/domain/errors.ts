// The one error catalog. Every error the service answers with is an AppError whose code is listed
// here; the HTTP layer turns it into an ApiError body (`{status: "error", detail}`) with the status
// below. `detail` is the string `Unauthorized` for 401 (interface, Authentication) and otherwise an
// object `{code, message, ...extra}`; 5xx details never carry internal messages. docs/errors.md is
// checked against this table by test/unit/errors-doc.test.ts.

/** One catalog entry: HTTP status, default message, whether `message` may reach the client. */
export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
  /** false for 5xx: the client sees only the generic message and the request id. */
  readonly exposed: boolean;
}

export const ERROR_CATALOG = {
  bad_request: { status: 400, message: 'The request is invalid.', exposed: true },
  malformed_json: { status: 400, message: 'The request body is not valid JSON.', exposed: true },
  invalid_uri: { status: 400, message: 'The URI is not a supported canonical URI.', exposed: true },
  invalid_text_filter: { status: 400, message: 'The text filter is invalid.', exposed: true },
  unauthorized: { status: 401, message: 'Unauthorized', exposed: true },
  insufficient_credits: { status: 402, message: 'The account balance is too low for this operation.', exposed: true },
  forbidden: { status: 403, message: 'This account may not perform this operation.', exposed: true },
  not_eligible: { status: 403, message: 'Originals are available to eligible accounts only.', exposed: true },
  invalid_feedback_token: { status: 403, message: 'The feedback token is invalid, expired, or not issued to this account for this trajectory.', exposed: true },
  not_found: { status: 404, message: 'Not found.', exposed: true },
  route_not_found: { status: 404, message: 'No such route.', exposed: true },
  method_not_allowed: { status: 405, message: 'Method not allowed.', exposed: true },
  not_acceptable: { status: 406, message: 'Not acceptable.', exposed: true },
  request_timeout: { status: 408, message: 'The request took too long to arrive.', exposed: true },
  conflict: { status: 409, message: 'The request conflicts with the current state.', exposed: true },
  recognition_not_ready: { status: 409, message: 'The recognition job has not completed yet; poll GET /v1/recognitions/{job_id}.', exposed: true },
  recognition_failed: { status: 409, message: 'The recognition job failed or was cancelled; it has no result.', exposed: true },
  payload_too_large: { status: 413, message: 'The request body is too large.', exposed: true },
  uri_too_long: { status: 414, message: 'The request URI is too long.', exposed: true },
  unsupported_media_type: { status: 415, message: 'Unsupported Content-Type.', exposed: true },
  range_not_satisfiable: { status: 416, message: 'The requested range is not satisfiable.', exposed: true },
  validation_failed: { status: 422, message: 'The request does not match the schema.', exposed: true },
  unprocessable: { status: 422, message: 'The request cannot be processed.', exposed: true },
  feature_unavailable: { status: 422, message: 'The request needs a component that is not configured.', exposed: true },
  unsupported_format: { status: 422, message: 'The file is not a PDF, EPUB or DJVU document (detected from its content).', exposed: true },
  rate_limited: { status: 429, message: 'Too many requests.', exposed: true },
  headers_too_large: { status: 431, message: 'Request headers are too large.', exposed: true },
  internal: { status: 500, message: 'Internal error. Quote the X-Request-Id when you report it.', exposed: false },
  not_implemented: { status: 501, message: 'Not implemented.', exposed: true },
  upstream_error: { status: 502, message: 'The language model provider failed to answer; nothing was charged.', exposed: true },
  service_unavailable: { status: 503, message: 'A required service is temporarily unavailable.', exposed: true },
  format_unavailable: { status: 503, message: 'This document format cannot be converted here: a tool it needs is not installed.', exposed: true },
  upstream_timeout: { status: 504, message: 'The language model provider did not answer in time; nothing was charged.', exposed: true },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/**
 * An error with a catalog code. `extra` adds machine-readable fields to the wire detail
 * (e.g. `{retry_after_seconds, scope}` for `rate_limited`, `{errors: [...]}` for validation).
 * `headers` are set on the response (e.g. `Retry-After`, `Content-Range`).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_CATALOG[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }
}

/** The wire `detail` of an ApiError for this error (interface: ApiError). */
export function errorDetail(err: AppError): string | Record<string, unknown> {
  const spec = ERROR_CATALOG[err.code];
  if (err.code === 'unauthorized') return 'Unauthorized';
  const message = spec.exposed ? err.message : spec.message;
  return { code: err.code, message, ...(spec.exposed ? err.extra : {}) };
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
