import type { AuthorizationRequest, RawParams } from '../../../src/auth/oauth/authorization-request.ts';
import type { OAuthError } from '../../../src/auth/oauth/oauth-error.ts';
import { SCOPE_DESCRIPTIONS, type Scope } from '../../../src/auth/scopes.ts';
import { escapeHtml, htmlPage } from '../auth-pages.ts';

/** The authorization request's parameters, carried through the consent form unchanged. */
export const REQUEST_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'scope', 'state', 'resource'] as const;

export interface ConsentView {
  request: AuthorizationRequest;
  params: RawParams;
  email: string;
  /** The asked-for scopes this user can grant, each pre-checked. */
  offered: Scope[];
  /** Asked-for scopes this user's role does not have. */
  unavailable: Scope[];
  error?: string;
}

/**
 * The consent page: who asks, as whom, where the browser goes next (so a look-alike name cannot
 * hide where the code is sent), and one checkbox per permission, so the user can grant less
 * than was asked.
 */
export function consentPage(view: ConsentView): string {
  const { request } = view;
  const name = request.client.client_name ?? 'An application';
  const destination = describeRedirect(request.redirectUri);
  const hidden = REQUEST_PARAMS.filter((key) => typeof view.params[key] === 'string')
    .map((key) => `<input type="hidden" name="${key}" value="${escapeHtml(view.params[key] as string)}">`)
    .join('\n  ');
  const choices = view.offered
    .map(
      (scope) =>
        `<label class="choice"><input type="checkbox" name="scope_choice" value="${scope}" checked> <span><strong>${scope}</strong><br><span class="hint">${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</span></span></label>`,
    )
    .join('\n    ');
  const unavailable =
    view.unavailable.length > 0 ? `<p class="hint">Also asked for, but not available to your account: ${view.unavailable.join(', ')}.</p>` : '';
  return htmlPage(
    'Authorize application',
    `<form method="post" action="/oauth/authorize">
  <h1>Allow ${escapeHtml(name)} to use the gateway?</h1>
  ${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
  <p class="hint">Signed in as <strong>${escapeHtml(view.email)}</strong>. It will call the tools at ${escapeHtml(request.resource)} on your behalf, with the permissions you tick, until you revoke it under Settings, Connected apps.</p>
  ${request.client.client_uri ? `<p class="hint">Its website: ${escapeHtml(request.client.client_uri)}</p>` : ''}
  <fieldset><legend>Permissions</legend>
    ${choices}
  </fieldset>
  ${unavailable}
  <p class="hint">You will be sent back to ${escapeHtml(destination)}.</p>
  ${hidden}
  <div class="actions"><button type="submit" name="decision" value="deny" class="secondary">Deny</button><button type="submit" name="decision" value="allow">Allow</button></div>
</form>`,
  );
}

/** A refusal shown to the user (the client or its redirect URI is not known good). */
export function refusalPage(message: string): string {
  return htmlPage(
    'Authorization refused',
    `<main><h1>This authorization request cannot be completed</h1><p class="error" role="alert">${escapeHtml(message)}</p><p class="hint">Return to the application and connect again.</p></main>`,
  );
}

/**
 * A fault of a request from a client the user has not approved, shown instead of being sent to
 * the client's redirect URI (anyone can register one: it is no proof of who the client is).
 */
export function faultPage(error: OAuthError): string {
  return htmlPage(
    'Authorization refused',
    `<main><h1>This authorization request cannot be completed</h1><p class="error" role="alert">${escapeHtml(error.description)} (${error.code})</p><p class="hint">You have not been sent back to the application, because you have not connected it before. If you started this, return to the application and connect again.</p></main>`,
  );
}

function describeRedirect(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host ? `${url.protocol}//${url.host}` : `${url.protocol} (an application on this device)`;
  } catch {
    return uri;
  }
}
