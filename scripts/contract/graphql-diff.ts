/**
 * The GraphQL front of contract:check: the baseline SDL against the schema's, by GraphQL
 * Inspector's differ (@graphql-inspector/core, maintained by The Guild; Node >= 18, graphql 16 or
 * 17). Its BREAKING changes fail the check: a type, field, argument or enum value removed, an
 * output field's type changed or made nullable, an argument or input field made required or its
 * type changed. DANGEROUS ones (an enum value or an optional argument added, a default changed) and
 * NON_BREAKING ones are listed as info.
 */
import { buildSchema } from 'graphql';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { breaking, info, type ContractChange } from './changes.ts';

export async function diffSdl(beforeSdl: string, afterSdl: string): Promise<ContractChange[]> {
  const changes = await diff(buildSchema(beforeSdl), buildSchema(afterSdl));
  return changes.map(({ message, criticality: { level, reason } }) => {
    if (level === CriticalityLevel.Breaking) return breaking('graphql', message);
    return info('graphql', level === CriticalityLevel.Dangerous ? `${message} (dangerous${reason ? `: ${reason}` : ''})` : message);
  });
}
