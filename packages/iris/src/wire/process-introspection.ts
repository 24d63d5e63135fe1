import { hostname, availableParallelism, loadavg } from 'node:os';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { IrisError } from '../errors.js';
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { ProcessLogLine, ProcessStatus, ProfileChunk, ProfileProcessRequest } from '../gen/iris/v1/cluster.js';
import { grpcStatusOfError } from './grpc-errors.js';

/** The longest CPU profile a caller may ask for, and the default. */
export const PROFILE_MAX_MS = 120_000;
export const PROFILE_DEFAULT_MS = 10_000;

/** What a worker daemon adds to its status. */
export interface ProcessRoleDetails {
  readonly workerId: string;
  readonly runningTasks: number;
}

/**
 * What this process is doing: resource use, versions and event-loop delay. Created once per process
 * role (the controller, each worker daemon); `close()` stops the event-loop histogram.
 */
export class ProcessIntrospection {
  /** Log lines kept for `iris process logs`. */
  static readonly LOG_LINES = 1000;
  readonly #startedAtMs = Date.now();
  readonly #log: ProcessLogLine[] = [];
  readonly #delay = monitorEventLoopDelay({ resolution: 20 });
  #profiling = false;

  constructor(
    private readonly role: string,
    private readonly version: string,
    private readonly details: () => ProcessRoleDetails = () => ({ workerId: '', runningTasks: 0 }),
  ) {
    this.#delay.enable();
  }

  /** Keeps a line of this process's own log (the last {@link LOG_LINES}). */
  log(level: string, message: string): void {
    this.#log.push({ timestampMs: Date.now(), level, message });
    if (this.#log.length > ProcessIntrospection.LOG_LINES) this.#log.splice(0, this.#log.length - ProcessIntrospection.LOG_LINES);
  }

  /** The last `tail` kept lines (all when 0), oldest first. */
  logs(tail: number): ProcessLogLine[] {
    return tail > 0 ? this.#log.slice(-tail) : [...this.#log];
  }

  /** The status now; the event-loop delay is the p99 since the previous call (or start). */
  status(): ProcessStatus {
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    const p99 = this.#delay.percentile(99) / 1e6;
    this.#delay.reset();
    return {
      role: this.role,
      pid: process.pid,
      hostname: hostname(),
      uptimeMs: Date.now() - this.#startedAtMs,
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
      heapTotalBytes: mem.heapTotal,
      externalBytes: mem.external,
      cpuUserMs: Math.round(cpu.user / 1000),
      cpuSystemMs: Math.round(cpu.system / 1000),
      eventLoopDelayP99Ms: Number.isFinite(p99) ? p99 : 0,
      nodeVersion: process.version,
      version: this.version,
      loadAverage1m: loadavg()[0] ?? 0,
      cpuCount: availableParallelism(),
      ...this.details(),
    };
  }

  /**
   * A CPU profile over `durationMs` (Chrome DevTools' `.cpuprofile` JSON) or a heap snapshot
   * (`.heapsnapshot`), taken through the inspector inside this process. One at a time.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unknown kind; IRIS_FAILED_PRECONDITION while another runs
   */
  async profile(kind: string, durationMs: number, signal: AbortSignal): Promise<Buffer> {
    if (kind !== 'cpu' && kind !== 'heap') throw new IrisError('IRIS_INVALID_ARGUMENT', `profile kind "${kind}": expected cpu or heap`);
    if (this.#profiling) throw new IrisError('IRIS_FAILED_PRECONDITION', 'a profile of this process is already being taken');
    this.#profiling = true;
    const session = new Session();
    session.connect();
    try {
      if (kind === 'heap') {
        const chunks: string[] = [];
        session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
        await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
        return Buffer.from(chunks.join(''));
      }
      const ms = Math.min(durationMs > 0 ? durationMs : PROFILE_DEFAULT_MS, PROFILE_MAX_MS);
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      const { profile } = await session.post('Profiler.stop');
      return Buffer.from(JSON.stringify(profile));
    } finally {
      session.disconnect();
      this.#profiling = false;
    }
  }

  close(): void {
    this.#delay.disable();
  }
}

const PROFILE_CHUNK_BYTES = 1024 * 1024;

/**
 * Serves a `ProfileProcess` call from `introspection` in 1 MiB chunks, after `authorize` (which
 * throws to refuse); a caller that goes away ends a CPU profile early.
 */
export async function serveProfile(introspection: ProcessIntrospection, call: ServerWritableStream<ProfileProcessRequest, ProfileChunk>, authorize: () => void): Promise<void> {
  const gone = new AbortController();
  call.on('cancelled', () => gone.abort());
  call.on('error', () => gone.abort());
  try {
    authorize();
    const data = await introspection.profile(call.request.kind, call.request.durationMs, gone.signal);
    for (let off = 0; off < data.length; off += PROFILE_CHUNK_BYTES) call.write({ data: data.subarray(off, off + PROFILE_CHUNK_BYTES) });
    call.end();
  } catch (e) {
    call.emit('error', grpcStatusOfError(e));
  }
}
