// The whole tokenize step (read gzip JSON lines, tokenize, write a Levanter cache) against Levanter's own cache
// builder (build_lm_dataset_cache) on the same documents and tokenizer, in one run, as tokens per second.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/tokenize-step.ts [--mb 50] [--files 8]
//
// Needs the Levanter Python environment (node tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { tokenizerLocation } from '../src/assets.js';
import { openTokenCache } from '../src/cache/index.js';
import { tokenize } from '../src/steps/tokenize/tokenize.js';
import { runLevanterPython } from '../test/helpers/levanter-python.js';
import { generateDocuments } from './synthetic-documents.js';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '50' }, files: { type: 'string', default: '8' } } });
const fileCount = Number(args.files);

const LEVANTER_BUILD = `
import json, sys, time
from levanter.data.sharded_datasource import datasource_from_jsonl
from levanter.data.text.cache import build_lm_dataset_cache
from levanter.data.text.formats import TextLmDatasetFormat
from levanter.tokenizers import load_tokenizer
spec = json.loads(sys.argv[1])
tok = load_tokenizer(spec["tokenizer"])
start = time.perf_counter()
cache = build_lm_dataset_cache(spec["out"], datasource_from_jsonl(spec["files"]), TextLmDatasetFormat(), tok)
print(json.dumps({"tokens": int(cache.flat_field_length("input_ids")), "rows": len(cache), "seconds": time.perf_counter() - start}))
`;

const dir = await mkdtemp(join(tmpdir(), 'tokenize-step-bench-'));
try {
  const docs = generateDocuments(Number(args.mb) * 1_000_000);
  const megabytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0) / 1e6;
  const files: string[] = [];
  for (let f = 0; f < fileCount; f++) {
    const path = join(dir, 'input', `data-${String(f).padStart(5, '0')}-of-${String(fileCount).padStart(5, '0')}.jsonl.gz`);
    const lines = docs.filter((_, i) => i % fileCount === f).map((text, i) => JSON.stringify({ id: `${f}-${i}`, text }));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'input'), { recursive: true });
    await writeFile(path, gzipSync(lines.join('\n')));
    files.push(path);
  }
  const tokenizer = tokenizerLocation('marin-tiny-bpe');

  const started = performance.now();
  await tokenize(
    { train_paths: [join(dir, 'input')], cache_path: join(dir, 'ours'), tokenizer, max_workers: cpus().length, min_part_bytes: 1 },
    { signal: new AbortController().signal },
  );
  const oursSeconds = (performance.now() - started) / 1000;
  const ours = await openTokenCache(join(dir, 'ours'), 'train');

  const py = await runLevanterPython(LEVANTER_BUILD, [JSON.stringify({ tokenizer, files, out: join(dir, 'levanter', 'train') })], { MARIN_PREFIX: dir });
  const levanter = JSON.parse(py.stdout.trim().split('\n').at(-1) ?? '{}') as { tokens: number; rows: number; seconds: number };

  const rate = (tokens: number, s: number): string => `${(tokens / s / 1e6).toFixed(2)} M tokens/s`;
  console.log(`tokenize step vs Levanter's cache builder: ${megabytes.toFixed(1)} MB in ${fileCount} gzip files, ${docs.length} documents, ${cpus().length} cores`);
  console.log(`  ours      ${ours.numTokens} tokens in ${oursSeconds.toFixed(2)} s: ${rate(ours.numTokens, oursSeconds)}`);
  console.log(`  levanter  ${levanter.tokens} tokens in ${levanter.seconds.toFixed(2)} s: ${rate(levanter.tokens, levanter.seconds)}`);
  console.log(`  ratio     ${((ours.numTokens / oursSeconds) / (levanter.tokens / levanter.seconds)).toFixed(2)}x; same token count: ${ours.numTokens === levanter.tokens}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
