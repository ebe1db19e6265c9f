import { gql, type CombinedError } from 'urql';
import { PAGE_INFO_FIELDS, type PageInfo } from '../../components/pager.tsx';
import { describeError } from '../../api/errors.ts';

export type ChatRole = 'user' | 'assistant' | 'system';

export interface ConversationMessage {
  id: string;
  role: ChatRole;
  content: string;
  provider: string | null;
  position: number;
  createdAt: string;
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: string;
  messageCount: number;
}

export interface Conversation extends ConversationSummary {
  messages: ConversationMessage[];
}

const messageFields = 'id role content provider position createdAt';
const summaryFields = 'id title updatedAt messageCount';

/** The API's limits: a message is 1 to 20,000 characters; a conversation is read at most 1,000 messages at a time (the newest here). */
export const MAX_MESSAGE = 20_000;
export const MAX_SHOWN = 1000;
export const CONVERSATIONS_PAGE_SIZE = 20;

export const ConversationsQuery = gql<
  { conversations: { edges: { node: ConversationSummary }[]; pageInfo: PageInfo } },
  { first: number; after: string | null }
>(`
  query Conversations($first: Int, $after: String) {
    conversations(first: $first, after: $after) { edges { node { ${summaryFields} } } ${PAGE_INFO_FIELDS} }
  }
`);

export const ConversationQuery = gql<{ conversation: Conversation }, { id: string }>(`
  query Conversation($id: UUID!) { conversation(id: $id) { ${summaryFields} messages(last: ${MAX_SHOWN}) { ${messageFields} } } }
`);

export const SendChatMessage = gql<
  { sendChatMessage: { conversation: ConversationSummary; userMessage: ConversationMessage; reply: ConversationMessage } },
  { input: { content: string; conversationId?: string } }
>(`
  mutation SendChatMessage($input: SendChatMessageInput!) {
    sendChatMessage(input: $input) { conversation { ${summaryFields} } userMessage { ${messageFields} } reply { ${messageFields} } }
  }
`);

/** A sent message changes the conversation list even when it was empty. */
export const CHAT_LISTS = { additionalTypenames: ['QueryConversationsConnection', 'Conversation'] };

/**
 * A failed send in words: which failure, and that the message is kept (the service stores
 * nothing when the provider fails, so sending it again is safe).
 */
export function sendErrorWords(error: CombinedError): string {
  const first = error.graphQLErrors[0];
  const code = first?.extensions?.code;
  const kept = ' Your message was not sent and is still in the box: send it again when you are ready.';
  if (code === 'BAD_GATEWAY') return `The assistant could not answer: its provider failed (${first.message}).${kept}`;
  if (code === 'GATEWAY_TIMEOUT') return `The assistant took too long to answer (${first.message}).${kept}`;
  if (code === 'RATE_LIMITED') return `You are sending messages faster than the service allows. ${describeError(error)}${kept}`;
  return `${describeError(error)}${kept}`;
}
