import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { IrisError } from '../errors.js';
import { MAX_LOG_LINE_BYTES } from './log-line.js';
import { processStartTime } from './resource-usage.js';

/** The supervisor script, found through the package's own exports so it resolves from src/ and dist/ alike. */
const SUPERVISOR_SCRIPT = join(dirname(createRequire(import.meta.url).resolve('@marin/iris/package.json')), 'bin', 'task-supervisor.mjs');
const SPEC = Buffer.from('S');
const RENEW = Buffer.from('.');
const ACK = Buffer.from('A');

/** What a supervisor needs to run one task; sent as one line on its lease pipe. */
export interface SupervisorTaskSpec {
  workerId: string;
  attemptUid: string;
  /** Where the supervisor reports when the daemon cannot; empty: it reports nothing. */
  controllerAddress: string;
  leaseMs: number;
  reportTimeoutMs: number;
  startByMs?: number | undefined;
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Written by the supervisor into both output pipes once the task's group is gone. */
  marker: string;
}

/** A line of the supervisor's control pipe. */
export type SupervisorMessage =
  | { started: { pid: number } }
  | { exit: { code: number | null; signal: NodeJS.Signals | null }; lost: string | null }
  | { spawnError: string }
  /** The supervisor is gone (its control pipe ended). */
  | { gone: true };

/**
 * One `bin/task-supervisor.mjs` process, which runs the tasks it is given one at a time (see
 * DESIGN.md, "Task supervisor"). The daemon holds its lease pipe, its control pipe and the two
 * output pipes its tasks write to.
 */
export class TaskSupervisor {
  readonly pid: number;
  /** `/proc` start time of the supervisor, so a recycled pid is never mistaken for it. */
  readonly startTime: number;
  readonly stdout: OutputSegments;
  readonly stderr: OutputSegments;
  readonly #child: ChildProcess;
  readonly #lease: Writable;
  #onMessage: ((message: SupervisorMessage) => void) | null = null;
  #onReady: (() => void) | null = null;
  #gone = false;
  #retiring = false;
  readonly #held = new Set<string>();

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.pid = child.pid ?? 0;
    this.startTime = this.pid === 0 ? 0 : (processStartTime(this.pid) ?? 0);
    this.#lease = child.stdin as Writable;
    this.#lease.on('error', () => undefined); // a supervisor that is gone needs no renewals
    const [control, stdout, stderr] = [1, 4, 5].map((fd) => child.stdio[fd] as Readable) as [Readable, Readable, Readable];
    this.stdout = new OutputSegments(stdout);
    this.stderr = new OutputSegments(stderr);
    child.once('error', () => this.#end());
    void readLines(control, (line) => {
      let message: SupervisorMessage | { ready: true };
      try {
        message = JSON.parse(line) as SupervisorMessage | { ready: true };
      } catch {
        return;
      }
      if ('ready' in message) {
        this.#onMessage = null;
        // The control pipe and the output pipes are read independently: the "ready" line can arrive
        // before the last task's end markers are read. The supervisor is free only once they are, or
        // the next task's segment would take over the unfinished one (whose task then never ends).
        void Promise.all([this.stdout.settled, this.stderr.settled]).then(() => this.#onReady?.());
      } else {
        this.#onMessage?.(message);
      }
    }).then(() => this.#end());
  }

  /**
   * Starts a supervisor process; it waits for a task. `command` replaces `node bin/task-supervisor.mjs`
   * (a test puts a program between the daemon and the supervisor to delay one of its pipes).
   */
  static start(command: readonly string[] = [process.execPath, SUPERVISOR_SCRIPT]): TaskSupervisor {
    const [file, ...args] = command;
    const child = spawn(file ?? process.execPath, args, {
      cwd: '/',
      // It needs nothing from the environment: each task brings its own (and the PATH to find it on).
      env: {},
      // The supervisor leads its own group, so signals meant for the daemon's group (a Ctrl-C, a kill
      // of the whole daemon group) never take it down before its task.
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    return new TaskSupervisor(child);
  }

  /** False once the supervisor process has exited (or could not start). */
  get alive(): boolean {
    return !this.#gone;
  }

  /**
   * Hands the supervisor a task. `onMessage` gets its control messages until the supervisor is ready
   * for the next task (then `onReady` is called) or gone.
   */
  run(spec: SupervisorTaskSpec, onMessage: (message: SupervisorMessage) => void): void {
    this.#onMessage = onMessage;
    if (spec.controllerAddress !== '') this.#held.add(spec.attemptUid);
    if (this.#gone) {
      onMessage({ gone: true });
      return;
    }
    this.#lease.write(Buffer.concat([SPEC, Buffer.from(`${JSON.stringify(spec)}\n`)]));
  }

  /** Called whenever the supervisor waits for a task again. */
  set onReady(callback: (() => void) | null) {
    this.#onReady = callback;
  }

  renew(): void {
    if (!this.#gone) this.#lease.write(RENEW);
  }

  /** The controller has this attempt's outcome: the supervisor no longer holds it for a report. */
  acknowledge(attemptUid: string): void {
    if (!this.#held.delete(attemptUid)) return;
    if (!this.#gone) this.#lease.write(Buffer.concat([ACK, Buffer.from(`${attemptUid}\n`)]));
    if (this.#retiring && this.#held.size === 0) this.end();
  }

  /** Outcomes handed to this supervisor that the controller has not confirmed yet. */
  get heldCount(): number {
    return this.#held.size;
  }

  /**
   * Ends the supervisor once it holds no outcome the controller lacks (at once if it holds none):
   * ending it earlier would make it report outcomes the controller already has.
   */
  retire(): void {
    this.#retiring = true;
    if (this.#held.size === 0) this.end();
  }

  /** Closes the lease pipe: the supervisor exits (after killing its task and reporting what it holds). */
  end(): void {
    this.#lease.end();
  }

  /** Whether the supervisor's handles keep the daemon's event loop alive (only while it has a task). */
  setRef(ref: boolean): void {
    for (const handle of [this.#child, ...this.#child.stdio]) {
      const h = handle as (Socket | ChildProcess | null);
      if (h === null) continue;
      if (ref) h.ref();
      else h.unref();
    }
  }

  #end(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#onReady = null;
    const onMessage = this.#onMessage;
    this.#onMessage = null;
    onMessage?.({ gone: true });
    this.stdout.end();
    this.stderr.end();
  }
}

/** One task's output being read: its end marker, its line consumer and the text of its unfinished line. */
interface Segment {
  readonly marker: Buffer;
  readonly onLine: (line: string) => void;
  readonly resolve: () => void;
  readonly decoder: StringDecoder;
  text: string;
}

/**
 * The output of a supervisor's successive tasks on one long-lived pipe, cut into one segment per
 * task at the task's end marker. Output outside a segment (a process that escaped its task's group
 * writing after the task ended) is dropped.
 */
export class OutputSegments {
  #segment: Segment | null = null;
  #settled: Promise<void> = Promise.resolve();
  /** Bytes that might be the start of the marker, held back until the next chunk tells. */
  #held: Buffer = Buffer.alloc(0);
  #ended = false;

  constructor(stream: Readable) {
    stream.on('data', (chunk: Buffer) => this.#feed(chunk));
    stream.once('end', () => this.end());
    stream.once('error', () => this.end());
  }

  /** Starts the next task's segment; resolves once its marker was read (or the pipe ended). */
  begin(marker: string, onLine: (line: string) => void): Promise<void> {
    if (this.#segment !== null) throw new IrisError('IRIS_INTERNAL', 'a task was handed to a supervisor whose last task\'s output has not ended');
    this.#settled = new Promise((resolve) => {
      if (this.#ended) return resolve();
      this.#held = Buffer.alloc(0);
      this.#segment = { marker: Buffer.from(`\0${marker}\0`), onLine, resolve, decoder: new StringDecoder('utf8'), text: '' };
    });
    return this.#settled;
  }

  /** Resolves once no task's output is being read (its marker was read, or the pipe ended). */
  get settled(): Promise<void> {
    return this.#settled;
  }

  /** The pipe ended: the current segment ends with it. */
  end(): void {
    this.#ended = true;
    if (this.#segment !== null) this.#close(this.#held);
  }

  #feed(chunk: Buffer): void {
    const segment = this.#segment;
    if (segment === null) return;
    const bytes = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    const at = bytes.indexOf(segment.marker);
    if (at >= 0) {
      this.#close(bytes.subarray(0, at));
      return;
    }
    // Keep back a tail that could be the marker's beginning.
    let keep = Math.min(bytes.length, segment.marker.length - 1);
    while (keep > 0 && !segment.marker.subarray(0, keep).equals(bytes.subarray(bytes.length - keep))) keep -= 1;
    this.#held = Buffer.from(bytes.subarray(bytes.length - keep));
    this.#emit(segment, segment.decoder.write(bytes.subarray(0, bytes.length - keep)));
  }

  #emit(segment: Segment, text: string): void {
    segment.text += text;
    let newline = segment.text.indexOf('\n');
    while (newline >= 0) {
      segment.onLine(segment.text.slice(0, newline).replace(/\r$/, ''));
      segment.text = segment.text.slice(newline + 1);
      newline = segment.text.indexOf('\n');
    }
    // A task that writes without newlines must not grow the worker's memory: an unfinished line past the
    // longest stored log line is passed on as a piece (the log splits long lines into such pieces anyway).
    if (segment.text.length > MAX_LOG_LINE_BYTES) {
      segment.onLine(segment.text);
      segment.text = '';
    }
  }

  #close(last: Buffer): void {
    const segment = this.#segment;
    if (segment === null) return;
    this.#segment = null;
    this.#held = Buffer.alloc(0);
    this.#emit(segment, segment.decoder.write(last) + segment.decoder.end());
    if (segment.text !== '') segment.onLine(segment.text.replace(/\r$/, ''));
    segment.resolve();
  }
}

/** Feeds a stream to `onLine` one line at a time; resolves when the stream ends. */
function readLines(stream: Readable, onLine: (line: string) => void): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      pending += decoder.write(chunk);
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      pending += decoder.end();
      if (pending !== '') onLine(pending);
      resolve();
    };
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
