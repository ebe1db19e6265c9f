import { useId } from 'react';
import { useQuery } from 'urql';
import { ReturnCurrenciesQuery } from './analytics-queries.ts';

/**
 * The currency the reported returns are shown in: the entity's own (the value null) or one its
 * organization has uploaded rates for, one pair away (exchangeRateCurrencies). Hidden until the
 * choices are known; a failed read leaves the figures in the entity's own currency.
 */
export function CurrencySelect({ entityName, value, onChange }: { entityName: string; value: string | null; onChange: (currency: string | null) => void }) {
  const [{ data }] = useQuery({ query: ReturnCurrenciesQuery, variables: { entityName } });
  const hintId = useId();
  const choices = data?.exchangeRateCurrencies;
  if (!choices) return null;
  const none = choices.currencies.length === 0;
  return (
    <div className="currency-field">
      <label>
        Currency
        <select value={value ?? ''} onChange={(event) => onChange(event.target.value || null)} aria-describedby={hintId}>
          <option value="">{choices.localCurrency} (the entity’s own)</option>
          {choices.currencies.map((currency) => (
            <option key={currency} value={currency}>
              {currency}
            </option>
          ))}
        </select>
      </label>
      <span className="hint" id={hintId}>
        {none
          ? `No exchange rates against ${choices.localCurrency} uploaded (file type fx): only ${choices.localCurrency} for now.`
          : 'For the periods and the monthly returns, at the uploaded exchange rates.'}
      </span>
    </div>
  );
}
