import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { COMPARISON_STATUSES } from '../src/returns/dietz.ts';
import { FLOW_TYPES } from '../src/returns/analytics/fees.ts';
import {
  cashTransactionCursor,
  comparisonCursor,
  type CashTransactionRow,
  type ComparisonRow,
  type DailyReturnWithCumulative,
  type LabelledReturn,
} from '../src/returns/returns-service.ts';
import { CACHED_READ } from './cached-read.ts';

const ComparisonStatusEnum = builder.enumType('ComparisonStatus', {
  description:
    'Custodian vs computed: `match` within the match threshold, `review` within the review threshold, otherwise (or a missing side, or a sign flip) `investigate`.',
  values: COMPARISON_STATUSES,
});

const FlowTypeEnum = builder.enumType('FlowType', {
  description:
    'What a cash flow is. `external`: money the client moves in or out, a Modified Dietz flow. `fee`: a fee paid out of the portfolio (negative; positive is a rebate); net-of-fee returns keep it as a loss, gross-of-fee returns add it back. `income`: received inside the portfolio (dividends, interest); it changes neither return.',
  values: FLOW_TYPES,
});

const FlowTimingEnum = builder.enumType('FlowTiming', {
  description: 'When in the day a cash flow happens. Default: inflows start of day, outflows end of day.',
  values: ['start_of_day', 'end_of_day'] as const,
});

const ReturnComparison = builder.objectRef<ComparisonRow>('ReturnComparison').implement({
  description: "A custodian-reported daily return next to the service's own Modified Dietz return (fractions: 0.0123 = 1.23%).",
  fields: (t) => ({
    accountCode: t.exposeString('accountCode'),
    entityName: t.exposeString('entityName'),
    date: t.expose('date', { type: 'Date' }),
    currency: t.exposeString('currency', { description: 'ISO 4217: the currency the returns are in (the one asked for, else the entity’s).' }),
    localCurrency: t.exposeString('localCurrency', { description: 'ISO 4217: the entity’s own currency, the one both sources were reconciled in.' }),
    custodianReturn: t.expose('custodianReturn', { type: 'Decimal', nullable: true }),
    computedReturn: t.expose('computedReturn', { type: 'Decimal', nullable: true }),
    localCustodianReturn: t.expose('localCustodianReturn', { type: 'Decimal', nullable: true, description: 'The custodian’s return in localCurrency.' }),
    localComputedReturn: t.expose('localComputedReturn', { type: 'Decimal', nullable: true, description: 'The computed return in localCurrency.' }),
    differenceBps: t.expose('differenceBps', {
      type: 'Decimal',
      nullable: true,
      description: '(computed - custodian) * 10000, signed, in currency (converted returns: both over the same day, so the difference scales with 1 + r_fx).',
    }),
    status: t.field({
      type: ComparisonStatusEnum,
      description: 'The reconciliation’s verdict, classified in localCurrency at load (what the status filter selects on); a conversion cannot change it.',
      resolve: (row) => row.status,
    }),
    reason: t.exposeString('reason', { description: 'Why the status, in localCurrency.' }),
    matchThresholdBps: t.expose('matchThresholdBps', { type: 'Decimal' }),
    reviewThresholdBps: t.expose('reviewThresholdBps', { type: 'Decimal' }),
  }),
});

const REPORTING_CURRENCY =
  'ISO 4217: the currency to report in (default: the entity’s), at the uploaded rates (file_type=fx) of each date used; a missing rate is BAD_USER_INPUT naming the pair and dates.';

const DailyReturn = builder.objectRef<DailyReturnWithCumulative>('DailyModifiedDietzReturn').implement({
  description: 'The Modified Dietz return of the sub-period (startDate, date]: one calendar day between daily valuations.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date' }),
    startDate: t.expose('startDate', { type: 'Date' }),
    beginValue: t.expose('beginValue', { type: 'Decimal' }),
    endValue: t.expose('endValue', { type: 'Decimal' }),
    netFlow: t.expose('netFlow', { type: 'Decimal' }),
    weightedFlow: t.expose('weightedFlow', { type: 'Decimal' }),
    returnValue: t.expose('returnValue', { type: 'Decimal', nullable: true, description: 'Net of fees: only external flows are flows.' }),
    nullReason: t.exposeString('nullReason', { nullable: true }),
    fees: t.expose('fees', { type: 'Decimal', description: 'Fees paid in the sub-period (positive = paid), in the reporting currency.' }),
    grossReturnValue: t.expose('grossReturnValue', {
      type: 'Decimal',
      nullable: true,
      description:
        'Gross of fees: the fees added back to the end value over the same denominator, so grossReturnValue - returnValue = fees / denominator. Null exactly when returnValue is.',
    }),
    cumulativeReturn: t.expose('cumulativeReturn', {
      type: 'Decimal',
      nullable: true,
      description:
        "The linked (time-weighted) return from the first day of the range up to this one; the last day's is timeWeightedReturn. Null from the first null daily return on.",
    }),
    localReturnValue: t.expose('localReturnValue', {
      type: 'Decimal',
      nullable: true,
      description: 'The return in the entity’s own currency; equal to returnValue when no other currency was asked for.',
    }),
    currencyEffect: t.expose('currencyEffect', {
      type: 'Decimal',
      nullable: true,
      description: 'returnValue - localReturnValue: (1 + r) = (1 + r_local)(1 + r_fx), r_fx from the rates of startDate and date.',
    }),
  }),
});

const PeriodReturn = builder.objectRef<LabelledReturn>('PeriodReturn').implement({
  description: 'A return over the whole range, labelled with how it was computed. Never annualized.',
  fields: (t) => ({
    value: t.expose('value', { type: 'Decimal', nullable: true }),
    nullReason: t.exposeString('nullReason', { nullable: true }),
    method: t.exposeString('method'),
    weighting: t.exposeString('weighting', { description: '`time-weighted` or `money-weighted`.' }),
  }),
});

const DietzDaily = builder.simpleObject('DietzDailyReturns', {
  fields: (t) => ({
    entityName: t.string(),
    accountCode: t.string(),
    currency: t.string({ description: 'ISO 4217: the currency values and returns are in (the one asked for, else the entity’s).' }),
    localCurrency: t.string({ description: 'ISO 4217: the entity’s own currency.' }),
    startDate: t.field({ type: 'Date' }),
    endDate: t.field({ type: 'Date' }),
    days: t.field({ type: [DailyReturn] }),
    timeWeightedReturn: t.field({ type: PeriodReturn }),
    modifiedDietzReturn: t.field({ type: PeriodReturn }),
    annualized: t.boolean(),
  }),
});

const CashTransaction = builder.objectRef<CashTransactionRow>('CashTransaction').implement({
  description: 'A cash flow: positive into the portfolio, negative out of it; external, or a fee or income inside the portfolio (flowType).',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    date: t.expose('date', { type: 'Date' }),
    amount: t.expose('amount', {
      type: 'Decimal',
      description: 'In `currency`: converted at the rate of the flow’s date when another currency was asked for.',
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217: the currency of amount.' }),
    localAmount: t.expose('localAmount', { type: 'Decimal', description: 'The amount in the entity’s own currency, as uploaded.' }),
    timing: t.field({ type: FlowTimingEnum, resolve: (row) => row.timing }),
    flowType: t.field({ type: FlowTypeEnum, resolve: (row) => row.flowType, description: 'Only external flows are Modified Dietz flows.' }),
    description: t.exposeString('description', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  returnComparison: t.withAuth({ scope: 'read:returns' }).connection({
    extensions: CACHED_READ,
    type: ReturnComparison,
    pageSize: PAGE_SIZES.returnComparison,
    description: 'Custodian vs computed daily returns, newest first.',
    rateBudget: 'returns',
    args: {
      accountCode: t.arg.string({ required: false }),
      status: t.arg({ type: ComparisonStatusEnum, required: false }),
      currency: t.arg.string({
        required: false,
        description:
          'ISO 4217: report both returns in this currency, each row over its own day at the uploaded rates (file_type=fx) of its previous valuation and its date; status and reason stay those of the reconciliation in the entity’s currency.',
      }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.returns.comparison({
        orgIds: await ctx.organizationIds(),
        accountCode: args.accountCode,
        status: args.status,
        currency: args.currency,
        limit,
        cursor,
      });
      return toConnection(page, comparisonCursor);
    },
  }),
  dietzDailyReturns: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: DietzDaily,
    description:
      'Daily Modified Dietz returns of one entity over [startDate, endDate], with the linked time-weighted and the single-period money-weighted return.',
    rateBudget: 'returns',
    args: {
      entityName: t.arg.string({ required: true }),
      startDate: t.arg({ type: 'Date', required: true }),
      endDate: t.arg({ type: 'Date', required: true }),
      currency: t.arg.string({ required: false, description: REPORTING_CURRENCY }),
    },
    resolve: async (_parent, args, ctx) => {
      return ctx.services.returns.dietzDaily({ orgIds: await ctx.organizationIds(), ...args });
    },
  }),
  cashTransactions: t.withAuth({ scope: 'read:pnl' }).connection({
    extensions: CACHED_READ,
    type: CashTransaction,
    pageSize: PAGE_SIZES.cashTransactions,
    description: 'Cash flows of one entity, newest first.',
    rateBudget: 'returns',
    args: { entityName: t.arg.string({ required: true }), currency: t.arg.string({ required: false, description: REPORTING_CURRENCY }) },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.returns.cashTransactions({
        orgIds: await ctx.organizationIds(),
        entityName: args.entityName,
        currency: args.currency,
        limit,
        cursor,
      });
      return toConnection(page, cashTransactionCursor);
    },
  }),
}));
