/**
 * Field names seen so far and their snake_case: the REST layer renames the same few hundred keys
 * on every row, so each is converted once. Bounded, because JSON values (an event's `data`) may
 * carry keys that are not field names.
 */
const SNAKE_NAMES = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 10_000;

/** `dueSoon` -> `due_soon`. */
export function snakeName(name: string): string {
  const known = SNAKE_NAMES.get(name);
  if (known !== undefined) return known;
  const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  if (SNAKE_NAMES.size < MAX_REMEMBERED_NAMES) SNAKE_NAMES.set(name, snake);
  return snake;
}

/** A JSON-safe value with every object key snake_cased (arrays and nested objects included). */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) result[snakeName(key)] = snakeKeys((value as Record<string, unknown>)[key]);
  return result;
}
