import { list, single, type RestRoute, withUpstream } from '../route.ts';

const TASK_FIELDS = 'id title description status priority assignee dueDate labels createdAt updatedAt completedAt';
const COMMENT_FIELDS = 'id authorId authorName body createdAt';

/** docs/spec/workspace-service.md: tasks (project management), from the configured task provider. */
export const tasksRoutes: RestRoute[] = withUpstream('the project-management tool (PM_API_URL)', [
  {
    method: 'GET',
    path: '/api/pm/tasks',
    summary: "The caller's tasks, most recently updated first; filters status (comma-separated), assignee, label.",
    params: { limit: 'first', cursor: 'after' },
    operation: `query Tasks($status: [TaskStatus!], $assignee: String, $label: String, $first: Int, $after: String) {
      tasks(status: $status, assignee: $assignee, label: $label, first: $first, after: $after) {
        edges { node { ${TASK_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('tasks'),
  },
  {
    method: 'GET',
    path: '/api/pm/tasks/:id',
    summary: 'One task with its comments, oldest first.',
    operation: `query Task($id: UUID!) { task(id: $id) { ${TASK_FIELDS} comments { ${COMMENT_FIELDS} } } }`,
    respond: single('task'),
  },
  {
    method: 'POST',
    path: '/api/pm/tasks',
    summary: 'Creates a task (title required; status default todo, priority default medium).',
    body: 'json',
    status: 201,
    operation: `mutation CreateTask($title: String!, $description: String, $status: TaskStatus, $priority: TaskPriority, $assignee: String, $dueDate: Date, $labels: [String!]) {
      createTask(input: { title: $title, description: $description, status: $status, priority: $priority, assignee: $assignee, dueDate: $dueDate, labels: $labels }) { ${TASK_FIELDS} } }`,
    respond: single('createTask'),
  },
  {
    method: 'PATCH',
    path: '/api/pm/tasks/:id',
    summary: 'Changes the fields given; a status move the workflow does not allow is 409.',
    body: 'json',
    operation: `mutation UpdateTask($id: UUID!, $title: String, $description: String, $status: TaskStatus, $priority: TaskPriority, $assignee: String, $dueDate: Date, $labels: [String!]) {
      updateTask(input: { id: $id, title: $title, description: $description, status: $status, priority: $priority, assignee: $assignee, dueDate: $dueDate, labels: $labels }) { ${TASK_FIELDS} } }`,
    respond: single('updateTask'),
  },
  {
    method: 'POST',
    path: '/api/pm/tasks/:id/comments',
    summary: 'Adds a comment (body 1-10,000 characters) by the caller; 201 with the comment.',
    body: 'json',
    status: 201,
    operation: `mutation AddTaskComment($id: UUID!, $body: String!) { addTaskComment(input: { taskId: $id, body: $body }) { ${COMMENT_FIELDS} } }`,
    respond: single('addTaskComment'),
  },
]);
