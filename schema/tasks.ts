// GraphQL surface of the tasks resource (docs/spec/workspace-service.md).
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { ASSIGNEE_LENGTH } from '../src/workspace/tasks/task-service.ts';
import { TASK_PRIORITIES, TASK_STATUSES, type TaskCommentRecord, type TaskRecord } from '../src/workspace/tasks/types.ts';

const TaskStatusEnum = builder.enumType('TaskStatus', {
  description:
    'Workflow: todo -> in_progress | cancelled; in_progress -> done | blocked | cancelled; blocked -> in_progress | cancelled; ' +
    'done -> in_progress (reopen); cancelled -> todo (reopen). Any other move is CONFLICT.',
  values: TASK_STATUSES,
});

const TaskPriorityEnum = builder.enumType('TaskPriority', { values: TASK_PRIORITIES });

const TaskComment = builder.objectRef<TaskCommentRecord>('TaskComment').implement({
  description: 'A comment on a task.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    authorId: t.expose('authorId', { type: 'UUID' }),
    authorName: t.exposeString('authorName', { nullable: true, description: "The author's name (their email when they have no name)." }),
    body: t.exposeString('body'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Task = builder.objectRef<TaskRecord>('Task').implement({
  description: 'A task of the signed-in user, from the configured task provider (TASK_PROVIDER).',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    status: t.field({ type: TaskStatusEnum, resolve: (task) => task.status }),
    priority: t.field({ type: TaskPriorityEnum, resolve: (task) => task.priority }),
    assignee: t.exposeString('assignee', { nullable: true }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    labels: t.exposeStringList('labels', { description: 'Trimmed, lower-case, unique.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Changed by every update that changes something and by every new comment.' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'Set when the task enters done, cleared when it leaves it.' }),
    // Tasks are reached only through fields that require a scope: this check always passes, and it
    // types the context (the comments are read as the viewer's, like the task itself).
    comments: t.withAuth({ authenticated: true }).field({
      type: [TaskComment],
      description: 'Oldest first.',
      resolve: (task, _args, ctx) => task.comments ?? ctx.services.tasks.comments(ctx.viewer.user.id, task.id),
    }),
  }),
});

const CreateTaskInput = builder.inputType('CreateTaskInput', {
  fields: (t) => ({
    title: t.string({ required: true, description: '1 to 500 characters (trimmed).' }),
    description: t.string({ description: 'At most 20,000 characters.' }),
    status: t.field({ type: TaskStatusEnum, description: 'Default todo.' }),
    priority: t.field({ type: TaskPriorityEnum, description: 'Default medium.' }),
    assignee: t.string({ description: `Free text, at most ${ASSIGNEE_LENGTH} characters.` }),
    dueDate: t.field({ type: 'Date' }),
    labels: t.stringList({ description: 'At most 20 labels of at most 50 characters; trimmed, lower-cased, de-duplicated.' }),
  }),
});

const UpdateTaskInput = builder.inputType('UpdateTaskInput', {
  description: 'Leave a field out to keep it; null clears description, assignee, dueDate and labels.',
  fields: (t) => ({
    id: t.field({ type: 'UUID', required: true }),
    title: t.string(),
    description: t.string(),
    status: t.field({ type: TaskStatusEnum, description: 'Must be a move the workflow allows (see TaskStatus), else CONFLICT.' }),
    priority: t.field({ type: TaskPriorityEnum }),
    assignee: t.string(),
    dueDate: t.field({ type: 'Date' }),
    labels: t.stringList({ description: 'The new set of labels (replaces the old one).' }),
  }),
});

const AddTaskCommentInput = builder.inputType('AddTaskCommentInput', {
  fields: (t) => ({
    taskId: t.field({ type: 'UUID', required: true }),
    body: t.string({ required: true, description: '1 to 10,000 characters (trimmed).' }),
  }),
});

builder.queryFields((t) => ({
  tasks: t.withAuth({ scope: 'read:workspace' }).connection({
    type: Task,
    pageSize: PAGE_SIZES.tasks,
    description: `The signed-in user's tasks, most recently updated first.`,
    args: {
      status: t.arg({ type: [TaskStatusEnum], required: false, description: 'Any of these statuses.' }),
      assignee: t.arg.string({ required: false, description: 'Exact assignee, case-insensitive.' }),
      label: t.arg.string({ required: false, description: 'Tasks carrying this label.' }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.tasks.list(ctx.viewer.user.id, {
        statuses: args.status,
        assignee: args.assignee,
        label: args.label,
        limit,
        cursor,
      });
      return toConnection(page, page.cursorOf);
    },
  }),
  task: t.withAuth({ scope: 'read:workspace' }).field({
    type: Task,
    description: "One of the signed-in user's tasks with its comments (NOT_FOUND otherwise).",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: (_parent, args, ctx) => ctx.services.tasks.get(ctx.viewer.user.id, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createTask: t.withAuth({ scope: 'write:workspace' }).field({
    type: Task,
    args: { input: t.arg({ type: CreateTaskInput, required: true }) },
    resolve: (_parent, { input }, ctx) => ctx.services.tasks.create(ctx.viewer.user.id, input),
  }),
  updateTask: t.withAuth({ scope: 'write:workspace' }).field({
    type: Task,
    description: 'Changes the fields given. A status move the workflow does not allow is CONFLICT; a change of nothing writes nothing.',
    args: { input: t.arg({ type: UpdateTaskInput, required: true }) },
    resolve: (_parent, { input }, ctx) => {
      const { id, ...changes } = input;
      return ctx.services.tasks.update(ctx.viewer.user.id, id, changes);
    },
  }),
  addTaskComment: t.withAuth({ scope: 'write:workspace' }).field({
    type: TaskComment,
    description: 'Adds a comment by the signed-in user (the task moves up in updatedAt order).',
    args: { input: t.arg({ type: AddTaskCommentInput, required: true }) },
    resolve: (_parent, { input }, ctx) => {
      const { user } = ctx.viewer;
      return ctx.services.tasks.addComment(user.id, input.taskId, { id: user.id, name: user.name ?? user.email }, input.body);
    },
  }),
}));
