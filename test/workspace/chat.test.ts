import http from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLocally } from '../helpers/listen-locally.ts';
import { likePattern, parseChatQuery, stemOf } from '../../src/workspace/chat/query.ts';
import { fitHistory, titleFrom, validateMessages } from '../../src/workspace/chat/chat-service.ts';
import { clock, composeOfflineAnswer, excerpt, OFFLINE_INTRO, quoteTitle } from '../../src/workspace/chat/offline-provider.ts';
import { OpenAiChatProvider } from '../../src/workspace/chat/openai-provider.ts';
import type { ChatMessage } from '../../src/workspace/chat/types.ts';
import { AppError } from '../../src/errors.ts';

describe('parseChatQuery', () => {
  it('keeps content words in order, drops stop words and duplicates, and stems lightly', () => {
    const query = parseChatQuery('What did we decide about the Q3 rebalancing of Harbor? Rebalancing again!');
    expect(query.keywords.map((k) => k.word)).toEqual(['decide', 'q3', 'rebalancing', 'harbor']);
    expect(query.keywords.map((k) => k.stem)).toEqual(['decide', 'q3', 'rebalanc', 'harbor']);
    expect(query.sources).toEqual([]);
  });

  it('turns words naming a kind of record into sources', () => {
    expect(parseChatQuery('show my open tasks and notes about fees')).toEqual({
      keywords: [
        { word: 'open', stem: 'open' },
        { word: 'fees', stem: 'fees' },
      ],
      sources: ['stickies', 'tasks'],
    });
    expect(parseChatQuery('latest news articles').sources).toEqual(['news']);
    // With only tasks named, "open" says which tasks (the listing's default), it is not searched for.
    expect(parseChatQuery('show my open tasks')).toEqual({ keywords: [], sources: ['tasks'] });
    expect(parseChatQuery('pending tasks about fees').keywords.map((k) => k.word)).toEqual(['fees']);
    expect(parseChatQuery('open banking notes').keywords.map((k) => k.word)).toEqual(['open', 'banking']);
    expect(parseChatQuery('the meeting with Ana').sources).toEqual(['transcripts']);
  });

  it('handles possessives, short tokens, numbers, unicode and the keyword cap', () => {
    expect(parseChatQuery("Ana's café plans").keywords.map((k) => k.word)).toEqual(['ana', 'café', 'plans']);
    expect(parseChatQuery('go to 42 or 2026').keywords.map((k) => k.word)).toEqual(['2026']);
    expect(parseChatQuery('hi? ok!!! ...').keywords).toEqual([]);
    expect(parseChatQuery('alpha bravo charlie delta echo foxtrot golf hotel india juliet').keywords).toHaveLength(8);
  });

  it('stems only when a useful stem remains', () => {
    expect(stemOf('policies')).toBe('polic');
    expect(stemOf('meetings')).toBe('meeting');
    expect(stemOf('decided')).toBe('decid');
    expect(stemOf('notes')).toBe('note');
    expect(stemOf('class')).toBe('class');
    expect(stemOf('status')).toBe('status');
    expect(stemOf('analysis')).toBe('analysis');
    expect(stemOf('bring')).toBe('bring');
  });

  it('escapes LIKE metacharacters', () => {
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});

describe('validateMessages', () => {
  const user = (content: string): ChatMessage => ({ role: 'user', content });
  const problem = (messages: ChatMessage[]) => {
    try {
      validateMessages(messages);
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).extensions).toMatchObject({ field: 'messages', code: 'BAD_USER_INPUT' });
      return (error as AppError).message;
    }
  };

  it('accepts 1 to 50 messages ending with the user, up to the limits', () => {
    expect(problem([user('hi')])).toBeNull();
    expect(problem(Array.from({ length: 50 }, () => user('x')))).toBeNull();
    expect(problem([user('x'.repeat(20_000))])).toBeNull();
    expect(problem([...Array.from({ length: 4 }, () => user('x'.repeat(20_000))), user('x'.repeat(20_000))])).toBeNull();
    expect(validateMessages([{ role: 'system', content: 's' }, user('u')])).toEqual([{ role: 'system', content: 's' }, user('u')]);
  });

  it('refuses the rest, naming the message', () => {
    expect(problem([])).toBe('Invalid messages: must hold between 1 and 50 messages, got 0');
    expect(problem(Array.from({ length: 51 }, () => user('x')))).toBe('Invalid messages: must hold between 1 and 50 messages, got 51');
    expect(problem([user('a'), user(' \n ')])).toBe('Invalid messages: message 2: content must not be empty');
    expect(problem([user('x'.repeat(20_001))])).toBe('Invalid messages: message 1: content must be at most 20000 characters');
    expect(problem([...Array.from({ length: 5 }, () => user('x'.repeat(20_000))), user('y')])).toBe(
      'Invalid messages: the messages may hold at most 100000 characters in all, got 100001',
    );
    expect(problem([user('a'), { role: 'assistant', content: 'b' }])).toBe('Invalid messages: the last message must be from the user');
    expect(problem([{ role: 'tool' as never, content: 'b' }])).toBe('Invalid messages: message 1: role must be one of user, assistant, system');
  });
});

describe('conversation helpers', () => {
  it('fitHistory keeps the newest messages within 50 messages and 100,000 characters, always the last', () => {
    const many = Array.from({ length: 60 }, (_, i): ChatMessage => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));
    const fitted = fitHistory(many);
    expect(fitted).toHaveLength(50);
    expect(fitted[0].content).toBe('m10');
    expect(fitted.at(-1)?.content).toBe('m59');
    const big = [
      { role: 'user', content: 'x'.repeat(60_000) },
      { role: 'assistant', content: 'y'.repeat(50_000) },
      { role: 'user', content: 'z' },
    ] as ChatMessage[];
    expect(fitHistory(big).map((m) => m.content.length)).toEqual([50_000, 1]);
    const huge = [{ role: 'user', content: 'x'.repeat(150_000) }] as ChatMessage[];
    expect(fitHistory(huge)).toHaveLength(1);
  });

  it('titleFrom: one line, at most 80 characters', () => {
    expect(titleFrom('  Hello\n\nworld  ')).toBe('Hello world');
    const long = titleFrom('word '.repeat(40));
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
    expect(titleFrom('x'.repeat(80))).toBe('x'.repeat(80));
  });
});

describe('composeOfflineAnswer', () => {
  const query = parseChatQuery('rebalance plan');

  it('starts with the offline notice and cites each hit', () => {
    const answer = composeOfflineAnswer(
      query,
      {
        stickies: { rows: [{ id: '3f2a9c1b-0000-4000-8000-000000000000', content: 'Rebalance plan for Q3', tags: [] }], more: true },
        tasks: {
          rows: [
            {
              id: 't1',
              title: 'Rebalance the growth sleeve of the Harbor fund',
              status: 'in_progress',
              priority: 'high',
              dueDate: null,
              assignee: 'Ana',
              description: null,
              comments: '',
            },
          ],
          more: false,
        },
      },
      [],
    );
    expect(answer.startsWith(OFFLINE_INTRO)).toBe(true);
    expect(answer).toContain('Searching your stickies, links, transcripts, tasks and news for "rebalance" and "plan", I found:');
    // Citations are Markdown links to the record in the dashboard (the Chat page renders them clickable).
    expect(answer).toContain('Stickies (1+):\n- Rebalance plan for Q3 [sticky 3f2a9c1b…](#/stickies)\n- …and more; add a word to narrow the search.');
    expect(answer).toContain(
      '- Rebalance the growth sleeve of the Harbor fund (in progress, high priority, assigned to Ana) [task "Rebalance the growth sleeve…"](#/tasks/t1)',
    );
  });

  it('says when nothing matched and suggests tags', () => {
    const answer = composeOfflineAnswer(query, { stickies: { rows: [], more: false } }, ['q3', 'fees']);
    expect(answer).toBe(
      `${OFFLINE_INTRO}\n\nI found nothing in your stickies, links, transcripts, tasks or news matching "rebalance" or "plan". ` +
        "Try another word from a note's text, a task title, a tag or label, a link's site or a speaker's name. Your most used tags and labels: q3, fees.\n\n" +
        'I also answer questions about your data, for example: "What is the time-weighted return of DC-1001 this year?", ' +
        '"How many returns of DC-1001 match the custodian?", "Which files failed and why?".',
    );
  });

  it('formatting helpers', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(754.5)).toBe('12:34');
    expect(clock(3725)).toBe('1:02:05');
    expect(quoteTitle('A "quoted"\ntitle')).toBe(`"A 'quoted' title"`);
    expect(quoteTitle('x'.repeat(40))).toBe(`"${'x'.repeat(29)}…"`);
    const text = `${'lorem '.repeat(50)}the rebalance decision ${'ipsum '.repeat(50)}`;
    const cut = excerpt(text, ['rebalanc'], 60);
    expect(cut).toContain('rebalance');
    expect(cut.startsWith('…')).toBe(true);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(62);
    expect(excerpt('short', ['x'], 60)).toBe('short');
  });
});

describe('OpenAiChatProvider never logs the key', () => {
  const KEY = 'sk-never-log-me-0123456789abcdef';
  let fake: http.Server;
  let url = '';
  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `bad key ${req.headers.authorization}` }));
    });
    url = `${await listenLocally(fake)}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

  it('logs the failure without the key, and the error carries only the status', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'trace' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
    const provider = new OpenAiChatProvider({ apiUrl: url, apiKey: KEY, model: 'm', timeoutMs: 2000, log });
    await expect(provider.reply({ userId: 'u', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      message: 'Chat provider error: 500',
      code: 'BAD_GATEWAY',
    });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(KEY);
    const unreachable = new OpenAiChatProvider({ apiUrl: 'http://127.0.0.1:1/v1', apiKey: KEY, model: 'm', timeoutMs: 2000, log });
    await expect(unreachable.reply({ userId: 'u', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      message: 'Chat provider error: unreachable',
    });
    expect(lines.join('')).not.toContain(KEY);
  });
});
