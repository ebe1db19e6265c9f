/**
 * The transcript importers as pure functions: timestamps, WebVTT, SRT and the JSON format, with
 * the awkward parts of real files (BOM, CRLF, cue identifiers, NOTE blocks, multi-line cues,
 * markup) and errors that name the line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  durationSeconds,
  parseJsonTranscript,
  parseSrt,
  parseTimestamp,
  parseTranscript,
  parseVtt,
  speakersOf,
  TRANSCRIPT_LIMITS,
  TranscriptParseError,
  type ParsedSentence,
} from '../../src/workspace/transcripts/parsers.ts';

const simple = (sentences: ParsedSentence[]) => sentences.map((s) => [s.speaker, s.text, s.startMs, s.endMs]);

function parseError(run: () => unknown): TranscriptParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof TranscriptParseError) return error;
    throw error;
  }
  throw new Error('expected a TranscriptParseError');
}

describe('parseTimestamp', () => {
  it.each([
    ['00:00:00.000', 0],
    ['00:00:01.500', 1500],
    ['01:02:03.004', 3_723_004],
    ['02:03.004', 123_004],
    ['00:00:05,250', 5250],
    ['12:34:56,789', 45_296_789],
    ['100:00:00.000', 360_000_000],
    [' 00:01.000 ', 1000],
  ])('%s -> %d ms', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it.each(['', '1.000', '00:60.000', '00:00:60.000', '0:00:1.000', '00:01.5', '00:01.0000', '00:01', '1000:00:00.000', 'aa:bb.ccc', '-00:01.000'])(
    'rejects %j',
    (text) => {
      expect(parseTimestamp(text)).toBeNull();
    },
  );
});

describe('parseVtt', () => {
  it('reads voice tags, cue identifiers, settings, NOTE/STYLE blocks and the header title', () => {
    const vtt = [
      'WEBVTT - Weekly sync',
      'Kind: captions',
      '',
      'NOTE This is a comment',
      'spanning two lines',
      '',
      'STYLE',
      '::cue { color: yellow }',
      '',
      'intro-1',
      '00:00:01.000 --> 00:00:04.000 align:start position:10%',
      '<v Ana Lopez>Good morning, everyone.</v>',
      '',
      '00:04.500 --> 00:07.250',
      '<v.loud Ben Okafor>Morning! <b>Big</b> news &amp; updates.',
      '',
      'NOTE',
      'another note',
      '',
      '3',
      '00:00:08.000 --> 00:00:12.000',
      '<v Ana Lopez>Let us go through',
      'the agenda, item by item.</v>',
    ].join('\n');
    const parsed = parseVtt(vtt);
    expect(parsed.title).toBe('Weekly sync');
    expect(parsed.occurredAt).toBeNull();
    expect(parsed.participants).toBeNull();
    expect(simple(parsed.sentences)).toEqual([
      ['Ana Lopez', 'Good morning, everyone.', 1000, 4000],
      ['Ben Okafor', 'Morning! Big news & updates.', 4500, 7250],
      ['Ana Lopez', 'Let us go through the agenda, item by item.', 8000, 12000],
    ]);
  });

  it('takes the speaker from a "Name: " prefix and attributes the rest to Unknown', () => {
    const parsed = parseVtt(
      'WEBVTT\n\n00:01.000 --> 00:02.000\nCarla Diaz: Hello there.\n\n00:02.000 --> 00:03.000\nno speaker here\n\n00:03.000 --> 00:04.000\nAction item: send the deck\n',
    );
    expect(parsed.title).toBeNull();
    expect(simple(parsed.sentences)).toEqual([
      ['Carla Diaz', 'Hello there.', 1000, 2000],
      ['Unknown', 'no speaker here', 2000, 3000],
      ['Unknown', 'Action item: send the deck', 3000, 4000],
    ]);
  });

  it('splits a cue with several voices into sentences with the cue timing', () => {
    const parsed = parseVtt(
      'WEBVTT\n\n00:10.000 --> 00:12.000\n<v Ana>Ready?</v>\n<v Ben>Yes.</v>\n\n00:12.000 --> 00:13.000\n- Speaker 2: Go.\n- Maria de la Cruz: Going.\n',
    );
    expect(simple(parsed.sentences)).toEqual([
      ['Ana', 'Ready?', 10_000, 12_000],
      ['Ben', 'Yes.', 10_000, 12_000],
      ['Speaker 2', 'Go.', 12_000, 13_000],
      ['Maria de la Cruz', 'Going.', 12_000, 13_000],
    ]);
  });

  it('handles a BOM, CRLF and CR line endings, and a cue right after the header', () => {
    const crlf = '\uFEFFWEBVTT\r\n\r\n1\r\n00:00:01.000 --> 00:00:02.000\r\n<v Ana>One</v>\r\n\r\n2\r\n00:00:02.000 --> 00:00:03.000\r\n<v Ana>Two</v>\r\n';
    expect(simple(parseVtt(crlf).sentences)).toEqual([
      ['Ana', 'One', 1000, 2000],
      ['Ana', 'Two', 2000, 3000],
    ]);
    const cr = 'WEBVTT\r\r00:01.000 --> 00:02.000\r<v Ana>Three</v>\r';
    expect(simple(parseVtt(cr).sentences)).toEqual([['Ana', 'Three', 1000, 2000]]);
    const noBlank = 'WEBVTT\n00:01.000 --> 00:02.000\n<v Ana>Four</v>\n';
    expect(simple(parseVtt(noBlank).sentences)).toEqual([['Ana', 'Four', 1000, 2000]]);
  });

  it('skips cues without text', () => {
    const parsed = parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\n<i></i>\n\n00:02.000 --> 00:03.000\n<v Ana>Text</v>\n');
    expect(simple(parsed.sentences)).toEqual([['Ana', 'Text', 2000, 3000]]);
  });

  it.each([
    ['', 1, /must start with "WEBVTT"/],
    ['WEBVTTX\n', 1, /must start with "WEBVTT"/],
    ['WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ana>ok</v>\n\n00:02.000 -> 00:03.000\ntext\n', 6, /expected a cue timing line/],
    ['WEBVTT\n\nid\n00:01.000 --> 00:61.000\ntext\n', 4, /invalid timestamp "00:61.000"/],
    ['WEBVTT\n\n00:05.000 --> 00:04.000\ntext\n', 3, /ends \(00:00:04.000\) before it starts \(00:00:05.000\)/],
    [`WEBVTT\n\n00:01.000 --> 00:02.000\n<v ${'A'.repeat(101)}>too long</v>\n`, 4, /longer than 100 characters/],
    [`WEBVTT\n\n00:01.000 --> 00:02.000\n${'x'.repeat(10_001)}\n`, 4, /longer than 10000 characters/],
  ])('refuses malformed case %#', (content, line, message) => {
    const error = parseError(() => parseVtt(content));
    expect(error.line).toBe(line);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(`line ${line}: `)).toBe(true);
  });

  it('refuses a file without cues (no line to name)', () => {
    const error = parseError(() => parseVtt('WEBVTT\n\nNOTE nothing here\n'));
    expect(error.line).toBeNull();
    expect(error.message).toMatch(/no cues/);
  });

  it('accepts 20,000 sentences and refuses one more, naming its line', () => {
    const cue = (i: number) => `00:00:01.000 --> 00:00:02.000\n<v A>s${i}</v>\n`;
    const ok = `WEBVTT\n\n${Array.from({ length: TRANSCRIPT_LIMITS.sentences }, (_, i) => cue(i)).join('\n')}`;
    expect(parseVtt(ok).sentences).toHaveLength(20_000);
    const error = parseError(() => parseVtt(`${ok}\n${cue(20_000)}`));
    expect(error.line).toBe(3 + 3 * 20_000);
    expect(error.message).toMatch(/more than 20000 sentences/);
  });
});

describe('parseSrt', () => {
  it('reads numbered subtitles with speaker prefixes, multi-line text, markup and CRLF', () => {
    const srt = [
      '1',
      '00:00:01,000 --> 00:00:03,500',
      'Ana Lopez: Thanks for joining,',
      'everyone.',
      '',
      '2',
      '00:00:04,000 --> 00:00:06,000 X1:100 X2:200 Y1:10 Y2:20',
      '<i>Ben Okafor: Happy to be here.</i>',
      '',
      '3',
      '00:00:06,100 --> 00:00:07,000',
      '{\\an8}[laughter]',
      '',
      '4',
      '00:00:07,000 --> 00:00:09,000',
      '- Ana Lopez: Shall we?',
      '- Ben Okafor: Yes.',
      '',
    ].join('\r\n');
    const parsed = parseSrt(`\uFEFF${srt}`);
    expect(parsed.title).toBeNull();
    expect(simple(parsed.sentences)).toEqual([
      ['Ana Lopez', 'Thanks for joining, everyone.', 1000, 3500],
      ['Ben Okafor', 'Happy to be here.', 4000, 6000],
      ['Unknown', '[laughter]', 6100, 7000],
      ['Ana Lopez', 'Shall we?', 7000, 9000],
      ['Ben Okafor', 'Yes.', 7000, 9000],
    ]);
    expect(speakersOf(parsed.sentences)).toEqual(['Ana Lopez', 'Ben Okafor']);
    expect(durationSeconds(parsed.sentences)).toBe(9);
  });

  it('accepts a subtitle without its number and a dot separator', () => {
    expect(simple(parseSrt('00:00:01.000 --> 00:00:02.000\nNo name\n').sentences)).toEqual([['Unknown', 'No name', 1000, 2000]]);
  });

  it.each([
    ['1\n00:00:01,000 --> 00:00:02,000\nok\n\nstray text\n', 5, /expected a subtitle number or a timing line, got "stray text"/],
    ['1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n', 6, /expected a timing line/],
    ['1\n00:00:01,000 --> 00:00:02;000\nok\n', 2, /invalid timestamp "00:00:02;000"/],
    ['1\r\n00:00:01,000 --> 00:00:02,000\r\nok\r\n\r\n2\r\nnot a timing\r\ntext\r\n', 6, /expected a cue timing line/],
  ])('refuses malformed case %#', (content, line, message) => {
    const error = parseError(() => parseSrt(content));
    expect(error.line).toBe(line);
    expect(error.message).toMatch(message);
  });

  it('refuses an empty file', () => {
    expect(parseError(() => parseSrt('\n\n')).message).toMatch(/no subtitles/);
  });
});

describe('parseJsonTranscript', () => {
  const doc = {
    title: '  Standup ',
    occurred_at: '2026-03-02T09:30:00+01:00',
    participants: ['Ana', 'Ben', 'Ana', 'Carla'],
    sentences: [
      { speaker: 'Ana', text: 'Morning.', start: 0, end: 1.25 },
      { speaker: ' Ben ', text: 'Hi\n  all.', start: '00:01.300' },
      { speaker: 'Ana', text: 'Let us start.', start: 2.0004, end: '00:00:04,000' },
    ],
    extra: 'ignored',
  };

  it('reads title, occurred_at, participants and sentences (seconds or timestamps; end optional)', () => {
    const parsed = parseJsonTranscript(`\uFEFF${JSON.stringify(doc, null, 2)}`);
    expect(parsed.title).toBe('Standup');
    expect(parsed.occurredAt?.toISOString()).toBe('2026-03-02T08:30:00.000Z');
    expect(parsed.participants).toEqual(['Ana', 'Ben', 'Carla']);
    expect(simple(parsed.sentences)).toEqual([
      ['Ana', 'Morning.', 0, 1250],
      ['Ben', 'Hi all.', 1300, null],
      ['Ana', 'Let us start.', 2000, 4000],
    ]);
    expect(durationSeconds(parsed.sentences)).toBe(4);
  });

  it('leaves title, occurred_at and participants to the caller when absent', () => {
    const parsed = parseJsonTranscript('{"sentences": [{"speaker": "A", "text": "x", "start": 61.2}]}');
    expect(parsed).toMatchObject({ title: null, occurredAt: null, participants: null });
    // the start, as there is no end, rounded up
    expect(durationSeconds(parsed.sentences)).toBe(62);
  });

  const lines = (value: unknown) => JSON.stringify(value, null, 2);
  it.each([
    ['{\n  "sentences": [\n    {"speaker": "A", "text": "x", "start": 0},\n  ]\n}', 4, /invalid JSON: unexpected "]"/],
    ['{\n  "title": "x",\n  "sentences": [\n', 4, /invalid JSON: unexpected end of input/],
    ['{\n  "title": "x"\n  "sentences": []\n}', 3, /expected "," or "}"/],
    ['[]', 1, /must be an object/],
    [lines({ title: 5, sentences: [] }), 2, /"title" must be a string/],
    [lines({ title: 't', occurred_at: '2026-03-02', sentences: [] }), 3, /occurred_at" must be an ISO 8601 timestamp with a time zone/],
    [lines({ title: 't' }), 1, /"sentences" must be an array/],
    [lines({ participants: ['A', ''], sentences: [] }), 4, /participants\[1\] must be a non-empty string/],
    [
      lines({
        sentences: [
          { speaker: 'A', text: 'x', start: 0 },
          { speaker: '', text: 'y', start: 1 },
        ],
      }),
      9,
      /sentences\[1\]\.speaker must be a non-empty string/,
    ],
    [lines({ sentences: [{ speaker: 'A'.repeat(101), text: 'y', start: 1 }] }), 4, /sentences\[0\]\.speaker is longer than 100 characters/],
    [lines({ sentences: [{ speaker: 'A', text: '  ', start: 1 }] }), 5, /sentences\[0\]\.text must be a non-empty string/],
    [lines({ sentences: [{ speaker: 'A', text: 'x' }] }), 3, /sentences\[0\]\.start is required/],
    [lines({ sentences: [{ speaker: 'A', text: 'x', start: -1 }] }), 6, /start must be a non-negative number/],
    [lines({ sentences: [{ speaker: 'A', text: 'x', start: '1:2:3' }] }), 6, /start: invalid timestamp/],
    [lines({ sentences: [{ speaker: 'A', text: 'x', start: 5, end: 4 }] }), 7, /end is before its start/],
    [lines({ sentences: [] }), null, /no sentences/],
    [lines({ sentences: ['x'] }), 3, /sentences\[0\] must be an object/],
  ])('refuses malformed case %#', (content, line, message) => {
    const error = parseError(() => parseJsonTranscript(content));
    expect(error.message).toMatch(message);
    expect(error.line).toBe(line);
  });

  it('treats a "__proto__" key as data', () => {
    const parsed = parseJsonTranscript('{"__proto__": {"title": "polluted"}, "sentences": [{"speaker": "A", "text": "x", "start": 0}]}');
    expect(parsed.title).toBeNull();
    expect(({} as Record<string, unknown>).title).toBeUndefined();
  });
});

describe('the shipped samples', () => {
  const sample = (file: string) => readFileSync(new URL(`../../samples/transcripts/${file}`, import.meta.url), 'utf8');

  it.each([
    [
      'weekly-investment-committee.vtt',
      'vtt',
      'Weekly Investment Committee',
      ['Margaret Okonkwo', 'Priya Raman', 'Helen Fairchild', 'Daniel Reyes', 'Tomasz Nowak'],
    ],
    ['client-call-cedar-trust.srt', 'srt', null, ['Sofia Marchetti', 'Kwame Mensah', 'Robert Ashford']],
    ['product-standup.json', 'json', 'Product standup', null],
  ] as const)('%s parses into 20-60 attributed sentences', (file, format, title, speakers) => {
    const parsed = parseTranscript(format, sample(file));
    expect(parsed.title).toBe(title);
    expect(parsed.sentences.length).toBeGreaterThanOrEqual(20);
    expect(parsed.sentences.length).toBeLessThanOrEqual(60);
    expect(parsed.sentences.every((s) => s.speaker !== 'Unknown')).toBe(true);
    if (speakers) expect(speakersOf(parsed.sentences)).toEqual(speakers);
    const starts = parsed.sentences.map((s) => s.startMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });
});
