import type { ClientOptions, Client as GrpcClient, Metadata, ServiceError } from '@grpc/grpc-js';
import { FrayError } from '../errors.js';
import type { FrayErrorCode } from '../errors.js';
import { ACTOR_CHANNEL_OPTIONS, loadGrpc } from './grpc.js';
import type { Grpc } from './grpc.js';
import { ACTOR_CALL_PATH, ACTOR_ERROR_CODE_KEY, ACTOR_ERROR_NAME_KEY, ACTOR_HEALTH_PATH, decodeFrame, encodeFrame } from './wire.js';
import type { ActorHealth } from './wire.js';

/** A call's deadline when the caller names none: no call waits longer than this. */
export const DEFAULT_ACTOR_CALL_TIMEOUT_MS = 60_000;

/** Where an actor is in its life, as its backend knows it. */
export type ActorState = 'starting' | 'ready' | 'restarting' | 'dead';

/** Per-call options. */
export interface ActorCallOptions {
  /** Deadline of the whole call, including waiting for a (re)starting actor. @default 60000 */
  timeoutMs?: number;
  /** Aborting it ends the call at once with FRAY_ACTOR_CALL_CANCELLED; the method itself runs to its end on the actor. */
  signal?: AbortSignal;
}

/**
 * How a handle finds its actor; each backend (local processes, Iris endpoints) supplies one. Implementations
 * never block past `deadlineMs` (an epoch time in ms).
 */
export interface ActorEndpoint {
  /** The actor's name (unique within its backend). */
  readonly name: string;
  /** The current state. */
  state(): ActorState;
  /** The live actor's `host:port`, waiting while it starts or restarts. @throws FRAY_ACTOR_DEAD, FRAY_TIMEOUT */
  address(deadlineMs: number, signal?: AbortSignal): Promise<string>;
  /** After a call lost its connection: `dead` when the actor is gone for good, else `unavailable` (it may restart). */
  classifyFailure(deadlineMs: number): Promise<'dead' | 'unavailable'>;
  /** Why the actor is dead, for messages; undefined while it lives. */
  deathReason(): string | undefined;
  /** Stops the actor (its process or job); idempotent. */
  stop(): Promise<void>;
  /** Extra options of the gRPC client that dials `address()` (interceptors adding metadata, e.g. Iris's endpoint proxy). */
  clientOptions?(grpc: Grpc): ClientOptions;
}

/** The methods of `T` as async calls, each taking the same arguments and resolving with the awaited result. */
export type ActorProxy<T> = {
  readonly [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

function cancelled(actor: string, method: string, reason: unknown): FrayError {
  return new FrayError('FRAY_ACTOR_CALL_CANCELLED', `call of "${method}" on actor "${actor}" was cancelled`, {
    cause: reason,
    details: { actor, method },
  });
}

function timedOut(actor: string, method: string, timeoutMs: number): FrayError {
  return new FrayError('FRAY_TIMEOUT', `call of "${method}" on actor "${actor}" did not finish within ${timeoutMs} ms`, {
    details: { actor, method, timeoutMs },
  });
}

/** Runs `work` but settles no later than the deadline or an abort. */
function bounded<T>(work: Promise<T>, deadlineMs: number, signal: AbortSignal | undefined, onTimeout: () => Error, onAbort: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(onTimeout())), Math.max(0, deadlineMs - Date.now()));
    const abort = (): void => finish(() => reject(onAbort()));
    signal?.addEventListener('abort', abort, { once: true });
    let done = false;
    function finish(f: () => void): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      f();
    }
    work.then(
      (v) => finish(() => resolve(v)),
      (e: unknown) => finish(() => reject(e)),
    );
  });
}

/**
 * A live reference to one actor: call its methods by name (`call`) or through a typed proxy (`proxy<T>()`).
 * Every call ends: with the result, or a coded error by its deadline at the latest.
 */
export class ActorHandle implements AsyncDisposable {
  private grpc: GrpcClient | undefined;
  private grpcAddress: string | undefined;

  /** @param endpoint how to reach the actor; @param owned whether `close()` stops the actor */
  constructor(
    private readonly endpoint: ActorEndpoint,
    private readonly owned = true,
  ) {}

  /** The actor's name. */
  get name(): string {
    return this.endpoint.name;
  }

  /** The actor's state as its backend knows it. */
  get state(): ActorState {
    return this.endpoint.state();
  }

  /**
   * Calls `method` with `args` and the default options.
   * @throws {FrayError} see {@link ActorHandle.callWithOptions}
   */
  call<TResult = unknown>(method: string, ...args: unknown[]): Promise<TResult> {
    return this.callWithOptions<TResult>(method, args);
  }

  /**
   * Calls `method` with `args` (JSON values and `Uint8Array`s; binary comes back as `Buffer`).
   *
   * @throws {FrayError} FRAY_ACTOR_UNSERIALIZABLE (before anything is sent), FRAY_ACTOR_METHOD_NOT_FOUND,
   *   FRAY_ACTOR_METHOD_FAILED (the method threw; `details.errorName`), FRAY_TIMEOUT, FRAY_ACTOR_CALL_CANCELLED,
   *   FRAY_ACTOR_DEAD (the actor is gone for good), FRAY_ACTOR_UNAVAILABLE (the connection dropped; retryable)
   */
  async callWithOptions<TResult = unknown>(method: string, args: readonly unknown[], options: ActorCallOptions = {}): Promise<TResult> {
    const actor = this.endpoint.name;
    const frame = encodeFrame({ method, args: [...args] });
    const timeoutMs = options.timeoutMs ?? DEFAULT_ACTOR_CALL_TIMEOUT_MS;
    const deadlineMs = Date.now() + timeoutMs;
    const { signal } = options;
    if (signal?.aborted === true) throw cancelled(actor, method, signal.reason);
    const onTimeout = (): Error => timedOut(actor, method, timeoutMs);
    const onAbort = (): Error => cancelled(actor, method, signal?.reason);
    const [grpc, address] = await bounded(Promise.all([loadGrpc(), this.endpoint.address(deadlineMs, signal)]), deadlineMs, signal, onTimeout, onAbort);
    const client = this.clientFor(grpc, address);
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const call = client.makeUnaryRequest(
        ACTOR_CALL_PATH,
        (b: Buffer) => b,
        (b: Buffer) => b,
        frame,
        new grpc.Metadata(),
        { deadline: new Date(deadlineMs) },
        (err, value) => {
          signal?.removeEventListener('abort', abort);
          if (err) reject(err);
          else resolve(value ?? Buffer.alloc(0));
        },
      );
      const abort = (): void => call.cancel();
      signal?.addEventListener('abort', abort, { once: true });
    }).catch(async (e: unknown) => {
      throw await this.errorOf(grpc, e as ServiceError, method, timeoutMs, deadlineMs, signal);
    });
    return decodeFrame(reply)['value'] as TResult;
  }

  /** A typed view: `handle.proxy<Counter>().add(2)` calls `add` with `[2]` and the given options. */
  proxy<T extends object>(options: ActorCallOptions = {}): ActorProxy<T> {
    return new Proxy(
      {},
      {
        get: (_target, prop) => {
          // Not thenable: `await handle.proxy()` must not call a method named "then".
          if (typeof prop !== 'string' || prop === 'then') return undefined;
          return (...args: unknown[]) => this.callWithOptions(prop, args, options);
        },
      },
    ) as ActorProxy<T>;
  }

  /**
   * The actor's own answer: its name, methods and process id.
   * @throws {FrayError} as {@link ActorHandle.callWithOptions}
   */
  async health(options: ActorCallOptions = {}): Promise<ActorHealth> {
    const actor = this.endpoint.name;
    const timeoutMs = options.timeoutMs ?? DEFAULT_ACTOR_CALL_TIMEOUT_MS;
    const deadlineMs = Date.now() + timeoutMs;
    const grpc = await loadGrpc();
    const address = await bounded(this.endpoint.address(deadlineMs, options.signal), deadlineMs, options.signal, () => timedOut(actor, 'health', timeoutMs), () =>
      cancelled(actor, 'health', options.signal?.reason),
    );
    const client = this.clientFor(grpc, address);
    const reply = await new Promise<Buffer>((resolve, reject) => {
      client.makeUnaryRequest(ACTOR_HEALTH_PATH, (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), new grpc.Metadata(), { deadline: new Date(deadlineMs) }, (err, value) =>
        err ? reject(err) : resolve(value ?? Buffer.alloc(0)),
      );
    }).catch(async (e: unknown) => {
      throw await this.errorOf(grpc, e as ServiceError, 'health', timeoutMs, deadlineMs, options.signal);
    });
    return JSON.parse(reply.toString('utf8')) as ActorHealth;
  }

  /** Closes the connection and, for a handle that owns its actor, stops the actor. */
  async close(): Promise<void> {
    this.grpc?.close();
    this.grpc = undefined;
    if (this.owned) await this.endpoint.stop();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private clientFor(grpc: Grpc, address: string): GrpcClient {
    if (this.grpc === undefined || this.grpcAddress !== address) {
      this.grpc?.close();
      this.grpc = new grpc.Client(address, grpc.credentials.createInsecure(), { ...ACTOR_CHANNEL_OPTIONS, ...this.endpoint.clientOptions?.(grpc) });
      this.grpcAddress = address;
    }
    return this.grpc;
  }

  private async errorOf(grpc: Grpc, e: ServiceError, method: string, timeoutMs: number, deadlineMs: number, signal?: AbortSignal): Promise<FrayError> {
    const actor = this.endpoint.name;
    if (signal?.aborted === true) return cancelled(actor, method, signal.reason);
    if (e.code === grpc.status.DEADLINE_EXCEEDED) return timedOut(actor, method, timeoutMs);
    const code = firstString(e.metadata, ACTOR_ERROR_CODE_KEY) as FrayErrorCode | undefined;
    if (code !== undefined) {
      const errorName = firstString(e.metadata, ACTOR_ERROR_NAME_KEY);
      return new FrayError(code, e.details, { cause: e, details: { actor, method, ...(errorName === undefined ? {} : { errorName }) } });
    }
    // No actor answer: the connection failed or dropped. Ask the backend whether the actor is gone for good.
    const verdict = await this.endpoint.classifyFailure(deadlineMs);
    if (verdict === 'dead') {
      const reason = this.endpoint.deathReason();
      return new FrayError('FRAY_ACTOR_DEAD', `actor "${actor}" died during or before the call of "${method}"${reason === undefined ? '' : `: ${reason}`}`, {
        cause: e,
        details: { actor, method },
      });
    }
    return new FrayError('FRAY_ACTOR_UNAVAILABLE', `actor "${actor}" could not be reached for "${method}" (it may be restarting)`, {
      cause: e,
      details: { actor, method },
    });
  }
}

function firstString(metadata: Metadata | undefined, key: string): string | undefined {
  const v = metadata?.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}
