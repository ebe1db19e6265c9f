/**
 * POST /api/chat and the GraphQL conversations with the built-in offline assistant (no
 * CHAT_API_URL): message validation, the answer built from the caller's own workspace with
 * citations, isolation between users, and stored conversations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer } from '../helpers/server.ts';
import { startServerWithUsers, WORKSPACE_MEMBER, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { OFFLINE_INTRO } from '../../src/workspace/chat/offline-provider.ts';

let server: TestServer;
let owner: TestUser, other: TestUser, reader: TestUser, outsider: TestUser;
const ids: Record<string, string> = {};

beforeAll(async () => {
  ({ server, owner, other, reader, outsider } = await startServerWithUsers({
    owner: WORKSPACE_MEMBER,
    other: WORKSPACE_MEMBER,
    reader: { ...WORKSPACE_READER, role: 'member' },
    outsider: { scopes: ['read:returns'], role: 'member' },
  }));
  const prisma = server.services.prisma;

  // The owner's workspace.
  ids.sticky = (
    await prisma.sticky.create({
      data: { userId: owner.userId, content: 'Rebalance the Harbor growth sleeve before the Q3 close; check cash drag first.', tags: ['harbor', 'q3'] },
    })
  ).id;
  ids.trashed = (
    await prisma.sticky.create({ data: { userId: owner.userId, content: 'Old rebalance idea, thrown away', tags: [], deletedAt: new Date() } })
  ).id;
  ids.plain = (await prisma.sticky.create({ data: { userId: owner.userId, content: 'Lunch with the auditors on Friday', tags: ['admin'] } })).id;
  ids.link = (
    await prisma.link.create({
      data: { userId: owner.userId, url: 'https://example.com/research/rebalancing-bands', title: 'Rebalancing bands explained', tags: ['research'] },
    })
  ).id;
  const transcript = await prisma.transcript.create({
    data: {
      userId: owner.userId,
      title: 'Investment committee',
      occurredAt: new Date('2026-11-18T15:00:00Z'),
      durationSeconds: 1800,
      participants: ['Ana', 'Ben'],
      source: 'demo',
      sentences: {
        create: [
          { position: 0, speaker: 'Ana', text: 'Welcome everyone.', startSeconds: '0' },
          { position: 1, speaker: 'Ben', text: 'We agreed to rebalance Harbor in two steps.', startSeconds: '754.5' },
        ],
      },
    },
  });
  ids.transcript = transcript.id;
  const task = await prisma.task.create({
    data: {
      userId: owner.userId,
      title: 'Prepare the committee pack',
      description: 'Include the fee comparison.',
      status: 'in_progress',
      priority: 'high',
      dueDate: new Date('2026-12-01T00:00:00Z'),
      labels: ['committee'],
    },
  });
  ids.task = task.id;
  await prisma.taskComment.create({ data: { taskId: task.id, authorId: owner.userId, body: 'Ben wants the rebalance timeline in the pack.' } });
  ids.doneTask = (await prisma.task.create({ data: { userId: owner.userId, title: 'Book the room', status: 'done', labels: [] } })).id;
  ids.news = (
    await prisma.newsArticle.create({
      data: {
        userId: owner.userId,
        title: 'Pension funds rebalance into bonds',
        url: 'https://news.example.com/a1',
        source: 'Example Wire',
        summary: 'Large funds moved money.',
        tags: ['markets'],
        publishedAt: new Date('2026-11-19T08:00:00Z'),
      },
    })
  ).id;

  // Someone else's workspace, with the same words.
  ids.otherSticky = (await prisma.sticky.create({ data: { userId: other.userId, content: 'Rebalance secret plan of the other user', tags: ['q3'] } })).id;
  ids.otherTask = (await prisma.task.create({ data: { userId: other.userId, title: 'Rebalance the other book', labels: [] } })).id;
});
afterAll(() => server?.close());

function chat(user: TestUser | null, body: unknown, headers: Record<string, string> = {}) {
  return getJson(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { 'x-api-key': user.key } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const ask = async (content: string, user = owner) => {
  const response = await chat(user, { messages: [{ role: 'user', content }] });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.message.content as string;
};

describe('POST /api/chat (offline assistant)', () => {
  it('answers exactly {"message": {"role": "assistant", "content": ...}}, saying first that it is the offline assistant', async () => {
    const response = await chat(owner, {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What do I have on rebalancing?' },
      ],
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['message']);
    expect(Object.keys(response.body.message)).toEqual(['role', 'content']);
    expect(response.body.message.role).toBe('assistant');
    expect(response.body.message.content.startsWith(OFFLINE_INTRO)).toBe(true);
    expect(OFFLINE_INTRO).toMatch(/offline assistant/);
    expect(OFFLINE_INTRO).toMatch(/no language model is configured/);
  });

  it("cites the caller's matching stickies, links, transcripts, tasks (comments included) and news", async () => {
    const answer = await ask('What do I have on rebalancing?');
    expect(answer).toContain(`[sticky ${ids.sticky.slice(0, 8)}…]`);
    expect(answer).toContain('Rebalance the Harbor growth sleeve');
    expect(answer).toContain('[link "Rebalancing bands explained"]');
    expect(answer).toContain('Ben: "We agreed to rebalance Harbor in two steps."');
    expect(answer).toContain('[transcript "Investment committee" 12:34]');
    expect(answer).toContain('[task "Prepare the committee pack"]');
    expect(answer).toContain('"Ben wants the rebalance timeline in the pack."');
    expect(answer).toContain('in progress, high priority, due 2026-12-01');
    expect(answer).toContain('[news "Pension funds rebalance into…"]');
    // Not the trash, not the unrelated sticky, and nothing of the other user.
    expect(answer).not.toContain(ids.trashed.slice(0, 8));
    expect(answer).not.toContain(ids.plain.slice(0, 8));
    expect(answer).not.toContain('secret plan');
    expect(answer).not.toContain(ids.otherSticky.slice(0, 8));
    expect(answer).not.toContain('other book');
  });

  it('ranks by the number of keywords matched and searches only the kinds of records named', async () => {
    const answer = await ask('Show my tasks about the fee comparison');
    expect(answer).toContain('Searching your tasks for "fee" and "comparison"');
    expect(answer).toContain('[task "Prepare the committee pack"]');
    expect(answer).not.toContain('[sticky');
    expect(answer).not.toContain('[news');
  });

  it('lists recent records when the message only names a kind (open tasks only)', async () => {
    const answer = await ask('show my tasks');
    expect(answer).toContain('here are your most recent tasks (open tasks only)');
    expect(answer).toContain('[task "Prepare the committee pack"]');
    expect(answer).not.toContain('Book the room');
  });

  it('says when nothing matches and suggests what to search', async () => {
    const answer = await ask('Anything about zeppelins?');
    expect(answer.startsWith(OFFLINE_INTRO)).toBe(true);
    expect(answer).toContain('I found nothing in your stickies, links, transcripts, tasks or news matching "zeppelins".');
    expect(answer).toContain('Your most used tags and labels:');
    expect(answer).toContain('q3');
    const empty = await ask('hi?');
    expect(empty).toContain('Your message has no words I can search for.');
  });

  it('another user asking the same question sees only their own records', async () => {
    const answer = await ask('rebalance', other);
    expect(answer).toContain(`[sticky ${ids.otherSticky.slice(0, 8)}…]`);
    expect(answer).toContain('[task "Rebalance the other book"]');
    expect(answer).not.toContain(ids.sticky.slice(0, 8));
    expect(answer).not.toContain('Investment committee');
    expect(answer).not.toContain('Rebalancing bands');
  });

  it('400 naming messages for every bad message list', async () => {
    const user = (content: string) => ({ role: 'user', content });
    const cases: [unknown, RegExp][] = [
      [{}, /^Missing required parameter: messages$/],
      [{ messages: [] }, /^Invalid messages: must hold between 1 and 50 messages, got 0$/],
      [{ messages: Array.from({ length: 51 }, () => user('hi')) }, /^Invalid messages: must hold between 1 and 50 messages, got 51$/],
      [{ messages: [user('')] }, /^Invalid messages: message 1: content must not be empty$/],
      [{ messages: [user('ok'), { role: 'assistant', content: '   ' }, user('ok')] }, /^Invalid messages: message 2: content must not be empty$/],
      [{ messages: [user('x'.repeat(20_001))] }, /^Invalid messages: message 1: content must be at most 20000 characters$/],
      [
        { messages: Array.from({ length: 6 }, () => user('x'.repeat(20_000))) },
        /^Invalid messages: the messages may hold at most 100000 characters in all, got 120000$/,
      ],
      [{ messages: [user('hello'), { role: 'assistant', content: 'hi' }] }, /^Invalid messages: the last message must be from the user$/],
      [{ messages: [{ role: 'robot', content: 'beep' }] }, /^Invalid messages: .*role.*robot/],
      [{ messages: [{ role: 'user' }] }, /^Invalid messages: .*content/],
      [{ messages: [{ role: 'user', content: 'hi', name: 'ana' }] }, /^Invalid messages: .*name/],
      [{ messages: 'hello' }, /^Invalid messages: /],
      [{ messages: [user('hi')], model: 'gpt-5' }, /^Unknown field: model$/],
      ['[1,2', /^Malformed JSON body$/],
    ];
    for (const [body, error] of cases) {
      const response = await chat(owner, body);
      expect(response.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(response.body.error).toMatch(error);
    }
  });

  it('401 without or with a bad credential, 403 without write:workspace, 415 with another content type', async () => {
    const body = { messages: [{ role: 'user', content: 'hi' }] };
    expect(await chat(null, body)).toMatchObject({ status: 401, body: { error: 'Invalid or expired API key' } });
    expect(await chat(null, body, { authorization: 'Bearer nope' })).toMatchObject({ status: 401 });
    expect(await chat(reader, body)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect(await chat(outsider, body)).toMatchObject({ status: 403 });
    expect(await chat(owner, JSON.stringify(body), { 'content-type': 'text/plain' })).toMatchObject({
      status: 415,
      body: { error: 'Content-Type must be application/json' },
    });
    expect((await getJson(`${server.url}/api/chat`, { headers: { 'x-api-key': owner.key } })).status).toBe(405);
  });
});

describe('GraphQL chat and conversations', () => {
  const gql = (user: TestUser, query: string, variables: Record<string, unknown> = {}) => graphql(server.url, { 'x-api-key': user.key }, query, variables);
  const SEND = `mutation($input: SendChatMessageInput!) { sendChatMessage(input: $input) {
    conversation { id title messageCount }
    userMessage { position role content provider }
    reply { position role content provider } } }`;

  it('chat(messages) is the same stateless reply as POST /api/chat', async () => {
    const messages = [{ role: 'user', content: 'committee pack' }];
    const result = await gql(owner, 'mutation($messages: [ChatMessageInput!]!) { chat(messages: $messages) { message { role content } provider } }', {
      messages,
    });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.chat.provider).toBe('offline');
    const rest = await chat(owner, { messages });
    expect(rest.body.message).toEqual(result.body.data.chat.message);
    expect(await server.services.prisma.conversation.count({ where: { userId: owner.userId } })).toBe(0);
  });

  it('sendChatMessage creates a conversation titled after the first message, then appends to it', async () => {
    const first = await gql(owner, SEND, { input: { content: `  What did the committee   decide about rebalancing Harbor? ${'More words '.repeat(10)}` } });
    expect(first.body.errors).toBeUndefined();
    const sent = first.body.data.sendChatMessage;
    expect(sent.conversation.title).toHaveLength(80);
    expect(sent.conversation.title.startsWith('What did the committee decide about rebalancing Harbor?')).toBe(true);
    expect(sent.conversation.title.endsWith('…')).toBe(true);
    expect(sent.conversation.messageCount).toBe(2);
    expect(sent.userMessage).toMatchObject({ position: 1, role: 'user', provider: null });
    expect(sent.reply).toMatchObject({ position: 2, role: 'assistant', provider: 'offline' });
    expect(sent.reply.content).toContain('[transcript "Investment committee" 12:34]');

    const id = sent.conversation.id;
    const second = await gql(owner, SEND, { input: { conversationId: id, content: 'and the fee comparison?' } });
    expect(second.body.data.sendChatMessage.userMessage.position).toBe(3);
    expect(second.body.data.sendChatMessage.reply.position).toBe(4);
    expect(second.body.data.sendChatMessage.conversation).toMatchObject({ id, messageCount: 4 });

    const read = await gql(owner, 'query($id: UUID!) { conversation(id: $id) { id title messages { position role content provider } } }', { id });
    expect(read.body.data.conversation.messages.map((m: { position: number; role: string }) => `${m.position}:${m.role}`)).toEqual([
      '1:user',
      '2:assistant',
      '3:user',
      '4:assistant',
    ]);
    expect(read.body.data.conversation.messages[2].content).toBe('and the fee comparison?');

    // The newest messages, still oldest first; first and last together, or out of range, are refused.
    const MESSAGES = 'query($id: UUID!, $first: Int, $last: Int) { conversation(id: $id) { messages(first: $first, last: $last) { position } } }';
    const newest = await gql(owner, MESSAGES, { id, last: 3 });
    expect(newest.body.data.conversation.messages.map((m: { position: number }) => m.position)).toEqual([2, 3, 4]);
    const oldest = await gql(owner, MESSAGES, { id, first: 3 });
    expect(oldest.body.data.conversation.messages.map((m: { position: number }) => m.position)).toEqual([1, 2, 3]);
    const both = await gql(owner, MESSAGES, { id, first: 1, last: 1 });
    expect(both.body.errors![0]).toMatchObject({ message: 'Invalid last: cannot be combined with first', extensions: { code: 'BAD_USER_INPUT' } });
    const tooMany = await gql(owner, MESSAGES, { id, last: 1001 });
    expect(tooMany.body.errors![0]).toMatchObject({ message: 'Invalid last: must be an integer between 1 and 1000', extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('concurrent messages to one conversation each get their own positions, the reply right after its question', async () => {
    const id = (await gql(owner, SEND, { input: { content: 'start' } })).body.data.sendChatMessage.conversation.id;
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => gql(owner, SEND, { input: { conversationId: id, content: `parallel ${i}` } })));
    for (const result of results) expect(result.body.errors).toBeUndefined();
    const rows = await server.services.prisma.conversationMessage.findMany({ where: { conversationId: id }, orderBy: { position: 'asc' } });
    expect(rows.map((row) => row.position)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (let i = 0; i < rows.length; i += 2) expect([rows[i].role, rows[i + 1].role]).toEqual(['user', 'assistant']);
  });

  it("conversations(first, after) lists the caller's own, most recently active first, with pagination", async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const made: string[] = [];
    for (const content of ['one', 'two', 'three']) made.push((await gql(user, SEND, { input: { content } })).body.data.sendChatMessage.conversation.id);
    // Activity moves a conversation to the top.
    await gql(user, SEND, { input: { conversationId: made[0], content: 'one again' } });
    const LIST =
      'query($first: Int, $after: String) { conversations(first: $first, after: $after) { edges { node { id title } } pageInfo { hasNextPage endCursor } } }';
    const page1 = await gql(user, LIST, { first: 2 });
    expect(page1.body.data.conversations.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['one', 'three']);
    expect(page1.body.data.conversations.pageInfo.hasNextPage).toBe(true);
    const page2 = await gql(user, LIST, { first: 2, after: page1.body.data.conversations.pageInfo.endCursor });
    expect(page2.body.data.conversations.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['two']);
    expect(page2.body.data.conversations.pageInfo.hasNextPage).toBe(false);
    const tooMany = await gql(user, LIST, { first: 101 });
    expect(tooMany.body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    // Nobody else's.
    const others = await gql(other, LIST, { first: 100 });
    expect(others.body.data.conversations.edges.map((e: { node: { id: string } }) => e.node.id)).not.toContain(made[0]);
  });

  it("another user's conversation is NOT_FOUND, for reading and for appending", async () => {
    const mine = (await gql(owner, SEND, { input: { content: 'private thoughts' } })).body.data.sendChatMessage.conversation.id;
    const read = await gql(other, 'query($id: UUID!) { conversation(id: $id) { id } }', { id: mine });
    expect(read.body.errors![0]).toMatchObject({ message: 'Conversation not found', extensions: { code: 'NOT_FOUND' } });
    const append = await gql(other, SEND, { input: { conversationId: mine, content: 'hello' } });
    expect(append.body.errors![0]).toMatchObject({ message: 'Conversation not found', extensions: { code: 'NOT_FOUND' } });
    expect(await server.services.prisma.conversationMessage.count({ where: { conversationId: mine } })).toBe(2);
  });

  it('bad input and scopes', async () => {
    const empty = await gql(owner, SEND, { input: { content: '  ' } });
    expect(empty.body.errors![0]).toMatchObject({ message: 'Invalid content: must not be empty', extensions: { code: 'BAD_USER_INPUT', field: 'content' } });
    const long = await gql(owner, SEND, { input: { content: 'x'.repeat(20_001) } });
    expect(long.body.errors![0].message).toBe('Invalid content: must be at most 20000 characters');
    const readOnly = await gql(reader, SEND, { input: { content: 'hi' } });
    expect(readOnly.body.errors![0].extensions?.code).toBe('FORBIDDEN');
    const list = await gql(reader, '{ conversations { edges { node { id } } } }');
    expect(list.body.errors).toBeUndefined();
    const noScope = await gql(outsider, '{ conversations { edges { node { id } } } }');
    expect(noScope.body.errors![0].extensions?.code).toBe('FORBIDDEN');
  });
});
