// GraphQL surface of the chat resource (docs/spec/workspace-service.md).
import { builder } from './builder.ts';
import { AppError } from '../src/errors.ts';
import { forwardPage } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { type ChatReply, type SentMessage } from '../src/workspace/chat/chat-service.ts';
import { CHAT_ROLES, type ChatMessage as ChatMessageShape, type ChatRole } from '../src/workspace/chat/types.ts';

const MESSAGES_PER_CONVERSATION = { first: 200, max: 1000 } as const;

const ChatRoleEnum = builder.enumType('ChatRole', { values: CHAT_ROLES });

const ChatMessage = builder.objectRef<ChatMessageShape>('ChatMessage').implement({
  fields: (t) => ({
    role: t.field({ type: ChatRoleEnum, resolve: (message) => message.role }),
    content: t.exposeString('content'),
  }),
});

const ChatReplyRef = builder.objectRef<ChatReply>('ChatReply').implement({
  fields: (t) => ({
    message: t.field({ type: ChatMessage, resolve: (reply) => reply.message }),
    provider: t.exposeString('provider', { description: '`openai` (CHAT_API_URL) or `offline` (the built-in assistant that searches your workspace).' }),
  }),
});

const ChatMessageInput = builder.inputType('ChatMessageInput', {
  fields: (t) => ({
    role: t.field({ type: ChatRoleEnum, required: true }),
    content: t.string({ required: true, description: '1 to 20,000 characters.' }),
  }),
});

const ConversationMessage = builder.prismaObject('ConversationMessage', {
  description: 'A message of a stored conversation.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    position: t.exposeInt('position', { description: '1, 2, 3... in the order written.' }),
    role: t.field({ type: ChatRoleEnum, resolve: (message) => message.role as ChatRole }),
    content: t.exposeString('content'),
    provider: t.exposeString('provider', { nullable: true, description: 'For assistant messages: the provider that wrote it (`openai` or `offline`).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Conversation = builder.prismaObject('Conversation', {
  description: 'A stored chat conversation of the signed-in user.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    title: t.exposeString('title', { description: 'The first message, on one line, at most 80 characters.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the last message was added.' }),
    messageCount: t.relationCount('messages'),
    messages: t.relation('messages', {
      description: `Oldest first: the first \`first\` messages, or with \`last\` the newest \`last\` ones (default first ${MESSAGES_PER_CONVERSATION.first}; either at most ${MESSAGES_PER_CONVERSATION.max}; not both).`,
      args: { first: t.arg.int({ required: false }), last: t.arg.int({ required: false }) },
      query: (args) => {
        if (args.first != null && args.last != null) throw AppError.badInput('last', 'cannot be combined with first');
        const name = args.last != null ? 'last' : 'first';
        const count = args.last ?? args.first ?? MESSAGES_PER_CONVERSATION.first;
        if (!Number.isInteger(count) || count < 1 || count > MESSAGES_PER_CONVERSATION.max) {
          throw AppError.badInput(name, `must be an integer between 1 and ${MESSAGES_PER_CONVERSATION.max}`);
        }
        // A negative take reads the end of the ordered list; the rows still come oldest first.
        return { take: name === 'last' ? -count : count, orderBy: { position: 'asc' as const } };
      },
    }),
  }),
});

const SendChatMessageInput = builder.inputType('SendChatMessageInput', {
  fields: (t) => ({
    conversationId: t.field({ type: 'UUID', description: 'Leave out to start a new conversation.' }),
    content: t.string({ required: true, description: 'The user message, 1 to 20,000 characters.' }),
  }),
});

const SendChatMessagePayload = builder.objectRef<SentMessage>('SendChatMessagePayload').implement({
  fields: (t) => ({
    conversation: t.field({ type: Conversation, resolve: (sent) => sent.conversation }),
    userMessage: t.field({ type: ConversationMessage, resolve: (sent) => sent.userMessage }),
    reply: t.field({ type: ConversationMessage, description: "The assistant's reply, as stored.", resolve: (sent) => sent.reply }),
  }),
});

builder.queryFields((t) => ({
  conversations: t.withAuth({ scope: 'read:workspace' }).prismaConnection({
    type: 'Conversation',
    pageSize: PAGE_SIZES.conversations,
    cursor: 'id',
    description: `The signed-in user's conversations, most recently active first.`,
    defaultSize: PAGE_SIZES.conversations.first,
    maxSize: PAGE_SIZES.conversations.max,
    resolve: (query, _parent, args, ctx, info) => {
      // prismaConnection clamps `first` silently; out-of-range pages are a client error.
      forwardPage(args, info);
      return ctx.services.chat.listConversations(ctx.viewer.user.id, query);
    },
  }),
  conversation: t.withAuth({ scope: 'read:workspace' }).prismaField({
    type: 'Conversation',
    description: "One of the signed-in user's conversations (NOT_FOUND otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (query, _parent, args, ctx) => ctx.services.chat.getConversation(ctx.viewer.user.id, args.id, query),
  }),
}));

builder.mutationFields((t) => ({
  chat: t.withAuth({ scope: 'write:workspace' }).field({
    type: ChatReplyRef,
    description:
      "The assistant's reply to a message list (1 to 50 messages, each 1 to 20,000 characters, at most 100,000 in all, the last from the user). " +
      'Stateless: nothing is stored. BAD_GATEWAY / GATEWAY_TIMEOUT when the configured provider fails.',
    rateBudget: 'chat',
    args: { messages: t.arg({ type: [ChatMessageInput], required: true }) },
    resolve: (_parent, args, ctx) => ctx.services.chat.reply(ctx.viewer.user.id, args.messages, ctx.viewer.scopes),
  }),
  sendChatMessage: t.withAuth({ scope: 'write:workspace' }).field({
    type: SendChatMessagePayload,
    description:
      'Appends a user message to a conversation (a new one when conversationId is left out), asks the provider with the ' +
      "conversation's history and stores the reply. When the provider fails nothing is stored.",
    rateBudget: 'chat',
    args: { input: t.arg({ type: SendChatMessageInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.chat.send(ctx.viewer.user.id, input, ctx.viewer.scopes),
  }),
}));
