/** What the served model returns for one batch: per sequence, the summed log-probability, scored tokens and their bytes. */
export interface ScoredBatch {
  logprob: Float64Array;
  tokens: Int32Array;
  bytes: Int32Array;
}

/** The validation metrics of a served eval, as Levanter's `eval_lm` reports them. */
export interface ServedLossTotals {
  /** Mean next-token loss (nats) per scored token: Levanter's `eval/loss`. */
  loss: number;
  /** Levanter's `eval/bpb`: each batch's bits per byte, averaged with the batch's scored tokens as weights. */
  bpb: number;
  /** Total loss over total bytes, in bits (does not depend on how sequences were batched). */
  pooledBpb: number;
  sequences: number;
  tokens: number;
  bytes: number;
  batches: number;
}

const LOG2E = Math.LOG2E;

/**
 * Adds up scored batches the way Levanter's `TaggedEvaluator` does: the loss is a running mean of each batch's
 * mean loss weighted by its scored tokens (so, the total loss over the total tokens), and bits per byte is a running
 * mean of each batch's `loss / max(bytes, 1) · log2 e`, weighted by the batch's tokens. Feeding it the batches
 * Levanter would form (same order, same size) gives Levanter's numbers.
 */
export class ServedLossAccumulator {
  private lossMean = 0;
  private bpbMean = 0;
  private weight = 0;
  private totalLoss = 0;
  private sequences = 0;
  private totalBytes = 0;
  private batches = 0;

  /** Adds one batch (every sequence of one Levanter eval batch). */
  add(batch: ScoredBatch): void {
    let loss = 0;
    let tokens = 0;
    let bytes = 0;
    for (let i = 0; i < batch.logprob.length; i++) {
      loss -= batch.logprob[i] as number;
      tokens += batch.tokens[i] as number;
      bytes += batch.bytes[i] as number;
    }
    this.batches += 1;
    this.sequences += batch.logprob.length;
    this.totalLoss += loss;
    this.totalBytes += bytes;
    if (tokens === 0) return;
    const total = this.weight + tokens;
    this.lossMean += (loss / tokens - this.lossMean) * (tokens / total);
    this.bpbMean += ((loss / Math.max(bytes, 1)) * LOG2E - this.bpbMean) * (tokens / total);
    this.weight = total;
  }

  totals(): ServedLossTotals {
    return {
      loss: this.lossMean,
      bpb: this.bpbMean,
      pooledBpb: (this.totalLoss / Math.max(this.totalBytes, 1)) * LOG2E,
      sequences: this.sequences,
      tokens: this.weight,
      bytes: this.totalBytes,
      batches: this.batches,
    };
  }
}

/** Decodes the served model's reply (`{ logprob, tokens, bytes }` as little-endian blobs) for `n` sequences. */
export function decodeScoredBatch(reply: unknown, n: number): ScoredBatch | null {
  if (typeof reply !== 'object' || reply === null) return null;
  const { logprob, tokens, bytes } = reply as Record<string, unknown>;
  if (!(logprob instanceof Uint8Array) || !(tokens instanceof Uint8Array) || !(bytes instanceof Uint8Array)) return null;
  if (logprob.byteLength !== n * 8 || tokens.byteLength !== n * 4 || bytes.byteLength !== n * 4) return null;
  const view = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: ScoredBatch = { logprob: new Float64Array(n), tokens: new Int32Array(n), bytes: new Int32Array(n) };
  const [lp, tk, by] = [view(logprob), view(tokens), view(bytes)];
  for (let i = 0; i < n; i++) {
    out.logprob[i] = lp.getFloat64(i * 8, true);
    out.tokens[i] = tk.getInt32(i * 4, true);
    out.bytes[i] = by.getInt32(i * 4, true);
  }
  return out;
}

/** `{ tokens, lengths }` for the served model's `loglikelihood`: the sequences back to back as little-endian int32. */
export function encodeSequences(sequences: readonly Int32Array[]): { tokens: Buffer; lengths: Buffer } {
  const total = sequences.reduce((n, s) => n + s.length, 0);
  const tokens = Buffer.alloc(total * 4);
  const lengths = Buffer.alloc(sequences.length * 4);
  let at = 0;
  sequences.forEach((s, i) => {
    lengths.writeInt32LE(s.length, i * 4);
    for (const id of s) {
      tokens.writeInt32LE(id, at);
      at += 4;
    }
  });
  return { tokens, lengths };
}
