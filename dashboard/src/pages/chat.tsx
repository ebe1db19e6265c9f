import { useRoute } from 'wouter';
import { Page } from '../components/page.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { UUID_PATTERN } from './transcripts/api.ts';
import { ConversationList } from './chat/conversations.tsx';
import { ConversationView } from './chat/conversation.tsx';
import './chat/chat.css';

/** /chat starts a conversation; /chat/<id> continues one. The list of conversations sits beside. */
export default function ChatPage() {
  const [open, params] = useRoute('/chat/:id');
  const id = open ? params.id : null;
  return (
    <Page title="Chat" intro="Ask the assistant about your workspace. Conversations are kept, so you can come back to them.">
      <div className={id ? 'chat-layout has-conversation' : 'chat-layout'}>
        <ConversationList currentId={id} />
        {id !== null && !UUID_PATTERN.test(id) ? (
          <div className="panel chat-main">
            <ErrorNotice error="There is no conversation at this address." />
          </div>
        ) : (
          <ConversationView id={id} />
        )}
      </div>
    </Page>
  );
}
