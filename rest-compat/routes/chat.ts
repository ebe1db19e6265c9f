import { bare, type RestRoute, withUpstream } from '../route.ts';

/** docs/spec/workspace-service.md: chat. The answer is exactly `{"message": {"role": "assistant", "content": "..."}}`. */
export const chatRoutes: RestRoute[] = withUpstream('the chat model (CHAT_API_URL)', [
  {
    method: 'POST',
    path: '/api/chat',
    summary: 'The assistant reply to a message list (1-50 messages, roles user/assistant/system, the last from the user). Stateless.',
    body: 'json',
    operation: `mutation Chat($messages: [ChatMessageInput!]!) { chat(messages: $messages) { message { role content } } }`,
    respond: bare('chat'),
  },
]);
