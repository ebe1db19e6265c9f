/**
 * The compiled snake_casing of REST bodies (rest-compat/shape.ts) must give exactly what
 * converting every key as met gives (snakeKeys), key order included, for what GraphQL returns:
 * aliases, named and inline fragments, repeated fields, skipped fields, lists, nulls, JSON values.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compileShapes } from '../../rest-compat/shape.ts';
import { snakeKeys } from '../../src/util/snake-case.ts';

const document = parse(`
  query Q($with: Boolean!) {
    taskList { edges { node { id dueDate ...Owner createdAt @include(if: $with) ... on Task { commentCount lastComment { authorName } } } } pageInfo { hasNextPage endCursor } }
    shortName: linkFolders { folderName itemCount }
    eventData
  }
  fragment Owner on Task { ownerName: assignee { displayName } id }
`);

describe('compiled REST shaping', () => {
  const shapes = compileShapes(document);

  it('equals snake_casing every key, in the same order', () => {
    const node = { id: 't1', dueDate: null, ownerName: { displayName: 'Ann' }, commentCount: 2, lastComment: { authorName: 'Bo' } };
    const skipped = { id: 't2', dueDate: '2026-01-01', ownerName: null, commentCount: 0, lastComment: null }; // createdAt skipped
    const data = {
      taskList: { edges: [{ node: { ...node, createdAt: '2026-11-24T00:00:00.000Z' } }, { node: skipped }], pageInfo: { hasNextPage: false, endCursor: null } },
      shortName: [{ folderName: 'A', itemCount: 1 }],
      eventData: { someKey: [{ innerKey: 1 }], plain: 'x' },
    };
    const order = ['id', 'dueDate', 'ownerName', 'createdAt', 'commentCount', 'lastComment'];
    const ordered = (row: Record<string, unknown>) => Object.fromEntries(order.filter((key) => key in row).map((key) => [key, row[key]]));
    const rows = data.taskList.edges.map((edge) => ordered(edge.node));
    expect(JSON.stringify(rows.map(shapes('taskList.edges.node')))).toBe(JSON.stringify(rows.map(snakeKeys)));
    const taskList = { edges: rows.map((row) => ({ node: row })), pageInfo: data.taskList.pageInfo };
    expect(JSON.stringify(shapes('taskList')(taskList))).toBe(JSON.stringify(snakeKeys(taskList)));
    expect(shapes('shortName')(data.shortName)).toEqual([{ folder_name: 'A', item_count: 1 }]);
    // A JSON scalar's keys are snake_cased as before.
    expect(shapes('eventData')(data.eventData)).toEqual({ some_key: [{ inner_key: 1 }], plain: 'x' });
  });

  it('keeps only the selected keys, passes nulls and lists through and compiles each place once', () => {
    expect(shapes('taskList.edges.node')({ id: 'a', notSelected: 1 })).toEqual({ id: 'a' });
    expect(shapes('taskList.edges.node')(null)).toBeNull();
    expect(shapes('taskList')).toBe(shapes('taskList'));
  });
});
