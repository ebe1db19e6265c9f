export const CHAT_ROLES = ['user', 'assistant', 'system'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Limits of one chat request (POST /api/chat, and the history sent for sendChatMessage). */
export const CHAT_LIMITS = {
  messages: 50,
  contentLength: 20_000,
  totalLength: 100_000,
  titleLength: 80,
} as const;

export interface ChatRequest {
  /** The caller: providers that read the workspace read this user's records only. */
  userId: string;
  /** Validated: 1..50 messages, the last from the user. */
  messages: readonly ChatMessage[];
  /**
   * The scopes of the caller's credential (read:returns, read:pnl, ...): the offline assistant
   * answers from returns and files data only when the scope the REST and GraphQL endpoints
   * require is among them. Left out: none.
   */
  scopes?: ReadonlySet<string>;
}

/** Something that answers a conversation with the assistant's next message. */
export interface ChatProvider {
  /** Stored with every assistant message it writes: `openai` or `offline`. */
  readonly name: 'openai' | 'offline';
  reply(request: ChatRequest): Promise<string>;
}
