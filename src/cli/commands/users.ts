/** `user:create`: a user, its role and password, and its organization. */
import type { Command } from '../command.ts';
import { CommandError, UsageError } from '../errors.ts';
import { load } from '../load.ts';
import { output } from '../output.ts';

const MIN_PASSWORD_LENGTH = 12;

export const userCommands: Record<string, Command> = {
  'user:create': {
    summary: 'create a user (and organization)',
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      org: { type: 'string' },
      admin: { type: 'boolean' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
    required: ['email'],
    async run(ctx) {
      const { values } = ctx;
      if (values.password !== undefined && values['password-stdin']) {
        throw new UsageError('--password and --password-stdin are mutually exclusive');
      }
      let password: string | undefined;
      if (values['password-stdin']) {
        password = (await ctx.stdin()).split(/\r?\n/)[0];
      } else if (typeof values.password === 'string') {
        password = values.password;
        ctx.warn('warning: --password leaves the password in the shell history; prefer --password-stdin');
      }
      if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) {
        throw new CommandError(`Invalid password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      const orgName = typeof values.org === 'string' ? values.org.trim() : undefined;
      if (orgName !== undefined && (orgName.length === 0 || orgName.length > 200)) {
        throw new CommandError('Invalid org: must be 1 to 200 characters');
      }
      const db = await ctx.database();
      const email = String(values.email).trim().toLowerCase();
      const existed = (await db.prisma.user.findUnique({ where: { email }, select: { id: true } })) !== null;
      const { OrganizationService } = await load.organizations();
      const { hashPassword } = await load.passwords();
      const { user, org } = await new OrganizationService(db.prisma).ensureUser({
        email,
        name: typeof values.name === 'string' ? values.name : undefined,
        orgName,
        role: values.admin ? 'admin' : undefined,
        passwordHash: password === undefined ? undefined : await hashPassword(password),
      });
      const lines = [`${existed ? 'Updated' : 'Created'} user ${user.email} (role ${user.role})`, `user id: ${user.id}`];
      if (org) lines.push(`org id:  ${org.id} (${org.name}, member)`);
      return output(ctx.json, lines, {
        created: !existed,
        user: { id: user.id, email: user.email, name: user.name, role: user.role, hasPassword: user.passwordHash !== null },
        organization: org ? { id: org.id, name: org.name } : null,
      });
    },
    audit: (data) => {
      const user = data.user as { id: string };
      const organization = data.organization as { id: string } | null;
      return { target: { type: 'User', id: user.id }, subjectUserId: user.id, organizationId: organization?.id };
    },
  },
};
