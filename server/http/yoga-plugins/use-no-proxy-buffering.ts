import type { Plugin } from 'graphql-yoga';

/** Progress streams must reach the client event by event: tells proxies (nginx) not to buffer them. */
export function useNoProxyBuffering(): Plugin {
  return {
    onResponse({ response }) {
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) response.headers.set('X-Accel-Buffering', 'no');
    },
  };
}
