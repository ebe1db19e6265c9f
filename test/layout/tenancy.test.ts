/**
 * Tenancy in one layer: the services in src/ decide whose rows a viewer reads. A resolver passes
 * the viewer (its user id, or its organizations) and, for a Prisma-backed field, Pothos' selection
 * (src/db/prisma-selection.ts) to a service method; it never holds the database or writes a
 * `where` of its own. A resolver copied from one that did (`ctx.services.prisma.x.findMany({
 * ...query, where: { userId } })`) fails here, naming its file and line. Reads the sources: no server.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { enclosingProperty, findings, propertiesWithin, propertyName, schemaSources, type Rule } from './schema-scan.ts';

/** Properties that hold a database client or pool (`ctx.services.prisma`, `services.db.pool`). */
const DATABASE_HANDLES = new Set(['prisma', 'pool', 'db']);

/** Keys that scope a Prisma filter to an owner: columns and the relations that lead to one. */
const TENANCY_KEYS = new Set(['userId', 'orgId', 'uploaderId', 'ownerId', 'authorId', 'organizationId', 'user', 'org', 'memberships']);

/** Modules that open or hand out the database: the Prisma client, our database wiring, pg. Types from them are fine. */
const DATABASE_MODULES = /\/generated\/prisma\/|\/src\/db\/(database|embedded|sql-client|migrator)\.ts$|^pg$|^@prisma\//;

const databaseHandle: Rule = (node, file) => {
  if (!ts.isPropertyAccessExpression(node) && !ts.isElementAccessExpression(node) && !ts.isBindingElement(node)) return undefined;
  const name = propertyName(node);
  if (name === undefined || !DATABASE_HANDLES.has(name)) return undefined;
  // The Prisma plugin's client (builder.ts `prisma.client`): it loads the relations of rows a service returned.
  if (file.path === 'schema/builder.ts' && enclosingProperty(node) === 'client') return undefined;
  return `reaches the database handle \`${name}\` (call a service method that takes the viewer)`;
};

const prismaClientMethod: Rule = (node) =>
  ts.isPropertyAccessExpression(node) && node.name.text.startsWith('$') ? `calls the Prisma client's ${node.name.text}` : undefined;

const tenancyWhere: Rule = (node) => {
  let filter: ts.Node | undefined;
  if (ts.isPropertyAssignment(node) && propertyName(node) === 'where') filter = node.initializer;
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /^where$|Where$/.test(node.name.text)) filter = node.initializer;
  if (filter === undefined) return undefined;
  const keys = propertiesWithin(filter).filter((key) => TENANCY_KEYS.has(key));
  return keys.length > 0 ? `writes a tenancy where (${keys.join(', ')}); the service owns it` : undefined;
};

const databaseImport: Rule = (node) => {
  if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier) || !DATABASE_MODULES.test(node.moduleSpecifier.text)) return undefined;
  const clause = node.importClause;
  const named = clause?.namedBindings;
  const typesOnly =
    clause !== undefined &&
    (clause.isTypeOnly ||
      (clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.every((element) => element.isTypeOnly)));
  return typesOnly ? undefined : `imports ${node.moduleSpecifier.text} (only its types may be imported here)`;
};

const RULES = [databaseHandle, prismaClientMethod, tenancyWhere, databaseImport];
const files = schemaSources();

describe('tenancy in one layer: resolvers reach the database only through services', () => {
  it('no file in schema/ holds the database, calls the Prisma client or writes a tenancy where', () => {
    expect(files.flatMap((file) => findings(file, RULES))).toEqual([]);
  });

  it('the rules trip on the pattern they replace (a resolver querying Prisma with the viewer in its where)', () => {
    const old = {
      path: 'schema/example.ts',
      text: [
        "import { PrismaClient } from '../src/generated/prisma/client.ts';",
        'const resolve = async (query, _parent, args, ctx) => {',
        '  const orgIds = await ctx.organizationIds();',
        '  const { prisma } = ctx.services;',
        '  await ctx.services.db.pool.query("SELECT 1");',
        '  const ownWhere = { user: { id: ctx.viewer.user.id } };',
        '  await prisma.$queryRaw`SELECT 1`;',
        '  return ctx.services.prisma.uploadedFile.findFirst({ ...query, where: { id: args.id, orgId: { in: [...orgIds] } } });',
        '};',
      ].join('\n'),
    };
    expect(findings(old, RULES).map((finding) => finding.split(' | ')[0])).toEqual([
      'schema/example.ts:1: imports ../src/generated/prisma/client.ts (only its types may be imported here)',
      'schema/example.ts:4: reaches the database handle `prisma` (call a service method that takes the viewer)',
      'schema/example.ts:5: reaches the database handle `pool` (call a service method that takes the viewer)',
      'schema/example.ts:5: reaches the database handle `db` (call a service method that takes the viewer)',
      'schema/example.ts:6: writes a tenancy where (user); the service owns it',
      "schema/example.ts:7: calls the Prisma client's $queryRaw",
      'schema/example.ts:8: reaches the database handle `prisma` (call a service method that takes the viewer)',
      'schema/example.ts:8: writes a tenancy where (orgId); the service owns it',
    ]);
  });

  it('scans every schema module (the scan is not empty)', () => {
    const paths = files.map((file) => file.path);
    expect(paths.length).toBeGreaterThan(15);
    expect(paths).toEqual(
      expect.arrayContaining(['schema/storage.ts', 'schema/chat.ts', 'schema/generation.ts', 'schema/viewer.ts', 'schema/plugins/page-size.ts']),
    );
  });
});
