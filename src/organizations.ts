import type { Prisma, PrismaClient, User } from './generated/prisma/client.ts';
import type { PrismaSelection } from './db/prisma-selection.ts';
import { AppError } from './errors.ts';

export class OrganizationService {
  constructor(private readonly prisma: PrismaClient) {}

  async membershipIds(userId: string): Promise<ReadonlySet<string>> {
    const rows = await this.prisma.membership.findMany({ where: { userId }, select: { orgId: true } });
    return new Set(rows.map((row) => row.orgId));
  }

  /** A user's own record (the viewer's), loading what `selection` asks. */
  user(userId: string, selection: PrismaSelection<Prisma.UserFindUniqueArgs> = {}): Promise<User> {
    return this.prisma.user.findUniqueOrThrow({ ...selection, where: { id: userId } });
  }

  listForUser(userId: string) {
    return this.prisma.organization.findMany({ where: { memberships: { some: { userId } } }, orderBy: { name: 'asc' } });
  }

  /** Creates the user (and the organization, when named and new) and the membership; idempotent. */
  async ensureUser(input: { email: string; name?: string; orgName?: string; role?: 'admin' | 'member'; passwordHash?: string }) {
    const email = input.email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw AppError.badInput('email', 'must be an email address');
    return this.prisma.$transaction(async (tx) => {
      const user = await tx.user.upsert({
        where: { email },
        create: { email, name: input.name ?? null, role: input.role ?? 'member', passwordHash: input.passwordHash ?? null },
        update: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.role !== undefined ? { role: input.role } : {}),
          ...(input.passwordHash !== undefined ? { passwordHash: input.passwordHash } : {}),
        },
      });
      let org = null;
      if (input.orgName) {
        const name = input.orgName.trim();
        org = await tx.organization.upsert({ where: { name }, create: { name }, update: {} });
        await tx.membership.upsert({
          where: { userId_orgId: { userId: user.id, orgId: org.id } },
          create: { userId: user.id, orgId: org.id },
          update: {},
        });
      }
      return { user, org };
    });
  }
}
