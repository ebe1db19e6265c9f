/**
 * Nullable fields in the most portable JSON Schema form: `{"type": ["string", "null"]}` rather than
 * `{"anyOf": [{"type": "string", ...}, {"type": "null"}]}`, which several MCP hosts do not accept in
 * tool output schemas. Other schemas are left as they are; the validation they express is the same.
 */
type Schema = { [key: string]: unknown };

export function portableNullable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portableNullable);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = Object.fromEntries(Object.entries(schema as Schema).map(([key, value]) => [key, portableNullable(value)])) as Schema;
  const options = node.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return node;
  const nullIndex = options.findIndex((option) => (option as Schema).type === 'null' && Object.keys(option as Schema).length === 1);
  if (nullIndex === -1) return node;
  const other = options[1 - nullIndex] as Schema;
  if (typeof other.type !== 'string' || 'anyOf' in other || 'oneOf' in other) return node;
  const { anyOf: _anyOf, ...rest } = node;
  const merged: Schema = { ...rest, ...other, type: [other.type, 'null'] };
  if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
  return merged;
}
