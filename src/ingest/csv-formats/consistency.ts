/** Per-file consistency: entity names, account currencies and duplicate (account, date) rows. */

/** A validated YYYY-MM-DD as the integer yyyymmdd (a cheap map key). */
export function dateKey(date: string): number {
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/**
 * What one file must agree with itself on: an account uses the same entity_name on every row, one
 * entity_name is not used for two accounts (entities are unique by name and by code per
 * organization), an account's rows that give a currency give the same one, and an (account, date)
 * slot is taken by one row.
 */
export class FileConsistency {
  private readonly entityByAccount = new Map<string, { name: string; line: number }>();
  private readonly currencyByAccount = new Map<string, { currency: string; line: number }>();
  private readonly accountByEntity = new Map<string, { code: string; line: number }>();
  /** account code -> (yyyymmdd -> line) */
  private readonly seen = new Map<string, Map<number, number>>();

  /** entity_name errors for a row whose other fields are valid (does not record). */
  entityProblem(accountCode: string, entityName: string): string | null {
    const byAccount = this.entityByAccount.get(accountCode);
    if (byAccount && byAccount.name !== entityName) {
      return `entity_name ${JSON.stringify(entityName)} differs from ${JSON.stringify(byAccount.name)} used for account ${accountCode} on line ${byAccount.line}`;
    }
    const byEntity = this.accountByEntity.get(entityName);
    if (byEntity && byEntity.code !== accountCode) {
      return `entity_name ${JSON.stringify(entityName)} is already used for account ${byEntity.code} on line ${byEntity.line}`;
    }
    return null;
  }

  /** currency errors for a row whose other fields are valid: another currency given for the account before (does not record). */
  currencyProblem(accountCode: string, currency: string | null): string | null {
    if (currency === null) return null;
    const earlier = this.currencyByAccount.get(accountCode);
    if (!earlier || earlier.currency === currency) return null;
    return `currency ${currency} differs from ${earlier.currency} given for account ${accountCode} on line ${earlier.line}`;
  }

  /** line of an earlier row with the same key, if any (does not record). */
  duplicateOf(accountCode: string, date: string): number | undefined {
    return this.seen.get(accountCode)?.get(dateKey(date));
  }

  /** records a valid row; `date` is null for a row that takes no (account, date) slot, `currency` null when the row gives none */
  record(line: number, accountCode: string, entityName: string, date: string | null, currency: string | null = null): void {
    if (!this.entityByAccount.has(accountCode)) this.entityByAccount.set(accountCode, { name: entityName, line });
    if (currency !== null && !this.currencyByAccount.has(accountCode)) this.currencyByAccount.set(accountCode, { currency, line });
    if (!this.accountByEntity.has(entityName)) this.accountByEntity.set(entityName, { code: accountCode, line });
    if (date !== null) {
      let dates = this.seen.get(accountCode);
      if (!dates) this.seen.set(accountCode, (dates = new Map()));
      dates.set(dateKey(date), line);
    }
  }
}
