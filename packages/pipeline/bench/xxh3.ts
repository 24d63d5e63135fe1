// normalize's id hash alone: xxh3-128 of every document's UTF-8 text, as the 32-hex id, through the
// optional native peer (xxhash-addon) and through the WebAssembly fallback (hash-wasm), on the same texts
// as bench/normalize.ts (synthetic documents, or the text columns of an input it kept with `--input`).
// Rounds alternate between the two; each round hashes every document once, in a fresh order of backends.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/xxh3.ts [--mb 100] [--input DIR] [--rounds 5]
import { readdir } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readParquetUtf8Columns } from '../src/formats/parquet-utf8-column.js';
import { utf8ValueAt } from '../src/formats/utf8-column.js';
import { createXxh3Hasher, type Xxh3Hasher } from '../src/steps/normalize/xxh3-128.js';
import { generateDocuments } from './synthetic-documents.js';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '100' }, input: { type: 'string' }, rounds: { type: 'string', default: '5' } } });

/** The documents' UTF-8 texts: the `text` column of every parquet file in `dir`, or freshly generated ones. */
async function texts(dir: string | undefined, mb: number): Promise<Uint8Array[]> {
  if (dir === undefined) {
    const encoder = new TextEncoder();
    return generateDocuments(mb * 1_000_000).map((text) => encoder.encode(text));
  }
  const out: Uint8Array[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.parquet')).sort()) {
    for await (const { column } of readParquetUtf8Columns(join(dir, name), 'text')) {
      for (let i = 0; i < column.length; i++) out.push(utf8ValueAt(column, i));
    }
  }
  return out;
}

const docs = await texts(args.input, Number(args.mb));
const bytes = docs.reduce((n, d) => n + d.byteLength, 0);
const native = await createXxh3Hasher();
const wasm = await createXxh3Hasher(() => null);
if (native.backend !== 'xxhash-addon') throw new Error('xxhash-addon did not load: npm install xxhash-addon@^2.1.0');
console.log(`${docs.length} documents, ${(bytes / 1e6).toFixed(0)} MB of UTF-8; ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

/** CPU milliseconds to hash every document once (ids kept in an array, as normalize keeps them). */
function round(hasher: Xxh3Hasher): number {
  const ids = new Array<string>(docs.length);
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < docs.length; i++) ids[i] = hasher.hex128(docs[i]!);
  const cpu = process.cpuUsage(cpu0);
  if (ids.some((id) => id.length !== 32)) throw new Error('an id is not 32 hex digits');
  return (cpu.user + cpu.system) / 1000;
}

const times: Record<string, number[]> = { 'xxhash-addon': [], 'hash-wasm': [] };
for (let r = 0; r < Number(args.rounds); r++) {
  for (const hasher of r % 2 === 0 ? [native, wasm] : [wasm, native]) times[hasher.backend]!.push(round(hasher));
}
for (const [backend, ms] of Object.entries(times)) {
  const best = Math.min(...ms);
  console.log(
    `${backend}: first round ${ms[0]!.toFixed(0)} CPU ms, best ${best.toFixed(0)} CPU ms (${(bytes / best / 1e6).toFixed(2)} GB per CPU-second); every round: ${ms.map((m) => m.toFixed(0)).join(', ')}`,
  );
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
