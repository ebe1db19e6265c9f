/**
 * The fx and benchmark upload formats, the pnl file's currency and flow_type columns, and file type
 * detection of all four types (docs/returns-and-csv.md#csv-formats).
 */
import { describe, expect, it } from 'vitest';
import {
  FileFormatError,
  detectFileType,
  parseBenchmarkLevels,
  parseFx,
  parsePnl,
  type BenchmarkRow,
  type FxRow,
  type ParseItem,
  type PnlRow,
  type RowError,
} from '../../src/ingest/csv-formats/index.ts';
import { LIMITS } from '../../src/ingest/csv-formats/columns.ts';

const FX_HEAD = 'date,base,quote,rate';
const BENCH_HEAD = 'date,benchmark,level';
const PNL_HEAD = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,flow_type,currency,description';

/** The text as an async iterable of Buffers of `size` bytes. */
async function* chunks(text: string, size = 1 << 20): AsyncGenerator<Buffer> {
  const buf = Buffer.from(text, 'utf8');
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function collect<R>(gen: AsyncGenerator<ParseItem<R>>): Promise<{ rows: R[]; errors: RowError[] }> {
  const rows: R[] = [];
  const errors: RowError[] = [];
  for await (const item of gen) {
    if ('row' in item) rows.push(item.row);
    else errors.push(item.error);
  }
  return { rows, errors };
}

const fx = (text: string, chunkSize?: number) => collect<FxRow>(parseFx(chunks(text, chunkSize)));
const bench = (text: string) => collect<BenchmarkRow>(parseBenchmarkLevels(chunks(text)));
const pnl = (text: string) => collect<PnlRow>(parsePnl(chunks(text)));
const fxFile = (...lines: string[]) => fx([FX_HEAD, ...lines].join('\n') + '\n');
const benchFile = (...lines: string[]) => bench([BENCH_HEAD, ...lines].join('\n') + '\n');
const pnlFile = (...lines: string[]) => pnl([PNL_HEAD, ...lines].join('\n') + '\n');
const errorSummary = (errors: RowError[]) => errors.map((e) => [e.line, e.column]);

async function formatError(promise: Promise<unknown>): Promise<FileFormatError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(FileFormatError);
    return err as FileFormatError;
  }
  throw new Error('expected a FileFormatError');
}

// ---------------------------------------------------------------------------

describe('parseFx: valid files', () => {
  it('reads rates with physical line numbers; codes upper case, rates canonical and never rounded', async () => {
    const { rows, errors } = await fxFile(
      '2025-03-03,EUR,USD,1.085',
      '2025-03-03,gbp,chf,1.1234567890120000',
      '',
      '2025-03-04,Eur,usd,+0001.0900',
      '2025-03-04,USD,JPY,149.5',
      '2025-03-04,JPY,USD,0.006688963211',
    );
    expect(errors).toEqual([]);
    expect(rows).toEqual([
      { line: 2, date: '2025-03-03', base: 'EUR', quote: 'USD', rate: '1.085' },
      { line: 3, date: '2025-03-03', base: 'GBP', quote: 'CHF', rate: '1.123456789012' },
      { line: 5, date: '2025-03-04', base: 'EUR', quote: 'USD', rate: '1.09' },
      { line: 6, date: '2025-03-04', base: 'USD', quote: 'JPY', rate: '149.5' },
      { line: 7, date: '2025-03-04', base: 'JPY', quote: 'USD', rate: '0.006688963211' },
    ]);
  });

  it('accepts the header in any order and case, with BOM, CRLF and quotes, in any chunking', async () => {
    const text = '\uFEFF"Rate", Quote ,BASE,Date\r\n"1.085",usd,eur,2025-03-03\r\n2.5,CHF,XAU,2025-03-03\r\n';
    for (const size of [1, 3, 7, 1 << 20]) {
      const { rows, errors } = await fx(text, size);
      expect(errors).toEqual([]);
      expect(rows).toEqual([
        { line: 2, date: '2025-03-03', base: 'EUR', quote: 'USD', rate: '1.085' },
        { line: 3, date: '2025-03-03', base: 'XAU', quote: 'CHF', rate: '2.5' },
      ]);
    }
  });

  it('takes up to 12 integer and 12 fraction digits (DECIMAL(24,12)); trailing zeros beyond are no information lost', async () => {
    expect(LIMITS.fxRateIntegerDigits).toBe(12);
    expect(LIMITS.fxRateFractionDigits).toBe(12);
    const { rows, errors } = await fxFile('2025-03-03,EUR,USD,999999999999.999999999999', '2025-03-04,EUR,USD,0.000000000001000', '2025-03-05,EUR,USD,000001');
    expect(errors).toEqual([]);
    expect(rows.map((r) => r.rate)).toEqual(['999999999999.999999999999', '0.000000000001', '1']);
  });

  it('yields nothing for a header-only file', async () => {
    expect(await fx(`${FX_HEAD}\n`)).toEqual({ rows: [], errors: [] });
  });
});

describe('parseFx: row errors', () => {
  it('base and quote must be three letters (ISO 4217)', async () => {
    const { rows, errors } = await fxFile(
      '2025-03-03,EURO,USD,1.08',
      '2025-03-03,EUR,U5D,1.08',
      '2025-03-03,E,USD,1.08',
      '2025-03-03,€,USD,1.08',
      '2025-03-03,,USD,1.08',
      '2025-03-03,EUR,,1.08',
    );
    expect(rows).toEqual([]);
    expect(errorSummary(errors)).toEqual([
      [2, 'base'],
      [3, 'quote'],
      [4, 'base'],
      [5, 'base'],
      [6, 'base'],
      [7, 'quote'],
    ]);
    expect(errors[0].message).toBe('base "EURO" is not a currency code: expected three letters (ISO 4217, e.g. EUR)');
    expect(errors[1].message).toBe('quote "U5D" is not a currency code: expected three letters (ISO 4217, e.g. EUR)');
    expect(errors[4].message).toBe('base is required');
    expect(errors[5].message).toBe('quote is required');
  });

  it('base must differ from quote, whatever their case', async () => {
    const { rows, errors } = await fxFile('2025-03-03,EUR,EUR,1', '2025-03-03,usd,USD,1.2');
    expect(rows).toEqual([]);
    expect(errors).toEqual([
      { line: 2, column: 'quote', message: 'quote EUR is the same currency as base: a rate needs two different currencies' },
      { line: 3, column: 'quote', message: 'quote USD is the same currency as base: a rate needs two different currencies' },
    ]);
  });

  it('rate must be greater than zero', async () => {
    const { rows, errors } = await fxFile(
      '2025-03-03,EUR,USD,0',
      '2025-03-04,EUR,USD,-1.085',
      '2025-03-05,EUR,USD,-0.000',
      '2025-03-06,EUR,USD,0.0000000000001',
    );
    expect(rows).toEqual([]);
    expect(errors.slice(0, 3)).toEqual([
      { line: 2, column: 'rate', message: 'rate "0" must be greater than zero' },
      { line: 3, column: 'rate', message: 'rate "-1.085" must be greater than zero' },
      { line: 4, column: 'rate', message: 'rate "-0.000" must be greater than zero' },
    ]);
    // 13 decimal places: too precise for DECIMAL(24,12), never rounded (to zero here)
    expect(errors[3]).toEqual({ line: 5, column: 'rate', message: 'rate "0.0000000000001" has more than 12 decimal places (rates are not rounded)' });
  });

  it('rate: at most 12 integer and 12 fraction digits, never rounded', async () => {
    const { rows, errors } = await fxFile('2025-03-03,EUR,USD,1000000000000', '2025-03-04,EUR,USD,1.0850000000001', '2025-03-05,EUR,USD,1.085000000000');
    expect(rows.map((r) => r.line)).toEqual([4]);
    expect(errors).toEqual([
      { line: 2, column: 'rate', message: 'rate "1000000000000" has more than 12 integer digits' },
      { line: 3, column: 'rate', message: 'rate "1.0850000000001" has more than 12 decimal places (rates are not rounded)' },
    ]);
  });

  it('rate must be a plain decimal, and is required', async () => {
    const { rows, errors } = await fxFile(
      '2025-03-03,EUR,USD,"1,085"',
      '2025-03-04,EUR,USD,1.085e0',
      '2025-03-05,EUR,USD,$1.08',
      '2025-03-06,EUR,USD,NaN',
      '2025-03-07,EUR,USD,.5',
      '2025-03-08,EUR,USD,',
    );
    expect(rows).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      'rate "1,085" is not a valid number: commas are not allowed (no thousands separators or decimal commas)',
      'rate "1.085e0" is not a valid number: exponent notation is not allowed',
      'rate "$1.08" is not a valid number: currency symbols are not allowed',
      'rate "NaN" is not a valid number: NaN and Infinity are not numbers',
      'rate ".5" is not a valid number: a decimal point needs digits on both sides',
      'rate is required',
    ]);
    expect(errors.every((e) => e.column === 'rate')).toBe(true);
  });

  it('date as in the other formats: YYYY-MM-DD, a real date, required', async () => {
    const { rows, errors } = await fxFile('2025-02-29,EUR,USD,1', '03/03/2025,EUR,USD,1', '1899-12-31,EUR,USD,1', ',EUR,USD,1', '2024-02-29,EUR,USD,1');
    expect(rows.map((r) => r.line)).toEqual([6]);
    expect(errors).toEqual([
      { line: 2, column: 'date', message: '2025-02-29 is not a real calendar date' },
      { line: 3, column: 'date', message: '"03/03/2025" is not a date in YYYY-MM-DD format' },
      { line: 4, column: 'date', message: '1899-12-31: year must be between 1900 and 9999' },
      { line: 5, column: 'date', message: 'date is required' },
    ]);
  });

  it('reports every problem of a row and yields no row for it', async () => {
    const { rows, errors } = await fxFile('2025-13-01,EURO,usd,-1');
    expect(rows).toEqual([]);
    expect(errorSummary(errors)).toEqual([
      [2, 'date'],
      [2, 'base'],
      [2, 'rate'],
    ]);
  });

  it('one rate per (date, base, quote): a second is an error naming the first line, case-insensitively', async () => {
    const { rows, errors } = await fxFile(
      '2025-03-03,EUR,USD,1.085',
      '2025-03-03,USD,EUR,0.921659', // the inverse pair is another series
      '2025-03-04,EUR,USD,1.09', // another date
      '2025-03-03,eur,usd,1.085', // the same rate again: still a second row
      '2025-03-03,EUR,GBP,0.84',
      '2025-03-04,EUR,USD,1.1',
    );
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4, 6]);
    expect(errors).toEqual([
      { line: 5, column: 'rate', message: 'second rate for EUR/USD on 2025-03-03 (first on line 2)' },
      { line: 7, column: 'rate', message: 'second rate for EUR/USD on 2025-03-04 (first on line 4)' },
    ]);
  });

  it('an invalid row takes no slot: a valid row after it is the first', async () => {
    const { rows, errors } = await fxFile('2025-03-03,EUR,USD,-1', '2025-03-03,EUR,USD,1.085');
    expect(errorSummary(errors)).toEqual([[2, 'rate']]);
    expect(rows).toEqual([{ line: 3, date: '2025-03-03', base: 'EUR', quote: 'USD', rate: '1.085' }]);
  });

  it('keeps physical line numbers across blank lines and quoted fields', async () => {
    const { errors } = await fx(`${FX_HEAD}\n\n"2025-03-03",EUR,USD,1\n\n \n2025-03-03,"EUR",USD,2\n`);
    expect(errors).toEqual([{ line: 6, column: 'rate', message: 'second rate for EUR/USD on 2025-03-03 (first on line 3)' }]);
    // a quoted line break (an error in a name) takes two physical lines
    const levels = await bench(`${BENCH_HEAD}\n2025-03-03,"A\r\nB",1\n\n2025-03-03,X,1\n2025-03-03,X,2\n`);
    expect(levels.errors).toEqual([
      { line: 2, column: 'benchmark', message: 'benchmark contains control characters' },
      { line: 6, column: 'level', message: 'second level for benchmark "X" on 2025-03-03 (first on line 5)' },
    ]);
  });

  it('a field count other than the header is a row error', async () => {
    const { rows, errors } = await fxFile('2025-03-03,EUR,USD', '2025-03-03,EUR,USD,1,extra');
    expect(rows).toEqual([]);
    expect(errors).toEqual([
      { line: 2, column: null, message: 'expected 4 fields as in the header, found 3' },
      { line: 3, column: null, message: 'expected 4 fields as in the header, found 5' },
    ]);
  });
});

describe('parseFx: header errors throw FileFormatError', () => {
  it('names missing and unknown columns and the expected ones', async () => {
    const err = await formatError(fx('date,base,quote,price\n2025-03-03,EUR,USD,1\n'));
    expect(err.message).toBe(
      'invalid fx file header (line 1): missing required column: rate; unknown column: price. Expected columns: date, base, quote, rate',
    );
    expect(err.line).toBe(1);
  });

  it('says when the header belongs to another file type', async () => {
    expect((await formatError(fx(`${BENCH_HEAD}\n`))).message).toMatch(/looks like a benchmark file$/);
    expect((await formatError(bench(`${FX_HEAD}\n`))).message).toMatch(/looks like an fx file$/);
    expect((await formatError(pnl(`${FX_HEAD}\n`))).message).toMatch(/looks like an fx file$/);
  });

  it('rejects an empty file', async () => {
    expect((await formatError(fx('\n\n'))).message).toBe('the file is empty: an fx header row is required');
    expect((await formatError(bench(''))).message).toBe('the file is empty: a benchmark header row is required');
  });
});

// ---------------------------------------------------------------------------

describe('parseBenchmarkLevels', () => {
  it('reads levels: names trimmed and kept as given, levels canonical', async () => {
    const { rows, errors } = await benchFile(
      '2025-03-03, MSCI World ,3456.78',
      '2025-03-03,"S&P 500, total return",12345.67891234',
      '2025-03-04,MSCI World,+03500.10',
    );
    expect(errors).toEqual([]);
    expect(rows).toEqual([
      { line: 2, date: '2025-03-03', benchmark: 'MSCI World', level: '3456.78' },
      { line: 3, date: '2025-03-03', benchmark: 'S&P 500, total return', level: '12345.67891234' },
      { line: 4, date: '2025-03-04', benchmark: 'MSCI World', level: '3500.1' },
    ]);
  });

  it('accepts the header in any order and case', async () => {
    const { rows, errors } = await bench('LEVEL,Benchmark, date\n100,Index,2025-01-02\n');
    expect(errors).toEqual([]);
    expect(rows).toEqual([{ line: 2, date: '2025-01-02', benchmark: 'Index', level: '100' }]);
  });

  it('benchmark: required, 1 to 100 characters, no control characters', async () => {
    expect(LIMITS.benchmarkNameLength).toBe(100);
    const { rows, errors } = await benchFile(
      `2025-03-03,${'B'.repeat(100)},1`,
      `2025-03-03,${'B'.repeat(101)},1`,
      '2025-03-03,,1',
      '2025-03-03,"Bad\u0007Name",1',
      '2025-03-03,"Two\nlines",1',
    );
    expect(rows.map((r) => r.line)).toEqual([2]);
    expect(errors).toEqual([
      { line: 3, column: 'benchmark', message: 'benchmark is longer than 100 characters' },
      { line: 4, column: 'benchmark', message: 'benchmark is required' },
      { line: 5, column: 'benchmark', message: 'benchmark contains control characters' },
      { line: 6, column: 'benchmark', message: 'benchmark contains control characters' },
    ]);
  });

  it('level: greater than zero, at most 16 integer and 8 fraction digits (DECIMAL(24,8)), never rounded', async () => {
    expect([LIMITS.benchmarkLevelIntegerDigits, LIMITS.benchmarkLevelFractionDigits]).toEqual([16, 8]);
    const { rows, errors } = await benchFile(
      '2025-03-03,A,9999999999999999.99999999',
      '2025-03-04,A,10000000000000000',
      '2025-03-05,A,1.123456789',
      '2025-03-06,A,0',
      '2025-03-07,A,-100',
      '2025-03-08,A,1.5%',
      '2025-03-09,A,',
      '2025-03-10,A,1.12345678000',
    );
    expect(rows.map((r) => [r.line, r.level])).toEqual([
      [2, '9999999999999999.99999999'],
      [9, '1.12345678'],
    ]);
    expect(errors).toEqual([
      { line: 3, column: 'level', message: 'level "10000000000000000" has more than 16 integer digits' },
      { line: 4, column: 'level', message: 'level "1.123456789" has more than 8 decimal places (levels are not rounded)' },
      { line: 5, column: 'level', message: 'level "0" must be greater than zero' },
      { line: 6, column: 'level', message: 'level "-100" must be greater than zero' },
      { line: 7, column: 'level', message: 'level "1.5%" is not a valid number: percent signs are not allowed (state the unit in return_unit)' },
      { line: 8, column: 'level', message: 'level is required' },
    ]);
  });

  it('date: as in the other formats', async () => {
    const { errors } = await benchFile('2025-04-31,A,1', ',A,1');
    expect(errors).toEqual([
      { line: 2, column: 'date', message: '2025-04-31 is not a real calendar date' },
      { line: 3, column: 'date', message: 'date is required' },
    ]);
  });

  it('one level per (benchmark, date): a second is an error naming the first line; names are compared exactly', async () => {
    const { rows, errors } = await benchFile(
      '2025-03-03,MSCI World,100',
      '2025-03-03,MSCI EM,50',
      '2025-03-04,MSCI World,101',
      '2025-03-03, MSCI World ,100', // trimmed: the same name
      '2025-03-03,msci world,100', // another name (case counts)
    );
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4, 6]);
    expect(errors).toEqual([{ line: 5, column: 'level', message: 'second level for benchmark "MSCI World" on 2025-03-03 (first on line 2)' }]);
  });

  it('header errors', async () => {
    const err = await formatError(bench('date,benchmark\n'));
    expect(err.message).toBe('invalid benchmark file header (line 1): missing required column: level. Expected columns: date, benchmark, level');
  });
});

// ---------------------------------------------------------------------------

describe('parsePnl: currency', () => {
  it('is optional; case-insensitive, upper case; empty gives none', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,100,,,,eur,', 'A1,Alpha,2025-03-04,101,,,,,', 'B2,Beta,2025-03-03,5,,,,Chf,');
    expect(errors).toEqual([]);
    expect(rows.map((r) => [r.accountCode, r.currency])).toEqual([
      ['A1', 'EUR'],
      ['A1', null],
      ['B2', 'CHF'],
    ]);
    const without = await pnl('account_code,entity_name,date,market_value,cash_flow\nA1,Alpha,2025-03-03,100,\n');
    expect(without.errors).toEqual([]);
    expect(without.rows[0]).toMatchObject({ currency: null, flowType: null });
  });

  it('must be three letters', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,100,,,,EURO,', 'A1,Alpha,2025-03-04,100,,,,€,');
    expect(rows).toEqual([]);
    expect(errors).toEqual([
      { line: 2, column: 'currency', message: 'currency "EURO" is not a currency code: expected three letters (ISO 4217, e.g. EUR)' },
      { line: 3, column: 'currency', message: 'currency "€" is not a currency code: expected three letters (ISO 4217, e.g. EUR)' },
    ]);
  });

  it('the rows of one account that give a currency give the same one (case-insensitively)', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha,2025-03-03,100,,,,,',
      'A1,Alpha,2025-03-04,100,,,,EUR,',
      'A1,Alpha,2025-03-05,100,,,,eur,',
      'A1,Alpha,2025-03-06,100,,,,USD,',
      'B2,Beta,2025-03-03,100,,,,USD,',
    );
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4, 6]);
    expect(errors).toEqual([{ line: 5, column: 'currency', message: 'currency USD differs from EUR given for account A1 on line 3' }]);
  });
});

describe('parsePnl: flow_type', () => {
  it('external, fee or income, case-insensitive; empty is external; set only on a row with a flow', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha,2025-03-03,100,-50,,FEE,,Management fee',
      'A1,Alpha,2025-03-04,100,12.5,,Income,,Dividend',
      'A1,Alpha,2025-03-05,100,1000,,external,,',
      'A1,Alpha,2025-03-06,100,-1000,end_of_day,,,',
      'A1,Alpha,2025-03-07,100,,,,,',
    );
    expect(errors).toEqual([]);
    expect(rows.map((r) => [r.line, r.cashFlow, r.flowType])).toEqual([
      [2, '-50', 'fee'],
      [3, '12.5', 'income'],
      [4, '1000', 'external'],
      [5, '-1000', 'external'],
      [6, null, null],
    ]);
  });

  it('an unknown value is an error; given with an empty cash_flow it is an error; with a zero one it is ignored', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha,2025-03-03,100,-50,,commission,,',
      'A1,Alpha,2025-03-04,100,,,fee,,',
      'A1,Alpha,2025-03-05,100,0.00,,fee,,',
    );
    expect(rows).toEqual([expect.objectContaining({ line: 4, cashFlow: null, flowType: null })]);
    expect(errors).toEqual([
      { line: 2, column: 'flow_type', message: 'flow_type "commission" must be external, fee, income or empty' },
      { line: 3, column: 'flow_type', message: 'flow_type is given but cash_flow is empty' },
    ]);
  });
});

// ---------------------------------------------------------------------------

describe('detectFileType: the four types', () => {
  it('recognises each header in any order and case, with BOM, quotes and CRLF', () => {
    expect(detectFileType(FX_HEAD)).toBe('fx');
    expect(detectFileType(BENCH_HEAD)).toBe('benchmark');
    expect(detectFileType(PNL_HEAD)).toBe('pnl');
    expect(detectFileType('account_code,entity_name,date,return,return_unit')).toBe('performance');
    expect(detectFileType('\uFEFF"RATE","Quote","Base","Date"\r\n2025-03-03,EUR,USD,1\r\n')).toBe('fx');
    expect(detectFileType('\r\n Level ,DATE,Benchmark\n')).toBe('benchmark');
  });

  it('detects an incomplete header by its distinguishing columns', () => {
    expect(detectFileType('date,base,quote')).toBe('fx');
    expect(detectFileType('date,rate')).toBe('fx');
    expect(detectFileType('date,level')).toBe('benchmark');
    expect(detectFileType('account_code,date,flow_type')).toBe('pnl');
  });

  it('returns null for headers mixing types or naming none', () => {
    expect(detectFileType('date,base,quote,rate,level')).toBeNull();
    expect(detectFileType('date,benchmark,return')).toBeNull();
    expect(detectFileType('account_code,date,market_value,rate')).toBeNull();
    expect(detectFileType('date,currency')).toBeNull();
    expect(detectFileType('name,city')).toBeNull();
  });
});
