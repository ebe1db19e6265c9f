import { z } from 'zod';
import type { Logger } from '../../log.ts';
import { joinUrl, malformed, upstreamJson, upstreamStatusError } from '../tasks/upstream.ts';
import type { ChatProvider, ChatRequest } from './types.ts';

const LABEL = 'Chat provider';

export interface OpenAiChatProviderOptions {
  /** Base URL, e.g. `https://api.example.com/v1`; requests go to `{apiUrl}/chat/completions`. */
  apiUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  log?: Logger;
}

const CompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().refine((text) => text.trim().length > 0, 'empty content') }) })).min(1),
});

/**
 * Any OpenAI-compatible chat-completions endpoint, with plain fetch. The key goes in
 * `Authorization: Bearer` and nowhere else: errors carry only the upstream status
 * (`Chat provider error: 500` -> 502), a timeout is 504, and a body without
 * `choices[0].message.content` is 502 `Chat provider error: malformed response`.
 */
export class OpenAiChatProvider implements ChatProvider {
  readonly name = 'openai' as const;

  constructor(private readonly options: OpenAiChatProviderOptions) {}

  async reply(request: ChatRequest): Promise<string> {
    const { status, json } = await upstreamJson(
      LABEL,
      {
        method: 'POST',
        url: joinUrl(this.options.apiUrl, '/chat/completions'),
        apiKey: this.options.apiKey,
        timeoutMs: this.options.timeoutMs,
        body: { model: this.options.model, messages: request.messages.map(({ role, content }) => ({ role, content })) },
      },
      this.options.log,
    );
    if (status < 200 || status > 299) throw upstreamStatusError(LABEL, status);
    const parsed = CompletionSchema.safeParse(json);
    if (!parsed.success) throw malformed(LABEL, this.options.log, parsed.error.issues[0]?.message);
    return parsed.data.choices[0].message.content;
  }
}
