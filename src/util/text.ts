/**
 * Text PostgreSQL can store and every client can read back: no NUL (U+0000, which PostgreSQL
 * text cannot hold) and no lone UTF-16 surrogate (half of a character, which has no UTF-8
 * encoding: the database driver refuses it, in arrays with a JSON error).
 */
export type TextProblem = 'nul' | 'lone_surrogate';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function textProblem(text: string): TextProblem | undefined {
  if (text.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(text) ? 'lone_surrogate' : undefined;
}

export const TEXT_PROBLEMS: Record<TextProblem, string> = {
  nul: 'must not contain NUL characters (U+0000)',
  lone_surrogate: 'must be valid Unicode text (it contains half of a UTF-16 surrogate pair)',
};
