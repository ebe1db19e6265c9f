/**
 * The subjects of the `login` budget (LOGIN_ATTEMPTS_PER_MINUTE): password guesses are charged
 * to the account they are made against and to the client's address, never to the credential the
 * request presents, so no key, token or session brings fresh guesses. Every door that checks a
 * password charges them: the sign-in page and a session's re-authentication.
 */
export function accountSubject(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

export function addressSubject(clientAddress: string): string {
  return `ip:${clientAddress}`;
}
