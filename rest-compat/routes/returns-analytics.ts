import { single, type RestRoute } from '../route.ts';

const ENTITY = 'entityName accountCode currency localCurrency';
const CURRENCY_EFFECT = 'localReturnValue currencyEffect';
/** The comparison with the entity's benchmark (docs/returns-and-csv.md#benchmarks): null when none is assigned. */
const PERIOD_BENCHMARK =
  'benchmark { name startLevelDate endLevelDate returnValue excessReturn geometricExcessReturn annualizedExcessReturn monthCount trackingError trackingErrorNullReason informationRatio informationRatioNullReason nullReason }';
const CALENDAR_BENCHMARK = 'benchmark { name startLevelDate endLevelDate returnValue excessReturn geometricExcessReturn nullReason }';
const CALENDAR_ROW = `period startDate endDate returnValue nullReason partial partialReason ${CURRENCY_EFFECT} grossReturnValue`;

/**
 * The reported returns (docs/returns-and-csv.md#reported-returns): new routes in the data service's
 * conventions (snake_case parameters and fields, `{"error": ...}` bodies, scope read:returns, the
 * `returns` rate budget).
 */
export const returnsAnalyticsRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/returns/periods',
    summary:
      'Time-weighted returns over MTD, QTD, YTD, 1M, 3M, 6M, 1Y, 3Y, 5Y, 10Y and since inception as of `as_of` (default: the latest valuation); annualised only from a year on; `complete: false` when the history does not cover a period. `currency` (ISO 4217) reports in another currency at the uploaded rates, with the local return and the currency effect beside each.',
    operation: `query ReturnPeriods($entityName: String!, $asOf: Date, $currency: String) {
      returnPeriods(entityName: $entityName, asOf: $asOf, currency: $currency) {
        ${ENTITY} asOf inceptionDate benchmark
        periods { period boundaryDate startValuationDate endValuationDate days years extraDays complete returnValue nullReason annualizedReturn annualizedNullReason ${CURRENCY_EFFECT} grossReturnValue grossAnnualizedReturn ${PERIOD_BENCHMARK} }
      } }`,
    respond: single('returnPeriods'),
  },
  {
    method: 'GET',
    path: '/api/returns/calendar',
    summary:
      'The return of every month and every year from the inception to the latest valuation, and the current year to date; `currency` as for the periods.',
    operation: `query CalendarReturns($entityName: String!, $currency: String) {
      calendarReturns(entityName: $entityName, currency: $currency) {
        ${ENTITY} inceptionDate asOf benchmark
        months { ${CALENDAR_ROW} ${CALENDAR_BENCHMARK} } years { ${CALENDAR_ROW} ${CALENDAR_BENCHMARK} } yearToDate { ${CALENDAR_ROW} ${CALENDAR_BENCHMARK} }
      } }`,
    respond: single('calendarReturns'),
  },
  {
    method: 'GET',
    path: '/api/returns/irr',
    summary:
      'The money-weighted return: the IRR (XIRR: actual/365, annual) of the value at the close of `start_date`, the flows after it and the value at the close of `end_date` (each the latest valuation on or before), and the return over the period; null with a reason when no rate or more than one exists. `currency` (ISO 4217) converts the values and each flow at its own date’s uploaded rate first.',
    operation: `query MoneyWeightedReturn($entityName: String!, $startDate: Date!, $endDate: Date!, $currency: String) {
      moneyWeightedReturn(entityName: $entityName, startDate: $startDate, endDate: $endDate, currency: $currency) {
        ${ENTITY} requestedStartDate requestedEndDate startDate endDate days beginValue endValue netFlow flowCount
        periodReturn nullReason annualizedReturn annualizedNullReason localPeriodReturn currencyEffect
      } }`,
    respond: single('moneyWeightedReturn'),
  },
];
