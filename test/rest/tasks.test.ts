/**
 * /api/pm/tasks with the built-in task provider, through real HTTP: create, read, list with
 * filters and pagination, update with the status workflow, comments, errors, isolation between
 * users, and GraphQL parity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID, ISO } from '../helpers/formats.ts';
import { type TestServer } from '../helpers/server.ts';
import { startServerWithUsers, WORKSPACE_MEMBER, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { TASK_TRANSITIONS } from '../../src/workspace/tasks/workflow.ts';
import { TASK_STATUSES, type TaskStatus } from '../../src/workspace/tasks/types.ts';
import { seedTasks } from '../../src/seed/workspace-tasks.ts';

const TASK_KEYS = ['id', 'title', 'description', 'status', 'priority', 'assignee', 'due_date', 'labels', 'created_at', 'updated_at', 'completed_at'];

let server: TestServer;
let owner: TestUser, other: TestUser, reader: TestUser, outsider: TestUser;
beforeAll(async () => {
  ({ server, owner, other, reader, outsider } = await startServerWithUsers({
    owner: WORKSPACE_MEMBER,
    other: WORKSPACE_MEMBER,
    reader: { ...WORKSPACE_READER, role: 'member' },
    outsider: { scopes: ['read:returns'], role: 'member' },
  }));
});
afterAll(() => server?.close());

function api(user: TestUser | null, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(user ? { 'x-api-key': user.key } : {}), ...init.headers };
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  return getJson(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
}

async function createTask(user: TestUser, body: Record<string, unknown>) {
  const response = await api(user, '/api/pm/tasks', { method: 'POST', body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as Record<string, any>;
}

/** A task with its status set directly in the database (to start a workflow check from any status). */
async function taskIn(status: TaskStatus, user = owner) {
  const task = await createTask(user, { title: `In ${status}` });
  await server.services.prisma.task.update({ where: { id: task.id }, data: { status, completedAt: status === 'done' ? new Date() : null } });
  return task.id as string;
}

describe('POST /api/pm/tasks', () => {
  it('creates a task: 201 with the record and the documented defaults', async () => {
    const response = await api(owner, '/api/pm/tasks', { method: 'POST', body: { title: '  Rebalance the growth sleeve  ' } });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    const task = response.body.data;
    expect(Object.keys(task).sort()).toEqual([...TASK_KEYS].sort());
    expect(task).toMatchObject({
      title: 'Rebalance the growth sleeve',
      description: null,
      status: 'todo',
      priority: 'medium',
      assignee: null,
      due_date: null,
      labels: [],
      completed_at: null,
    });
    expect(task.id).toMatch(UUID);
    expect(task.created_at).toMatch(ISO);
    expect(task.updated_at).toBe(task.created_at);
    const row = await server.services.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.userId).toBe(owner.userId);
  });

  it('stores every field, normalising labels like tags', async () => {
    const task = await createTask(owner, {
      title: 'Review Q3 fee schedule',
      description: 'Compare the custodian fee schedule with last year.',
      status: 'in_progress',
      priority: 'urgent',
      assignee: '  Ana Silva ',
      due_date: '2026-12-15',
      labels: [' Fees', 'fees', 'Q3 '],
    });
    expect(task).toMatchObject({
      description: 'Compare the custodian fee schedule with last year.',
      status: 'in_progress',
      priority: 'urgent',
      assignee: 'Ana Silva',
      due_date: '2026-12-15',
      labels: ['fees', 'q3'],
      completed_at: null,
    });
  });

  it('a single label string is a one-item list (GraphQL input coercion)', async () => {
    expect((await createTask(owner, { title: 'One label', labels: ' Fees ' })).labels).toEqual(['fees']);
  });

  it('a task created as done has completed_at', async () => {
    const task = await createTask(owner, { title: 'Already done', status: 'done' });
    expect(task.completed_at).toMatch(ISO);
  });

  it('400 naming the field for every bad input; nothing is stored', async () => {
    const before = await server.services.prisma.task.count();
    const cases: [Record<string, unknown> | string, RegExp][] = [
      [{}, /^Missing required parameter: title$/],
      [{ title: '   ' }, /^Invalid title: must not be empty$/],
      [{ title: 'x'.repeat(501) }, /^Invalid title: must be at most 500 characters$/],
      [{ title: 'ok', description: 'x'.repeat(20_001) }, /^Invalid description: must be at most 20000 characters$/],
      [{ title: 'ok', assignee: 'x'.repeat(201) }, /^Invalid assignee: must be at most 200 characters$/],
      [{ title: 'ok', due_date: '2026-02-30' }, /^Invalid due_date: /],
      [{ title: 'ok', due_date: 'tomorrow' }, /^Invalid due_date: /],
      [{ title: 'ok', priority: 'critical' }, /^Invalid priority: must be one of low, medium, high, urgent/],
      [{ title: 'ok', status: 'doing' }, /^Invalid status: must be one of todo, in_progress, blocked, done, cancelled/],
      [{ title: 'ok', labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, /^Invalid labels: at most 20 tags$/],
      [{ title: 'ok', labels: ['x'.repeat(51)] }, /^Invalid labels: each tag may be at most 50 characters$/],
      [{ title: 'ok', labels: [7] }, /^Invalid labels: /],
      [{ title: 'ok', labels: { a: 1 } }, /^Invalid labels: /],
      [{ title: 42 }, /^Invalid title: /],
      [{ title: 'ok', owner: 'me' }, /^Unknown field: owner$/],
      ['{"title": ', /^Malformed JSON body$/],
    ];
    for (const [body, error] of cases) {
      const response = await api(owner, '/api/pm/tasks', { method: 'POST', body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(response.body.error).toMatch(error);
    }
    expect(await server.services.prisma.task.count()).toBe(before);
  });

  it('401 without or with a bad credential, 403 without write:workspace, 415 with another content type', async () => {
    expect(await api(null, '/api/pm/tasks', { method: 'POST', body: { title: 'x' } })).toMatchObject({
      status: 401,
      body: { error: 'Invalid or expired API key' },
    });
    expect(await api(null, '/api/pm/tasks', { method: 'POST', body: { title: 'x' }, headers: { 'x-api-key': 'sk_0000' } })).toMatchObject({ status: 401 });
    expect(await api(reader, '/api/pm/tasks', { method: 'POST', body: { title: 'x' } })).toMatchObject({
      status: 403,
      body: { error: 'Insufficient permissions' },
    });
    const response = await api(owner, '/api/pm/tasks', { method: 'POST', body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response).toMatchObject({ status: 415, body: { error: 'Content-Type must be application/json' } });
  });
});

describe('GET /api/pm/tasks/{id}', () => {
  it('returns the task with its comments, oldest first', async () => {
    const task = await createTask(owner, { title: 'Draft the client letter' });
    for (const body of ['First thought', 'Second thought', 'Third thought']) {
      expect((await api(owner, `/api/pm/tasks/${task.id}/comments`, { method: 'POST', body: { body } })).status).toBe(201);
    }
    const response = await api(owner, `/api/pm/tasks/${task.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.data).sort()).toEqual([...TASK_KEYS, 'comments'].sort());
    const comments = response.body.data.comments;
    expect(comments.map((c: { body: string }) => c.body)).toEqual(['First thought', 'Second thought', 'Third thought']);
    expect(Object.keys(comments[0]).sort()).toEqual(['author_id', 'author_name', 'body', 'created_at', 'id']);
    expect(comments[0]).toMatchObject({ author_id: owner.userId, author_name: owner.email });
  });

  it("404 for an unknown id and for another user's task; 400 for a malformed id; 401/403", async () => {
    const task = await createTask(owner, { title: 'Private task' });
    expect(await api(owner, '/api/pm/tasks/6f1c1f52-3f0e-4f7e-9a51-1b2c3d4e5f60')).toMatchObject({ status: 404, body: { error: 'Task not found' } });
    expect(await api(other, `/api/pm/tasks/${task.id}`)).toMatchObject({ status: 404, body: { error: 'Task not found' } });
    const malformed = await api(owner, '/api/pm/tasks/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Invalid id: must be a UUID/);
    expect((await api(null, `/api/pm/tasks/${task.id}`)).status).toBe(401);
    expect(await api(outsider, `/api/pm/tasks/${task.id}`)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect((await api(reader, `/api/pm/tasks/${task.id}`)).status).toBe(404);
  });
});

describe('GET /api/pm/tasks', () => {
  let user: TestUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const specs = [
      { title: 'A', status: 'todo', assignee: 'Ana', labels: ['ops'] },
      { title: 'B', status: 'in_progress', assignee: 'ana', labels: ['ops', 'fees'] },
      { title: 'C', status: 'blocked', assignee: 'Ben', labels: ['fees'] },
      { title: 'D', status: 'done', labels: [] },
      { title: 'E', status: 'cancelled', assignee: 'Ben', labels: ['Ops'] },
    ];
    for (const spec of specs) ids[spec.title] = (await createTask(user, spec)).id;
  });

  const titles = (body: { data: { title: string }[] }) => body.data.map((task) => task.title);

  it("lists only the caller's tasks, most recently updated first", async () => {
    const response = await api(user, '/api/pm/tasks');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'pagination']);
    expect(titles(response.body)).toEqual(['E', 'D', 'C', 'B', 'A']);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...TASK_KEYS].sort());
    // Updating a task moves it to the top.
    expect((await api(user, `/api/pm/tasks/${ids.A}`, { method: 'PATCH', body: { priority: 'high' } })).status).toBe(200);
    expect(titles((await api(user, '/api/pm/tasks')).body)).toEqual(['A', 'E', 'D', 'C', 'B']);
    // And a comment does too.
    expect((await api(user, `/api/pm/tasks/${ids.C}/comments`, { method: 'POST', body: { body: 'waiting on legal' } })).status).toBe(201);
    expect(titles((await api(user, '/api/pm/tasks')).body)).toEqual(['C', 'A', 'E', 'D', 'B']);
  });

  it('filters by one status or several, by assignee (case-insensitive) and by label (normalised)', async () => {
    expect(titles((await api(user, '/api/pm/tasks?status=blocked')).body)).toEqual(['C']);
    expect(titles((await api(user, '/api/pm/tasks?status=todo,in_progress,blocked')).body).sort()).toEqual(['A', 'B', 'C']);
    expect(titles((await api(user, '/api/pm/tasks?assignee=ANA')).body).sort()).toEqual(['A', 'B']);
    expect(titles((await api(user, '/api/pm/tasks?label=%20OPS%20')).body).sort()).toEqual(['A', 'B', 'E']);
    expect(titles((await api(user, '/api/pm/tasks?label=fees&assignee=ben&status=blocked,done')).body)).toEqual(['C']);
    expect(titles((await api(user, '/api/pm/tasks?label=nothing')).body)).toEqual([]);
  });

  it('pages with limit and cursor without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await api(user, `/api/pm/tasks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...titles(response.body));
      cursor = response.body.pagination.next_cursor;
      expect(response.body.pagination.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(titles((await api(user, '/api/pm/tasks')).body));
  });

  it('400 for a bad limit, cursor or status; 401 and 403', async () => {
    for (const [query, error] of [
      ['limit=0', /^Invalid limit: must be an integer between 1 and 200$/],
      ['limit=201', /^Invalid limit: must be an integer between 1 and 200$/],
      ['limit=ten', /^Invalid limit: /],
      ['cursor=bogus', /^Invalid cursor: is not a cursor this endpoint issued$/],
      ['status=todo,doing', /^Invalid status: /],
      ['label=a,b', /^Invalid label: /],
    ] as const) {
      const response = await api(user, `/api/pm/tasks?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error, query).toMatch(error);
    }
    expect((await api(null, '/api/pm/tasks')).status).toBe(401);
    expect((await api(outsider, '/api/pm/tasks')).status).toBe(403);
    expect((await api(reader, '/api/pm/tasks')).body.data).toEqual([]);
  });
});

describe('PATCH /api/pm/tasks/{id}', () => {
  it('changes the fields given and keeps the others; null clears optional fields', async () => {
    const task = await createTask(owner, {
      title: 'Old title',
      description: 'Some text',
      assignee: 'Ben',
      due_date: '2026-12-01',
      labels: ['a', 'b'],
      priority: 'low',
    });
    const response = await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { title: 'New title', labels: ['B', 'c'] } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      title: 'New title',
      description: 'Some text',
      assignee: 'Ben',
      due_date: '2026-12-01',
      labels: ['b', 'c'],
      priority: 'low',
    });
    expect(Date.parse(response.body.data.updated_at)).toBeGreaterThan(Date.parse(task.updated_at));
    const cleared = await api(owner, `/api/pm/tasks/${task.id}`, {
      method: 'PATCH',
      body: { description: null, assignee: null, due_date: null, labels: null },
    });
    expect(cleared.body.data).toMatchObject({ title: 'New title', description: null, assignee: null, due_date: null, labels: [] });
  });

  it('an update that changes nothing writes nothing (updated_at stays)', async () => {
    const task = await createTask(owner, { title: 'Steady', priority: 'high', labels: ['x'] });
    for (const body of [{}, { title: 'Steady', priority: 'high', labels: ['X'], status: 'todo' }]) {
      const response = await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body });
      expect(response.status).toBe(200);
      expect(response.body.data.updated_at).toBe(task.updated_at);
    }
  });

  it('follows the documented workflow: every allowed move is 200, every other one 409', async () => {
    for (const from of TASK_STATUSES) {
      for (const to of TASK_STATUSES) {
        if (from === to) continue;
        const id = await taskIn(from);
        const response = await api(owner, `/api/pm/tasks/${id}`, { method: 'PATCH', body: { status: to } });
        if (TASK_TRANSITIONS[from].includes(to)) {
          expect(response.status, `${from} -> ${to}`).toBe(200);
          expect(response.body.data.status).toBe(to);
        } else {
          expect(response.status, `${from} -> ${to}`).toBe(409);
          expect(response.body).toEqual({ error: `Cannot move a task from ${from} to ${to}` });
          expect((await server.services.prisma.task.findUniqueOrThrow({ where: { id } })).status).toBe(from);
        }
      }
    }
    // The documented table itself, so a change to it is a deliberate one.
    expect(TASK_TRANSITIONS).toEqual({
      todo: ['in_progress', 'cancelled'],
      in_progress: ['done', 'blocked', 'cancelled'],
      blocked: ['in_progress', 'cancelled'],
      done: ['in_progress'],
      cancelled: ['todo'],
    });
  });

  it('completed_at is set entering done and cleared leaving it', async () => {
    const task = await createTask(owner, { title: 'Ship it' });
    const move = (status: string) => api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { status } });
    expect((await move('in_progress')).body.data.completed_at).toBeNull();
    const done = (await move('done')).body.data;
    expect(done.completed_at).toMatch(ISO);
    expect((await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { status: 'done', title: 'Shipped' } })).body.data.completed_at).toBe(
      done.completed_at,
    );
    expect((await move('in_progress')).body.data.completed_at).toBeNull();
  });

  it('two concurrent moves of one task are serialised: one wins, the other is checked against its result', async () => {
    // Several rounds at once: without the row lock both moves pass the check on PostgreSQL.
    const rounds = await Promise.all(Array.from({ length: 6 }, () => taskIn('in_progress')));
    await Promise.all(
      rounds.map(async (id) => {
        const responses = await Promise.all(['done', 'blocked'].map((status) => api(owner, `/api/pm/tasks/${id}`, { method: 'PATCH', body: { status } })));
        expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
        const winner = responses.find((r) => r.status === 200)!.body.data.status;
        expect((await server.services.prisma.task.findUniqueOrThrow({ where: { id } })).status).toBe(winner);
      }),
    );
  });

  it("400 for bad input, 404 for unknown and other users' tasks, 401/403", async () => {
    const task = await createTask(owner, { title: 'Guarded' });
    for (const [body, error] of [
      [{ title: '' }, /^Invalid title: must not be empty$/],
      [{ title: null }, /^Invalid title: must not be null$/],
      [{ status: null }, /^Invalid status: must not be null$/],
      [{ priority: 'whenever' }, /^Invalid priority: /],
      [{ due_date: '15/12/2026' }, /^Invalid due_date: /],
      [{ completed_at: '2026-01-01T00:00:00Z' }, /^Unknown field: completed_at$/],
      // The path names the task: a body `id` cannot redirect the update to another one.
      [{ id: '6f1c1f52-3f0e-4f7e-9a51-1b2c3d4e5f60', title: 'x' }, /^Unknown field: id$/],
    ] as const) {
      const response = await api(owner, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatch(error);
    }
    expect(await api(other, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { title: 'Mine now' } })).toMatchObject({
      status: 404,
      body: { error: 'Task not found' },
    });
    expect((await api(owner, '/api/pm/tasks/6f1c1f52-3f0e-4f7e-9a51-1b2c3d4e5f60', { method: 'PATCH', body: { title: 'x' } })).status).toBe(404);
    expect((await api(null, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { title: 'x' } })).status).toBe(401);
    expect((await api(reader, `/api/pm/tasks/${task.id}`, { method: 'PATCH', body: { title: 'x' } })).status).toBe(403);
    expect((await server.services.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).title).toBe('Guarded');
  });
});

describe('POST /api/pm/tasks/{id}/comments', () => {
  it('201 with the comment', async () => {
    const task = await createTask(owner, { title: 'Commented' });
    const response = await api(owner, `/api/pm/tasks/${task.id}/comments`, { method: 'POST', body: { body: '  Called the custodian.  ' } });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    expect(response.body.data).toMatchObject({ author_id: owner.userId, author_name: owner.email, body: 'Called the custodian.' });
    expect(response.body.data.id).toMatch(UUID);
    expect(response.body.data.created_at).toMatch(ISO);
  });

  it("400 for an empty, long or missing body; 404 for another user's task; 401/403", async () => {
    const task = await createTask(owner, { title: 'Quiet' });
    const path = `/api/pm/tasks/${task.id}/comments`;
    expect(await api(owner, path, { method: 'POST', body: { body: ' ' } })).toMatchObject({ status: 400, body: { error: 'Invalid body: must not be empty' } });
    expect(await api(owner, path, { method: 'POST', body: { body: 'x'.repeat(10_001) } })).toMatchObject({
      status: 400,
      body: { error: 'Invalid body: must be at most 10000 characters' },
    });
    expect(await api(owner, path, { method: 'POST', body: {} })).toMatchObject({ status: 400, body: { error: 'Missing required parameter: body' } });
    expect(await api(owner, path, { method: 'POST', body: { body: 'hi', author: 'x' } })).toMatchObject({
      status: 400,
      body: { error: 'Unknown field: author' },
    });
    expect(await api(other, path, { method: 'POST', body: { body: 'sneaky' } })).toMatchObject({ status: 404, body: { error: 'Task not found' } });
    expect((await api(null, path, { method: 'POST', body: { body: 'x' } })).status).toBe(401);
    expect((await api(reader, path, { method: 'POST', body: { body: 'x' } })).status).toBe(403);
    expect(await server.services.prisma.taskComment.count({ where: { taskId: task.id } })).toBe(0);
  });
});

describe('isolation', () => {
  it('another user never sees, changes or comments on a task', async () => {
    const mine = await createTask(owner, { title: 'Owner only task', labels: ['secret'] });
    const theirs = await api(other, '/api/pm/tasks?label=secret');
    expect(theirs.body.data).toEqual([]);
    const all = await api(other, '/api/pm/tasks?limit=200');
    expect(all.body.data.map((task: { id: string }) => task.id)).not.toContain(mine.id);
  });
});

describe('GraphQL parity', () => {
  const TASK = 'id title description status priority assignee dueDate labels createdAt updatedAt completedAt';
  const gql = (user: TestUser, query: string, variables: Record<string, unknown> = {}) => graphql(server.url, { 'x-api-key': user.key }, query, variables);

  function snake(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(snake);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]));
  }

  it('tasks(...) gives the same page as GET /api/pm/tasks', async () => {
    const result = await gql(
      owner,
      `query($first: Int) { tasks(first: $first, status: [todo, in_progress]) { edges { node { ${TASK} } } pageInfo { hasNextPage endCursor } } }`,
      { first: 3 },
    );
    expect(result.body.errors).toBeUndefined();
    const rest = await api(owner, '/api/pm/tasks?limit=3&status=todo,in_progress');
    expect(rest.body.data).toEqual(result.body.data.tasks.edges.map((edge: { node: unknown }) => snake(edge.node)));
    expect(rest.body.pagination.has_more).toBe(result.body.data.tasks.pageInfo.hasNextPage);
  });

  it('createTask, updateTask and addTaskComment; task(id) with comments', async () => {
    const created = await gql(owner, `mutation($input: CreateTaskInput!) { createTask(input: $input) { ${TASK} } }`, {
      input: { title: 'Via GraphQL', labels: ['GraphQL'], dueDate: '2027-01-31' },
    });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createTask.id;
    expect(created.body.data.createTask).toMatchObject({ status: 'todo', priority: 'medium', labels: ['graphql'], dueDate: '2027-01-31' });

    const moved = await gql(owner, `mutation($input: UpdateTaskInput!) { updateTask(input: $input) { status completedAt } }`, {
      input: { id, status: 'in_progress' },
    });
    expect(moved.body.data.updateTask).toEqual({ status: 'in_progress', completedAt: null });

    const refused = await gql(owner, `mutation($input: UpdateTaskInput!) { updateTask(input: $input) { status } }`, { input: { id, status: 'todo' } });
    expect(refused.body.errors![0]).toMatchObject({ message: 'Cannot move a task from in_progress to todo', extensions: { code: 'CONFLICT' } });

    const comment = await gql(owner, `mutation($input: AddTaskCommentInput!) { addTaskComment(input: $input) { id body authorId } }`, {
      input: { taskId: id, body: 'From GraphQL' },
    });
    expect(comment.body.data.addTaskComment).toMatchObject({ body: 'From GraphQL', authorId: owner.userId });

    const read = await gql(owner, `query($id: UUID!) { task(id: $id) { ${TASK} comments { id authorId authorName body createdAt } } }`, { id });
    const rest = await api(owner, `/api/pm/tasks/${id}`);
    expect(rest.body.data).toEqual(snake(read.body.data.task));

    const hidden = await gql(other, `query($id: UUID!) { task(id: $id) { id } }`, { id });
    expect(hidden.body.errors![0]).toMatchObject({ message: 'Task not found', extensions: { code: 'NOT_FOUND' } });
    const readOnly = await gql(reader, `mutation { createTask(input: { title: "x" }) { id } }`);
    expect(readOnly.body.errors![0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('demo seed', () => {
  it('seedTasks creates realistic tasks in every status through the workflow, listed by the API', async () => {
    const demo = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const seeded = await seedTasks(server.services, demo.userId, new Date('2026-11-21T12:00:00Z'));
    expect(seeded.map((task) => task.status).sort()).toEqual([...TASK_STATUSES].sort());
    expect(seeded.find((task) => task.status === 'done')?.completedAt).toBeInstanceOf(Date);
    expect(seeded.flatMap((task) => task.comments ?? []).length).toBeGreaterThanOrEqual(3);
    const listed = await api(demo, '/api/pm/tasks');
    expect(listed.body.data).toHaveLength(seeded.length);
  });
});
