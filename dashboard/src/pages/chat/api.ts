import type { CombinedError } from 'urql';
import { graphql, type ResultOf } from '../../api/graphql.ts';
import { describeError } from '../../api/errors.ts';

const MessageFields = graphql(`fragment ConversationMessageFields on ConversationMessage { id role content provider position createdAt }`);
const SummaryFields = graphql(`fragment ConversationSummaryFields on Conversation { id title updatedAt messageCount }`);

export type ConversationMessage = ResultOf<typeof MessageFields>;

/** The API's limits: a message is 1 to 20,000 characters; a conversation is read at most 1,000 messages at a time (the newest here). */
export const MAX_MESSAGE = 20_000;
export const CONVERSATIONS_PAGE_SIZE = 20;

export const ConversationsQuery = graphql(
  `
  query Conversations($first: Int, $after: String) {
    conversations(first: $first, after: $after) { edges { node { ...ConversationSummaryFields } } pageInfo { hasNextPage endCursor } }
  }
`,
  [SummaryFields],
);

/** Reads the newest 1,000 messages (the most one read returns, above). */
export const ConversationQuery = graphql(
  `
  query Conversation($id: UUID!) { conversation(id: $id) { ...ConversationSummaryFields messages(last: 1000) { ...ConversationMessageFields } } }
`,
  [SummaryFields, MessageFields],
);

export const SendChatMessage = graphql(
  `
  mutation SendChatMessage($input: SendChatMessageInput!) {
    sendChatMessage(input: $input) { conversation { ...ConversationSummaryFields } userMessage { ...ConversationMessageFields } reply { ...ConversationMessageFields } }
  }
`,
  [SummaryFields, MessageFields],
);

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
