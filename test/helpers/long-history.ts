/**
 * A long, deterministic daily history for the reported-returns tests (REST and the dashboard): one
 * entity valued every calendar day from 2022-12-30 to 2025-06-30, daily moves of -1.90 % to
 * +2.10 %, a contribution or withdrawal about every 17 days. As a pnl CSV, uploaded as a client would.
 */
import { dayNumber } from './exact-dietz.ts';

export const LONG = 'Long History Fund';

/** A deterministic daily history from 2022-12-30 to 2025-06-30: a value every calendar day, a flow about every 17 days. */
export function longHistoryCsv(): string {
  const rows = ['account_code,entity_name,date,market_value,cash_flow,flow_timing,description'];
  let value = 1_000_000_00n; // cents
  let seed = 7;
  for (let day = dayNumber('2022-12-30'); day <= dayNumber('2025-06-30'); day++) {
    const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const changeBps = BigInt((seed % 401) - 190); // -1.90 % .. +2.10 %
    let flow = '';
    if (day % 17 === 0 && day !== dayNumber('2022-12-30')) {
      const amount = (seed % 2 === 0 ? 25_000_00n : -15_000_00n) + BigInt(seed % 1000);
      value += amount;
      flow = `${amount < 0n ? '-' : ''}${(amount < 0n ? -amount : amount) / 100n}.${String((amount < 0n ? -amount : amount) % 100n).padStart(2, '0')}`;
    }
    if (day !== dayNumber('2022-12-30')) value += (value * changeBps) / 10_000n;
    rows.push(`ACC-7001,${LONG},${date},${value / 100n}.${String(value % 100n).padStart(2, '0')},${flow},,`);
  }
  return rows.join('\n');
}
