import type { Services } from '../services.ts';
import type { TaskRecord } from '../workspace/tasks/types.ts';

/**
 * Demo tasks for the demo admin, created through TaskService so that the workflow is followed
 * (every status below is reached by allowed moves) and completedAt is real: open tasks in each
 * status, one done, one cancelled, with labels, assignees, due dates and a few comments.
 *
 * Seeds only with the built-in provider: demo data is never pushed into an external
 * project-management tool (TASK_PROVIDER=http returns [] here).
 */
export async function seedTasks(services: Services, userId: string, today: Date = new Date()): Promise<TaskRecord[]> {
  const tasks = services.tasks;
  if (tasks.providerName !== 'builtin') return [];
  const user = await services.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const author = { id: userId, name: user.name ?? user.email };
  const inDays = (days: number) => new Date(today.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  const created: TaskRecord[] = [];

  const reconcile = await tasks.create(userId, {
    title: 'Reconcile DC-1003 custodian returns for month-end',
    description: 'Three days in the comparison report are "investigate". Check the cash flows on those dates against the custodian statement before sign-off.',
    priority: 'urgent',
    assignee: 'Demo Admin',
    dueDate: inDays(2),
    labels: ['close', 'returns'],
  });
  await tasks.update(userId, reconcile.id, { status: 'in_progress' });
  await tasks.addComment(userId, reconcile.id, author, 'Two of the three are the weekend contribution; the custodian books it on Monday.');
  created.push(reconcile);

  const pack = await tasks.create(userId, {
    title: 'Prepare the investment committee pack',
    description: 'Q3 performance, fee review, Keystone funding update. Use time-weighted returns for the performance table.',
    priority: 'high',
    assignee: 'Ana Silva',
    dueDate: inDays(5),
    labels: ['committee'],
  });
  created.push(pack);

  const feed = await tasks.create(userId, {
    title: 'Get the Northwind custodian feed switched to daily files',
    description: 'They still send weekly performance files; daily Modified Dietz needs daily valuations.',
    priority: 'medium',
    assignee: 'Ben Okafor',
    dueDate: inDays(14),
    labels: ['data', 'northwind'],
  });
  await tasks.update(userId, feed.id, { status: 'in_progress' });
  await tasks.update(userId, feed.id, { status: 'blocked' });
  await tasks.addComment(userId, feed.id, author, 'Blocked on Northwind IT: they need a new SFTP account request signed by compliance.');
  created.push(feed);

  const thresholds = await tasks.create(userId, {
    title: 'Review comparison thresholds for Demo Capital',
    description: 'Match at 1 bp and review at 10 bp produce too many reviews on the bond accounts.',
    priority: 'low',
    labels: ['returns', 'config'],
  });
  await tasks.update(userId, thresholds.id, { status: 'in_progress' });
  await tasks.update(userId, thresholds.id, { status: 'done' });
  await tasks.addComment(userId, thresholds.id, author, 'Kept 1/10 bp; the bond accounts now use an organization override.');
  created.push(thresholds);

  const vendor = await tasks.create(userId, {
    title: 'Renew the market data vendor contract',
    priority: 'medium',
    labels: ['admin'],
  });
  await tasks.update(userId, vendor.id, { status: 'cancelled' });
  await tasks.addComment(userId, vendor.id, author, 'Procurement handles this centrally now.');
  created.push(vendor);

  return Promise.all(created.map((task) => tasks.get(userId, task.id)));
}
