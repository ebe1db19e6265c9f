/**
 * Authorization read once: a field declares who may call it with t.withAuth(scopes) (scope-auth's
 * typed auth contexts, schema/builder.ts `AuthContexts`), and its resolver reads the viewer the
 * check found from the narrowed context (`ctx.viewer`, not null by type). Nothing checks the viewer
 * a second time: no requireViewer, no `ctx.viewer!`, no scopes given as a plain `authScopes` option
 * (whose resolver would see a viewer that may be null). Reads the sources: no server.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { enclosingProperty, findings, propertyName, schemaSources, type Rule } from './schema-scan.ts';

const secondCheck: Rule = (node) =>
  ts.isIdentifier(node) && node.text === 'requireViewer' ? 'checks the viewer again (declare the scope with t.withAuth and read ctx.viewer)' : undefined;

const plainScopes: Rule = (node, file) => {
  if (!ts.isPropertyAssignment(node) || propertyName(node) !== 'authScopes') return undefined;
  // The scope definitions themselves (SchemaBuilder's scopeAuth options).
  if (file.path === 'schema/builder.ts' && enclosingProperty(node) === 'scopeAuth') return undefined;
  return 'declares scopes as an option (use t.withAuth(scopes), which types the context)';
};

const maybeViewer: Rule = (node) => {
  const isViewer = (expression: ts.Expression) => ts.isPropertyAccessExpression(expression) && expression.name.text === 'viewer';
  if (ts.isNonNullExpression(node) && isViewer(node.expression)) return 'asserts the viewer (the scope guarantees it: use t.withAuth)';
  if (ts.isPropertyAccessExpression(node) && node.questionDotToken !== undefined && isViewer(node.expression)) {
    return 'reads the viewer as maybe missing (the scope guarantees it: use t.withAuth)';
  }
  return undefined;
};

const RULES = [secondCheck, plainScopes, maybeViewer];
const files = schemaSources();

describe('authorization read once: scopes declared with t.withAuth, the viewer read from the typed context', () => {
  it('no file in schema/ checks the viewer again or declares scopes outside t.withAuth', () => {
    expect(files.flatMap((file) => findings(file, RULES))).toEqual([]);
  });

  it('the rules trip on the pattern they replace', () => {
    const old = {
      path: 'schema/example.ts',
      text: [
        "import { requireViewer } from '../src/context.ts';",
        'const field = t.field({',
        "  authScopes: { scope: 'read:workspace' },",
        '  resolve: (_parent, _args, ctx) => ctx.services.links.counts(requireViewer(ctx).user.id),',
        '});',
        'const other = (ctx) => ctx.viewer!.user.id ?? ctx.viewer?.user.id;',
      ].join('\n'),
    };
    expect(findings(old, RULES).map((finding) => finding.split(' | ')[0])).toEqual([
      'schema/example.ts:1: checks the viewer again (declare the scope with t.withAuth and read ctx.viewer)',
      'schema/example.ts:3: declares scopes as an option (use t.withAuth(scopes), which types the context)',
      'schema/example.ts:4: checks the viewer again (declare the scope with t.withAuth and read ctx.viewer)',
      'schema/example.ts:6: asserts the viewer (the scope guarantees it: use t.withAuth)',
      'schema/example.ts:6: reads the viewer as maybe missing (the scope guarantees it: use t.withAuth)',
    ]);
  });
});
