import { Link } from 'wouter';
import { useQuery } from 'urql';
import { graphql } from '../api/graphql.ts';
import { Page, Panel } from '../components/page.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { Badge, toneOf } from '../components/badge.tsx';
import { formatDate, formatDateTime } from '../components/format.ts';
import { useViewer } from '../viewer.tsx';

const OverviewQuery = graphql(`
  query Overview {
    health { status version }
    generationRuns(first: 1) { edges { node { id state createdAt } } }
  }
`);

// Separate queries: a user without the returns or the workspace scope still sees the other part.
const InvestigateQuery = graphql(`
  query ReturnsToInvestigate { returnComparison(status: investigate, first: 5) { edges { node { date entityName accountCode differenceBps } } } }
`);
const OpenTasksQuery = graphql(`
  query OpenTasks { tasks(status: [blocked, in_progress, todo], first: 5) { edges { node { id title status dueDate } } } }
`);

const sections = [
  { href: '/files', title: 'Files', text: 'Upload pnl and performance files for an organization and follow their ingest.' },
  { href: '/returns', title: 'Returns', text: 'Custodian vs computed returns, and daily Modified Dietz returns charted.' },
  { href: '/stickies', title: 'Stickies', text: 'Notes with tags, trash and version history.' },
  { href: '/links', title: 'Links', text: 'Bookmarks in folders, starred and searchable.' },
  { href: '/transcripts', title: 'Transcripts', text: 'Meeting transcripts with speakers and timestamps.' },
  { href: '/tasks', title: 'Tasks', text: 'Project tasks and their comments.' },
  { href: '/news', title: 'News', text: 'Articles and the weekly digest.' },
  { href: '/chat', title: 'Chat', text: 'Ask the assistant.' },
  { href: '/generation', title: 'Summaries', text: 'Summarise your workspace and watch the agents work live.' },
  { href: '/system', title: 'System', text: 'Health, worker, scheduler and self-tests.' },
  { href: '/settings', title: 'API keys & tokens', text: 'Credentials for scripts, REST clients and AI tools.' },
];

export default function OverviewPage() {
  const viewer = useViewer();
  const [{ data, error }] = useQuery({ query: OverviewQuery });
  const latest = data?.generationRuns?.edges[0]?.node;
  return (
    <Page title={`Welcome${viewer.user.name ? `, ${viewer.user.name}` : ''}`} intro={`Signed in as ${viewer.user.email} (${viewer.user.role}).`}>
      <ErrorNotice error={error} />
      <div className="cards">
        <div className="card stat">
          <span className="stat-label">Service</span>
          <span className="stat-value">{data ? <Badge tone={toneOf(data.health.status)}>{data.health.status}</Badge> : '…'}</span>
          {data?.health.version && <span className="hint">version {data.health.version}</span>}
        </div>
        <div className="card stat">
          <span className="stat-label">Organizations</span>
          <span className="stat-value">{viewer.user.organizations.length}</span>
          <span className="hint">{viewer.user.organizations.map((o) => o.name).join(', ') || 'none yet'}</span>
        </div>
        <div className="card stat">
          <span className="stat-label">Latest summary</span>
          <span className="stat-value">{latest ? <Badge tone={toneOf(latest.state)}>{latest.state}</Badge> : 'none'}</span>
          {latest && (
            <Link href={`/generation/${latest.id}`} className="hint">
              started {formatDateTime(latest.createdAt)}
            </Link>
          )}
        </div>
      </div>
      <NeedsAttention />
      <Panel title="Go to">
        <div className="cards">
          {sections.map((section) => (
            <Link key={section.href} href={section.href} className="card section-card">
              <strong>{section.title}</strong>
              <span className="hint">{section.text}</span>
            </Link>
          ))}
        </div>
      </Panel>
    </Page>
  );
}

/** What a returning user acts on first: returns to investigate and open tasks (each shown when there are some and the user may read them). */
function NeedsAttention() {
  const [investigate] = useQuery({ query: InvestigateQuery });
  const [openTasks] = useQuery({ query: OpenTasksQuery });
  const comparisons = investigate.data?.returnComparison.edges.map((e) => e.node) ?? [];
  const tasks = openTasks.data?.tasks.edges.map((e) => e.node) ?? [];
  // Lacking the scope for one part is not a problem to report; anything else is.
  const failures = [investigate.error, openTasks.error].filter((error) => error && !error.graphQLErrors.every((e) => e.extensions?.code === 'FORBIDDEN'));
  if (comparisons.length === 0 && tasks.length === 0 && failures.length === 0) return null;
  return (
    <div className="grid-2">
      {failures.map((error, index) => (
        <ErrorNotice key={index} error={error} title="Could not load what needs attention" />
      ))}
      {comparisons.length > 0 && (
        <Panel id="attention-returns" title="Returns to investigate" actions={<Link href="/returns">All comparisons</Link>}>
          <ul className="attention-list">
            {comparisons.map((c) => (
              <li key={`${c.accountCode}-${c.date}`}>
                <Badge tone="danger">investigate</Badge> {formatDate(c.date)} · {c.entityName} ({c.accountCode})
                {c.differenceBps !== null && ` · ${Number(c.differenceBps).toFixed(1)} bps`}
              </li>
            ))}
          </ul>
        </Panel>
      )}
      {tasks.length > 0 && (
        <Panel id="attention-tasks" title="Open tasks" actions={<Link href="/tasks">All tasks</Link>}>
          <ul className="attention-list">
            {tasks.map((t) => (
              <li key={t.id}>
                <Badge tone={toneOf(t.status)}>{t.status.replace('_', ' ')}</Badge> <Link href={`/tasks/${t.id}`}>{t.title}</Link>
                {t.dueDate && <span className="hint"> · due {formatDate(t.dueDate)}</span>}
              </li>
            ))}
          </ul>
        </Panel>
      )}
    </div>
  );
}
