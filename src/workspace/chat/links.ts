/**
 * Markdown links into the dashboard, which this service serves with hash routes (`#/files`,
 * `#/tasks/<id>`): the Chat page renders them clickable (only http(s) and `#/` targets).
 */

export const DASHBOARD = {
  returns: '#/returns',
  files: '#/files',
  tasks: '#/tasks',
  task: (id: string) => `#/tasks/${encodeURIComponent(id)}`,
  news: '#/news',
  stickies: '#/stickies',
  links: '#/links',
  transcript: (id: string) => `#/transcripts/${encodeURIComponent(id)}`,
  transcripts: '#/transcripts',
  settings: '#/settings',
} as const;

/** `[text](target)`, the text escaped so brackets in a title do not end the link early. */
export function mdLink(text: string, target: string): string {
  return `[${escapeLinkText(text)}](${target.replace(/[()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)})`;
}

export function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/** http(s) URLs only (anything else is shown as text, never linked). */
export function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}
