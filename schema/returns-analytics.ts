/**
 * The reported returns (src/returns/analytics-service.ts; docs/returns-and-csv.md#reported-returns):
 * standard periods, calendar months and years, and the money-weighted return. Fractions as
 * everywhere (0.0123 = 1.23 %), 12 decimal places, half-even.
 */
import { builder } from './builder.ts';
import type { CalendarTable, MoneyWeightedTable, PeriodTable, ReportedCalendarRow, ReportedPeriodRow } from '../src/returns/analytics-service.ts';
import { CACHED_READ } from './cached-read.ts';

/** The local return and the currency effect beside a row's return (src/returns/currency-service.ts). */
const LOCAL_RETURN = {
  type: 'Decimal',
  nullable: true,
  description: 'The same return in the entity’s own currency (localCurrency); equal to returnValue when no other currency was asked for.',
} as const;
const CURRENCY_EFFECT = {
  type: 'Decimal',
  nullable: true,
  description: 'returnValue - localReturnValue: what the exchange rates added, (1 + r) = (1 + r_local)(1 + r_fx).',
} as const;

/** The gross-of-fee return beside the (net-of-fee) returnValue (src/returns/analytics/fees.ts). */
const GROSS_RETURN = {
  type: 'Decimal',
  nullable: true,
  description:
    'Gross of fees: the same return linked from the daily gross-of-fee returns (fees added back). returnValue is net of fees; they are equal when no fee was paid. Null when returnValue is.',
} as const;

const CURRENCY_FIELD = {
  currency: {
    description:
      'ISO 4217: the currency to report in (default: the entity’s). Converted at the uploaded rates (file_type=fx) of the valuation dates used; a missing rate is BAD_USER_INPUT naming the pair and dates.',
  },
} as const;

export const StandardPeriodReturn = builder.objectRef<ReportedPeriodRow>('StandardPeriodReturn').implement({
  description:
    'The time-weighted return over one standard period, linked from the daily returns (the ratio of two points of the growth index). Annualised only for periods of a year or longer.',
  fields: (t) => ({
    period: t.exposeString('period', { description: 'MTD, QTD, YTD, 1M, 3M, 6M, 1Y, 3Y, 5Y, 10Y or SI (since inception).' }),
    boundaryDate: t.expose('boundaryDate', { type: 'Date', description: 'The period starts at the close of this date (the last day before it).' }),
    startValuationDate: t.expose('startValuationDate', {
      type: 'Date',
      nullable: true,
      description: 'The latest valuation on or before boundaryDate; null when the history does not cover the period.',
    }),
    endValuationDate: t.expose('endValuationDate', { type: 'Date', description: 'The latest valuation on or before asOf.' }),
    days: t.exposeInt('days', { nullable: true, description: 'Calendar days between the two valuation dates.' }),
    years: t.int({
      resolve: (row) => row.span.years,
      description: 'Whole calendar years from boundaryDate to asOf (what annualisation divides by, with extraDays / 365).',
    }),
    extraDays: t.int({ resolve: (row) => row.span.extraDays, description: 'Days beyond the whole years.' }),
    complete: t.exposeBoolean('complete', {
      description: 'False when the history starts after the period does: the return is then null, never a shorter period.',
    }),
    returnValue: t.expose('returnValue', { type: 'Decimal', nullable: true }),
    nullReason: t.exposeString('nullReason', { nullable: true }),
    annualizedReturn: t.expose('annualizedReturn', {
      type: 'Decimal',
      nullable: true,
      description: '(1 + return)^(1 / years) - 1, for periods of a year or more.',
    }),
    annualizedNullReason: t.exposeString('annualizedNullReason', { nullable: true }),
    grossReturnValue: t.expose('grossReturnValue', GROSS_RETURN),
    grossAnnualizedReturn: t.expose('grossAnnualizedReturn', {
      type: 'Decimal',
      nullable: true,
      description: 'grossReturnValue annualised by the same rule: for periods of a year or more.',
    }),
    localReturnValue: t.expose('localReturnValue', LOCAL_RETURN),
    currencyEffect: t.expose('currencyEffect', CURRENCY_EFFECT),
  }),
});

export const StandardPeriodReturns = builder.objectRef<PeriodTable>('StandardPeriodReturns').implement({
  description: 'The standard periods of one entity as of a date.',
  fields: (t) => ({
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    currency: t.exposeString('currency', { description: 'ISO 4217: the currency the returns are in (the one asked for, else the entity’s).' }),
    localCurrency: t.exposeString('localCurrency', { description: 'ISO 4217: the entity’s own currency.' }),
    asOf: t.expose('asOf', { type: 'Date' }),
    inceptionDate: t.expose('inceptionDate', { type: 'Date', description: 'The first valuation date.' }),
    periods: t.field({ type: [StandardPeriodReturn], resolve: (table) => table.periods }),
  }),
});

export const CalendarReturn = builder.objectRef<ReportedCalendarRow>('CalendarReturn').implement({
  description: "One month's or one year's time-weighted return: the daily returns whose valuation date falls in it, linked.",
  fields: (t) => ({
    period: t.exposeString('period', { description: '`YYYY-MM` for a month, `YYYY` for a year.' }),
    startDate: t.expose('startDate', { type: 'Date', description: 'The close it starts from: the previous row’s last valuation, or the inception.' }),
    endDate: t.expose('endDate', { type: 'Date', description: 'Its last valuation date.' }),
    returnValue: t.expose('returnValue', { type: 'Decimal', nullable: true }),
    nullReason: t.exposeString('nullReason', { nullable: true }),
    partial: t.exposeBoolean('partial', { description: 'True when the history starts after it began or ends before its last day.' }),
    partialReason: t.exposeString('partialReason', { nullable: true }),
    grossReturnValue: t.expose('grossReturnValue', GROSS_RETURN),
    localReturnValue: t.expose('localReturnValue', LOCAL_RETURN),
    currencyEffect: t.expose('currencyEffect', CURRENCY_EFFECT),
  }),
});

export const CalendarReturns = builder.objectRef<CalendarTable>('CalendarReturns').implement({
  description: 'Every month and year from the inception to the latest valuation.',
  fields: (t) => ({
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    currency: t.exposeString('currency', { description: 'ISO 4217: the currency the returns are in (the one asked for, else the entity’s).' }),
    localCurrency: t.exposeString('localCurrency', { description: 'ISO 4217: the entity’s own currency.' }),
    inceptionDate: t.expose('inceptionDate', { type: 'Date' }),
    asOf: t.expose('asOf', { type: 'Date', description: 'The latest valuation date.' }),
    months: t.field({ type: [CalendarReturn], resolve: (table) => table.months }),
    years: t.field({ type: [CalendarReturn], resolve: (table) => table.years }),
    yearToDate: t.field({ type: CalendarReturn, nullable: true, resolve: (table) => table.yearToDate, description: 'The last year’s row.' }),
  }),
});

const MoneyWeightedReturn = builder.objectRef<MoneyWeightedTable>('MoneyWeightedReturn').implement({
  description:
    'The internal rate of return (XIRR convention: actual/365, an annual rate) of the value at the start, the external flows and the value at the end, and the return over the period itself.',
  fields: (t) => ({
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    currency: t.exposeString('currency', { description: 'ISO 4217: the currency values, flows and returns are in (the one asked for, else the entity’s).' }),
    localCurrency: t.exposeString('localCurrency', { description: 'ISO 4217: the entity’s own currency.' }),
    requestedStartDate: t.expose('requestedStartDate', { type: 'Date' }),
    requestedEndDate: t.expose('requestedEndDate', { type: 'Date' }),
    startDate: t.expose('startDate', { type: 'Date', description: 'The valuation used for the start: the latest on or before requestedStartDate.' }),
    endDate: t.expose('endDate', { type: 'Date', description: 'The valuation used for the end: the latest on or before requestedEndDate.' }),
    days: t.exposeInt('days'),
    beginValue: t.expose('beginValue', { type: 'Decimal' }),
    endValue: t.expose('endValue', { type: 'Decimal' }),
    netFlow: t.expose('netFlow', { type: 'Decimal', description: 'The sum of the external flows in (startDate, endDate].' }),
    flowCount: t.exposeInt('flowCount'),
    periodReturn: t.expose('periodReturn', { type: 'Decimal', nullable: true, description: '(1 + IRR)^(days / 365) - 1: never annualised.' }),
    nullReason: t.exposeString('nullReason', { nullable: true, description: 'Why there is no rate: none exists, or more than one does.' }),
    annualizedReturn: t.expose('annualizedReturn', { type: 'Decimal', nullable: true, description: 'The IRR itself, for periods of 365 days or more.' }),
    annualizedNullReason: t.exposeString('annualizedNullReason', { nullable: true }),
    localPeriodReturn: t.expose('localPeriodReturn', {
      type: 'Decimal',
      nullable: true,
      description: 'The period return of the same values and flows in the entity’s own currency.',
    }),
    currencyEffect: t.expose('currencyEffect', { type: 'Decimal', nullable: true, description: 'periodReturn - localPeriodReturn.' }),
  }),
});

builder.queryFields((t) => ({
  returnPeriods: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: StandardPeriodReturns,
    description: 'Time-weighted returns of one entity over MTD, QTD, YTD, 1M, 3M, 6M, 1Y, 3Y, 5Y, 10Y and since inception.',
    rateBudget: 'returns',
    args: {
      entityName: t.arg.string({ required: true }),
      asOf: t.arg({ type: 'Date', required: false, description: 'Default: the latest valuation.' }),
      currency: t.arg.string({ required: false, ...CURRENCY_FIELD.currency }),
    },
    resolve: async (_parent, args, ctx) => ctx.services.returnsAnalytics.periods({ orgIds: await ctx.organizationIds(), ...args }),
  }),
  calendarReturns: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: CalendarReturns,
    description: 'The return of every month and every year of one entity, linked from its daily returns.',
    rateBudget: 'returns',
    args: { entityName: t.arg.string({ required: true }), currency: t.arg.string({ required: false, ...CURRENCY_FIELD.currency }) },
    resolve: async (_parent, args, ctx) => ctx.services.returnsAnalytics.calendar({ orgIds: await ctx.organizationIds(), ...args }),
  }),
  moneyWeightedReturn: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: MoneyWeightedReturn,
    description: 'The money-weighted return (IRR) of one entity between two dates.',
    rateBudget: 'returns',
    args: {
      entityName: t.arg.string({ required: true }),
      startDate: t.arg({ type: 'Date', required: true }),
      endDate: t.arg({ type: 'Date', required: true }),
      currency: t.arg.string({
        required: false,
        description:
          'ISO 4217: the currency to report in (default: the entity’s). The values and each flow are converted at their own date’s uploaded rate (file_type=fx), then the IRR is solved; a missing rate is BAD_USER_INPUT naming the pair and dates.',
      }),
    },
    resolve: async (_parent, args, ctx) => ctx.services.returnsAnalytics.irr({ orgIds: await ctx.organizationIds(), ...args }),
  }),
}));
