/** `dueSoon` -> `due_soon`. */
export function snakeName(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A JSON-safe value with every object key snake_cased (arrays and nested objects included). */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeName(key), snakeKeys(inner)]));
}
