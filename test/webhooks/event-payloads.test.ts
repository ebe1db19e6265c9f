/**
 * The documented webhook events (docs/webhooks.md#events, openapi.json `webhooks`): every event
 * type has a payload schema and an example that the schema accepts, the OpenAPI document
 * describes each one with its signature headers, and docs/webhooks.md shows each example body.
 * No server: the real payloads are checked against the same schemas where they are delivered
 * (test/webhooks/endpoints.test.ts for webhook.test).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/events.ts';
import { WEBHOOK_EVENT_PAYLOADS } from '../../src/webhooks/event-payloads.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

interface WebhookOperation {
  post: {
    security: unknown[];
    parameters: { name: string; in: string; required: boolean }[];
    requestBody: { content: { 'application/json': { schema: Record<string, unknown>; example: { type: string; data: unknown } } } };
  };
}
const openapi = JSON.parse(fs.readFileSync(`${ROOT}openapi.json`, 'utf8')) as { webhooks: Record<string, WebhookOperation> };
const docs = fs.readFileSync(`${ROOT}docs/webhooks.md`, 'utf8');

describe('webhook event payloads', () => {
  it.each(WEBHOOK_EVENT_TYPES)('%s: its example is valid against its schema, which requires every key', (type) => {
    const { data, example } = WEBHOOK_EVENT_PAYLOADS[type];
    const validate = ajv.compile(data);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({}), 'an empty object is refused').toBe(false);
  });

  it('openapi.json describes every event under `webhooks`: the body with its example, the three signature headers', () => {
    expect(Object.keys(openapi.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const { post } = openapi.webhooks[type]!;
      expect(post.parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      const body = post.requestBody.content['application/json'];
      const validate = ajv.compile(body.schema);
      expect(validate(body.example), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(body.example).toMatchObject({ type, data: WEBHOOK_EVENT_PAYLOADS[type].example });
      expect(validate({ ...body.example, type: 'other.event' }), `${type}: another type is refused`).toBe(false);
    }
  });

  it('docs/webhooks.md shows each example body', () => {
    const bodies = [...docs.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1]!) as { type?: string; data?: unknown });
    for (const type of WEBHOOK_EVENT_TYPES) {
      const shown = bodies.find((body) => body.type === type);
      expect(shown, `${type} has no example body in docs/webhooks.md`).toBeDefined();
      expect(shown!.data).toEqual(WEBHOOK_EVENT_PAYLOADS[type].example);
    }
  });
});
