// Redirect URI rules. Registration (RFC 7591 §2, OAuth 2.1 §2.3, MCP "All redirect URIs MUST be either
// localhost or use HTTPS"): absolute https URLs, or http on a loopback host; no fragment; no userinfo.
// Matching (OAuth 2.1 §2.3.1, RFC 8252 §7.3): exact string comparison with a registered value, except
// that for a loopback redirect any port is accepted. The relaxation compares the scheme, the host as
// written (so `localhost` never matches `127.0.0.1`, nor `[::1]`), the path and the query exactly, and
// only ever against loopback registrations (fosite GHSA-rfq3-w54c-f9q5).

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why `uri` cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URL`;
  }
  if (uri.includes('#')) return `${uri} has a fragment`;
  if (u.username || u.password) return `${uri} carries user information`;
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)) return null;
  return `${uri} must use https, or http on a loopback address (127.0.0.1, [::1], localhost)`;
}

const LOOPBACK_RE = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d{1,5})?([/?].*)?$/;

/** `uri` without its port when it is a loopback http URL, else null. */
function loopbackKey(uri: string): string | null {
  const m = LOOPBACK_RE.exec(uri);
  return m ? `${m[1]}${m[2] ?? ''}` : null;
}

/** True when `requested` matches one of the registered redirect URIs. */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const key = loopbackKey(requested);
  if (key === null) return false;
  return registered.some((r) => loopbackKey(r) === key);
}

/** True when every URI is a loopback address (the consent page warns: auth requirement 45). */
export function allLoopback(uris: readonly string[]): boolean {
  return uris.length > 0 && uris.every((u) => {
    try {
      return LOOPBACK_HOSTS.has(new URL(u).hostname);
    } catch {
      return false;
    }
  });
}
