import { writeText } from '@marin/rigging';

/** An experiment file of a gc test: its `created_date` and the outputs (relative to the prefix) it lists. */
export interface GcTestExperiment {
  created: string;
  refs: string[];
}

/**
 * Writes step outputs (`rel` → status; each gets `.executor_info` and 10 bytes of data) and
 * experiment files (`name` → experiment, or raw text) under `prefix`.
 */
export async function writeGcPrefix(prefix: string, outputs: Record<string, string>, experiments: Record<string, GcTestExperiment | string> = {}): Promise<void> {
  for (const [rel, status] of Object.entries(outputs)) {
    await writeText(`${prefix}/${rel}/.executor_status`, status);
    await writeText(`${prefix}/${rel}/.executor_info`, '{}');
    await writeText(`${prefix}/${rel}/data.bin`, 'x'.repeat(10));
  }
  for (const [name, e] of Object.entries(experiments)) await writeGcExperiment(prefix, name, e);
}

/** Writes one experiment file; a `refs` entry with a scheme or a leading `/` is taken as is. */
export async function writeGcExperiment(prefix: string, name: string, e: GcTestExperiment | string): Promise<void> {
  const abs = (r: string): string => (/^[a-z]+:\/\//.test(r) || r.startsWith('/') ? r : `${prefix}/${r}`);
  const body = typeof e === 'string' ? e : JSON.stringify({ created_date: e.created, prefix, steps: e.refs.map((r) => ({ output_path: abs(r), dependencies: [] })) });
  await writeText(`${prefix}/experiments/${name}`, body);
}

/** A step's `.executor_info` naming its inputs. */
export async function writeGcInfo(outputPath: string, dependencies: string[]): Promise<void> {
  await writeText(`${outputPath}/.executor_info`, JSON.stringify({ name: 'x', output_path: outputPath, dependencies }));
}
