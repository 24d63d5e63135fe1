import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecutorStep, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { Client, FrayLogger, JobHandle, JobRequest, SubmitOptions } from '@marin/fray';
import { runLevanterPython } from './levanter-python.js';

const here = dirname(fileURLToPath(import.meta.url));
const ASSETS = resolve(here, '../../assets');
/** The shipped byte-level BPE tokenizer (1,024 ids). */
export const TINY_TOKENIZER = resolve(ASSETS, 'tokenizers/marin-tiny-bpe');
/** The shipped quickstart documents: `train/` and `validation/`. */
export const QUICKSTART_DATA = resolve(ASSETS, 'quickstart');

const BUILD_CACHE = `
import glob, os, sys
from levanter.data.sharded_datasource import UrlDataSource
from levanter.data.text import TextLmDatasetFormat, build_lm_dataset_cache
from levanter.tokenizers import load_tokenizer

tokenizer_dir, data_dir, out = sys.argv[1:4]
tokenizer = load_tokenizer(tokenizer_dir)
for split in ("train", "validation"):
    files = sorted(glob.glob(os.path.join(data_dir, split, "*.jsonl.gz")))
    build_lm_dataset_cache(os.path.join(out, split), UrlDataSource(files), TextLmDatasetFormat(), tokenizer)
`;

/**
 * Builds a token cache of the quickstart documents with Levanter's own cache builder and the shipped
 * tokenizer: `<out>/train` and `<out>/validation`, each a finished consolidated cache.
 */
export async function buildQuickstartCache(out: string, marinPrefix: string): Promise<void> {
  await runLevanterPython(BUILD_CACHE, [TINY_TOKENIZER, QUICKSTART_DATA, out], { MARIN_PREFIX: marinPrefix });
}

/**
 * A stand-in for the tokenize step: `tokenized/quickstart` with the config fields `defaultTrain` reads
 * (`tokenizer`, `cache_path`), whose function builds the cache with Levanter's builder.
 */
export function quickstartTokenizeStep(marinPrefix: string): ExecutorStep {
  return new ExecutorStep<{ cache_path: unknown; tokenizer: unknown }>({
    name: 'tokenized/quickstart',
    config: { cache_path: THIS_OUTPUT_PATH, tokenizer: versioned('marin-tiny-bpe') },
    fn: async (config) => buildQuickstartCache(String(config.cache_path), marinPrefix),
  });
}

/** A Fray logger that keeps every line (tests read them instead of printing 1,000 lines of Levanter). */
export function keepingLogger(): FrayLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(line) };
}

/** A client that submits through `inner` and remembers every job it submitted, newest last. */
export function recordingClient(inner: Client): Client & { jobs: JobHandle[] } {
  const jobs: JobHandle[] = [];
  return {
    jobs,
    async submit(request: JobRequest, options?: SubmitOptions): Promise<JobHandle> {
      const job = await inner.submit(request, options);
      jobs.push(job);
      return job;
    },
    shutdown: (options) => inner.shutdown(options),
    close: () => inner.close(),
    [Symbol.asyncDispose]: () => inner.close(),
  };
}
