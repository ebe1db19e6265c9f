/**
 * The instants the service stores: years 1 to 9999 (UTC). JavaScript dates reach year 275760
 * and PostgreSQL's timestamps further still, but an instant near either end cannot be read back
 * (a time-zone shift pushes it past JavaScript's range) and no date of this service means
 * anything there. Every DateTime input is checked against this range before it is written.
 */
export const EARLIEST_INSTANT_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const LATEST_INSTANT_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

export function isStorableInstant(date: Date): boolean {
  const ms = date.getTime();
  return ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;
}

export const INSTANT_RANGE_PROBLEM = 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';
