/**
 * An OAuth protocol error (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2): the `error` code a client
 * acts on and a readable description. The HTTP layer decides the status and where it goes (a
 * JSON body, or the client's redirect URI).
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'too_many_requests';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toBody(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

/** The HTTP status of an error answered directly (not by redirect). */
export function oauthErrorStatus(error: OAuthError): number {
  if (error.code === 'invalid_client') return 401;
  if (error.code === 'too_many_requests') return 429;
  return 400;
}
