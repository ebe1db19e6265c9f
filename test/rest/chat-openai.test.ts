/**
 * POST /api/chat and sendChatMessage with CHAT_API_URL set, against a local fake
 * OpenAI-compatible chat-completions server (node:http on 127.0.0.1, port 0): the request it
 * receives (model, messages, Bearer key), and its failures as 502/504 bodies that never carry
 * the key.
 */
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenLocally } from '../helpers/listen-locally.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const CHAT_KEY = 'sk-fake-openai-3b9d7e1f5a2c4e6b8d0f1a3c5e7b9d2f';
const MODEL = 'test-model-1';
const TIMEOUT_MS = 400;

type Behaviour =
  | { kind: 'reply'; content: string }
  | { kind: 'status'; status: number }
  | { kind: 'slow' }
  | { kind: 'slow-body' }
  | { kind: 'raw'; body: string };

interface Received {
  method: string;
  path: string;
  authorization?: string;
  body: { model: string; messages: { role: string; content: string }[] } & Record<string, unknown>;
}

let behaviour: Behaviour = { kind: 'reply', content: 'Hello from the model.' };
const received: Received[] = [];
/** The answers a slow upstream holds back until the test lets them go (so a 504 can only come from CHAT_TIMEOUT). */
const heldAnswers: (() => void)[] = [];
const fake = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    });
    const json = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return json(404, { error: { message: 'not found' } });
    switch (behaviour.kind) {
      case 'reply':
        return json(200, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: behaviour.content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        });
      case 'status':
        return json(behaviour.status, { error: { message: `upstream failure, your key ${req.headers.authorization}`, type: 'server_error' } });
      case 'slow':
        heldAnswers.push(() => json(200, { choices: [{ message: { role: 'assistant', content: 'too late' } }] }));
        return;
      case 'slow-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices": [');
        heldAnswers.push(() => res.end('{"message": {"role": "assistant", "content": "too late"}}]}'));
        return;
      case 'raw':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(behaviour.body);
    }
  });
});

let server: TestServer;
let user: TestUser;
let other: TestUser;

beforeAll(async () => {
  const fakeUrl = `${await listenLocally(fake)}/v1`;
  server = await startTestServer({ CHAT_API_URL: fakeUrl, CHAT_API_KEY: CHAT_KEY, CHAT_MODEL: MODEL, CHAT_TIMEOUT: `${TIMEOUT_MS}ms`, LOG_LEVEL: 'silent' });
  user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
  other = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
});
afterAll(async () => {
  await server?.close();
  fake.closeAllConnections();
  await new Promise<void>((resolve) => fake.close(() => resolve()));
});
beforeEach(() => {
  behaviour = { kind: 'reply', content: 'Hello from the model.' };
  received.length = 0;
});

const chat = (messages: unknown) =>
  getJson(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ messages }),
  });

const SEND = `mutation($input: SendChatMessageInput!) { sendChatMessage(input: $input) { conversation { id messageCount } reply { role content provider } } }`;

describe('POST /api/chat with an OpenAI-compatible provider', () => {
  it('sends model and messages to {CHAT_API_URL}/chat/completions with the key as Bearer, and answers with the reply', async () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'What is a Modified Dietz return?' },
    ];
    const response = await chat(messages);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: { role: 'assistant', content: 'Hello from the model.' } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', authorization: `Bearer ${CHAT_KEY}` });
    expect(received[0].body).toEqual({ model: MODEL, messages });
  });

  it('upstream 500, 429 and 401 are 502 "Chat provider error: <status>" and never echo the key', async () => {
    for (const status of [500, 429, 401, 503]) {
      behaviour = { kind: 'status', status };
      const response = await chat([{ role: 'user', content: 'hi' }]);
      expect(response.status, String(status)).toBe(502);
      expect(response.body).toEqual({ error: `Chat provider error: ${status}` });
      expect(JSON.stringify(response.body)).not.toContain(CHAT_KEY);
    }
  });

  it('a slow upstream is 504 after CHAT_TIMEOUT, whether the headers or the body are late', async () => {
    for (const kind of ['slow', 'slow-body'] as const) {
      behaviour = { kind };
      const response = await chat([{ role: 'user', content: 'hi' }]);
      // The upstream still holds its answer: the 504 came from the deadline, not from a late reply.
      expect(heldAnswers, kind).toHaveLength(1);
      expect(response.status, kind).toBe(504);
      expect(response.body).toEqual({ error: `Chat provider timed out after ${TIMEOUT_MS}ms` });
      heldAnswers.pop()!();
    }
  });

  it('a malformed response is 502 "Chat provider error: malformed response"', async () => {
    for (const body of [
      'not json at all',
      '{}',
      '{"choices": []}',
      '{"choices": [{"message": {"role": "assistant", "content": null}}]}',
      '{"choices": [{"message": {"role": "assistant", "content": "   "}}]}',
      '{"choices": [{"text": "legacy completion"}]}',
    ]) {
      behaviour = { kind: 'raw', body };
      const response = await chat([{ role: 'user', content: 'hi' }]);
      expect(response.status, body).toBe(502);
      expect(response.body).toEqual({ error: 'Chat provider error: malformed response' });
    }
  });

  it('bad input never reaches the provider', async () => {
    const response = await chat([{ role: 'assistant', content: 'I speak first' }]);
    expect(response).toMatchObject({ status: 400, body: { error: 'Invalid messages: the last message must be from the user' } });
    expect(received).toHaveLength(0);
  });
});

describe('sendChatMessage with an OpenAI-compatible provider', () => {
  const gql = (as: TestUser, variables: Record<string, unknown>) => graphql(server.url, { 'x-api-key': as.key }, SEND, variables);

  it('sends the conversation history and stores the reply with provider "openai"', async () => {
    behaviour = { kind: 'reply', content: 'First answer.' };
    const first = await gql(user, { input: { content: 'First question' } });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.sendChatMessage.reply).toEqual({ role: 'assistant', content: 'First answer.', provider: 'openai' });
    const id = first.body.data.sendChatMessage.conversation.id;

    behaviour = { kind: 'reply', content: 'Second answer.' };
    const second = await gql(user, { input: { conversationId: id, content: 'Second question' } });
    expect(second.body.data.sendChatMessage.conversation.messageCount).toBe(4);
    expect(received.at(-1)?.body.messages).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question' },
    ]);
  });

  it('when the provider fails nothing is stored, and the error is BAD_GATEWAY / GATEWAY_TIMEOUT', async () => {
    const before = await server.services.prisma.conversation.count({ where: { userId: other.userId } });
    behaviour = { kind: 'status', status: 500 };
    const failed = await gql(other, { input: { content: 'Will fail' } });
    expect(failed.body.errors![0]).toMatchObject({ message: 'Chat provider error: 500', extensions: { code: 'BAD_GATEWAY' } });
    behaviour = { kind: 'slow' };
    const slow = await gql(other, { input: { content: 'Will time out' } });
    expect(slow.body.errors![0]).toMatchObject({ extensions: { code: 'GATEWAY_TIMEOUT' } });
    expect(await server.services.prisma.conversation.count({ where: { userId: other.userId } })).toBe(before);

    behaviour = { kind: 'reply', content: 'ok' };
    const id = (await gql(other, { input: { content: 'Works' } })).body.data.sendChatMessage.conversation.id;
    behaviour = { kind: 'status', status: 429 };
    await gql(other, { input: { conversationId: id, content: 'Fails' } });
    expect(await server.services.prisma.conversationMessage.count({ where: { conversationId: id } })).toBe(2);
  });
});
