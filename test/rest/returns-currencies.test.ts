/**
 * GET /api/returns/currencies (and exchangeRateCurrencies on /graphql): the currencies an entity's
 * returns can be reported in, over real HTTP, with the rates stored the way the fx upload stores
 * them. Listed: a currency one uploaded pair away from the entity's own, in either direction, of
 * the entity's organization; not a currency two pairs away, not another organization's pair, not
 * the entity's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, insertFxRates, loadFiles } from '../helpers/returns-data.ts';

const FUND = 'Currency Choice Fund';
const DOLLAR_FUND = 'Currency Choice Dollar Fund';
const ORG = `Return Currencies ${Date.now()}`;
const OTHER_ORG = `Return Currencies Other ${Date.now()}`;

const PNL = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  `ACC-7201,${FUND},2024-12-31,100.00,,,`,
  `ACC-7201,${FUND},2025-01-31,105.00,,,`,
  `ACC-7202,${DOLLAR_FUND},2024-12-31,100.00,,,`,
  `ACC-7202,${DOLLAR_FUND},2025-01-31,101.00,,,`,
].join('\n');

let server: TestServer;
let user: TestUser;
let other: TestUser;
const get = (path: string, key = user.key) => getJson(`${server.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
const currencies = (entity: string, key?: string) => get(`/api/returns/currencies?entity_name=${encodeURIComponent(entity)}`, key);

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: ORG });
  other = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: OTHER_ORG });
  await loadFiles(server.url, user.key, user.orgId, [{ name: 'currencies.csv', content: PNL }], 60_000);
  // The same fund's name in another organization, which has rates of its own.
  await loadFiles(server.url, other.key, other.orgId, [{ name: 'currencies.csv', content: PNL }], 60_000);
  await server.services.db.pool.query(`UPDATE "Entity" SET currency = 'GBP' WHERE "orgId" = $1 AND "entityName" = $2`, [user.orgId, FUND]);
  // GBP is quoted against EUR (GBP/EUR) and against USD the other way round (USD/GBP), on several dates.
  await insertFxRates(server.services.db.pool, user.orgId, 'GBP', 'EUR', [['2024-12-31', '1.15']]);
  await insertFxRates(server.services.db.pool, user.orgId, 'GBP', 'EUR', [['2025-01-31', '1.18']]);
  await insertFxRates(server.services.db.pool, user.orgId, 'USD', 'GBP', [['2024-12-31', '0.8']]);
  // EUR/CHF: two pairs away from GBP (no triangulation), one pair away from nothing of the dollar fund's.
  await insertFxRates(server.services.db.pool, user.orgId, 'EUR', 'CHF', [['2024-12-31', '0.94']]);
  // Another organization's GBP/JPY: never offered to this one.
  await insertFxRates(server.services.db.pool, other.orgId, 'GBP', 'JPY', [['2024-12-31', '190']]);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('GET /api/returns/currencies', () => {
  it('lists the currencies one uploaded pair away from the entity’s own, in either direction, sorted', async () => {
    const response = await currencies(FUND);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { entity_name: FUND, account_code: 'ACC-7201', local_currency: 'GBP', currencies: ['EUR', 'USD'] } });
    // The dollar fund: USD/GBP quoted the other way round; nothing else touches USD.
    const dollar = await currencies(DOLLAR_FUND);
    expect(dollar.status).toBe(200);
    expect(dollar.body.data).toMatchObject({ local_currency: 'USD', currencies: ['GBP'] });
    // Another organization's fund of the same name sees its own rates only (none touch its USD).
    const theirs = await currencies(FUND, other.key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toMatchObject({ local_currency: 'USD', currencies: [] });
  });

  it('every currency listed converts the periods (rates on the dates they need)', async () => {
    for (const currency of ['EUR', 'USD']) {
      const response = await get(`/api/returns/periods?entity_name=${encodeURIComponent(FUND)}&currency=${currency}`);
      if (currency === 'EUR') expect(response.status, currency).toBe(200);
      // USD has no rate on 2025-01-31: listed (a pair exists) but the read names the missing date.
      else expect(response.body.error, currency).toMatch(/no GBP\/USD rate for 2025-01-31/);
    }
  });

  it('answers on /graphql the same', async () => {
    const response = await graphql(
      server.url,
      { 'x-api-key': user.key },
      `query ($n: String!) { exchangeRateCurrencies(entityName: $n) { localCurrency currencies } }`,
      {
        n: FUND,
      },
    );
    expect(response.body).toEqual({ data: { exchangeRateCurrencies: { localCurrency: 'GBP', currencies: ['EUR', 'USD'] } } });
  });

  it('refuses what it cannot answer with the documented error bodies', async () => {
    const missing = await get('/api/returns/currencies');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/entity_name/);
    const unknown = await currencies('Nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/not found/i);
    // An entity of another organization is not found, as one that does not exist.
    const stranger = await createUser(server.services, { scopes: ['read:returns'], role: 'member' });
    expect((await currencies(DOLLAR_FUND, stranger.key)).status).toBe(404);
    expect((await currencies(FUND, '')).status).toBe(401);
    const noScope = await createUser(server.services, { scopes: ['read:pnl'], role: 'member', org: ORG });
    const refused = await currencies(FUND, noScope.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/read:returns|permission/i);
  });
});
