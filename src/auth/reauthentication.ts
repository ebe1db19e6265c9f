import type { PrismaClient } from '../generated/prisma/client.ts';
import type { RequestBudgets } from '../ratelimit/rate-limiter.ts';
import { AppError } from '../errors.ts';
import { verifyPassword } from './passwords.ts';
import { accountSubject } from './sign-in-budget.ts';

/**
 * A session must not be able to turn itself into a credential that outlives it: a cookie taken
 * from a browser would otherwise become a key that never expires. So a session that creates an
 * API key or access token proves it is still its user's:
 * - a user with a password enters it again (`currentPassword`); missing or wrong is FORBIDDEN
 *   (not UNAUTHENTICATED: the session itself stays valid), and each check is charged to the
 *   account's `login` budget, the one the sign-in page charges (sign-in-budget.ts), so a stolen
 *   session cannot guess its user's password faster than the sign-in page allows;
 * - a user without one (signed in through an external identity provider, which we cannot ask)
 *   gets a credential that expires no later than the session does.
 * Returns the expiry the new credential gets.
 */
export async function confirmCredentialCreation(deps: {
  prisma: PrismaClient;
  budgets: RequestBudgets;
  userId: string;
  /** The session's expiry (null: the token has none), and the longest a session lasts. */
  session: { expiresAt: Date | null; ttlMs: number };
  currentPassword: string | null | undefined;
  requestedExpiry: Date | null;
  /** `an API key`, for the messages. */
  aLabel: string;
}): Promise<Date | null> {
  const user = await deps.prisma.user.findUnique({ where: { id: deps.userId }, select: { passwordHash: true, email: true } });
  if (!user) throw AppError.notFound('User');
  if (!user.passwordHash) return cappedExpiry(deps.requestedExpiry, deps.session.expiresAt ?? new Date(Date.now() + deps.session.ttlMs));
  if (!deps.currentPassword) {
    throw new AppError('FORBIDDEN', `Enter your current password to create ${deps.aLabel}`, { field: 'currentPassword' });
  }
  await deps.budgets.chargeTo('login', accountSubject(user.email));
  if (!(await verifyPassword(user.passwordHash, deps.currentPassword))) {
    throw new AppError('FORBIDDEN', 'The current password is wrong', { field: 'currentPassword' });
  }
  return deps.requestedExpiry;
}

function cappedExpiry(requested: Date | null, sessionEnd: Date): Date {
  return requested && requested < sessionEnd ? requested : sessionEnd;
}
