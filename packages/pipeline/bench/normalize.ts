// Normalize with exact dedup, documents per second on one core (one task at a time, in this process):
// parquet (zstd) input with 10 % planted exact duplicates → outputs/main + outputs/dups.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/normalize.ts [--mb 100]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeParquetPart } from '../src/formats/parquet-part-writer.js';
import { normalizeToParquet } from '../src/steps/normalize/normalize.js';
import { generateDocuments } from './synthetic-documents.js';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '100' } } });
const dir = await mkdtemp(join(tmpdir(), 'bench-normalize-'));
try {
  const unique = generateDocuments(Number(args.mb) * 1_000_000 * 0.9);
  const docs = [...unique, ...unique.slice(0, Math.floor(unique.length / 9))];
  const rows = docs.map((text, i) => ({ id: `doc-${i}`, text, url: `https://example.org/${i}` }));
  const columns = [
    { name: 'id', type: 'string' },
    { name: 'text', type: 'string' },
    { name: 'url', type: 'string' },
  ] as const;
  const half = Math.floor(rows.length / 2);
  await writeParquetPart(join(dir, 'in', 'a.parquet'), rows.slice(0, half), { columns: [...columns], rowGroupRows: 5000 });
  await writeParquetPart(join(dir, 'in', 'b.parquet'), rows.slice(half), { columns: [...columns], rowGroupRows: 5000 });
  const start = performance.now();
  const result = await normalizeToParquet({
    input_path: join(dir, 'in'),
    output_path: join(dir, 'out'),
    max_parallelism: 1,
    target_partition_bytes: 16 * 1024 * 1024,
  });
  const seconds = (performance.now() - start) / 1000;
  const mb = docs.reduce((n, d) => n + d.length, 0) / 1e6;
  console.log(
    `normalize: ${docs.length} documents (${mb.toFixed(0)} MB of text, ${result.counters['normalize/duplicate_records_out']} exact duplicates) in ${seconds.toFixed(1)} s: ` +
      `${(docs.length / seconds).toFixed(0)} documents/s, ${(mb / seconds).toFixed(1)} MB/s on one core`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
