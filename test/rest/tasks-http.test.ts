/**
 * /api/pm/tasks with TASK_PROVIDER=http, against a local fake of the project-management tool's
 * HTTP API (node:http on 127.0.0.1, port 0): the same endpoints and shapes as the built-in
 * provider, the caller's identity as the task owner, and the tool's failures as 502/504/404.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenLocally } from '../helpers/listen-locally.ts';
import type { TestServer } from '../helpers/server.ts';
import { startServerWithUsers, WORKSPACE_MEMBER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';

const PM_KEY = 'pm_live_7c2f0e9d4b1a48f3a9e2d6c5b8a71f04';
const TIMEOUT_MS = 400;

interface FakeTask {
  id: string;
  owner: string;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  assignee: string | null;
  due_date: string | null;
  labels: string[];
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

interface FakeComment {
  id: string;
  task_id: string;
  author_id: string;
  author_name: string | null;
  body: string;
  created_at: string;
}

interface Recorded {
  method: string;
  url: string;
  authorization?: string;
  body?: any;
}

/** The project-management tool, in memory. `failure` makes every request fail in one way. */
class FakePmTool {
  tasks = new Map<string, FakeTask>();
  comments = new Map<string, FakeComment[]>();
  requests: Recorded[] = [];
  failure: null | { status: number } | 'slow' | 'not-json' | 'wrong-shape' = null;
  /** Tasks of this other owner are added to every list answer (a tool that ignores `owner`). */
  leakOwner: string | null = null;
  server = http.createServer((req, res) => void this.handle(req, res));
  url = '';
  private clock = Date.parse('2026-11-01T09:00:00.000Z');

  async start() {
    this.url = await listenLocally(this.server);
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private now() {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (this.failure === 'slow') {
      setTimeout(() => send(200, { tasks: [], next_cursor: null }), TIMEOUT_MS * 5);
      return;
    }
    if (this.failure === 'not-json') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
      return;
    }
    if (this.failure === 'wrong-shape') return send(200, { items: [{ name: 'not a task' }], id: 'x', comments: 'none' });
    if (this.failure) return send(this.failure.status, { error: 'upstream says no', key_seen: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${PM_KEY}`) return send(401, { error: 'bad key' });

    const url = new URL(req.url ?? '/', this.url);
    const parts = url.pathname
      .replace(/^\/api\/v1/, '')
      .split('/')
      .filter(Boolean);
    if (parts[0] !== 'tasks') return send(404, { error: 'no route' });
    if (parts.length === 1 && req.method === 'GET') {
      const owner = url.searchParams.get('owner');
      const statuses = url.searchParams.get('status')?.split(',');
      const assignee = url.searchParams.get('assignee')?.toLowerCase();
      const label = url.searchParams.get('label');
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      const all = [...this.tasks.values()]
        .filter((task) => task.owner === owner || task.owner === this.leakOwner)
        .filter((task) => !statuses || statuses.includes(task.status))
        .filter((task) => !assignee || task.assignee?.toLowerCase() === assignee)
        .filter((task) => !label || task.labels.includes(label))
        .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
      const page = all.slice(offset, offset + limit);
      return send(200, { tasks: page, next_cursor: offset + limit < all.length ? String(offset + limit) : null });
    }
    if (parts.length === 1 && req.method === 'POST') {
      const now = this.now();
      const task: FakeTask = { id: randomUUID(), created_at: now, updated_at: now, completed_at: body.status === 'done' ? now : null, ...body };
      this.tasks.set(task.id, task);
      return send(201, task);
    }
    const task = this.tasks.get(parts[1]);
    if (!task) return send(404, { error: 'task not found' });
    if (parts.length === 2 && req.method === 'GET') return send(200, { ...task, comments: this.comments.get(task.id) ?? [] });
    if (parts.length === 2 && req.method === 'PATCH') {
      const now = this.now();
      if (body.status && body.status !== task.status) task.completed_at = body.status === 'done' ? now : null;
      Object.assign(task, body, { updated_at: now });
      return send(200, task);
    }
    if (parts.length === 3 && parts[2] === 'comments' && req.method === 'POST') {
      const comment: FakeComment = { id: randomUUID(), task_id: task.id, created_at: this.now(), ...body };
      this.comments.set(task.id, [...(this.comments.get(task.id) ?? []), comment]);
      return send(201, comment);
    }
    return send(405, { error: 'method' });
  }
}

let fake: FakePmTool;
let server: TestServer, owner: TestUser, other: TestUser;
beforeAll(async () => {
  fake = new FakePmTool();
  await fake.start();
  const env = { TASK_PROVIDER: 'http', PM_API_URL: `${fake.url}/api/v1/`, PM_API_KEY: PM_KEY, PM_API_TIMEOUT: `${TIMEOUT_MS}ms` };
  ({ server, owner, other } = await startServerWithUsers({ owner: WORKSPACE_MEMBER, other: WORKSPACE_MEMBER }, env));
});
afterAll(async () => {
  await server?.close();
  await fake?.stop().catch(() => {});
});
beforeEach(() => {
  fake.failure = null;
  fake.leakOwner = null;
});

function api(user: TestUser, path: string, init: { method?: string; body?: unknown } = {}) {
  return getJson(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': user.key, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function createTask(user: TestUser, body: Record<string, unknown>) {
  const response = await api(user, '/api/pm/tasks', { method: 'POST', body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as Record<string, any>;
}

describe('the http task provider against the fake tool', () => {
  it('creates through POST {PM_API_URL}/tasks with the caller as owner and the key as Bearer', async () => {
    fake.requests = [];
    const task = await createTask(owner, { title: ' Call the custodian ', labels: ['Ops', 'ops'], due_date: '2026-12-01', priority: 'high' });
    expect(task).toMatchObject({ title: 'Call the custodian', labels: ['ops'], due_date: '2026-12-01', priority: 'high', status: 'todo', completed_at: null });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', url: '/api/v1/tasks', authorization: `Bearer ${PM_KEY}` });
    expect(fake.requests[0].body).toEqual({
      owner: owner.userId,
      title: 'Call the custodian',
      description: null,
      status: 'todo',
      priority: 'high',
      assignee: null,
      due_date: '2026-12-01',
      labels: ['ops'],
    });
    expect(fake.tasks.get(task.id)?.owner).toBe(owner.userId);
  });

  it("lists the caller's tasks with the filters passed on, and pages with the tool's cursors", async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    for (const title of ['one', 'two', 'three']) await createTask(user, { title, assignee: 'Ana', labels: ['q4'] });
    fake.requests = [];
    const first = await api(user, '/api/pm/tasks?limit=2&status=todo,blocked&assignee=ana&label=Q4');
    expect(first.status).toBe(200);
    expect(first.body.data.map((t: { title: string }) => t.title)).toEqual(['three', 'two']);
    expect(first.body.pagination).toEqual({ has_more: true, next_cursor: '2' });
    const query = new URL(fake.requests[0].url, fake.url).searchParams;
    expect(Object.fromEntries(query)).toEqual({ owner: user.userId, limit: '2', status: 'todo,blocked', assignee: 'ana', label: 'q4' });
    const second = await api(user, '/api/pm/tasks?limit=2&cursor=2');
    expect(second.body.data.map((t: { title: string }) => t.title)).toEqual(['one']);
    expect(second.body.pagination).toEqual({ has_more: false, next_cursor: null });
  });

  it("never lists another owner's task, even when the tool returns one", async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const secret = await createTask(other, { title: 'Other owner' });
    fake.leakOwner = other.userId;
    const response = await api(user, '/api/pm/tasks?limit=200');
    expect(response.status).toBe(200);
    expect(response.body.data.map((t: { id: string }) => t.id)).not.toContain(secret.id);
  });

  it('reads one task with its comments and adds comments with the author', async () => {
    const task = await createTask(owner, { title: 'With comments' });
    const added = await api(owner, `/api/pm/tasks/${task.id}/comments`, { method: 'POST', body: { body: 'First' } });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ author_id: owner.userId, author_name: owner.email, body: 'First' });
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'POST',
      url: `/api/v1/tasks/${task.id}/comments`,
      body: { author_id: owner.userId, author_name: owner.email, body: 'First' },
    });
    await api(owner, `/api/pm/tasks/${task.id}/comments`, { method: 'POST', body: { body: 'Second' } });
    const read = await api(owner, `/api/pm/tasks/${task.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.comments.map((c: { body: string }) => c.body)).toEqual(['First', 'Second']);
  });

  it('updates through PATCH with only the changed fields; the workflow is checked before the tool is asked', async () => {
    const task = await createTask(owner, { title: 'Flow' });
    fake.requests = [];
    const moved = await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { status: 'in_progress', assignee: 'Ben' } });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ status: 'in_progress', assignee: 'Ben' });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET', 'PATCH']);
    expect(fake.requests[1].body).toEqual({ status: 'in_progress', assignee: 'Ben' });

    fake.requests = [];
    const refused = await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { status: 'todo' } });
    expect(refused).toMatchObject({ status: 409, body: { error: 'Cannot move a task from in_progress to todo' } });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('404: an unknown task, and a task the tool holds for another owner', async () => {
    const theirs = await createTask(other, { title: 'Not yours' });
    expect(await api(owner, `/api/pm/tasks/${randomUUID()}`)).toMatchObject({ status: 404, body: { error: 'Task not found' } });
    expect(await api(owner, `/api/pm/tasks/${theirs.id}`)).toMatchObject({ status: 404, body: { error: 'Task not found' } });
    fake.requests = [];
    expect(await api(owner, `/api/pm/tasks/${theirs.id}`, { method: 'PATCH', body: { title: 'Mine' } })).toMatchObject({ status: 404 });
    expect(await api(owner, `/api/pm/tasks/${theirs.id}/comments`, { method: 'POST', body: { body: 'hi' } })).toMatchObject({ status: 404 });
    expect(fake.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(fake.tasks.get(theirs.id)?.title).toBe('Not yours');
  });

  it('bad input is refused with 400 before the tool is asked', async () => {
    fake.requests = [];
    expect(await api(owner, '/api/pm/tasks', { method: 'POST', body: { title: '' } })).toMatchObject({
      status: 400,
      body: { error: 'Invalid title: must not be empty' },
    });
    expect(fake.requests).toEqual([]);
  });

  it('upstream 5xx and 401 are 502 "Task provider error: <status>", without the key', async () => {
    const task = await createTask(owner, { title: 'Soon broken' });
    for (const status of [500, 503, 401, 429]) {
      fake.failure = { status };
      for (const response of [
        await api(owner, '/api/pm/tasks'),
        await api(owner, `/api/pm/tasks/${task.id}`),
        await api(owner, '/api/pm/tasks', { method: 'POST', body: { title: 'x' } }),
      ]) {
        expect(response).toMatchObject({ status: 502, body: { error: `Task provider error: ${status}` } });
        expect(JSON.stringify(response.body)).not.toContain(PM_KEY);
      }
    }
  });

  it('upstream 409 is 409', async () => {
    const task = await createTask(owner, { title: 'Conflicted' });
    const original = fake.failure;
    // Only the PATCH conflicts: let the GET through by failing after it.
    const handler = fake.server.listeners('request')[0] as (req: http.IncomingMessage, res: http.ServerResponse) => void;
    fake.server.removeAllListeners('request');
    fake.server.on('request', (req, res) => {
      if (req.method === 'PATCH') {
        res.writeHead(409, { 'content-type': 'application/json' });
        res.end('{"error":"locked"}');
        return;
      }
      handler(req, res);
    });
    try {
      expect(await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { title: 'x' } })).toMatchObject({ status: 409 });
    } finally {
      fake.server.removeAllListeners('request');
      fake.server.on('request', handler);
      fake.failure = original;
    }
  });

  it('a slow tool is 504 after PM_API_TIMEOUT', async () => {
    fake.failure = 'slow';
    const started = Date.now();
    const response = await api(owner, '/api/pm/tasks');
    expect(response).toMatchObject({ status: 504, body: { error: `Task provider timed out after ${TIMEOUT_MS}ms` } });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);
  });

  it('a body that is not JSON or not the API\'s shape is 502 "malformed response"', async () => {
    const task = await createTask(owner, { title: 'Malformed soon' });
    for (const failure of ['not-json', 'wrong-shape'] as const) {
      fake.failure = failure;
      expect(await api(owner, '/api/pm/tasks'), failure).toMatchObject({ status: 502, body: { error: 'Task provider error: malformed response' } });
      expect(await api(owner, `/api/pm/tasks/${task.id}`), failure).toMatchObject({ status: 502, body: { error: 'Task provider error: malformed response' } });
    }
  });

  it('an unreachable tool is 502 (last: stops the fake)', async () => {
    await fake.stop();
    expect(await api(owner, '/api/pm/tasks')).toMatchObject({ status: 502, body: { error: 'Task provider error: unreachable' } });
  });
});
