/** What the API's identifiers and timestamps look like, and an id that names nothing. */

/** a whole string that is a lower-case UUID */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** a whole string that is an ISO-8601 UTC timestamp with milliseconds (Date#toISOString) */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** a well-formed UUID that no row has */
export const MISSING = '00000000-0000-4000-8000-000000000000';
