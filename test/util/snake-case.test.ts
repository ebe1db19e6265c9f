import { describe, expect, it } from 'vitest';
import { snakeKeys, snakeName } from '../../src/util/snake-case.ts';

describe('snake_case of REST bodies', () => {
  it('renames every key, in nested objects and arrays, and leaves values (dates included) alone', () => {
    const when = new Date('2025-01-02T03:04:05Z');
    expect(snakeKeys({ entityId: 'e', pageInfo: { hasNextPage: true }, rows: [{ custodianReturn: '0.1', createdAt: when }], n: null })).toEqual({
      entity_id: 'e',
      page_info: { has_next_page: true },
      rows: [{ custodian_return: '0.1', created_at: when }],
      n: null,
    });
    expect(snakeName('already_snake')).toBe('already_snake');
  });

  it('stays right past the remembered names: more distinct keys than it keeps are still converted', () => {
    for (let i = 0; i < 12_000; i++) expect(snakeName(`someKey${i}Name`)).toBe(`some_key${i}_name`);
    expect(snakeName('dueSoon')).toBe('due_soon');
  });
});
