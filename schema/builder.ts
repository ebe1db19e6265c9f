import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import ComplexityPlugin from '@pothos/plugin-complexity';
import SimpleObjectsPlugin from '@pothos/plugin-simple-objects';
import RateBudgetPlugin from './plugins/rate-budget.ts';
import PageSizePlugin from './plugins/page-size.ts';
import type { FileUpload } from 'graphql-upload-ts';
import type PrismaTypes from '../src/generated/pothos-prisma-types.ts';
import { getDatamodel } from '../src/generated/pothos-prisma-types.ts';
import type { AuthenticatedContext, RequestContext } from '../src/context.ts';
import { unauthenticatedError } from '../src/context.ts';
import { grants, type Scope } from '../src/auth/scopes.ts';
import { AppError } from '../src/errors.ts';

export interface AuthScopes {
  /** Any valid credential. */
  authenticated: boolean;
  /** A credential holding this API scope (admin implies all). */
  scope: Scope;
}

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: AuthScopes;
  // What each scope guarantees the resolver: a field declared with t.withAuth({ authenticated: true })
  // or t.withAuth({ scope: ... }) runs only for a viewer, so its context says so (ctx.viewer is not null).
  AuthContexts: { authenticated: AuthenticatedContext; scope: AuthenticatedContext };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: string; Output: string | Date };
    UUID: { Input: string; Output: string };
    Decimal: { Input: string; Output: string | { toString(): string } };
    SafeInt: { Input: number; Output: number | bigint };
    JSON: { Input: unknown; Output: unknown };
    Upload: { Input: Promise<FileUpload>; Output: never };
  };
}>({
  defaultFieldNullability: false,
  // Rate budgets last: the innermost wrapper, so authorization and argument validation come first.
  plugins: [ScopeAuthPlugin, ValidationPlugin, PrismaPlugin, RelayPlugin, ComplexityPlugin, SimpleObjectsPlugin, PageSizePlugin, RateBudgetPlugin],
  prisma: {
    client: (ctx) => ctx.services.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      authenticated: ctx.viewer !== null,
      scope: (required: Scope) => ctx.viewer !== null && grants(ctx.viewer.scopes, required),
    }),
    // No credential (or a bad one) is 401; a valid credential without the scope is 403.
    unauthorizedError: (_parent, ctx) => (ctx.viewer ? AppError.forbidden() : unauthenticatedError(ctx)),
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
  },
  validation: {
    validationError: (result) => {
      const issue = result.issues[0];
      const field = issue?.path?.map((segment) => (typeof segment === 'object' ? String(segment.key) : String(segment))).join('.') ?? 'input';
      return AppError.badInput(field, issue?.message ?? 'invalid value');
    },
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: (ctx) => ({
      depth: ctx.services.config.graphql.maxDepth,
      complexity: ctx.services.config.graphql.maxComplexity,
      breadth: 200,
    }),
    complexityError: (kind, result) => {
      const measure = {
        Depth: ['depth', result.depth, result.maxDepth],
        Breadth: ['breadth', result.breadth, result.maxBreadth],
        Complexity: ['complexity', result.complexity, result.maxComplexity],
      }[kind];
      return new AppError('BAD_USER_INPUT', `Query ${measure[0]} ${measure[1]} exceeds the limit of ${measure[2]}`);
    },
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
