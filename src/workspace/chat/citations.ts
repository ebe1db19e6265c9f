import { escapeLinkText } from './links.ts';

/**
 * A citation: what was cited in brackets, linked to the record in the dashboard:
 * `[task "Prepare the committee pack"](#/tasks/<id>)`. Pure.
 */
export function cite(kind: string, label: string, target: string): string {
  return `[${escapeLinkText(`${kind} ${label}`)}](${target})`;
}

export function shortId(id: string): string {
  return `${id.slice(0, 8)}…`;
}

/** A title for a citation: one line, at most 30 characters, in double quotes. */
export function quoteTitle(title: string, max = 30): string {
  const text = oneLine(title).replace(/"/g, "'");
  if (text.length <= max) return `"${text}"`;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // Cut at a word boundary unless that would drop most of the title.
  return `"${(space >= max / 2 ? cut.slice(0, space) : cut).trimEnd()}…"`;
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
