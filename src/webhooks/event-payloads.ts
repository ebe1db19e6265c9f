/**
 * What each webhook event's `data` holds (docs/webhooks.md#events), as a JSON Schema and an
 * example: the OpenAPI document's `webhooks` section is made from these
 * (rest-compat/openapi/webhooks.ts) and the docs show the examples. The emitters
 * (src/webhooks/emitters.ts, src/webhooks/dispatch.ts) write the data; the delivery tests compare
 * what they send with these schemas.
 */
import type { WebhookEventType } from './events.ts';
import { FILE_TYPES } from '../ingest/csv-formats/types.ts';

type Schema = Record<string, unknown>;

const text = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const uuid = (description?: string): Schema => ({ type: 'string', format: 'uuid', ...(description ? { description } : {}) });
const instant = (description?: string): Schema => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
const day = (description: string): Schema => ({ type: 'string', format: 'date', description });
const integer = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const oneOf = (values: string[], description?: string): Schema => ({ type: 'string', enum: values, ...(description ? { description } : {}) });
const list = (items: Schema): Schema => ({ type: 'array', items });

/** Every key required (present, perhaps null): receivers can rely on the shape. */
function object(properties: Record<string, Schema>, description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties) };
}

const link = (what: string) => nullable(text(`${what} (from PUBLIC_URL, else the address the instance listens on; null when neither is known).`));

const FILE = object({
  id: uuid(),
  org_id: uuid(),
  uploader_id: nullable(uuid()),
  file_name: text(),
  file_type: oneOf([...FILE_TYPES]),
  status: oneOf(['processed', 'failed']),
  status_detail: nullable(text('Why a file failed, or what its load left aside.')),
  row_count: nullable(integer('Data rows read.')),
  error_count: integer('Rows refused (GET /api/storage/files/{id} lists them).'),
  warning_count: integer(),
  created_at: instant('When it was uploaded.'),
  processed_at: nullable(instant()),
});

const FILE_DATA = object({
  file: FILE,
  row_errors_count: integer('Rows refused with an error.'),
  failed_by_content: nullable({
    type: 'boolean',
    description: 'file.failed: true when the rows were wrong, false when the service failed; null for file.processed.',
  }),
  files_url: link("The organization's files with this status"),
});

const GENERATION_DATA = object({
  run_id: uuid(),
  state: oneOf(['completed', 'failed', 'cancelled']),
  options: { type: 'object', description: 'What the run was asked: days, sources, length.' },
  error: nullable(text()),
  failed_agents: list(text()),
  message: text("The run's final event message."),
  created_at: instant(),
  finished_at: instant(),
  run_url: link('The run (GET /api/generate?run_id=...)'),
});

const BASE = 'https://gateway.example.com';
const ORG = '6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f';
const FILE_ID = '0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f';
const USER = 'c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f';
const RUN = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d';

const fileExample = (status: 'processed' | 'failed') => ({
  file: {
    id: FILE_ID,
    org_id: ORG,
    uploader_id: USER,
    file_name: 'pnl-2025-03.csv',
    file_type: 'pnl',
    status,
    status_detail: status === 'processed' ? null : 'every row was refused: the header has no "Account Code" column',
    row_count: status === 'processed' ? 1840 : 0,
    error_count: status === 'processed' ? 2 : 1,
    warning_count: 0,
    created_at: '2026-03-02T09:14:05.120Z',
    processed_at: '2026-03-02T09:14:07.882Z',
  },
  row_errors_count: status === 'processed' ? 2 : 1,
  failed_by_content: status === 'processed' ? null : true,
  files_url: `${BASE}/api/storage/files?org_id=${ORG}&status=${status}`,
});

const generationExample = (state: 'completed' | 'failed') => ({
  run_id: RUN,
  state,
  options: { days: 7, sources: ['stickies', 'links', 'transcripts', 'tasks', 'news'], length: 'medium' },
  error: state === 'completed' ? null : 'Timed out after 60 s',
  failed_agents: state === 'completed' ? [] : ['writer'],
  message: state === 'completed' ? 'Summary ready' : 'Generation failed: Timed out after 60 s',
  created_at: '2026-03-02T10:00:00.000Z',
  finished_at: '2026-03-02T10:00:41.512Z',
  run_url: `${BASE}/api/generate?run_id=${RUN}`,
});

export interface WebhookEventPayload {
  /** The JSON Schema of `data`. */
  data: Schema;
  /** An example `data`. */
  example: Record<string, unknown>;
}

export const WEBHOOK_EVENT_PAYLOADS: Record<WebhookEventType, WebhookEventPayload> = {
  'file.processed': { data: FILE_DATA, example: fileExample('processed') },
  'file.failed': { data: FILE_DATA, example: fileExample('failed') },
  'reconciliation.investigate': {
    data: object({
      file: object({ id: uuid(), file_name: text(), file_type: oneOf([...FILE_TYPES]) }, 'The file whose load made the rows `investigate`.'),
      org_id: uuid(),
      rows: integer('New or changed comparison rows classified `investigate`, all accounts together.'),
      accounts: list(
        object({
          account_code: text(),
          rows: integer(),
          from: day('The earliest date of those rows.'),
          to: day('The latest date of those rows.'),
          comparison_url: link("The account's `investigate` rows of the comparison"),
        }),
      ),
      comparison_url: link('Every `investigate` row of the comparison'),
    }),
    example: {
      file: { id: FILE_ID, file_name: 'performance-2025-03.csv', file_type: 'performance' },
      org_id: ORG,
      rows: 3,
      accounts: [
        {
          account_code: 'BAYV-001',
          rows: 2,
          from: '2025-03-03',
          to: '2025-03-04',
          comparison_url: `${BASE}/api/returns/comparison?status=investigate&account_code=BAYV-001`,
        },
        {
          account_code: 'NWFT-002',
          rows: 1,
          from: '2025-03-07',
          to: '2025-03-07',
          comparison_url: `${BASE}/api/returns/comparison?status=investigate&account_code=NWFT-002`,
        },
      ],
      comparison_url: `${BASE}/api/returns/comparison?status=investigate`,
    },
  },
  'generation.completed': { data: GENERATION_DATA, example: generationExample('completed') },
  'generation.failed': { data: GENERATION_DATA, example: generationExample('failed') },
  'selftest.failed': {
    data: object({
      run_id: uuid(),
      trigger: oneOf(['manual', 'schedule']),
      started_at: instant(),
      finished_at: nullable(instant()),
      duration_ms: nullable(integer()),
      failed_checks: list(object({ name: text(), detail: nullable(text()), duration_ms: integer() })),
      history_url: link('The self-test history (GET /test-scheduler/history)'),
    }),
    example: {
      run_id: '5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b',
      trigger: 'schedule',
      started_at: '2026-03-02T03:00:00.004Z',
      finished_at: '2026-03-02T03:00:01.310Z',
      duration_ms: 1306,
      failed_checks: [{ name: 'storage', detail: 'write failed: EACCES: permission denied', duration_ms: 12 }],
      history_url: `${BASE}/test-scheduler/history`,
    },
  },
  'webhook.test': {
    data: object({ endpoint_id: uuid('The endpoint the test was sent to.'), message: text() }),
    example: { endpoint_id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', message: 'A test event: your endpoint receives and verifies webhooks.' },
  },
};
