import { Badge, toneOf } from '../../components/badge.tsx';
import { formatDateTime } from '../../components/format.ts';
import { AGENTS, AGENT_STATUS_LABELS, agentLabel, type AgentRow } from './progress.ts';

/** A bar with the ARIA progressbar role, so assistive technology reads the value (the text beside it says it too). */
export function ProgressBar({ value, label, tone }: { value: number; label: string; tone?: 'failed' | 'complete' }) {
  return (
    <div
      className={tone ? `progress-bar ${tone}` : 'progress-bar'}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value}
    >
      <span style={{ width: `${value}%` }} />
    </div>
  );
}

function toneOfRow(row: AgentRow): 'failed' | 'complete' | undefined {
  if (row.status === 'failed') return 'failed';
  return row.status === 'complete' ? 'complete' : undefined;
}

/** One row per agent: its status, progress and latest message. */
export function AgentTable({ rows, ended }: { rows: AgentRow[]; ended: boolean }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className="data gen-agent-table">
        <caption className="visually-hidden">Agents of this run, in the order they reported</caption>
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">Status</th>
            <th scope="col" className="gen-agent-progress-col">
              Progress
            </th>
            <th scope="col" className="gen-agent-message-col">
              Latest message
            </th>
            <th scope="col" className="gen-agent-updated-col">
              Updated
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.agent} data-agent={row.agent} className={row.status === 'failed' ? 'gen-agent-failed' : undefined}>
              <th scope="row">
                <span className="gen-agent-name">{agentLabel(row.agent)}</span>
                {AGENTS[row.agent] && <span className="hint gen-agent-does">{AGENTS[row.agent].does}</span>}
              </th>
              <td>
                {ended && row.status === 'queued' ? (
                  // Agents a cancelled or failed run never reached stay queued in the log.
                  <Badge tone="neutral">Not run</Badge>
                ) : (
                  <Badge tone={toneOf(row.status)}>{AGENT_STATUS_LABELS[row.status] ?? row.status}</Badge>
                )}
              </td>
              <td className="gen-agent-progress-col">
                <div className="gen-agent-progress">
                  <ProgressBar value={row.progress} label={`${agentLabel(row.agent)} progress`} tone={toneOfRow(row)} />
                  <span className="gen-agent-percent">{row.progress} %</span>
                </div>
                {/* Narrow screens drop the message column and show the message here (display:none keeps it read once). */}
                <p className="gen-agent-message gen-agent-message-inline">{row.message}</p>
              </td>
              <td className="gen-agent-message gen-agent-message-col">{row.message}</td>
              <td className="gen-agent-updated-col">
                <time dateTime={row.updatedAt}>{formatTime(row.updatedAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Today's events by the second (a run takes seconds); older ones with their date. */
function formatTime(iso: string): string {
  const date = new Date(iso);
  return date.toDateString() === new Date().toDateString() ? timeOnly.format(date) : formatDateTime(iso);
}
