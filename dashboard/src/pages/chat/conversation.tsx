import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useMutation, useQuery } from 'urql';
import { ErrorNotice, Loading } from '../../components/notice.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useNavigationState } from '../../components/navigation-state.ts';
import { Composer } from './composer.tsx';
import { MarkdownText } from './markdown-text.tsx';
import { CHAT_LISTS, ConversationQuery, SendChatMessage, sendErrorWords, type ConversationMessage } from './api.ts';

/** Questions the offline assistant answers well: from the returns, files, tasks and news data, or a search of the workspace. */
const SUGGESTIONS = [
  'What is the time-weighted return of Harbor Growth Fund LP this year?',
  'How many returns of DC-1001 match the custodian?',
  'Which files failed and why?',
  'Which tasks are overdue?',
  "This week's news digest",
  'What do I have on Keystone?',
];

/** One conversation (or a new one when id is null): its messages, a thinking indicator, the message box. */
export function ConversationView({ id }: { id: string | null }) {
  const [{ data, error, fetching }] = useQuery({ query: ConversationQuery, variables: { id: id ?? '' }, pause: !id });
  // A new conversation's first exchange, handed over by the page that started it (see onSend).
  const handed = useNavigationState<ConversationMessage[]>('chatMessages');
  const [appended, setAppended] = useState<ConversationMessage[]>(handed ?? []);
  const [draft, setDraft] = useState('');
  const [pending, setPending] = useState<string | null>(null);
  const [sending, send] = useMutation(SendChatMessage);
  const [, navigate] = useLocation();
  const log = useRef<HTMLOListElement>(null);
  const conversation = data?.conversation;
  const messages = merge(conversation?.messages ?? [], appended);

  // Keep the newest message in view as messages arrive.
  useEffect(() => {
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [messages.length, pending]);

  async function onSend(content: string): Promise<boolean> {
    setPending(content);
    const result = await send({ input: { content, ...(id ? { conversationId: id } : {}) } }, CHAT_LISTS);
    setPending(null);
    const sent = result.data?.sendChatMessage;
    if (!sent) return false;
    if (id) setAppended((list) => [...list, sent.userMessage, sent.reply]);
    else navigate(`/chat/${sent.conversation.id}`, { state: { chatMessages: [sent.userMessage, sent.reply] } });
    return true;
  }

  const title = id ? (conversation?.title ?? (handed?.[0] ? handed[0].content.slice(0, 80) : 'Conversation')) : 'New conversation';
  const hidden = conversation ? conversation.messageCount - conversation.messages.length : 0;

  return (
    <section className="panel chat-main" aria-labelledby="conversation-title">
      <header className="chat-header">
        <Link href="/chat" className="chat-back">
          ← Conversations
        </Link>
        <h2 id="conversation-title">{title}</h2>
      </header>
      {id && error && !conversation && <ErrorNotice error={error} title="Could not open the conversation" />}
      {id && fetching && !conversation && messages.length === 0 && <Loading label="Loading the conversation…" />}
      {!id && messages.length === 0 && !pending && (
        <div className="chat-welcome">
          <p>
            Ask the assistant about your data and your workspace. Without a language model configured, the offline assistant answers questions about your
            returns, custodian comparisons, files, tasks and news with figures and links to the pages they come from, and otherwise searches your stickies,
            links, transcripts, tasks and news and lists what it finds. It can't forecast or give advice.
          </p>
          <div className="toolbar" role="group" aria-label="Suggestions">
            {SUGGESTIONS.map((s) => (
              <button
                key={s}
                type="button"
                className="button-secondary button-small"
                onClick={() => {
                  setDraft(s);
                  document.getElementById('chat-message')?.focus();
                }}
              >
                {s}
              </button>
            ))}
          </div>
        </div>
      )}
      <ol className="chat-log" ref={log} role="log" aria-label="Messages" aria-live="polite" tabIndex={0}>
        {hidden > 0 && (
          <li className="hint">
            The last {conversation?.messages.length} of {conversation?.messageCount} messages are shown.
          </li>
        )}
        {messages.map((m) => (
          <Message key={m.id} message={m} />
        ))}
        {pending !== null && (
          <>
            <li className="message message-user message-pending">
              <div className="message-meta">You</div>
              <div className="message-text">{pending}</div>
            </li>
            <li className="message message-assistant thinking" role="status">
              <span className="spinner" aria-hidden="true" /> The assistant is thinking…
            </li>
          </>
        )}
      </ol>
      {sending.error && !pending && <ErrorNotice error={sendErrorWords(sending.error)} />}
      <Composer draft={draft} onDraft={setDraft} waiting={pending !== null} onSend={onSend} autoFocus={!!handed} />
    </section>
  );
}

function Message({ message }: { message: ConversationMessage }) {
  const mine = message.role === 'user';
  return (
    <li className={`message message-${message.role}`}>
      <div className="message-meta">
        <span className="message-author">{mine ? 'You' : message.role === 'assistant' ? 'Assistant' : 'System'}</span>
        {message.provider && <span className="badge badge-neutral">{message.provider === 'offline' ? 'offline assistant' : message.provider}</span>}
        <span className="hint">{formatDateTime(message.createdAt)}</span>
      </div>
      {/* The assistant writes links (to dashboard pages and cited records) in Markdown: rendered as links, nothing else as markup. */}
      <div className="message-text">{mine ? message.content : <MarkdownText content={message.content} />}</div>
    </li>
  );
}

/** The stored messages and those this page added since, once each, in the order written. */
function merge(stored: ConversationMessage[], appended: ConversationMessage[]): ConversationMessage[] {
  const byId = new Map(stored.map((m) => [m.id, m]));
  for (const m of appended) if (!byId.has(m.id)) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => a.position - b.position);
}
