import { useRoute } from 'wouter';
import { TaskList } from './tasks/list.tsx';
import { TaskView } from './tasks/view.tsx';
import './tasks/tasks.css';

/** /tasks lists, filters and creates tasks; /tasks/<id> shows one with its comments. */
export default function TasksPage() {
  const [open, params] = useRoute('/tasks/:id');
  return open ? <TaskView id={params.id} /> : <TaskList />;
}
