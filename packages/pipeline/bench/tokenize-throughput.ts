// Tokens per second of loadLevanterTokenizer().encodeDocuments against Levanter's own BatchTokenizer
// (built as TextLmDatasetFormat.build_preprocessor builds it) on the same text and tokenizer.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/tokenize-throughput.ts \
//     [--mb 50] [--tokenizer <dir>] [--docs-per-call 1000] [--sweep]
//
// --sweep also times a few batchSize/concurrency settings of our encoder. Needs the Levanter Python
// environment (node tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock).
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadLevanterTokenizer } from '../src/tokenizer/levanter-tokenizer.js';
import type { LevanterTokenizerOptions } from '../src/tokenizer/levanter-tokenizer.js';
import { runLevanterPython } from '../test/helpers/levanter-python.js';
import { generateDocuments } from './synthetic-documents.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    mb: { type: 'string', default: '50' },
    tokenizer: { type: 'string', default: resolve(here, '../assets/tokenizers/marin-tiny-bpe') },
    'docs-per-call': { type: 'string', default: '1000' },
    sweep: { type: 'boolean', default: false },
  },
});
const targetBytes = Number(args.mb) * 1_000_000;
const docsPerCall = Number(args['docs-per-call']);

const LEVANTER = `
import json, sys, time
from levanter.data.text.formats import TextLmDatasetFormat
from levanter.tokenizers import load_tokenizer
import hashlib, array
docs = [json.loads(line)["text"] for line in open(sys.argv[1], encoding="utf-8")]
batch_size = int(sys.argv[3])
proc = TextLmDatasetFormat(text_key="text").build_preprocessor(load_tokenizer(sys.argv[2]))
proc([{"text": "warm up"}])
digest = hashlib.sha256()
tokens = 0
start = time.perf_counter()
for i in range(0, len(docs), batch_size):
    for row in proc([{"text": t} for t in docs[i : i + batch_size]]):
        ids = row["input_ids"]
        tokens += len(ids)
        digest.update(array.array("i", ids).tobytes())
seconds = time.perf_counter() - start
print(json.dumps({"tokens": tokens, "seconds": seconds, "sha256": digest.hexdigest()}))
`;

interface Run {
  tokens: number;
  seconds: number;
  sha256: string;
}

async function runOurs(docs: readonly string[], options: LevanterTokenizerOptions): Promise<Run> {
  const tokenizer = await loadLevanterTokenizer(args.tokenizer, options);
  await tokenizer.encodeDocuments(['warm up']);
  const digest = createHash('sha256');
  let tokens = 0;
  const start = performance.now();
  for (let i = 0; i < docs.length; i += docsPerCall) {
    for (const ids of await tokenizer.encodeDocuments(docs.slice(i, i + docsPerCall))) {
      tokens += ids.length;
      digest.update(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength));
    }
  }
  return { tokens, seconds: (performance.now() - start) / 1000, sha256: digest.digest('hex') };
}

const rate = (r: Run): string => `${(r.tokens / r.seconds / 1e6).toFixed(2)} M tokens/s`;

const docs = generateDocuments(targetBytes);
const megabytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0) / 1e6;
const dir = await mkdtemp(join(tmpdir(), 'tokenize-bench-'));
try {
  await writeFile(join(dir, 'docs.jsonl'), docs.map((text) => JSON.stringify({ text })).join('\n'));
  const ours = await runOurs(docs, {});
  const py = await runLevanterPython(LEVANTER, [join(dir, 'docs.jsonl'), args.tokenizer, String(docsPerCall)]);
  const levanter = JSON.parse(py.stdout.trim().split('\n').at(-1) ?? '{}') as Run;
  const same = ours.sha256 === levanter.sha256 && ours.tokens === levanter.tokens;
  console.log(`${docs.length} documents, ${megabytes.toFixed(1)} MB, tokenizer ${args.tokenizer}, ${docsPerCall} documents per call`);
  console.log(`${'encoder'.padEnd(34)}${'tokens'.padStart(12)}${'seconds'.padStart(10)}   throughput`);
  console.log(`${'TypeScript encodeDocuments'.padEnd(34)}${String(ours.tokens).padStart(12)}${ours.seconds.toFixed(2).padStart(10)}   ${rate(ours)}`);
  console.log(`${'Levanter BatchTokenizer (Python)'.padEnd(34)}${String(levanter.tokens).padStart(12)}${levanter.seconds.toFixed(2).padStart(10)}   ${rate(levanter)}`);
  console.log(`speed-up ${(levanter.seconds / ours.seconds).toFixed(2)}x; ids ${same ? 'identical (sha256 of every document)' : 'DIFFER'}`);
  if (args.sweep) {
    for (const batchSize of [64, 256, 1024]) {
      for (const concurrency of [1, 2, 4]) {
        const run = await runOurs(docs, { batchSize, concurrency });
        console.log(`  batchSize ${String(batchSize).padStart(4)}, concurrency ${concurrency}: ${run.seconds.toFixed(2)} s, ${rate(run)}`);
      }
    }
  }
  if (!same) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
