/**
 * Pagination the schema offers is pagination that works: every connection is a keyset page read
 * forward, so it offers `first` and `after` and not Relay's `last` / `before` (which every page
 * would refuse). A Relay-style client can trust the SDL. docs/graphql.md#pagination.
 */
import { getNamedType, isObjectType, parse, validate, type GraphQLField, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { sortedSchema } from '../../schema/index.ts';
import { pageSizeOf } from '../../schema/plugins/page-size.ts';

const schema: GraphQLSchema = sortedSchema();

/** Every field of the schema that returns a Relay connection (a type with `edges` and `pageInfo`), as `Type.field`. */
function connectionFields(): { name: string; field: GraphQLField<unknown, unknown> }[] {
  return Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .filter((type) => !type.name.startsWith('__'))
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ name: `${type.name}.${field.name}`, field })))
    .filter(({ field }) => {
      const returned = getNamedType(field.type);
      return isObjectType(returned) && 'edges' in returned.getFields() && 'pageInfo' in returned.getFields();
    });
}

describe('pagination', () => {
  const connections = connectionFields();

  it('finds the connections (the eleven lists on Query at least)', () => {
    expect(connections.filter(({ name }) => name.startsWith('Query.')).length).toBeGreaterThanOrEqual(11);
  });

  it('every connection offers first and after, and neither last nor before', () => {
    const offered = connections.map(({ name, field }) => `${name}(${field.args.map((arg) => arg.name).join(', ')})`);
    const backward = connections.filter(({ field }) => field.args.some((arg) => arg.name === 'last' || arg.name === 'before')).map(({ name }) => name);
    expect(backward, offered.join('\n')).toEqual([]);
    const forward = connections.filter(({ field }) => ['first', 'after'].every((name) => field.args.some((arg) => arg.name === name)));
    expect(forward.map(({ name }) => name)).toEqual(connections.map(({ name }) => name));
  });

  it("every connection states its page size (first's default and maximum) in its description and extensions", () => {
    for (const { name, field } of connections) {
      const size = pageSizeOf(field);
      expect(size, name).toBeDefined();
      expect(field.description, name).toContain(`Pages: first defaults to ${size!.first}, at most ${size!.max}.`);
    }
  });

  it('a backward page is refused by validation, before anything runs, as an argument the field does not have', () => {
    const errors = validate(schema, parse('{ stickies(last: 2, before: "x") { edges { node { id } } } }'));
    expect(errors.map((error) => error.message)).toEqual([
      'Unknown argument "last" on field "Query.stickies".',
      'Unknown argument "before" on field "Query.stickies".',
    ]);
  });
});
