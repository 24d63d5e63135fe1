import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLevanterTokenizer } from '../../src/tokenizer/levanter-tokenizer.js';
import type { LevanterPreprocessorMetadata } from '../../src/tokenizer/levanter-tokenizer.js';
import { runLevanterPython } from '../helpers/levanter-python.js';

const here = dirname(fileURLToPath(import.meta.url));
const TOKENIZERS = {
  'marin-tiny-bpe': resolve(here, '../../assets/tokenizers/marin-tiny-bpe'),
  'tiny-unigram': resolve(here, '../fixtures/tokenizers/tiny-unigram'),
  'tiny-wordlevel': resolve(here, '../fixtures/tokenizers/tiny-wordlevel'),
};

/** Words without spaces between them, so a run of non-whitespace still has merges inside it. */
function glued(chars: number, extra = ''): string {
  const words = ['the', 'strand', 'of', 'that', 'mountain', 'and', 'with', 'river', extra];
  let s = '';
  for (let i = 0; s.length < chars; i++) s += words[i % words.length];
  return s.slice(0, chars);
}

const BASIC: string[] = [
  '',
  ' ',
  '   \t\n  ',
  '\n',
  'Hello world',
  'The quick brown fox. It jumped over 12,345 lazy dogs in 2024 (about 3.14 per day)!',
  'line one\r\nline two\r\n\r\nline four\r\n',
  'tabs\tand\u000bvertical\ffeeds\rreturns',
  'emoji 😀 and family 👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵, astral math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 𠀀',
  'combining: e\u0301 a\u0308 n\u0303, precomposed: é ä ñ, Zalgo: Z\u0335\u0321a\u0336l\u0337g\u0338o',
  'NBSP\u00a0here, narrow\u202fNBSP, ideographic\u3000space, line\u2028separator, para\u2029graph',
  'info separators: a\u001cb\u001dc\u001ed\u001fe, NEL\u0085end, BOM\ufeffinside, ZWSP\u200bthere',
  '\ufeffleading BOM',
  '東京は日本の首都です。Привет, мир! مرحبا بالعالم. שלום עולם. नमस्ते दुनिया',
  '<!DOCTYPE html>\n<html lang="en"><head><title>A &amp; B</title></head>\n<body><p class="x">Text with <a href="https://example.org/a?b=1&c=2">a link</a>.</p>\n<br/><div>&nbsp;&lt;tag&gt;</div></body></html>',
  '# Title\n\n## Section\n\n- **bold** item\n- _italic_ item\n1. first\n\n```python\ndef f(x):\n    return x * 2\n```\n\n| a | b |\n|---|---|\n| `c` | 1 |\n\n[link](https://example.org) and ![img](x.png)',
  '0 1 2 3 10 100 1000 1,000,000 3.14159 -42 +7 1e10 0xFF 50% $19.99 €5 12:30:45 2024-06-11 1/2',
  'end of text marker <|end_of_text|> inside, and <|begin_of_text|> too, plus </s> and <s> and [EOS]',
  'trailing spaces   ',
  'a'.repeat(1000),
  ' '.repeat(3000),
  // The two runs of 30,000 are cut at 25,000 code points; the 60,000-character document has both.
  `${glued(30_000)} ${' '.repeat(30_000)}tail`,
  `head ${'\u3000 \t'.repeat(10_000)}${glued(30_000, 'ß')}`,
  // Exactly 25,000 code points of a run, half of them astral, then runs of 25,001 and 50,001.
  `${'a😀'.repeat(12_500)} ${'b𝔘'.repeat(12_500)}c ${glued(50_001)}`,
  `${glued(26_000)}\u0085${glued(26_000)}\u00a0${glued(5_000)}`,
];

/**
 * Documents whose ids change when the 25,000-character cut counts UTF-16 units or uses JavaScript's
 * `\s`, so passing on them shows the code-point and Python-whitespace rules are followed.
 */
const CUT_SENSITIVE: string[] = [
  // 23,002 code points but 25,302 UTF-16 units: Python does not cut this run.
  `start ab${'mountains𝔘'.repeat(2_300)} end`,
  // 30,002 code points: Python cuts after 25,000 of them, between tokens; UTF-16 units would cut inside one.
  `ab${'mountains😀'.repeat(3_000)}`,
  // U+001C is whitespace to Python's re, so neither run reaches 25,000; JavaScript sees one run of 30,001.
  `${glued(20_000)}\u001c${glued(10_000)}`,
  // U+FEFF is not whitespace to Python's re, so this is one run of 30,001; JavaScript sees two.
  `${glued(20_000)}\ufeff${glued(10_000)} and more`,
];

/** The safe split done wrongly: UTF-16 lengths and JavaScript's \\s. */
function utf16Split(text: string): string[] {
  if (text.length <= 25_000) return [text];
  const parts: string[] = [];
  let last = 0;
  for (let i = 0; i < text.length; ) {
    const start = i;
    const space = /\s/.test(text[i] as string);
    while (i < text.length && /\s/.test(text[i] as string) === space) i++;
    if (i - start < 25_000) continue;
    if (start > last) parts.push(text.slice(last, start));
    for (let s = start; s < i; s += 25_000) parts.push(text.slice(s, Math.min(i, s + 25_000)));
    last = i;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

const DOCUMENTS = [...BASIC, ...CUT_SENSITIVE];

interface OracleCase {
  tokenizer: keyof typeof TOKENIZERS;
  enforceBos: boolean;
  enforceEos: boolean;
  /** When set, BatchTokenizer's long_string_workaround with this piece length. */
  workaroundLen?: number;
}

const CASES: OracleCase[] = [
  ...(Object.keys(TOKENIZERS) as Array<keyof typeof TOKENIZERS>).flatMap((tokenizer) => [
    { tokenizer, enforceBos: true, enforceEos: true },
    { tokenizer, enforceBos: false, enforceEos: false },
  ]),
  { tokenizer: 'marin-tiny-bpe', enforceBos: true, enforceEos: false },
  { tokenizer: 'marin-tiny-bpe', enforceBos: false, enforceEos: true },
  { tokenizer: 'marin-tiny-bpe', enforceBos: true, enforceEos: true, workaroundLen: 10_000 },
  // A tiny piece length cuts every document many times, at the regex module's whitespace.
  { tokenizer: 'marin-tiny-bpe', enforceBos: true, enforceEos: true, workaroundLen: 40 },
  { tokenizer: 'tiny-unigram', enforceBos: true, enforceEos: true, workaroundLen: 40 },
];

// Builds each processor the way TextLmDatasetFormat.build_preprocessor does, with load_tokenizer.
const ORACLE = `
import json, sys
from levanter.data.text._batch_tokenizer import BatchTokenizer
from levanter.data.text.formats import TextLmDatasetFormat
from levanter.tokenizers import load_tokenizer

spec = json.load(open(sys.argv[1], encoding="utf-8"))
batch = [{"text": t} for t in spec["documents"]]
results = []
for case in spec["cases"]:
    tok = load_tokenizer(case["dir"])
    if case["workaround_len"] is None:
        proc = TextLmDatasetFormat(text_key="text").build_preprocessor(
            tok, enforce_bos=case["enforce_bos"], enforce_eos=case["enforce_eos"])
    else:
        proc = BatchTokenizer(tok, enforce_bos=case["enforce_bos"], enforce_eos=case["enforce_eos"],
                              long_string_workaround=True, _workaround_len=case["workaround_len"])
    rows = proc(batch)
    results.append({"ids": [r["input_ids"] for r in rows], "metadata": proc.metadata})
json.dump(results, open(sys.argv[2], "w"))
`;

interface OracleResult {
  ids: number[][];
  metadata: LevanterPreprocessorMetadata;
}

function label(c: OracleCase): string {
  const ends = `${c.enforceBos ? 'with' : 'without'} BOS, ${c.enforceEos ? 'with' : 'without'} EOS`;
  return `${c.tokenizer} ${ends}${c.workaroundLen === undefined ? '' : `, long-string workaround at ${c.workaroundLen}`}`;
}

describe('encodeDocuments() against Levanter’s BatchTokenizer', () => {
  let dir: string;
  let levanter: OracleResult[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'levanter-tokenize-'));
    const spec = {
      documents: DOCUMENTS,
      cases: CASES.map((c) => ({
        dir: TOKENIZERS[c.tokenizer],
        enforce_bos: c.enforceBos,
        enforce_eos: c.enforceEos,
        workaround_len: c.workaroundLen ?? null,
      })),
    };
    await writeFile(join(dir, 'spec.json'), JSON.stringify(spec));
    await runLevanterPython(ORACLE, [join(dir, 'spec.json'), join(dir, 'out.json')]);
    levanter = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8')) as OracleResult[];
  }, 300_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  CASES.forEach((c, i) => {
    it(`gives Levanter's ids and metadata for ${label(c)}`, async () => {
      const tokenizer = await loadLevanterTokenizer(TOKENIZERS[c.tokenizer], {
        enforceBos: c.enforceBos,
        enforceEos: c.enforceEos,
        ...(c.workaroundLen === undefined ? {} : { longStringWorkaround: true, workaroundLen: c.workaroundLen }),
        batchSize: 7,
      });
      const expected = levanter[i] as OracleResult;
      const ours = await tokenizer.encodeDocuments(DOCUMENTS);
      expect(ours).toHaveLength(DOCUMENTS.length);
      ours.forEach((ids, d) => {
        expect({ document: d, ids: Array.from(ids) }).toEqual({ document: d, ids: expected.ids[d] });
      });
      expect(tokenizer.preprocessorMetadata).toEqual(expected.metadata);
      expect(Object.keys(tokenizer.preprocessorMetadata)).toEqual(Object.keys(expected.metadata));
    });
  });

  it('includes documents where UTF-16 lengths or JavaScript \\s would give other ids', async () => {
    // Without this, passing the oracle cases could not tell Levanter's code-point rules from a naive port.
    const raw = Tokenizer.fromFile(join(TOKENIZERS['marin-tiny-bpe'], 'tokenizer.json'));
    const expected = (levanter[0] as OracleResult).ids;
    const naive = async (text: string): Promise<number[]> => {
      const encodings = await raw.encodeBatch(utf16Split(text), { addSpecialTokens: false });
      return [0, ...encodings.flatMap((e) => e.getIds())];
    };
    for (let d = BASIC.length; d < DOCUMENTS.length; d++) {
      const ids = await naive(`${DOCUMENTS[d] as string} <|end_of_text|>`);
      expect({ document: d, same: JSON.stringify(ids) === JSON.stringify(expected[d]) }).toEqual({ document: d, same: false });
    }
  });
});
