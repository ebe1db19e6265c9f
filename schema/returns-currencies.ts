/**
 * The currencies an entity's reported returns can be converted to (src/returns/fx-currencies.ts;
 * docs/returns-and-csv.md#currencies): the choices of a currency selector.
 */
import { builder } from './builder.ts';
import type { EntityCurrencies } from '../src/returns/fx-currencies.ts';
import { CACHED_READ } from './cached-read.ts';

const ExchangeRateCurrencies = builder.objectRef<EntityCurrencies>('ExchangeRateCurrencies').implement({
  description: 'The currencies the returns of one entity can be reported in.',
  fields: (t) => ({
    entityName: t.exposeString('entityName'),
    accountCode: t.exposeString('accountCode'),
    localCurrency: t.exposeString('localCurrency', { description: 'ISO 4217: the entity’s own currency, the returns’ without a rate.' }),
    currencies: t.exposeStringList('currencies', {
      description:
        'ISO 4217 codes one uploaded pair (file_type=fx) away from localCurrency, in either direction, in the entity’s organization; sorted, without localCurrency. Listed when any rate of the pair was uploaded: a date a read needs without one is still BAD_USER_INPUT.',
    }),
  }),
});

builder.queryFields((t) => ({
  exchangeRateCurrencies: t.withAuth({ scope: 'read:returns' }).field({
    extensions: CACHED_READ,
    type: ExchangeRateCurrencies,
    description:
      'The currencies the returns of one entity can be reported in: the `currency` argument of returnPeriods, calendarReturns, moneyWeightedReturn and dietzDailyReturns.',
    rateBudget: 'returns',
    args: { entityName: t.arg.string({ required: true }) },
    resolve: async (_parent, args, ctx) => ctx.services.returnCurrencies.forEntity({ orgIds: await ctx.organizationIds(), ...args }),
  }),
}));
