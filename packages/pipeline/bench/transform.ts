/**
 * Documents per second of the HTML → Markdown conversion (JSON parse, linkedom, Readability,
 * Turndown, record shaping), on the quickstart pages repeated to about 2,000 documents; no I/O is timed.
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/bench/transform.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { quickstartDataPath } from '../src/assets.js';
import { asHtmlRecord, toMarkdownRecord } from '../src/steps/transform/document-record.js';
import { createHtmlToMarkdown, parseMarkdownConfig } from '../src/steps/transform/html-to-markdown.js';

const TARGET_DOCS = 2000;
const WARMUP_DOCS = 100;

const shards = ['train/data-00000-of-00002.jsonl.gz', 'train/data-00001-of-00002.jsonl.gz', 'validation/data-00000-of-00001.jsonl.gz'];
const lines = shards.flatMap((shard) => gunzipSync(readFileSync(join(quickstartDataPath(), shard))).toString('utf8').trim().split('\n'));
const docs = Array.from({ length: TARGET_DOCS }, (_, i) => lines[i % lines.length] as string);
const convert = createHtmlToMarkdown(parseMarkdownConfig({}));

const run = (batch: readonly string[]): number => {
  let bytes = 0;
  for (const [i, line] of batch.entries()) bytes += JSON.stringify(toMarkdownRecord(asHtmlRecord(JSON.parse(line) as Record<string, unknown>, { path: 'bench', line: i + 1 }), convert)).length;
  return bytes;
};

run(docs.slice(0, WARMUP_DOCS));
const started = performance.now();
const bytes = run(docs);
const seconds = (performance.now() - started) / 1000;
const inputMb = docs.reduce((n, line) => n + line.length, 0) / 1e6;
process.stdout.write(
  `transform: ${docs.length} documents (${inputMb.toFixed(1)} MB of JSON lines) in ${seconds.toFixed(2)} s: ` +
    `${(docs.length / seconds).toFixed(0)} documents/s, ${(inputMb / seconds).toFixed(1)} MB/s in, ${(bytes / 1e6).toFixed(1)} MB out\n`,
);
