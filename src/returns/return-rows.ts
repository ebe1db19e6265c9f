/**
 * The rows the returns reads answer with (./returns-service.ts), in their own module so the
 * conversions (./currency-service.ts, ./comparison-currency.ts) can name them without importing
 * the service that calls them.
 */
import type { ComparisonStatus } from './dietz.ts';

export interface ComparisonRow {
  entityId: string;
  orgId: string;
  accountCode: string;
  entityName: string;
  date: string;
  /** the currency the returns are in (the one asked for, else the entity's); localCurrency the entity's */
  currency: string;
  localCurrency: string;
  custodianReturn: string | null;
  computedReturn: string | null;
  /** both returns in the entity's own currency, as reconciled (./comparison-currency.ts) */
  localCustodianReturn: string | null;
  localComputedReturn: string | null;
  differenceBps: string | null;
  status: ComparisonStatus;
  reason: string;
  matchThresholdBps: string;
  reviewThresholdBps: string;
}

export interface DailyReturnRow {
  date: string;
  startDate: string;
  beginValue: string;
  endValue: string;
  netFlow: string;
  weightedFlow: string;
  returnValue: string | null;
  nullReason: string | null;
  /** fees paid in the sub-period (positive = paid; ./analytics/fees.ts); returnValue is net of them */
  fees: string;
  /** the gross-of-fee return: returnValue with the fees added back; null exactly when returnValue is */
  grossReturnValue: string | null;
}
