import { single, type RestRoute } from '../route.ts';

/** The currencies an entity's reported returns can be converted to (docs/returns-and-csv.md#currencies): a currency selector's choices. */
export const returnsCurrenciesRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/returns/currencies',
    summary:
      'The ISO 4217 codes the returns of `entity_name` can be reported in (the `currency` parameter of /api/returns/periods, /calendar, /irr and /dietz-daily): `local_currency`, the entity’s own, and `currencies`, those one uploaded pair (file_type=fx) away from it in either direction, sorted.',
    operation: `query ExchangeRateCurrencies($entityName: String!) {
      exchangeRateCurrencies(entityName: $entityName) { entityName accountCode localCurrency currencies } }`,
    respond: single('exchangeRateCurrencies'),
  },
];
