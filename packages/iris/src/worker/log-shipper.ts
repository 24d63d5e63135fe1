import { pollUntil } from '@marin/rigging';
import { LogSource as WireLogSource } from '../gen/iris/v1/types.js';
import type { LogEntry } from '../gen/iris/v1/types.js';
import { LOG_LEVELS, parseLogLevel, splitLogLine } from './log-line.js';
import type { LogSource } from './log-line.js';

/** Identity of the attempt a log line belongs to. */
export interface LogAttempt {
  taskId: string;
  attemptId: number;
  attemptUid: string;
}

/** Options of {@link LogShipper}. */
export interface LogShipperOptions {
  /** Sends one batch to the controller (`PushLogs`); a rejection keeps the batch for the next try. */
  push: (entries: LogEntry[]) => Promise<void>;
  /** How often buffered lines are pushed. @default 200 */
  flushIntervalMs?: number;
  /** A batch is pushed early once it holds this many bytes. @default 262144 */
  maxBatchBytes?: number;
  /** Past this many buffered bytes for one attempt its oldest lines are dropped. @default 67108864 */
  maxBufferedBytesPerAttempt?: number;
  /** Clock for entry timestamps. @default Date.now */
  now?: () => number;
}

const SOURCES: Record<LogSource, WireLogSource> = {
  stdout: WireLogSource.LOG_SOURCE_STDOUT,
  stderr: WireLogSource.LOG_SOURCE_STDERR,
  build: WireLogSource.LOG_SOURCE_BUILD,
  system: WireLogSource.LOG_SOURCE_SYSTEM,
};

interface AttemptBuffer {
  nextSeq: number;
  bufferedBytes: number;
  dropped: number;
  attempt: LogAttempt;
}

/**
 * Batches log lines of every attempt on a worker and pushes them to the controller every
 * `flushIntervalMs` or `maxBatchBytes`, retrying failed pushes. `seq` counts per attempt from 0, and
 * the controller ignores duplicates of `(attempt_uid, seq)`, so a retried batch is harmless.
 */
export class LogShipper implements AsyncDisposable {
  readonly #options: Required<LogShipperOptions>;
  readonly #queue: LogEntry[] = [];
  readonly #attempts = new Map<string, AttemptBuffer>();
  readonly #timer: NodeJS.Timeout;
  #queuedBytes = 0;
  #flushing: Promise<boolean> | null = null;
  // Entries at the head of the queue that are being pushed right now; drops must not touch them.
  #inFlight = 0;

  constructor(options: LogShipperOptions) {
    this.#options = {
      flushIntervalMs: 200,
      maxBatchBytes: 256 * 1024,
      maxBufferedBytesPerAttempt: 64 * 1024 * 1024,
      now: Date.now,
      ...options,
    };
    this.#timer = setInterval(() => void this.flush(), this.#options.flushIntervalMs);
    this.#timer.unref();
  }

  /** Queues one line (split at 64 KiB) with its level parsed from the leading token. */
  append(attempt: LogAttempt, source: LogSource, line: string): void {
    const buffer = this.#bufferOf(attempt);
    const level = source === 'system' ? LOG_LEVELS.INFO : parseLogLevel(line);
    for (const data of splitLogLine(line)) {
      const entry: LogEntry = {
        taskId: attempt.taskId,
        attemptId: attempt.attemptId,
        attemptUid: attempt.attemptUid,
        seq: buffer.nextSeq++,
        timestampMs: this.#options.now(),
        source: SOURCES[source],
        level,
        data,
      };
      const bytes = Buffer.byteLength(data) + 64;
      this.#queue.push(entry);
      this.#queuedBytes += bytes;
      buffer.bufferedBytes += bytes;
    }
    if (buffer.bufferedBytes > this.#options.maxBufferedBytesPerAttempt) this.#dropOldest(buffer);
    if (this.#queuedBytes >= this.#options.maxBatchBytes) void this.flush();
  }

  /** Lines queued and not yet accepted by the controller. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Pushes everything queued now, in batches; resolves to false when a push failed (the rest stays
   * queued for the next try).
   */
  flush(): Promise<boolean> {
    if (this.#flushing !== null) return this.#flushing;
    this.#flushing = this.#flushOnce().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  /**
   * Flushes until the queue is empty or `timeoutMs` passed, so an attempt's lines reach the
   * controller before its terminal state is reported.
   * @returns whether everything was delivered
   */
  drain(timeoutMs: number): Promise<boolean> {
    // One check flushes for as long as pushes succeed; a failed push waits a flush interval.
    const flushed = async (): Promise<boolean> => {
      for (;;) {
        if (this.#flushing !== null) await this.#flushing;
        if (this.#queue.length === 0) return true;
        if (!(await this.flush())) return false;
      }
    };
    return pollUntil(flushed, { timeoutMs, interval: this.#options.flushIntervalMs });
  }

  /** Drops the sequence counter of an attempt the worker has forgotten. */
  forget(attemptUid: string): void {
    if (!this.#queue.some((e) => e.attemptUid === attemptUid)) this.#attempts.delete(attemptUid);
  }

  /** Stops the timer; queued lines stay queued (call {@link drain} first to deliver them). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#flushing !== null) await this.#flushing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #bufferOf(attempt: LogAttempt): AttemptBuffer {
    let buffer = this.#attempts.get(attempt.attemptUid);
    if (buffer === undefined) {
      buffer = { nextSeq: 0, bufferedBytes: 0, dropped: 0, attempt };
      this.#attempts.set(attempt.attemptUid, buffer);
    }
    return buffer;
  }

  #dropOldest(buffer: AttemptBuffer): void {
    const uid = buffer.attempt.attemptUid;
    const target = this.#options.maxBufferedBytesPerAttempt / 2;
    let dropped = 0;
    for (let i = this.#inFlight; i < this.#queue.length && buffer.bufferedBytes > target; ) {
      const entry = this.#queue[i] as LogEntry;
      if (entry.attemptUid !== uid) {
        i += 1;
        continue;
      }
      const bytes = Buffer.byteLength(entry.data) + 64;
      this.#queue.splice(i, 1);
      this.#queuedBytes -= bytes;
      buffer.bufferedBytes -= bytes;
      dropped += 1;
    }
    buffer.dropped += dropped;
    this.append(buffer.attempt, 'system', `[iris] dropped ${dropped} log lines`);
  }

  async #flushOnce(): Promise<boolean> {
    while (this.#queue.length > 0) {
      let bytes = 0;
      let count = 0;
      while (count < this.#queue.length && (count === 0 || bytes < this.#options.maxBatchBytes)) {
        bytes += Buffer.byteLength((this.#queue[count] as LogEntry).data) + 64;
        count += 1;
      }
      const batch = this.#queue.slice(0, count);
      this.#inFlight = count;
      try {
        await this.#options.push(batch);
      } catch {
        return false; // kept; the next interval retries
      } finally {
        this.#inFlight = 0;
      }
      this.#queue.splice(0, count);
      this.#queuedBytes -= bytes;
      for (const entry of batch) {
        const buffer = this.#attempts.get(entry.attemptUid);
        if (buffer !== undefined) buffer.bufferedBytes -= Buffer.byteLength(entry.data) + 64;
      }
    }
    return true;
  }
}
