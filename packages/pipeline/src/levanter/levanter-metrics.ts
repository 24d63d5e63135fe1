import { open } from 'node:fs/promises';
import { exists, localPathOf, readText, schemeOf } from '@marin/rigging';

/**
 * One line of a train step's metrics file (`<output>/metrics/metrics.jsonl`): the metrics Levanter's tracker
 * logged at one step, with Levanter's own names (`train/loss`, `optim/learning_rate`,
 * `throughput/tokens_per_second`, `eval/loss`, `eval/<tag>/loss`, `eval/<tag>/bpb`, …), numbers only.
 */
export interface MetricsRecord {
  /** Levanter's step number: 0 for the first step, `num_train_steps - 1` for the last. */
  step: number;
  /** When the step's last metric was logged, in seconds since the Unix epoch. */
  time: number;
  metrics: Record<string, number>;
}

/** Where a train step's metrics file is, under its output. */
export function metricsPathOf(outputPath: string): string {
  return `${outputPath.replace(/\/+$/, '')}/metrics/metrics.jsonl`;
}

/**
 * The records of a metrics file's text, in order; lines that are not records (a line still being
 * written, anything else) are skipped.
 */
export function parseMetricsRecords(text: string): MetricsRecord[] {
  const out: MetricsRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const record = toRecord(value);
    if (record !== null) out.push(record);
  }
  return out;
}

function toRecord(value: unknown): MetricsRecord | null {
  if (typeof value !== 'object' || value === null) return null;
  const { step, time, metrics } = value as Record<string, unknown>;
  if (typeof step !== 'number' || !Number.isInteger(step) || typeof time !== 'number') return null;
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) return null;
  const numbers: Record<string, number> = {};
  for (const [k, v] of Object.entries(metrics)) if (typeof v === 'number') numbers[k] = v;
  return { step, time, metrics: numbers };
}

/**
 * Reads a metrics file as it grows: each `read()` returns the records appended since the last one. A local
 * file is read from where the last read stopped (a partial last line waits for the next read); a file on a
 * bucket is read whole and the records already returned are dropped.
 */
export class MetricsTail {
  private offset = 0;
  private seen = 0;
  private partial: Buffer = Buffer.alloc(0);

  constructor(readonly url: string) {}

  /** The records appended since the last call; none while the file does not exist. */
  async read(): Promise<MetricsRecord[]> {
    const scheme = schemeOf(this.url);
    if (scheme !== null && scheme !== 'file') return this.readWhole();
    let handle;
    try {
      handle = await open(localPathOf(this.url), 'r');
    } catch {
      return [];
    }
    try {
      const chunks: Buffer[] = [];
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
        this.offset += bytesRead;
      }
      // Split on the last newline byte, so a character cut by the end of a read is kept whole for the next one.
      const bytes = Buffer.concat([this.partial, ...chunks]);
      const end = bytes.lastIndexOf(0x0a);
      this.partial = Buffer.from(bytes.subarray(end + 1));
      return parseMetricsRecords(bytes.subarray(0, end + 1).toString('utf8'));
    } finally {
      await handle.close();
    }
  }

  private async readWhole(): Promise<MetricsRecord[]> {
    if (!(await exists(this.url))) return [];
    const records = parseMetricsRecords(await readText(this.url));
    const fresh = records.slice(this.seen);
    this.seen = records.length;
    return fresh;
  }
}
