/**
 * The records of a CSV file, streamed: UTF-8 text, optional BOM, LF / CRLF / CR line endings,
 * RFC 4180 quoting (a quoted field may contain commas, quotes as "" and line breaks). Blank lines
 * (empty, whitespace only, or only commas) are skipped anywhere; values are trimmed; every data
 * row must have as many fields as the header.
 *
 * Line numbers are physical lines of the file, 1-based, the header being line 1 (when there are
 * no blank lines above it). A record that spans several lines because of a quoted line break is
 * reported at the line where it starts, and the following records keep their true physical
 * line numbers.
 */
import { Readable, pipeline } from 'node:stream';
import { parse, CsvError, type InfoRecord } from 'csv-parse';
import { LIMITS } from './columns.ts';
import { validateHeader, withArticle } from './header.ts';
import { FileFormatError, type CsvInput, type FileType, type RowError } from './types.ts';

interface LinedRecord {
  record: string[];
  /** physical start line */
  line: number;
}

/** Trimmed field values of one record, read by column name. */
class RecordValues {
  constructor(
    private readonly index: ReadonlyMap<string, number>,
    private readonly fields: readonly string[],
  ) {}
  get(column: string): string | undefined {
    const i = this.index.get(column);
    return i === undefined ? undefined : this.fields[i];
  }
}

/** One data record: its start line and trimmed values. */
export interface RawRecord {
  line: number;
  values: RecordValues;
}

const LINE_BREAK = /\r\n|\r|\n/g;

function countLineBreaks(s: string): number {
  if (s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return 0;
  return s.match(LINE_BREAK)?.length ?? 0;
}

function toReadable(input: CsvInput): NodeJS.ReadableStream {
  const maybeStream = input as NodeJS.ReadableStream;
  if (typeof maybeStream.pipe === 'function' && typeof maybeStream.on === 'function') return maybeStream;
  return Readable.from(input as AsyncIterable<Buffer | string>);
}

/** csv-parse errors become FileFormatError; anything else (I/O errors, FileFormatError) passes through. */
function csvErrorToFileError(err: unknown, startLine: number): unknown {
  if (err instanceof CsvError) {
    switch (err.code) {
      case 'CSV_QUOTE_NOT_CLOSED':
        return new FileFormatError(`malformed CSV: a quoted field starting at line ${startLine} is never closed`, startLine);
      case 'CSV_MAX_RECORD_SIZE':
        return new FileFormatError(
          `malformed CSV: the record starting at line ${startLine} is longer than ${LIMITS.maxRecordChars} characters (unbalanced quote?)`,
          startLine,
        );
      default:
        return new FileFormatError(`malformed CSV near line ${startLine}: ${err.message}`, startLine);
    }
  }
  return err;
}

/**
 * Streams the records of a CSV file of `type`: validates the header (throws
 * FileFormatError), skips blank lines, checks the field count and UTF-8, and
 * yields trimmed values keyed by column name with the physical start line.
 *
 * Line numbers: csv-parse's `info.lines` (and `raw`) miscount CRLF line breaks
 * inside quoted fields, so the start line is derived instead: every record
 * occupies 1 + (line breaks inside its fields) physical lines, and the record
 * info's `empty_lines` counts the blank lines the parser skipped before it. The
 * count is kept in `on_record`, which runs synchronously as each record is
 * parsed, so it is also right for an error raised while records are still
 * buffered ahead of the consumer.
 */
export async function* readRecords(input: CsvInput, type: FileType): AsyncGenerator<{ record: RawRecord } | { error: RowError }> {
  let parsedLines = 0; // physical lines taken by the records parsed so far (skipped blank lines excluded)
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    // a stray quote inside an unquoted field is kept as text (and then fails value validation)
    relax_quotes: true,
    max_record_size: LIMITS.maxRecordChars,
    on_record: (record: string[], context: InfoRecord) => {
      const line = parsedLines + context.empty_lines + 1;
      let breaks = 0;
      for (const field of record) breaks += countLineBreaks(field);
      parsedLines += 1 + breaks;
      return { record, line } satisfies LinedRecord as unknown as string[];
    },
  });
  pipeline(toReadable(input), parser, () => {
    /* errors surface through the async iterator below */
  });

  let columns: string[] | null = null;
  let columnIndex: Map<string, number> | null = null;
  try {
    for await (const { record, line } of parser as AsyncIterable<LinedRecord>) {
      // whitespace-only or commas-only lines count as blank
      if (record.every((f) => f.trim() === '')) continue;

      if (columns === null) {
        columns = validateHeader(record, type, line);
        columnIndex = new Map(columns.map((name, i) => [name, i]));
        continue;
      }

      if (record.length !== columns.length) {
        yield {
          error: {
            line,
            column: null,
            message: `expected ${columns.length} fields as in the header, found ${record.length}`,
          },
        };
        continue;
      }

      let badEncoding = false;
      for (let i = 0; i < record.length; i++) {
        const value = record[i];
        if (value.includes('\uFFFD')) {
          badEncoding = true;
          yield { error: { line, column: columns[i], message: 'invalid UTF-8 byte sequence (the file must be UTF-8 encoded)' } };
        }
        record[i] = value.trim();
      }
      if (badEncoding) continue;
      yield { record: { line, values: new RecordValues(columnIndex!, record) } };
    }
  } catch (err) {
    const emptyLines = err instanceof CsvError && typeof err.empty_lines === 'number' ? err.empty_lines : 0;
    throw csvErrorToFileError(err, parsedLines + emptyLines + 1);
  } finally {
    // stops reading the source when the consumer leaves early
    parser.destroy();
  }
  if (columns === null) throw new FileFormatError(`the file is empty: ${withArticle(type)} header row is required`, null);
}
