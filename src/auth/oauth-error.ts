// OAuth protocol errors (RFC 6749 §4.1.2.1 and §5.2, RFC 7009 §2.2.1, RFC 7591 §3.2.2, RFC 8628 §3.5,
// RFC 8707 §2). The OAuth endpoints answer them as `{error, error_description}` (auth requirements,
// decision 2); the HTTP layer does the rendering.

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type';

const STATUS: Partial<Record<OAuthErrorCode, number>> = { invalid_client: 401, server_error: 500, temporarily_unavailable: 503 };

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(error: OAuthErrorCode, description: string, options: { status?: number; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OAuthError';
    this.error = error;
    this.status = options.status ?? STATUS[error] ?? 400;
    this.headers = options.headers ?? {};
  }
  /** The RFC 6749 body. Descriptions never contain secrets (auth requirement 89). */
  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}

export const isOAuthError = (e: unknown): e is OAuthError => e instanceof OAuthError;
