/**
 * A value matched literally by LIKE/ILIKE: its wildcards (`%`, `_`) and the escape character
 * (`\`) escaped. Prisma renders an insensitive `equals` as ILIKE without escaping, so a `%`
 * would match anything and a trailing `\` is an error on PostgreSQL.
 */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}
