import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FileFormatError,
  detectFileType,
  normaliseReturn,
  parsePerformance,
  parsePnl,
  sniffCsv,
  type ParseItem,
  type PerformanceRow,
  type PnlRow,
  type RowError,
} from '../../src/ingest/csv-formats/index.ts';
import { generatePnlLines, PNL_HEADER } from '../../scripts/generate-pnl.ts';

const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));
const PNL_HEAD = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
const PERF_HEAD = 'account_code,entity_name,date,return,return_unit';

/** The text as an async iterable of Buffers of `size` bytes (splits multi-byte characters). */
async function* chunks(text: string | Buffer, size = 1 << 20): AsyncGenerator<Buffer> {
  const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
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

const pnl = (text: string | Buffer, chunkSize?: number) => collect<PnlRow>(parsePnl(chunks(text, chunkSize)));
const perf = (text: string | Buffer, chunkSize?: number) => collect<PerformanceRow>(parsePerformance(chunks(text, chunkSize)));
const pnlFile = (...lines: string[]) => pnl([PNL_HEAD, ...lines].join('\n') + '\n');
const perfFile = (...lines: string[]) => perf([PERF_HEAD, ...lines].join('\n') + '\n');
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

describe('parsePnl: valid files', () => {
  it('parses valuations and flows into canonical rows with physical line numbers', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha Fund,2025-03-03,1000000.00,,,',
      'A1,Alpha Fund,2025-03-04,1010000.50,25000.00,start_of_day,Subscription',
      'A1,Alpha Fund,2025-03-04,,-5000,end_of_day,"Redemption, partner ""B"""',
      'A1,Alpha Fund,2025-03-05,1020000.1234,-100,,',
      'B2,Beta Trust,2025-03-03,-2500.75,,,Short book',
    );
    expect(errors).toEqual([]);
    expect(rows).toEqual([
      {
        line: 2,
        accountCode: 'A1',
        entityName: 'Alpha Fund',
        date: '2025-03-03',
        marketValue: '1000000',
        cashFlow: null,
        flowTiming: null,
        flowType: null,
        currency: null,
        description: null,
      },
      {
        line: 3,
        accountCode: 'A1',
        entityName: 'Alpha Fund',
        date: '2025-03-04',
        marketValue: '1010000.5',
        cashFlow: '25000',
        flowTiming: 'start_of_day',
        flowType: 'external',
        currency: null,
        description: 'Subscription',
      },
      {
        line: 4,
        accountCode: 'A1',
        entityName: 'Alpha Fund',
        date: '2025-03-04',
        marketValue: null,
        cashFlow: '-5000',
        flowTiming: 'end_of_day',
        flowType: 'external',
        currency: null,
        description: 'Redemption, partner "B"',
      },
      {
        line: 5,
        accountCode: 'A1',
        entityName: 'Alpha Fund',
        date: '2025-03-05',
        marketValue: '1020000.1234',
        cashFlow: '-100',
        flowTiming: null,
        flowType: 'external',
        currency: null,
        description: null,
      },
      {
        line: 6,
        accountCode: 'B2',
        entityName: 'Beta Trust',
        date: '2025-03-03',
        marketValue: '-2500.75',
        cashFlow: null,
        flowTiming: null,
        flowType: null,
        currency: null,
        description: 'Short book',
      },
    ]);
  });

  it('accepts header names in any order and case, trimmed, with the optional columns left out', async () => {
    const { rows, errors } = await pnl(' Date ,MARKET_VALUE,Account_Code,cash_flow, Entity_Name\n2025-01-02,1.5,A1,,X\n');
    expect(errors).toEqual([]);
    expect(rows).toEqual([
      {
        line: 2,
        accountCode: 'A1',
        entityName: 'X',
        date: '2025-01-02',
        marketValue: '1.5',
        cashFlow: null,
        flowTiming: null,
        flowType: null,
        currency: null,
        description: null,
      },
    ]);
  });

  it('trims values, accepts a leading plus, leading zeros and trailing zeros beyond the scale', async () => {
    const { rows, errors } = await pnlFile('  A1 , Alpha Fund ,2025-03-03, +000123.450000 , -0.0000 ,  START_OF_DAY , note ');
    expect(errors).toEqual([]);
    expect(rows[0]).toMatchObject({
      accountCode: 'A1',
      entityName: 'Alpha Fund',
      marketValue: '123.45',
      cashFlow: null,
      flowTiming: null,
      description: 'note',
    });
  });

  it('treats a zero cash_flow as no flow, and flow_timing on it is ignored', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,100,0.00,end_of_day,');
    expect(errors).toEqual([]);
    expect(rows[0]).toMatchObject({ marketValue: '100', cashFlow: null, flowTiming: null });
  });

  it('allows several flows for one account and date next to a single market value', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha,2025-03-03,100,,,',
      'A1,Alpha,2025-03-03,,10,,',
      'A1,Alpha,2025-03-03,,-3,,',
      'A1,Alpha,2025-03-04,105,2,,',
    );
    expect(errors).toEqual([]);
    expect(rows.map((r) => [r.marketValue, r.cashFlow])).toEqual([
      ['100', null],
      [null, '10'],
      [null, '-3'],
      ['105', '2'],
    ]);
  });

  it('yields nothing for a header-only file', async () => {
    expect(await pnl(`${PNL_HEAD}\n`)).toEqual({ rows: [], errors: [] });
    expect(await pnl(PNL_HEAD)).toEqual({ rows: [], errors: [] });
  });

  it('keeps a multi-line quoted description intact', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,100,5,,"line one\nline two"');
    expect(errors).toEqual([]);
    expect(rows[0].description).toBe('line one\nline two');
  });

  it('reads a Node stream (fs.createReadStream)', async () => {
    const { rows, errors } = await collect(parsePnl(createReadStream(`${SAMPLES}pnl-sample.csv`, { highWaterMark: 64 })));
    expect(errors).toEqual([]);
    expect(rows.length).toBeGreaterThan(20);
  });

  it('accepts string chunks', async () => {
    async function* strings() {
      yield `${PNL_HEAD}\nA1,Al`;
      yield 'pha,2025-03-03,1';
      yield '00,,,\n';
    }
    const { rows } = await collect(parsePnl(strings()));
    expect(rows[0]).toMatchObject({ entityName: 'Alpha', marketValue: '100' });
  });

  it('gives the same result whatever the chunking (multi-byte characters split across chunks)', async () => {
    const text = `\uFEFF${PNL_HEAD}\r\nA1,Zürich Fonds — Ünïcødé 日本,2025-03-03,100,5,,"Überweisung\r\n€ note"\r\nA1,Zürich Fonds — Ünïcødé 日本,2025-03-04,101,,,\r\n`;
    const whole = await pnl(text);
    expect(whole.errors).toEqual([]);
    expect(whole.rows).toHaveLength(2);
    expect(whole.rows[0].entityName).toBe('Zürich Fonds — Ünïcødé 日本');
    expect(whole.rows[0].description).toBe('Überweisung\r\n€ note');
    expect(whole.rows[1].line).toBe(4);
    for (const size of [1, 2, 3, 7]) expect(await pnl(text, size)).toEqual(whole);
  });

  it('stops reading when the consumer leaves early', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `A1,Alpha,${new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10)},${i + 1},,,`);
    let n = 0;
    for await (const item of parsePnl(chunks([PNL_HEAD, ...lines].join('\n'), 256))) {
      expect('row' in item).toBe(true);
      if (++n === 3) break;
    }
    expect(n).toBe(3);
  });
});

describe('parsePnl: row errors', () => {
  it.each([
    ['2025-02-30', /not a real calendar date/],
    ['2023-02-29', /not a real calendar date/],
    ['2025-13-01', /not a real calendar date/],
    ['2025-00-10', /not a real calendar date/],
    ['2025-04-31', /not a real calendar date/],
    ['2025/03/01', /YYYY-MM-DD/],
    ['03/01/2025', /YYYY-MM-DD/],
    ['2025-3-1', /YYYY-MM-DD/],
    ['2025-03-01T00:00:00Z', /YYYY-MM-DD/],
    ['1899-12-31', /year must be between 1900 and 9999/],
  ])('rejects the date %s', async (date, message) => {
    const { rows, errors } = await pnlFile(`A1,Alpha,${date},100,,,`);
    expect(rows).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 2, column: 'date' });
    expect(errors[0].message).toMatch(message);
  });

  it('accepts a leap day', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2024-02-29,100,,,', 'A1,Alpha,2000-02-29,100,,,');
    expect(errors).toEqual([]);
    expect(rows).toHaveLength(2);
  });

  it.each([
    ['"1,234.56"', /commas are not allowed/],
    ['"12,5"', /commas are not allowed/],
    ['$100', /currency symbols/],
    ['100 USD', /currency symbols/],
    ['€100', /currency symbols/],
    ['1e5', /exponent/],
    ['1.5E-3', /exponent/],
    ['NaN', /NaN and Infinity/],
    ['-Infinity', /NaN and Infinity/],
    ['(100.00)', /parentheses/],
    ['1 234.56', /group separators/],
    ["1'234.56", /group separators/],
    ['.5', /digits on both sides/],
    ['5.', /digits on both sides/],
    ['12%', /percent signs/],
    ['1.2.3', /plain decimal/],
    ['--5', /plain decimal/],
    ['abc', /plain decimal/],
    ['0x1A', /plain decimal/],
  ])('rejects the market_value %s', async (value, message) => {
    const { rows, errors } = await pnlFile(`A1,Alpha,2025-03-03,${value},,,`);
    expect(rows).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 2, column: 'market_value' });
    expect(errors[0].message).toMatch(message);
  });

  it('rejects cash_flow formats the same way', async () => {
    const { errors } = await pnlFile('A1,Alpha,2025-03-03,100,$5,,', 'A1,Alpha,2025-03-04,100,2e3,,');
    expect(errorSummary(errors)).toEqual([
      [2, 'cash_flow'],
      [3, 'cash_flow'],
    ]);
  });

  it('enforces the money scale (4 decimals, 16 integer digits) without rounding', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha,2025-03-03,1.2345,,,',
      'A1,Alpha,2025-03-04,1.23456,,,',
      'A1,Alpha,2025-03-05,9999999999999999.9999,,,',
      'A1,Alpha,2025-03-06,10000000000000000,,,',
      'A1,Alpha,2025-03-07,100,0.00001,,',
    );
    expect(rows.map((r) => r.marketValue)).toEqual(['1.2345', '9999999999999999.9999']);
    expect(errorSummary(errors)).toEqual([
      [3, 'market_value'],
      [5, 'market_value'],
      [6, 'cash_flow'],
    ]);
    expect(errors[0].message).toMatch(/more than 4 decimal places/);
    expect(errors[1].message).toMatch(/more than 16 integer digits/);
  });

  it('requires account_code, entity_name and date', async () => {
    const { errors } = await pnlFile(',Alpha,2025-03-03,1,,,', 'A1,,2025-03-03,1,,,', 'A1,Alpha,,1,,,');
    expect(errorSummary(errors)).toEqual([
      [2, 'account_code'],
      [3, 'entity_name'],
      [4, 'date'],
    ]);
  });

  it('rejects a row with neither market_value nor cash_flow, and a lone zero flow', async () => {
    const { errors } = await pnlFile('A1,Alpha,2025-03-03,,,,note', 'A1,Alpha,2025-03-03,,0,,');
    expect(errorSummary(errors)).toEqual([
      [2, null],
      [3, 'cash_flow'],
    ]);
    expect(errors[0].message).toMatch(/neither a market_value nor a cash_flow/);
  });

  it('validates flow_timing', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha,2025-03-03,100,5,next_day,',
      'A1,Alpha,2025-03-04,100,,end_of_day,',
      'A1,Alpha,2025-03-05,100,5,End_Of_Day,',
    );
    expect(errorSummary(errors)).toEqual([
      [2, 'flow_timing'],
      [3, 'flow_timing'],
    ]);
    expect(errors[0].message).toMatch(/must be start_of_day, end_of_day or empty/);
    expect(errors[1].message).toMatch(/cash_flow is empty/);
    expect(rows).toMatchObject([{ line: 4, flowTiming: 'end_of_day' }]);
  });

  it('rejects a second market value for the same account and date, naming the first line', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,100,,,', 'B2,Beta,2025-03-03,100,,,', 'A1,Alpha,2025-03-03,,7,,', 'A1,Alpha,2025-03-03,101,,,');
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4]);
    expect(errors).toEqual([{ line: 5, column: 'market_value', message: 'second market_value for account A1 on 2025-03-03 (first on line 2)' }]);
  });

  it('requires a consistent entity_name per account and distinct names per account', async () => {
    const { rows, errors } = await pnlFile(
      'A1,Alpha Fund,2025-03-03,100,,,',
      'A1,Alpha Fund LP,2025-03-04,100,,,',
      'B2,Alpha Fund,2025-03-03,100,,,',
      'A1,Alpha Fund,2025-03-05,100,,,',
    );
    expect(rows.map((r) => r.line)).toEqual([2, 5]);
    expect(errorSummary(errors)).toEqual([
      [3, 'entity_name'],
      [4, 'entity_name'],
    ]);
    expect(errors[0].message).toBe('entity_name "Alpha Fund LP" differs from "Alpha Fund" used for account A1 on line 2');
    expect(errors[1].message).toBe('entity_name "Alpha Fund" is already used for account A1 on line 2');
  });

  it('reports every problem of a row and yields no row for it', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-02-30,1e3,$5,sometime,');
    expect(rows).toEqual([]);
    expect(errorSummary(errors)).toEqual([
      [2, 'date'],
      [2, 'market_value'],
      [2, 'cash_flow'],
      [2, 'flow_timing'],
    ]);
  });

  it('rejects a row whose field count differs from the header', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,100,,', 'A1,Alpha,2025-03-04,100,,,,', 'A1,Alpha,2025-03-05,100,,,');
    expect(rows.map((r) => r.line)).toEqual([4]);
    expect(errors).toEqual([
      { line: 2, column: null, message: 'expected 7 fields as in the header, found 6' },
      { line: 3, column: null, message: 'expected 7 fields as in the header, found 8' },
    ]);
  });

  it('rejects over-long and control-character text', async () => {
    const { errors } = await pnlFile(
      `${'X'.repeat(65)},Alpha,2025-03-03,1,,,`,
      `A1,${'n'.repeat(201)},2025-03-03,1,,,`,
      `A1,Alpha,2025-03-03,1,,,${'d'.repeat(1001)}`,
      'A1,"Al\u0007pha",2025-03-04,1,,,',
    );
    expect(errorSummary(errors)).toEqual([
      [2, 'account_code'],
      [3, 'entity_name'],
      [4, 'description'],
      [5, 'entity_name'],
    ]);
  });

  it('keeps a stray quote inside an unquoted field as text, then validates it', async () => {
    const { rows, errors } = await pnlFile('A1,Alpha,2025-03-03,10"0,,,', 'A1,Alpha,2025-03-04,100,,,say "hi"');
    expect(errorSummary(errors)).toEqual([[2, 'market_value']]);
    expect(rows[0].description).toBe('say "hi"');
  });

  it('reports invalid UTF-8 inside a field', async () => {
    const text = Buffer.concat([
      Buffer.from(`${PNL_HEAD}\nA1,Caf`),
      Buffer.from([0xe9]), // Latin-1 é
      Buffer.from(',2025-03-03,100,,,\nA2,Beta,2025-03-03,100,,,\n'),
    ]);
    const { rows, errors } = await pnl(text);
    expect(errors).toEqual([{ line: 2, column: 'entity_name', message: 'invalid UTF-8 byte sequence (the file must be UTF-8 encoded)' }]);
    expect(rows.map((r) => r.line)).toEqual([3]);
  });
});

describe('line numbers', () => {
  const bad = 'A1,Alpha,2025-02-30,100,,,';
  const ok = (d: string) => `A1,Alpha,2025-03-${d},100,,,`;

  it('count the physical lines of quoted multi-line fields (LF)', async () => {
    const text = [PNL_HEAD, ok('03'), 'A1,Alpha,2025-03-04,100,5,,"first\nsecond\n\nfourth"', bad, ok('05'), 'A1,Alpha,2025-03-06,1e2,,,'].join('\n');
    const { rows, errors } = await pnl(text);
    expect(rows.map((r) => r.line)).toEqual([2, 3, 8]);
    expect(errorSummary(errors)).toEqual([
      [7, 'date'],
      [9, 'market_value'],
    ]);
  });

  it('count the physical lines of quoted multi-line fields (CRLF, where csv-parse info.lines is off)', async () => {
    const text = [PNL_HEAD, ok('03'), 'A1,Alpha,2025-03-04,100,5,,"first\r\nsecond\r\n\r\nfourth"', bad, ok('05'), 'A1,Alpha,2025-03-06,1e2,,,'].join('\r\n');
    const { rows, errors } = await pnl(text, 5);
    expect(rows.map((r) => r.line)).toEqual([2, 3, 8]);
    expect(errorSummary(errors)).toEqual([
      [7, 'date'],
      [9, 'market_value'],
    ]);
  });

  it('count skipped blank lines, whitespace-only lines and comma-only lines', async () => {
    const text = ['', '  ', PNL_HEAD, '', ok('03'), ',,,,,,', '   ', '', bad, '', ''].join('\n');
    const { rows, errors } = await pnl(text);
    expect(rows.map((r) => r.line)).toEqual([5]);
    expect(errorSummary(errors)).toEqual([[9, 'date']]);
  });

  it('count skipped blank lines with CRLF endings, in any chunking', async () => {
    const text = ['', PNL_HEAD, '', '', ok('03'), '  ', 'A1,Alpha,2025-03-04,100,5,,"x\r\n\r\ny"', '', bad].join('\r\n') + '\r\n\r\n';
    for (const size of [1, 3, 1000]) {
      const { rows, errors } = await pnl(text, size);
      expect(rows.map((r) => r.line)).toEqual([5, 7]);
      expect(errorSummary(errors)).toEqual([[11, 'date']]);
    }
  });

  it('work with old Mac CR line endings', async () => {
    const text = [PNL_HEAD, ok('03'), '', 'A1,Alpha,2025-03-04,100,5,,"a\rb"', bad].join('\r');
    const { rows, errors } = await pnl(text);
    expect(rows.map((r) => r.line)).toEqual([2, 4]);
    expect(errorSummary(errors)).toEqual([[6, 'date']]);
  });
});

describe('header errors throw FileFormatError', () => {
  it('names a missing required column and the expected columns', async () => {
    const err = await formatError(pnl('account_code,entity_name,date,market_value\nA1,Alpha,2025-03-03,1\n'));
    expect(err.message).toMatch(/missing required column: cash_flow/);
    expect(err.message).toMatch(
      /Expected columns: account_code, entity_name, date, market_value, cash_flow, flow_timing \(optional\), flow_type \(optional\), currency \(optional\), description \(optional\)/,
    );
    expect(err.line).toBe(1);
  });

  it('names unknown columns', async () => {
    const err = await formatError(pnl(`${PNL_HEAD},region,Notes\n`));
    expect(err.message).toMatch(/unknown columns: region, notes/);
  });

  it('names duplicate columns (case-insensitively)', async () => {
    const err = await formatError(pnl(`${PNL_HEAD},Date\n`));
    expect(err.message).toMatch(/duplicate column: date/);
  });

  it('rejects an empty column name', async () => {
    const err = await formatError(pnl(`${PNL_HEAD},\nA1,Alpha,2025-03-03,1,,,,\n`));
    expect(err.message).toMatch(/1 column has an empty name/);
  });

  it('reports several problems at once and the header line after leading blank lines', async () => {
    const err = await formatError(pnl('\n\naccount_code,date,date,foo\n'));
    expect(err.message).toMatch(/invalid pnl file header \(line 3\)/);
    expect(err.message).toMatch(/missing required columns: entity_name, market_value, cash_flow/);
    expect(err.message).toMatch(/unknown column: foo/);
    expect(err.message).toMatch(/duplicate column: date/);
    expect(err.line).toBe(3);
  });

  it('says when the header belongs to the other file type', async () => {
    const err = await formatError(pnl(`${PERF_HEAD}\n`));
    expect(err.message).toMatch(/looks like a performance file/);
    const err2 = await formatError(perf(`${PNL_HEAD}\n`));
    expect(err2.message).toMatch(/looks like a pnl file/);
  });

  it('rejects an empty file', async () => {
    expect((await formatError(pnl(''))).message).toMatch(/empty/);
    expect((await formatError(pnl('\uFEFF\r\n\r\n'))).message).toMatch(/empty/);
    expect((await formatError(perf(''))).message).toMatch(/performance header row is required/);
  });

  it('fails the file on an unclosed quote, naming the line where it starts', async () => {
    const err = await formatError(pnlFile('A1,Alpha,2025-03-03,1,,,', '', 'A1,Alpha,2025-03-04,1,,,"never closed', 'A1,Alpha,2025-03-05,1,,,'));
    expect(err.message).toMatch(/quoted field starting at line 4 is never closed/);
    expect(err.line).toBe(4);
  });

  it('fails the file on a record longer than 64 KiB', async () => {
    const err = await formatError(pnlFile(`A1,Alpha,2025-03-03,1,,,"${'x'.repeat(70_000)}"`));
    expect(err.message).toMatch(/longer than 65536 characters/);
  });

  it('passes through errors of the source stream', async () => {
    async function* failing() {
      yield Buffer.from(`${PNL_HEAD}\n`);
      throw new Error('disk on fire');
    }
    await expect(collect(parsePnl(failing()))).rejects.toThrow('disk on fire');
  });
});

describe('parsePerformance', () => {
  it('normalises units to a fraction exactly', async () => {
    const { rows, errors } = await perfFile(
      'A1,Alpha,2025-03-03,1.23,percent',
      'A1,Alpha,2025-03-04,12.5,bps',
      'A1,Alpha,2025-03-05,0.0012,fraction',
      'A1,Alpha,2025-03-06,-0.4601,PERCENT',
      'A1,Alpha,2025-03-07,-3,Bps',
      'A1,Alpha,2025-03-10,0,percent',
      'A1,Alpha,2025-03-11,-0.00,fraction',
      'A1,Alpha,2025-03-12,0.1234567891,percent',
      'A1,Alpha,2025-03-13,-0.12345678,bps',
      'A1,Alpha,2025-03-14,0.123456789012,fraction',
      'A1,Alpha,2025-03-17,250,percent',
    );
    expect(errors).toEqual([]);
    expect(rows.map((r) => r.returnFraction)).toEqual([
      '0.0123',
      '0.00125',
      '0.0012',
      '-0.004601',
      '-0.0003',
      '0',
      '0',
      '0.001234567891',
      '-0.000012345678',
      '0.123456789012',
      '2.5',
    ]);
    expect(rows[0]).toEqual({ line: 2, accountCode: 'A1', entityName: 'Alpha', date: '2025-03-03', returnFraction: '0.0123' });
  });

  it('rejects more decimals than the 12-place fraction can hold (no rounding)', async () => {
    const { rows, errors } = await perfFile(
      'A1,Alpha,2025-03-03,0.12345678901,percent',
      'A1,Alpha,2025-03-04,0.123456789,bps',
      'A1,Alpha,2025-03-05,0.1234567890123,fraction',
      'A1,Alpha,2025-03-06,0.1234567890120000,fraction',
    );
    expect(rows.map((r) => r.line)).toEqual([5]);
    expect(errorSummary(errors)).toEqual([
      [2, 'return'],
      [3, 'return'],
      [4, 'return'],
    ]);
    expect(errors[0].message).toMatch(/at most 10 for percent/);
    expect(errors[1].message).toMatch(/at most 8 for bps/);
    expect(errors[2].message).toMatch(/at most 12 for fraction/);
  });

  it('rejects returns out of the storable range', async () => {
    const { errors } = await perfFile('A1,Alpha,2025-03-03,123456789,fraction', 'A1,Alpha,2025-03-04,99999999999,percent');
    expect(errorSummary(errors)).toEqual([
      [2, 'return'],
      [3, 'return'],
    ]);
    expect(errors[0].message).toMatch(/out of range/);
  });

  it('requires an explicit, known unit', async () => {
    const { rows, errors } = await perfFile(
      'A1,Alpha,2025-03-03,1.2,',
      'A1,Alpha,2025-03-04,1.2,%',
      'A1,Alpha,2025-03-05,1.2,pct',
      'A1,Alpha,2025-03-06,1.2%,',
    );
    expect(rows).toEqual([]);
    expect(errorSummary(errors)).toEqual([
      [2, 'return_unit'],
      [3, 'return_unit'],
      [4, 'return_unit'],
      [5, 'return_unit'],
      [5, 'return'],
    ]);
    expect(errors[0].message).toMatch(/return_unit is required/);
    expect(errors[1].message).toMatch(/must be percent, fraction or bps/);
  });

  it('rejects bad numbers, missing returns, bad dates and duplicates', async () => {
    const { rows, errors } = await perfFile(
      'A1,Alpha,2025-03-03,0.5,percent',
      'A1,Alpha,2025-03-04,,percent',
      'A1,Alpha,2025-03-05,1e-3,fraction',
      'A1,Alpha,2025-02-29,0.1,percent',
      'A1,Alpha,2025-03-03,0.5,percent',
      'A1,Beta,2025-03-06,0.5,percent',
    );
    expect(rows.map((r) => r.line)).toEqual([2]);
    expect(errors).toEqual([
      { line: 3, column: 'return', message: 'return is required' },
      { line: 4, column: 'return', message: 'return "1e-3" is not a valid number: exponent notation is not allowed' },
      { line: 5, column: 'date', message: '2025-02-29 is not a real calendar date' },
      { line: 6, column: 'return', message: 'second return for account A1 on 2025-03-03 (first on line 2)' },
      { line: 7, column: 'entity_name', message: 'entity_name "Beta" differs from "Alpha" used for account A1 on line 2' },
    ]);
  });

  it('header errors', async () => {
    expect((await formatError(perf('account_code,entity_name,date,return\n'))).message).toMatch(/missing required column: return_unit/);
    expect((await formatError(perf(`${PERF_HEAD},benchmark\n`))).message).toMatch(/unknown column: benchmark/);
  });

  it('tolerates BOM, CRLF and reordered, upper-case headers', async () => {
    const { rows, errors } = await perf('\uFEFFRETURN_UNIT,Return,Date,Entity_Name,Account_Code\r\nbps,1,2025-03-03,Alpha,A1\r\n\r\n');
    expect(errors).toEqual([]);
    expect(rows).toEqual([{ line: 2, accountCode: 'A1', entityName: 'Alpha', date: '2025-03-03', returnFraction: '0.0001' }]);
  });
});

describe('normaliseReturn', () => {
  it('converts exactly, also for long values', () => {
    expect(normaliseReturn('1.23', 'percent')).toEqual({ ok: true, value: '0.0123' });
    expect(normaliseReturn('12.5', 'bps')).toEqual({ ok: true, value: '0.00125' });
    expect(normaliseReturn('0.0012', 'fraction')).toEqual({ ok: true, value: '0.0012' });
    expect(normaliseReturn('9999999999.9999999999', 'percent')).toEqual({ ok: true, value: '99999999.999999999999' });
    expect(normaliseReturn('0.1', 'fraction')).toEqual({ ok: true, value: '0.1' });
    expect(normaliseReturn('x', 'fraction').ok).toBe(false);
  });
});

describe('BOM and line endings', () => {
  it('parses a UTF-8 BOM + CRLF file like the plain one', async () => {
    const lines = [PNL_HEAD, 'A1,Alpha,2025-03-03,100,,,', 'A1,Alpha,2025-03-04,101,5,start_of_day,x'];
    const plain = await pnl(lines.join('\n') + '\n');
    const crlf = await pnl('\uFEFF' + lines.join('\r\n') + '\r\n');
    expect(plain.errors).toEqual([]);
    expect(crlf).toEqual(plain);
    expect(crlf.rows[1]).toMatchObject({ line: 3, description: 'x', flowTiming: 'start_of_day' });
  });

  it('does not leave a carriage return in the last field', async () => {
    const { rows } = await pnl(`${PNL_HEAD}\r\nA1,Alpha,2025-03-03,100,5,,note\r\n`);
    expect(rows[0].description).toBe('note');
  });
});

// ---------------------------------------------------------------------------

describe('detectFileType', () => {
  it('recognises the two headers in any order, case, with BOM, quotes and CRLF', () => {
    expect(detectFileType(PNL_HEAD)).toBe('pnl');
    expect(detectFileType(PERF_HEAD)).toBe('performance');
    expect(detectFileType('\uFEFF"Date","Account_Code","Entity_Name","Return","Return_Unit"\r\n')).toBe('performance');
    expect(detectFileType(' MARKET_VALUE , account_code,entity_name,date,cash_flow')).toBe('pnl');
  });

  it('reads only the first line of a longer text and skips leading blank lines', () => {
    expect(detectFileType(`\r\n${PNL_HEAD}\r\nA1,Alpha,2025-03-03,1,,,\n`)).toBe('pnl');
    expect(detectFileType(`${PERF_HEAD}\nA1,x,2025-03-03,1,market_value\n`)).toBe('performance');
  });

  it('detects an incomplete header by its distinguishing columns (parsing then names what is missing)', () => {
    expect(detectFileType('account_code,date,cash_flow')).toBe('pnl');
    expect(detectFileType('account_code,date,return')).toBe('performance');
  });

  it('returns null for mixed, unrelated or non-CSV headers', () => {
    expect(detectFileType('account_code,entity_name,date,market_value,return,return_unit')).toBeNull();
    expect(detectFileType('account_code,entity_name,date')).toBeNull();
    expect(detectFileType('name,email,phone')).toBeNull();
    expect(detectFileType('market_value')).toBeNull();
    expect(detectFileType('')).toBeNull();
    expect(detectFileType('account_code;entity_name;date;market_value;cash_flow')).toBeNull();
  });
});

describe('sniffCsv', () => {
  const bin = (...bytes: number[]) => Buffer.concat([Buffer.from(bytes), Buffer.alloc(64, 0)]);

  it('accepts CSV text, with or without BOM, CRLF, leading blank lines and non-ASCII', () => {
    expect(sniffCsv(Buffer.from(`${PNL_HEAD}\nA1,Zürich,2025-03-03,1,,,\n`))).toEqual({ ok: true });
    expect(sniffCsv(Buffer.from(`\uFEFF${PERF_HEAD}\r\n`))).toEqual({ ok: true });
    expect(sniffCsv(Buffer.from(`\n\n${PERF_HEAD}`))).toEqual({ ok: true });
    expect(sniffCsv(readFileSync(`${SAMPLES}pnl-sample.csv`))).toEqual({ ok: true });
  });

  it('tolerates a multi-byte character cut off at the end of the sample', () => {
    const full = Buffer.from(`${PNL_HEAD}\nA1,日本,2025-03-03,1,,,\n`);
    const cut = full.subarray(0, full.indexOf(Buffer.from('日')) + 2);
    expect(sniffCsv(cut)).toEqual({ ok: true });
  });

  it('looks at no more than 64 KiB', () => {
    const big = Buffer.concat([Buffer.from(`${PNL_HEAD}\n`), Buffer.alloc(70_000, 0x61), Buffer.from([0])]);
    expect(sniffCsv(big)).toEqual({ ok: true });
  });

  it.each([
    ['PDF', Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj'), /PDF document/],
    ['ZIP / xlsx', bin(0x50, 0x4b, 0x03, 0x04, 0x14, 0x00), /ZIP archive \(xlsx\?\)/],
    ['empty ZIP', bin(0x50, 0x4b, 0x05, 0x06), /ZIP archive/],
    ['legacy xls', bin(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1), /OLE2 compound document/],
    ['GZIP', bin(0x1f, 0x8b, 0x08, 0x00), /GZIP archive/],
    ['BZIP2', bin(0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59), /BZIP2 archive/],
    ['XZ', bin(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00), /XZ archive/],
    ['Zstandard', bin(0x28, 0xb5, 0x2f, 0xfd), /Zstandard/],
    ['7z', bin(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c), /7-Zip/],
    ['RAR', bin(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00), /RAR archive/],
    ['PNG', bin(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), /PNG image/],
    ['JPEG', bin(0xff, 0xd8, 0xff, 0xe0), /JPEG image/],
    ['GIF', Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0x80, 0, 0])]), /GIF image/],
    ['TIFF', bin(0x49, 0x49, 0x2a, 0x00), /TIFF image/],
    ['WebP', Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(8)]), /WebP image/],
    ['SQLite', Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(16)]), /SQLite database/],
    ['Parquet', Buffer.concat([Buffer.from('PAR1'), Buffer.from([0x15, 0x04, 0x15, 0x00])]), /Parquet/],
    ['ELF', bin(0x7f, 0x45, 0x4c, 0x46, 0x02), /ELF executable/],
    ['Windows exe', bin(0x4d, 0x5a, 0x90, 0x00), /Windows executable/],
    ['UTF-16 LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(PNL_HEAD, 'utf16le')]), /UTF-16 text/],
    ['UTF-16 BE with BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(PNL_HEAD, 'utf16le').swap16()]), /UTF-16 text/],
    ['UTF-16 LE without BOM', Buffer.from(`${PNL_HEAD}\n`, 'utf16le'), /UTF-16 text/],
    ['UTF-32 LE', Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x61, 0, 0, 0]), /UTF-32 text/],
  ])('rejects %s', (_name, buf, reason) => {
    const result = sniffCsv(buf);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('does not mistake text that starts like a short signature for binary', () => {
    expect(sniffCsv(Buffer.from('MZ_code,entity_name\n'))).toEqual({ ok: true });
    expect(sniffCsv(Buffer.from('BZh,market_value\n'))).toEqual({ ok: true });
  });

  it.each([
    ['NUL bytes', Buffer.from('account_code,entity_name\nA1,\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'), /NUL bytes/],
    ['Latin-1 text', Buffer.from('account_code,entity_name\nA1,Caf\xe9 Fonds\n', 'latin1'), /not valid UTF-8/],
    ['control characters', Buffer.from('account_code,entity_name\u0001\n'), /control character U\+0001/],
    ['an empty buffer', Buffer.alloc(0), /empty/],
    ['only blank lines', Buffer.from('\r\n\r\n  \n'), /no header line/],
    ['semicolon-separated', Buffer.from('account_code;entity_name;date\n'), /semicolon-separated/],
    ['tab-separated', Buffer.from('account_code\tentity_name\tdate\n'), /tab-separated/],
    ['a single column', Buffer.from('hello world\n'), /no commas/],
    ['HTML', Buffer.from('<!DOCTYPE html>\n<html><body>a,b</body></html>'), /HTML\/XML/],
    ['XML', Buffer.from('<?xml version="1.0"?>\n<rows/>'), /HTML\/XML/],
    ['JSON', Buffer.from('[{"account_code":"A1","date":"2025-03-03"}]'), /JSON/],
    ['a first line longer than 64 KiB', Buffer.from('a,'.repeat(40_000)), /longer than 65536 bytes/],
  ])('rejects %s', (_name, buf, reason) => {
    const result = sniffCsv(buf);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

// ---------------------------------------------------------------------------

describe('shipped samples', () => {
  it('pnl-sample.csv: two accounts, three weeks of business days, flows with both timings, no errors', async () => {
    const { rows, errors } = await collect(parsePnl(createReadStream(`${SAMPLES}pnl-sample.csv`)));
    expect(errors).toEqual([]);
    const valuations = rows.filter((r) => r.marketValue !== null);
    const flows = rows.filter((r) => r.cashFlow !== null);
    expect(new Set(rows.map((r) => r.accountCode))).toEqual(new Set(['ACC-1001', 'ACC-2002']));
    expect(valuations).toHaveLength(30);
    expect(new Set(valuations.map((r) => r.date)).size).toBe(15);
    expect(new Set(flows.map((r) => r.flowTiming))).toEqual(new Set(['start_of_day', 'end_of_day', null]));
    expect(flows.some((r) => r.marketValue === null)).toBe(true);
    expect(flows.some((r) => r.marketValue !== null)).toBe(true);
    expect(flows.some((r) => r.cashFlow!.startsWith('-'))).toBe(true);
    expect(flows.find((r) => r.description?.includes(','))).toBeDefined();
  });

  it('performance-sample.csv: the same accounts and dates (after the first), in percent, no errors', async () => {
    const pnlRows = (await collect(parsePnl(createReadStream(`${SAMPLES}pnl-sample.csv`)))).rows;
    const { rows, errors } = await collect(parsePerformance(createReadStream(`${SAMPLES}performance-sample.csv`)));
    expect(errors).toEqual([]);
    expect(
      readFileSync(`${SAMPLES}performance-sample.csv`, 'utf8')
        .split('\n')
        .slice(1, -1)
        .every((l) => l.endsWith(',percent')),
    ).toBe(true);
    const valuationKeys = pnlRows.filter((r) => r.marketValue !== null).map((r) => `${r.accountCode} ${r.date}`);
    const firstDates = new Set(['ACC-1001 2025-03-03', 'ACC-2002 2025-03-03']);
    expect(rows.map((r) => `${r.accountCode} ${r.date}`)).toEqual(valuationKeys.filter((k) => !firstDates.has(k)));
    expect(rows[0]).toMatchObject({ accountCode: 'ACC-1001', date: '2025-03-04' });
    for (const r of rows) expect(Math.abs(Number(r.returnFraction))).toBeLessThan(0.02);
  });

  it('pnl-with-errors.csv yields the documented errors and keeps the good rows', async () => {
    const { rows, errors } = await collect(parsePnl(createReadStream(`${SAMPLES}pnl-with-errors.csv`)));
    expect(rows.map((r) => r.line)).toEqual([2, 5, 10, 14]);
    expect(rows[1].description).toBe('Rebalance note:\ntrades settle T+1');
    expect(errors).toEqual([
      { line: 3, column: 'date', message: '2025-02-30 is not a real calendar date' },
      {
        line: 4,
        column: 'market_value',
        message: 'market_value "12,685,535.86" is not a valid number: commas are not allowed (no thousands separators or decimal commas)',
      },
      { line: 7, column: 'market_value', message: 'second market_value for account ACC-1001 on 2025-03-06 (first on line 5)' },
      { line: 8, column: 'cash_flow', message: 'cash_flow "$5000" is not a valid number: currency symbols are not allowed' },
      { line: 11, column: 'flow_timing', message: 'flow_timing "next_day" must be start_of_day, end_of_day or empty' },
      { line: 12, column: 'entity_name', message: 'entity_name "Northwind Trust" differs from "Northwind Family Trust" used for account ACC-2002 on line 10' },
      { line: 13, column: 'market_value', message: 'market_value "3287793.98765" has more than 4 decimal places (amounts are not rounded)' },
    ]);
  });
});

describe('scripts/generate-pnl.ts', () => {
  it('writes exactly the requested rows, deterministically, and the file parses without errors', async () => {
    const lines = [...generatePnlLines({ rows: 3000, accounts: 7, seed: 42 })];
    expect(lines).toHaveLength(3000);
    expect([...generatePnlLines({ rows: 3000, accounts: 7, seed: 42 })]).toEqual(lines);
    expect([...generatePnlLines({ rows: 3000, accounts: 7, seed: 43 })]).not.toEqual(lines);
    const text = [PNL_HEADER, ...lines].join('\n') + '\n';
    expect(detectFileType(text)).toBe('pnl');
    expect(sniffCsv(Buffer.from(text).subarray(0, 65536))).toEqual({ ok: true });
    const { rows, errors } = await pnl(text, 4096);
    expect(errors).toEqual([]);
    expect(rows).toHaveLength(3000);
    expect(new Set(rows.map((r) => r.accountCode)).size).toBe(7);
    expect(rows.filter((r) => r.cashFlow !== null).length).toBeGreaterThan(50);
    expect(new Set(rows.map((r) => r.flowTiming))).toEqual(new Set([null, 'start_of_day', 'end_of_day']));
  });

  it('parses 100k generated rows in bounded time', async () => {
    async function* source() {
      let batch = `${PNL_HEADER}\n`;
      for (const line of generatePnlLines({ rows: 100_000, accounts: 20, seed: 1 })) {
        batch += `${line}\n`;
        if (batch.length > 65536) {
          yield batch;
          batch = '';
        }
      }
      yield batch;
    }
    const started = Date.now();
    let count = 0;
    for await (const item of parsePnl(source())) {
      if ('error' in item) throw new Error(JSON.stringify(item.error));
      count++;
    }
    expect(count).toBe(100_000);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});
