/**
 * The redaction rule of the audit log (docs/audit.md#redaction): an operation's variables are
 * recorded, but
 * - the value of a key whose LAST word (camelCase or snake_case) is a secret or free-text word
 *   (REDACTED_WORDS: password, token, key, content, body, text, description, comment, ...) is
 *   replaced by "[redacted]", whatever it is (a string, an object, a list);
 * - a file (an upload) is recorded as its name, type and size when known, never its bytes;
 * - any other string longer than MAX_STRING characters is cut there and ends with "…";
 * - lists longer than MAX_ITEMS keep their first MAX_ITEMS items and say how many there were.
 * The rule goes by names, not by operation, so a new operation's free text is covered without a change here.
 */

export const REDACTED = '[redacted]';
export const MAX_STRING = 200;
export const MAX_ITEMS = 50;
const MAX_DEPTH = 6;

/** Secrets and free text, as the last word of a variable's name. */
export const REDACTED_WORDS: ReadonlySet<string> = new Set([
  'password',
  'passphrase',
  'secret',
  'token',
  'key',
  'credential',
  'credentials',
  'authorization',
  'cookie',
  'code',
  'verifier',
  'content',
  'body',
  'text',
  'description',
  'comment',
  'comments',
  'message',
  'messages',
  'summary',
  'note',
  'notes',
  'title',
  'search',
  'query',
  'prompt',
  'answer',
  'transcript',
  'url',
]);

/** The words of a name: `apiKey` -> api, key; `client_secret` -> client, secret. */
function lastWord(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter(Boolean);
  return (words.at(-1) ?? name).toLowerCase();
}

/** Names seen so far and whether they are redacted: the same few names come with every operation. */
const redactedNames = new Map<string, boolean>();
const REMEMBERED_NAMES = 10_000;

export function isRedactedName(name: string): boolean {
  let redacted = redactedNames.get(name);
  if (redacted === undefined) {
    redacted = REDACTED_WORDS.has(lastWord(name));
    // Names inside JSON scalars are the client's: bounded, so they cannot grow the map without end.
    if (redactedNames.size < REMEMBERED_NAMES) redactedNames.set(name, redacted);
  }
  return redacted;
}

/** The variables as the audit log keeps them (null when there are none). */
export function redactVariables(variables: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!variables || Object.keys(variables).length === 0) return null;
  return redactObject(variables, 0);
}

function redactObject(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    const item = value[name];
    if (item === undefined) continue;
    out[name] = isRedactedName(name) && item !== null ? REDACTED : redactValue(item, depth + 1);
  }
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return shortText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  const file = fileSummary(value);
  if (file) return file;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    const items = new Array<unknown>(Math.min(value.length, MAX_ITEMS));
    // A loop, not map (a function made per list costs more here than the items; profiled); holes stay holes, as map leaves them.
    for (let i = 0; i < items.length; i++) if (i in value) items[i] = redactValue(value[i], depth + 1);
    return value.length > MAX_ITEMS ? [...items, `(${value.length} items)`] : items;
  }
  if (typeof value === 'object') return redactObject(value as Record<string, unknown>, depth);
  return REDACTED;
}

/** NUL is not storable in PostgreSQL text; long text is cut. */
function shortText(text: string): string {
  const clean = text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
  return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…` : clean;
}

/**
 * An upload as its name, type and size: graphql-upload's FileUpload (filename, mimetype), a
 * promise of one (not awaited: the file is the operation's), or a File/Blob.
 */
function fileSummary(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (value instanceof Promise) return { file: REDACTED };
  if (typeof Blob !== 'undefined' && value instanceof Blob) {
    return { file: value instanceof File ? shortText(value.name) : null, type: value.type || null, size: value.size };
  }
  const upload = value as { filename?: unknown; mimetype?: unknown; createReadStream?: unknown; size?: unknown };
  if (typeof upload.createReadStream === 'function' || (typeof upload.filename === 'string' && 'mimetype' in upload)) {
    return {
      file: typeof upload.filename === 'string' ? shortText(upload.filename) : null,
      type: typeof upload.mimetype === 'string' ? upload.mimetype : null,
      ...(typeof upload.size === 'number' ? { size: upload.size } : {}),
    };
  }
  return undefined;
}
