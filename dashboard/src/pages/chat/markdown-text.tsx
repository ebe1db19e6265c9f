import type { ReactNode } from 'react';
import { parseMarkdown } from './markdown.ts';

/** An assistant message's text with its Markdown links rendered (see markdown.ts for what is a link). */
export function MarkdownText({ content }: { content: string }) {
  const nodes: ReactNode[] = parseMarkdown(content).map((segment, index) => {
    if (segment.kind === 'code') return <code key={index}>{segment.text}</code>;
    if (segment.kind === 'link') {
      return segment.external ? (
        <a key={index} href={segment.href} target="_blank" rel="noopener noreferrer">
          {segment.text}
        </a>
      ) : (
        <a key={index} href={segment.href}>
          {segment.text}
        </a>
      );
    }
    return segment.text;
  });
  return <>{nodes}</>;
}
