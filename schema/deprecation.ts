/**
 * Marks a field deprecated with the dates GraphQL's `@deprecated` has no room for: the SDL carries
 * `@deprecated(reason:)` (the reason and the sunset), `extensions.deprecation` the facts the other
 * fronts derive their own signs from (src/usage/deprecation.ts). Spread into a field's options:
 * `t.field({ type, ...deprecated({ reason, since, sunset }) })`.
 */
import { deprecationNote, type Deprecation } from '../src/usage/deprecation.ts';

export function deprecated(deprecation: Deprecation): { deprecationReason: string; extensions: { deprecation: Deprecation } } {
  return { deprecationReason: deprecationNote(deprecation), extensions: { deprecation } };
}
