import { Link } from 'wouter';
import { useQuery } from 'urql';
import { EmptyState, ErrorNotice, Loading } from '../../components/notice.tsx';
import { Pager, useCursorPager } from '../../components/pager.tsx';
import { formatDateTime } from '../../components/format.ts';
import { CONVERSATIONS_PAGE_SIZE, ConversationsQuery } from './api.ts';

/** The signed-in user's conversations, most recently active first. */
export function ConversationList({ currentId }: { currentId: string | null }) {
  const pager = useCursorPager();
  const [{ data, error, fetching }] = useQuery({ query: ConversationsQuery, variables: { first: CONVERSATIONS_PAGE_SIZE, after: pager.after } });
  const conversations = data?.conversations.edges.map((e) => e.node) ?? [];
  return (
    <nav className="panel chat-sidebar" aria-labelledby="conversations-title">
      <div className="panel-header">
        <h2 id="conversations-title">Conversations</h2>
        <Link href="/chat" className="button-link button-small" aria-current={currentId === null ? 'page' : undefined}>
          New chat
        </Link>
      </div>
      <ErrorNotice error={error} title="Could not load your conversations" />
      {fetching && !data && <Loading label="Loading conversations…" />}
      {data && conversations.length === 0 && <EmptyState>{pager.page === 1 ? 'No conversations yet.' : 'No more conversations.'}</EmptyState>}
      {conversations.length > 0 && (
        <ul className="conversation-list">
          {conversations.map((c) => (
            <li key={c.id}>
              <Link
                href={`/chat/${c.id}`}
                className={c.id === currentId ? 'conversation-link active' : 'conversation-link'}
                aria-current={c.id === currentId ? 'page' : undefined}
              >
                <span className="conversation-title">{c.title}</span>
                <span className="hint">
                  {formatDateTime(c.updatedAt)} · {c.messageCount} messages
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <Pager pager={pager} pageInfo={data?.conversations.pageInfo} label="Conversations" />
    </nav>
  );
}
