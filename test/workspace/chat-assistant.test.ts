/**
 * The offline assistant answers from the service's own data (no CHAT_API_URL): through real HTTP
 * POST /api/chat (and the GraphQL sendChatMessage) against a real server. Returns data is uploaded
 * as a client would; every expected figure is read from the public REST endpoints in the same
 * test, never hard-coded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, loadFiles, uploadCsv } from '../helpers/returns-data.ts';
import { waitForFileStatus } from '../helpers/upload.ts';
import { OFFLINE_INTRO, OFFLINE_LIMITS } from '../../src/workspace/chat/offline-provider.ts';

let server: TestServer;
let owner: TestUser;
let memberWithoutReturns: TestUser;
let outsider: TestUser;
const ids: Record<string, string> = {};

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Daily valuations from 400 days ago to today; a few cash flows; deterministic. */
function pnlCsv(): string {
  const lines = ['account_code,entity_name,date,market_value,cash_flow,flow_timing,description'];
  const add = (code: string, name: string, days: number, start: number, step: number) => {
    let value = start;
    for (let offset = -days; offset <= 0; offset += 1) {
      const flow = offset !== -days && offset % 37 === 0 ? 25_000 : 0;
      value = value * (1 + step * Math.sin(offset / 3)) + flow;
      lines.push(
        `${code},${name},${day(offset)},${value.toFixed(2)},${flow ? flow.toFixed(2) : ''},${flow ? 'start_of_day' : ''},${flow ? 'Subscription' : ''}`,
      );
    }
  };
  add('HG-2001', 'Harbor Growth Fund LP', 400, 12_500_000, 0.004);
  add('HI-2002', 'Harbor Income Fund', 40, 3_000_000, 0.001);
  add('KB-2003', 'Keystone Balanced Portfolio', 40, 8_000_000, 0.002);
  return `${lines.join('\n')}\n`;
}

/** The custodian's daily returns of Harbor Growth for the last 20 days: exact, 5 bp off, or 80 bp off. */
function performanceCsv(pnl: string): string {
  const rows = pnl
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .filter((cols) => cols[0] === 'HG-2001');
  const lines = ['account_code,entity_name,date,return,return_unit'];
  for (let index = rows.length - 20; index < rows.length; index += 1) {
    const [previous, current] = [rows[index - 1], rows[index]];
    const flow = Number(current[4] || 0);
    // No flow on these days (37 does not divide them all, so skip the flow days): V1/V0 - 1 is the Modified Dietz return.
    if (flow !== 0) continue;
    const exact = Number(current[3]) / Number(previous[3]) - 1;
    const off = index % 3 === 0 ? 0.0005 : index % 3 === 1 ? 0.008 : 0;
    lines.push(`HG-2001,Harbor Growth Fund LP,${current[2]},${(exact + off).toFixed(10)},fraction`);
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace', 'read:returns', 'read:pnl', 'write:upload'], role: 'member' });
  const org = await server.services.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } });
  // A member of the same organization whose key lacks read:returns and read:pnl.
  memberWithoutReturns = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member', org: org.name });
  outsider = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace', 'read:returns', 'read:pnl'], role: 'member' });

  const pnl = pnlCsv();
  await loadFiles(
    server.url,
    owner.key,
    owner.orgId,
    [
      { name: 'harbor-pnl.csv', content: pnl },
      { name: 'harbor-performance.csv', content: performanceCsv(pnl) },
    ],
    120_000,
  ); // generous: ingest on a loaded machine
  const bad = await uploadCsv(
    server.url,
    { 'x-api-key': owner.key },
    owner.orgId,
    'broken-pnl.csv',
    'account_code,entity_name,date,market_value\nHG-2001,Harbor Growth Fund LP,not-a-date,12\n',
  );
  expect(bad.status).toBe(201);
  ids.badFile = bad.body.data.id;
  await waitForFileStatus(server.url, owner.key, owner.orgId, ids.badFile, ['failed'], 120_000);

  const prisma = server.services.prisma;
  ids.overdue = (
    await prisma.task.create({
      data: { userId: owner.userId, title: 'Send the Q3 fee report', assignee: 'Ana Lima', dueDate: new Date(`${day(-3)}T00:00:00Z`), labels: [] },
    })
  ).id;
  ids.later = (
    await prisma.task.create({
      data: { userId: owner.userId, title: 'Plan the offsite', assignee: 'Ben', dueDate: new Date(`${day(30)}T00:00:00Z`), labels: [] },
    })
  ).id;
  ids.article = (
    await prisma.newsArticle.create({
      data: {
        userId: owner.userId,
        title: 'Rates hold steady',
        url: 'https://news.example.com/rates',
        source: 'Example Wire',
        publishedAt: new Date(Date.now() - 3_600_000),
        tags: ['rates'],
      },
    })
  ).id;
  ids.sticky = (await prisma.sticky.create({ data: { userId: owner.userId, content: 'Ask the custodian about the zeppelin hangar lease', tags: [] } })).id;
});
afterAll(() => server?.close());

async function ask(user: TestUser, content: string): Promise<string> {
  const response = await getJson(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ messages: [{ role: 'user', content }] }),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.message.content as string;
}

const rest = async (user: TestUser, path: string) => {
  const response = await getJson(`${server.url}${path}`, { headers: { 'x-api-key': user.key } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

const percent = (value: string) => `${(Number(value) * 100).toFixed(2)}%`;

/** The period an answer states: "from the close of <start> to <end>". */
function periodOf(answer: string): { start: string; end: string } {
  const match = /from the close of (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})/.exec(answer);
  expect(match, answer).not.toBeNull();
  return { start: match![1], end: match![2] };
}

describe('the offline assistant answers from the returns data', () => {
  it("the issue's question: the time-weighted return of Harbor Growth Fund LP this year, as GET /api/returns/dietz-daily computes it", async () => {
    const answer = await ask(owner, 'What is the time-weighted return of Harbor Growth Fund LP this year?');
    const { start, end } = periodOf(answer);
    // This year: from the close of last year's last day to today.
    expect(start).toBe(`${Number(end.slice(0, 4)) - 1}-12-31`);
    const body = await rest(owner, `/api/returns/dietz-daily?entity_name=${encodeURIComponent('Harbor Growth Fund LP')}&start_date=${start}&end_date=${end}`);
    const twr = body.data.time_weighted_return.value;
    expect(twr).not.toBeNull();
    expect(answer).toContain('Harbor Growth Fund LP (HG-2001)');
    expect(answer).toContain(`Time-weighted return: ${percent(twr)}`);
    expect(answer).toContain('[Returns](#/returns)');
    expect(answer).toContain(OFFLINE_LIMITS);
    expect(answer).toContain("I can't forecast returns or give advice");
  });

  it('by account number, case-insensitively, over the last 30 days: the money-weighted return too', async () => {
    const answer = await ask(owner, 'modified dietz return of hg-2001 over the last 30 days');
    const { start, end } = periodOf(answer);
    const body = await rest(owner, `/api/returns/dietz-daily?entity_name=${encodeURIComponent('Harbor Growth Fund LP')}&start_date=${start}&end_date=${end}`);
    expect(answer).toContain(`Modified Dietz (money-weighted) return: ${percent(body.data.modified_dietz_return.value)}`);
    expect(answer).not.toContain('Time-weighted return:');
  });

  it('through GraphQL too (sendChatMessage, as the Chat page sends it), with the same figure as the dietzDailyReturns query', async () => {
    const sent = await graphql(
      server.url,
      { 'x-api-key': owner.key },
      'mutation($input: SendChatMessageInput!) { sendChatMessage(input: $input) { reply { content provider } } }',
      {
        input: { content: 'How did Keystone perform this year?' },
      },
    );
    expect(sent.body.errors).toBeUndefined();
    const answer = sent.body.data.sendChatMessage.reply.content as string;
    const { start, end } = periodOf(answer);
    const query = await graphql(
      server.url,
      { 'x-api-key': owner.key },
      'query($n: String!, $s: Date!, $e: Date!) { dietzDailyReturns(entityName: $n, startDate: $s, endDate: $e) { timeWeightedReturn { value } modifiedDietzReturn { value } } }',
      {
        n: 'Keystone Balanced Portfolio',
        s: start,
        e: end,
      },
    );
    const result = query.body.data.dietzDailyReturns;
    expect(answer).toContain('Keystone Balanced Portfolio (KB-2003)');
    expect(answer).toContain(`Time-weighted return: ${percent(result.timeWeightedReturn.value)}`);
    expect(answer).toContain(`Modified Dietz (money-weighted) return: ${percent(result.modifiedDietzReturn.value)}`);
  });

  it('an ambiguous name lists the candidates; an unknown one lists the accounts', async () => {
    const ambiguous = await ask(owner, 'What is the return of Harbor this year?');
    expect(ambiguous).toContain('More than one of your accounts matches "Harbor". Which one do you mean?');
    expect(ambiguous).toContain('- Harbor Growth Fund LP (HG-2001)');
    expect(ambiguous).toContain('- Harbor Income Fund (HI-2002)');
    expect(ambiguous).not.toContain('%');
    const partial = await ask(owner, 'return of harbor income last month');
    expect(partial).toContain('Harbor Income Fund (HI-2002)');
    const unknown = await ask(owner, 'What is the return of Zeppelin Partners this year?');
    expect(unknown).toContain('None of your accounts matches "Zeppelin Partners". Your accounts:');
    expect(unknown).toContain('- Keystone Balanced Portfolio (KB-2003)');
  });

  it('custodian vs computed: the counts of GET /api/returns/comparison', async () => {
    const answer = await ask(owner, 'How many returns of HG-2001 match the custodian?');
    const body = await rest(owner, '/api/returns/comparison?account_code=HG-2001&limit=500');
    const count = (status: string) => body.data.filter((row: { status: string }) => row.status === status).length;
    expect(count('match')).toBeGreaterThan(0);
    expect(count('review')).toBeGreaterThan(0);
    expect(count('investigate')).toBeGreaterThan(0);
    expect(answer).toContain(`- ${body.data.length} days compared`);
    expect(answer).toContain(`- match: ${count('match')} `);
    expect(answer).toContain(`- review: ${count('review')} `);
    expect(answer).toContain(`- investigate: ${count('investigate')} `);
    expect(answer).toContain('[Returns](#/returns)');
  });

  it('without read:returns it says so plainly instead of answering, though the user is a member of the organization', async () => {
    const answer = await ask(memberWithoutReturns, 'What is the time-weighted return of Harbor Growth Fund LP this year?');
    expect(answer).toContain("I can't show you returns: your credential lacks the `read:returns` scope");
    expect(answer).not.toMatch(/\d\.\d\d%/);
    expect(answer).not.toContain('HG-2001');
    const files = await ask(memberWithoutReturns, 'Which files failed and why?');
    expect(files).toContain('lacks the `read:pnl` scope');
    expect(files).not.toContain('broken-pnl.csv');
  });

  it("another organization's accounts do not exist for the caller", async () => {
    const answer = await ask(outsider, 'What is the time-weighted return of Harbor Growth Fund LP this year?');
    expect(answer).toContain('None of your organizations has an account matching "Harbor Growth Fund LP"');
    expect(answer).not.toMatch(/\d\.\d\d%/);
  });
});

describe('the offline assistant answers about files, tasks and news', () => {
  it('failed files and why, as GET /api/storage/files reports them', async () => {
    const answer = await ask(owner, 'Which files failed and why?');
    const listing = await rest(owner, `/api/storage/files?org_id=${owner.orgId}&status=failed`);
    const failed = listing.data.find((file: { id: string }) => file.id === ids.badFile);
    expect(answer).toContain('- broken-pnl.csv (pnl, failed');
    expect(answer).toContain(`Why: ${failed.status_detail}`);
    expect(answer).toContain('[Files](#/files)');
    const latest = await ask(owner, 'What did I upload last?');
    expect(latest).toContain('harbor-performance.csv (performance, processed');
  });

  it('overdue tasks and tasks assigned to someone, each linked to its task page', async () => {
    const overdue = await ask(owner, 'Which tasks are overdue?');
    expect(overdue).toContain(`[task "Send the Q3 fee report"](#/tasks/${ids.overdue})`);
    expect(overdue).not.toContain('Plan the offsite');
    const assigned = await ask(owner, 'Show tasks assigned to ben');
    expect(assigned).toContain(`[task "Plan the offsite"](#/tasks/${ids.later})`);
    expect(assigned).not.toContain('Send the Q3 fee report');
  });

  it('the latest news and the digest, with links to the article and the News page', async () => {
    const latest = await ask(owner, 'latest news');
    expect(latest).toContain('[Rates hold steady](https://news.example.com/rates) (Example Wire,');
    expect(latest).toContain('[news "Rates hold steady"](#/news)');
    const digest = await ask(owner, "This week's news digest");
    expect(digest).toContain('1 article');
    expect(digest).toContain('Example Wire (1)');
  });

  it('forecasts and advice: what it cannot do, in plain words', async () => {
    const answer = await ask(owner, 'Forecast the return of Harbor Growth Fund LP next year');
    expect(answer).toContain("I can't forecast or predict returns");
    expect(answer).toContain(OFFLINE_LIMITS);
  });

  it('anything else falls back to the keyword search, whose citations link into the dashboard', async () => {
    const answer = await ask(owner, 'What do I have on zeppelins?');
    expect(answer.startsWith(OFFLINE_INTRO)).toBe(true);
    expect(answer).toContain(`[sticky ${ids.sticky.slice(0, 8)}…](#/stickies)`);
    const nothing = await ask(owner, 'Anything about quasars?');
    expect(nothing).toContain('I found nothing in your stickies, links, transcripts, tasks or news matching "quasars".');
    expect(nothing).toContain('I also answer questions about your data');
  });
});
