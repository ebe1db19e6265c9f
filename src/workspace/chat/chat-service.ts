import type { Conversation, ConversationMessage, Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { PrismaSelection } from '../../db/prisma-selection.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../log.ts';
import { AppError } from '../../errors.ts';
import { OfflineChatProvider } from './offline-provider.ts';
import { OpenAiChatProvider } from './openai-provider.ts';
import { CHAT_LIMITS, CHAT_ROLES, type ChatMessage, type ChatProvider, type ChatRole } from './types.ts';

/** Appending to a conversation waits for another writer of the same conversation. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

export interface ChatReply {
  message: ChatMessage;
  provider: ChatProvider['name'];
}

/** What to load of each conversation and, for a page, which rows (a Pothos prismaConnection's query). */
export type ConversationSelection = PrismaSelection<Prisma.ConversationFindManyArgs>;

export interface SentMessage {
  conversation: Conversation;
  userMessage: ConversationMessage;
  reply: ConversationMessage;
}

/**
 * Chat: a stateless reply to a message list (POST /api/chat, GraphQL `chat`) and stored
 * conversations (GraphQL `sendChatMessage`). The provider is the offline assistant or an
 * OpenAI-compatible endpoint (createChatService). Knows nothing about HTTP; takes the user id.
 */
export class ChatService {
  readonly provider: ChatProvider;
  private readonly prisma: PrismaClient;

  constructor(options: { provider: ChatProvider; prisma: PrismaClient }) {
    this.provider = options.provider;
    this.prisma = options.prisma;
  }

  /** The assistant's reply to `messages` (validated: see validateMessages). Nothing is stored. */
  async reply(userId: string, messages: readonly ChatMessage[], scopes?: ReadonlySet<string>): Promise<ChatReply> {
    const valid = validateMessages(messages);
    const content = await this.provider.reply({ userId, messages: valid, scopes });
    return { message: { role: 'assistant', content }, provider: this.provider.name };
  }

  /** The user's stored conversations, most recently active first. */
  listConversations(userId: string, selection: ConversationSelection = {}): Promise<Conversation[]> {
    return this.prisma.conversation.findMany({ ...selection, where: { userId }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }] });
  }

  /** One of the user's conversations; another user's is NOT_FOUND, like a missing one. */
  async getConversation(userId: string, id: string, selection: Omit<ConversationSelection, 'take' | 'skip' | 'cursor'> = {}): Promise<Conversation> {
    const conversation = await this.prisma.conversation.findFirst({ ...selection, where: { id, userId } });
    if (!conversation) throw AppError.notFound('Conversation');
    return conversation;
  }

  /**
   * Appends a user message to a conversation (a new one, titled after the message, when no id is
   * given), asks the provider with the conversation's history, and stores its reply. The provider
   * is asked before anything is written: when it fails (502/504) the conversation is unchanged.
   * The history sent is the newest messages that fit the chat limits (50 messages, 100,000
   * characters), always ending with the new message.
   */
  async send(userId: string, input: { conversationId?: string | null; content: string }, scopes?: ReadonlySet<string>): Promise<SentMessage> {
    const content = validContent(input.content, 'content');
    const history = input.conversationId
      ? await this.prisma.conversationMessage.findMany({
          where: { conversationId: (await this.getConversation(userId, input.conversationId)).id },
          orderBy: { position: 'asc' },
          select: { role: true, content: true },
        })
      : [];
    const messages = fitHistory([...history.map((m) => ({ role: asRole(m.role), content: m.content })), { role: 'user', content }]);
    const replyText = await this.provider.reply({ userId, messages, scopes });
    const provider = this.provider.name;

    if (!input.conversationId) {
      const conversation = await this.prisma.conversation.create({
        data: {
          userId,
          title: titleFrom(content),
          messages: {
            create: [
              { position: 1, role: 'user', content },
              { position: 2, role: 'assistant', content: replyText, provider },
            ],
          },
        },
        include: { messages: { orderBy: { position: 'asc' } } },
      });
      const [userMessage, reply] = conversation.messages;
      return { conversation, userMessage, reply };
    }

    const conversationId = input.conversationId;
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "Conversation" WHERE id = ${conversationId}::uuid AND "userId" = ${userId}::uuid FOR UPDATE`;
      if (locked.length === 0) throw AppError.notFound('Conversation');
      const last = await tx.conversationMessage.aggregate({ where: { conversationId }, _max: { position: true } });
      const next = (last._max.position ?? 0) + 1;
      const userMessage = await tx.conversationMessage.create({ data: { conversationId, position: next, role: 'user', content } });
      const reply = await tx.conversationMessage.create({ data: { conversationId, position: next + 1, role: 'assistant', content: replyText, provider } });
      const conversation = await tx.conversation.update({ where: { id: conversationId }, data: { updatedAt: new Date() } });
      return { conversation, userMessage, reply };
    }, TX_OPTIONS);
  }
}

/**
 * 1 to 50 messages with roles user, assistant or system; each content 1 to 20,000 characters
 * (not blank); at most 100,000 characters in all; the last message from the user. Every problem
 * is a 400 naming `messages` (and the message's number, counted from 1).
 */
export function validateMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  if (messages.length < 1 || messages.length > CHAT_LIMITS.messages) {
    throw AppError.badInput('messages', `must hold between 1 and ${CHAT_LIMITS.messages} messages, got ${messages.length}`);
  }
  let total = 0;
  messages.forEach((message, index) => {
    if (!(CHAT_ROLES as readonly string[]).includes(message.role)) {
      throw AppError.badInput('messages', `message ${index + 1}: role must be one of ${CHAT_ROLES.join(', ')}`);
    }
    if (typeof message.content !== 'string' || message.content.trim().length === 0) {
      throw AppError.badInput('messages', `message ${index + 1}: content must not be empty`);
    }
    if (message.content.length > CHAT_LIMITS.contentLength) {
      throw AppError.badInput('messages', `message ${index + 1}: content must be at most ${CHAT_LIMITS.contentLength} characters`);
    }
    total += message.content.length;
  });
  if (total > CHAT_LIMITS.totalLength) {
    throw AppError.badInput('messages', `the messages may hold at most ${CHAT_LIMITS.totalLength} characters in all, got ${total}`);
  }
  if (messages.at(-1)?.role !== 'user') throw AppError.badInput('messages', 'the last message must be from the user');
  return messages.map(({ role, content }) => ({ role, content }));
}

function validContent(content: string, field: string): string {
  if (content.trim().length === 0) throw AppError.badInput(field, 'must not be empty');
  if (content.length > CHAT_LIMITS.contentLength) throw AppError.badInput(field, `must be at most ${CHAT_LIMITS.contentLength} characters`);
  return content;
}

/** The newest messages that fit the chat limits, oldest first; the last one always fits. */
export function fitHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let total = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (kept.length === CHAT_LIMITS.messages || (kept.length > 0 && total + message.content.length > CHAT_LIMITS.totalLength)) break;
    kept.unshift(message);
    total += message.content.length;
  }
  return kept;
}

/** The first message on one line, at most 80 characters (cut with …). */
export function titleFrom(content: string): string {
  const line = content.replace(/\s+/g, ' ').trim();
  return line.length > CHAT_LIMITS.titleLength ? `${line.slice(0, CHAT_LIMITS.titleLength - 1).trimEnd()}…` : line;
}

function asRole(role: string): ChatRole {
  return (CHAT_ROLES as readonly string[]).includes(role) ? (role as ChatRole) : 'user';
}

/**
 * CHAT_API_URL set: the OpenAI-compatible endpoint; unset: the offline assistant, which answers
 * from the service's own data (comparisons as classified by the reconciliation).
 */
export function createChatService(config: Config['chat'], db: Pick<Database, 'pool' | 'prisma'>, log?: Logger): ChatService {
  const provider: ChatProvider = config.apiUrl
    ? new OpenAiChatProvider({ apiUrl: config.apiUrl, apiKey: config.apiKey, model: config.model, timeoutMs: config.timeoutMs, log })
    : new OfflineChatProvider({ pool: db.pool, prisma: db.prisma });
  return new ChatService({ provider, prisma: db.prisma });
}
