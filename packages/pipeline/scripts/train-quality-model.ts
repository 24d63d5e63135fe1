// Trains the shipped tiny quality classifier, assets/quality/tiny-quality.bin, from the seeded synthetic examples
// (`hq` prose vs `lq` spam) with the official fastText bindings in the curation Python environment. Deterministic:
// one thread, fixed seed. Run from packages/pipeline:
//   node --conditions=@marin/source --import tsx scripts/train-quality-model.ts
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureCurationPython } from '../src/curation/quality/fasttext-python.js';
import { generateQualityExamples } from '../src/curation/quality/quality-examples.js';
import { TINY_QUALITY_FASTTEXT_ARGS, trainFasttextClassifier } from '../src/curation/quality/train-fasttext.js';
import { tinyQualityModelPath } from '../src/curation/curation-assets.js';

const examples = generateQualityExamples({ seed: 1, count: 2000 });
const python = await ensureCurationPython({ log: (l) => process.stderr.write(`${l}\n`) });
const work = await mkdtemp(join(tmpdir(), 'tiny-quality-'));
try {
  const result = await trainFasttextClassifier({
    datasets: ['hq', 'lq'].map((label) => ({ label, records: () => examples.filter((e) => e.label === label) })),
    outputDir: work,
    python,
    seed: 0,
    fasttextArgs: TINY_QUALITY_FASTTEXT_ARGS,
  });
  const target = tinyQualityModelPath();
  await mkdir(dirname(target), { recursive: true });
  await copyFile(result.modelPath, target);
  console.log(`wrote ${target}: ${JSON.stringify(result.metrics)}`);
} finally {
  await rm(work, { recursive: true, force: true });
}
