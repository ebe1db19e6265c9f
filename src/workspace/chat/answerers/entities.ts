import type pg from 'pg';
import type { Subject } from '../intent.ts';
import { humanList } from './types.ts';

export interface EntityRef {
  id: string;
  orgId: string;
  entityName: string;
  accountCode: string;
  orgName: string;
}

export type Resolution = { kind: 'one'; entity: EntityRef } | { kind: 'many'; candidates: EntityRef[] } | { kind: 'none'; known: EntityRef[] };

/** Longest list of entities read to match a name against (an organization with more is matched on the first ones by name). */
const MAX_ENTITIES = 5000;

/** The entities (accounts, funds) of the caller's organizations, by name. */
export async function entitiesOf(pool: pg.Pool, orgIds: ReadonlySet<string>): Promise<EntityRef[]> {
  if (orgIds.size === 0) return [];
  const { rows } = await pool.query<EntityRef>(
    `SELECT e.id, e."orgId", e."entityName", e."accountCode", o.name AS "orgName"
       FROM "Entity" e JOIN "Organization" o ON o.id = e."orgId"
      WHERE e."orgId" = ANY($1::uuid[]) ORDER BY e."entityName", e."accountCode" LIMIT $2`,
    [[...orgIds], MAX_ENTITIES],
  );
  return rows;
}

/**
 * The entity a message names: by account code (DC-1001), by its full name written anywhere in
 * the message, or by a part of its name when only one entity has it; case-insensitive. Pure.
 */
export function resolveEntity(entities: readonly EntityRef[], message: string, subject: Subject): Resolution {
  if (subject.accountCodes.length > 0) {
    const codes = new Set(subject.accountCodes.map((code) => code.toUpperCase()));
    const hits = entities.filter((e) => codes.has(e.accountCode.toUpperCase()));
    if (hits.length === 1) return { kind: 'one', entity: hits[0] };
    if (hits.length > 1) return { kind: 'many', candidates: hits };
  }
  const lower = ` ${flat(message)} `;
  const full = entities.filter((e) => lower.includes(` ${flat(e.entityName)} `));
  // "Harbor Growth Fund LP" also contains "Harbor Growth": the longest name written wins.
  const longest = full.filter(
    (e) => !full.some((other) => other !== e && flat(other.entityName).includes(flat(e.entityName)) && other.entityName.length > e.entityName.length),
  );
  if (longest.length === 1) return { kind: 'one', entity: longest[0] };
  if (longest.length > 1) return { kind: 'many', candidates: longest };

  const phrase = subject.phrase ? flat(subject.phrase) : '';
  if (phrase.length > 0) {
    const words = phrase.split(' ').filter((w) => w.length >= 2);
    const hits = entities.filter((e) => {
      const name = ` ${flat(e.entityName)} `;
      return name.includes(` ${phrase}`) || flat(e.accountCode) === phrase || (words.length > 0 && words.every((w) => name.includes(` ${w}`)));
    });
    if (hits.length === 1) return { kind: 'one', entity: hits[0] };
    if (hits.length > 1) return { kind: 'many', candidates: hits };
    return { kind: 'none', known: [...entities] };
  }
  if (subject.accountCodes.length > 0) return { kind: 'none', known: [...entities] };
  if (entities.length === 1) return { kind: 'one', entity: entities[0] };
  return entities.length === 0 ? { kind: 'none', known: [] } : { kind: 'many', candidates: [...entities] };
}

function flat(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function describeEntity(entity: EntityRef): string {
  return `${entity.entityName} (${entity.accountCode})`;
}

/** The words for a resolution that is not one entity, or null. */
export function unresolvedWords(resolution: Resolution, subject: Subject, example: (entity: EntityRef) => string): string | null {
  if (resolution.kind === 'one') return null;
  const shown = 10;
  if (resolution.kind === 'many') {
    const list = resolution.candidates.slice(0, shown).map((e) => `- ${describeEntity(e)}${multipleOrgs(resolution.candidates) ? `, ${e.orgName}` : ''}`);
    const more = resolution.candidates.length > shown ? [`- …and ${resolution.candidates.length - shown} more`] : [];
    const named = subject.phrase ?? subject.accountCodes.join(', ');
    return [
      named ? `More than one of your accounts matches "${named}". Which one do you mean?` : 'Which account do you mean? Your accounts:',
      ...list,
      ...more,
      '',
      `Ask again with the account number or the full name, for example "${example(resolution.candidates[0])}".`,
    ].join('\n');
  }
  const named = subject.accountCodes.length > 0 ? humanList(subject.accountCodes) : `"${subject.phrase ?? ''}"`;
  if (resolution.known.length === 0)
    return `None of your organizations has an account matching ${named}; in fact they have no returns data yet. Upload a pnl file on the [Files](#/files) page.`;
  const list = resolution.known.slice(0, shown).map((e) => `- ${describeEntity(e)}`);
  return [
    `None of your accounts matches ${named}. Your accounts:`,
    ...list,
    ...(resolution.known.length > shown ? [`- …and ${resolution.known.length - shown} more`] : []),
  ].join('\n');
}

function multipleOrgs(entities: readonly EntityRef[]): boolean {
  return new Set(entities.map((e) => e.orgName)).size > 1;
}
