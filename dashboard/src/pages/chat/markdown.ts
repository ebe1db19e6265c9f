/**
 * The little Markdown the assistant writes: links `[text](target)` and `code` spans; everything
 * else is plain text (line breaks are kept by the message's CSS). Safe by construction: nothing
 * is parsed as HTML, and only http(s) URLs and the dashboard's own hash routes (`#/...`) become
 * links; any other target (javascript:, data:, //host, relative paths) stays visible as text.
 */

export type Segment = { kind: 'text'; text: string } | { kind: 'code'; text: string } | { kind: 'link'; text: string; href: string; external: boolean };

// [text with \] escapes](target without spaces or parentheses) | `code`
const TOKEN = /\[((?:\\.|[^\\\]\n])+)\]\(([^()\s]+)\)|`([^`\n]+)`/g;

/** The target a link may have, or null: http(s) anywhere, or a hash route of this dashboard. */
export function safeHref(target: string): { href: string; external: boolean } | null {
  if (/^#\/[^\s]*$/.test(target)) return { href: target, external: false };
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return url.protocol === 'http:' || url.protocol === 'https:' ? { href: url.href, external: true } : null;
  } catch {
    return null;
  }
}

export function parseMarkdown(content: string): Segment[] {
  const segments: Segment[] = [];
  const push = (segment: Segment) => {
    const last = segments.at(-1);
    if (segment.kind === 'text' && last?.kind === 'text') last.text += segment.text;
    else if (segment.kind !== 'text' || segment.text) segments.push(segment);
  };
  let at = 0;
  for (const match of content.matchAll(TOKEN)) {
    push({ kind: 'text', text: content.slice(at, match.index) });
    if (match[3] !== undefined) push({ kind: 'code', text: match[3] });
    else {
      const text = match[1].replace(/\\([\\[\]])/g, '$1');
      const target = safeHref(match[2]);
      push(target ? { kind: 'link', text, ...target } : { kind: 'text', text: match[0] });
    }
    at = match.index + match[0].length;
  }
  push({ kind: 'text', text: content.slice(at) });
  return segments;
}
