import { useRoute } from 'wouter';
import { Page, Panel } from '../components/page.tsx';
import { useViewer } from '../viewer.tsx';
import { StartForm } from './generation/start-form.tsx';
import { RunsList } from './generation/runs-list.tsx';
import { RunView } from './generation/run-view.tsx';
import './generation.css';

/** /generation: start a summary and list the previous ones; /generation/<runId>: follow one live. */
export default function GenerationPage() {
  const [isRun, params] = useRoute('/generation/:runId');
  // Keyed by run, so moving to another run starts from that run's own log.
  if (isRun) return <RunView key={params.runId} runId={params.runId} />;
  return <SummariesHome />;
}

function SummariesHome() {
  const viewer = useViewer();
  return (
    <Page title="Summaries" intro="Summarise your recent workspace activity with numbered references, and watch the agents work live.">
      <Panel id="new-summary" title="New summary">
        <StartForm canStart={viewer.scopes.includes('write:workspace')} />
      </Panel>
      <RunsList />
    </Page>
  );
}
