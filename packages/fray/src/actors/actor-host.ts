import { FrayError } from '../errors.js';
import { runWithCallSignal } from './call-signal.js';
import { ACTOR_CHANNEL_OPTIONS, loadGrpc, rawUnaryMethod } from './grpc.js';
import {
  ACTOR_CALL_PATH,
  ACTOR_ERROR_CODE_KEY,
  ACTOR_ERROR_NAME_KEY,
  ACTOR_GRPC_STATUS,
  ACTOR_HEALTH_PATH,
  decodeFrame,
  encodeFrame,
} from './wire.js';
import type { ActorHealth } from './wire.js';

/** Options of {@link hostActor}. */
export interface HostActorOptions {
  /** The actor's name (in health answers and endpoint names). @default the instance's class name */
  name?: string;
  /** Interface to bind. @default FRAY_ACTOR_HOST, else 127.0.0.1 */
  host?: string;
  /** Port to bind; 0 picks a free one. @default 0 */
  port?: number;
  /**
   * Inside an Iris task: also register the endpoint `<IRIS_JOB_ID>/<irisEndpoint>` with the controller (unregistered
   * by `close()`, and by the controller when the task ends), so `connectIrisActor` finds it. Outside an Iris task
   * nothing is registered and `endpoint` is undefined.
   */
  irisEndpoint?: string;
}

/** An actor served by this process. */
export interface HostedActor extends AsyncDisposable {
  /** The actor's name. */
  readonly name: string;
  /** `host:port` callers connect to. */
  readonly address: string;
  /** The public methods callers may call. */
  readonly methods: readonly string[];
  /** The Iris endpoint name registered for it, if any. */
  readonly endpoint?: string;
  /** Stops serving: calls in flight are cut off, new ones fail as unavailable. */
  close(): Promise<void>;
}

/**
 * The public methods of an instance: functions on it or its prototype chain (up to `Object.prototype`), except
 * `constructor` and names starting with `_` (Marin's rule).
 */
export function publicMethods(instance: object): Map<string, (...args: unknown[]) => unknown> {
  const out = new Map<string, (...args: unknown[]) => unknown>();
  for (let o: object | null = instance; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === 'constructor' || key.startsWith('_') || out.has(key)) continue;
      const v = (instance as Record<string, unknown>)[key];
      if (typeof v === 'function') out.set(key, (v as (...args: unknown[]) => unknown).bind(instance));
    }
  }
  return out;
}

/** Registers `endpoint` → `address` for the current Iris task; returns the unregistration. */
export async function registerIrisEndpoint(endpoint: string, address: string, actor: string): Promise<() => Promise<void>> {
  const controller = process.env['IRIS_CONTROLLER_ADDRESS'];
  if (controller === undefined || controller === '') throw new FrayError('FRAY_INVALID_ARGUMENT', 'an actor endpoint needs IRIS_CONTROLLER_ADDRESS (set inside Iris tasks)');
  const { createIrisClient } = await import('@marin/iris');
  const iris = createIrisClient({ address: controller });
  const endpointId = await iris.registerEndpoint({ name: endpoint, address, metadata: { actor } });
  return async () => {
    await iris.unregisterEndpoint(endpointId).catch(() => undefined);
    iris.close();
  };
}

interface CallError {
  code: number;
  details: string;
  metadata: import('@grpc/grpc-js').Metadata;
}

/**
 * Serves `instance`'s public methods over gRPC (the actor wire format, see the actors DESIGN.md) until closed.
 * Methods may be sync or async; concurrent calls interleave on this process's event loop.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT when the instance has no public method or the port cannot be bound
 */
export async function hostActor(instance: object, options: HostActorOptions = {}): Promise<HostedActor> {
  const grpc = await loadGrpc();
  const methods = publicMethods(instance);
  const name = options.name ?? (instance.constructor?.name || 'actor');
  if (methods.size === 0) throw new FrayError('FRAY_INVALID_ARGUMENT', `actor "${name}" has no public method to serve`);
  const host = options.host ?? (process.env['FRAY_ACTOR_HOST'] || '127.0.0.1');

  const fail = (code: keyof typeof ACTOR_GRPC_STATUS, message: string, errorName?: string): CallError => {
    const metadata = new grpc.Metadata();
    metadata.set(ACTOR_ERROR_CODE_KEY, code);
    if (errorName !== undefined) metadata.set(ACTOR_ERROR_NAME_KEY, errorName);
    return { code: ACTOR_GRPC_STATUS[code] ?? grpc.status.UNKNOWN, details: message, metadata };
  };

  const server = new grpc.Server(ACTOR_CHANNEL_OPTIONS);
  /** Calls in flight, aborted when the actor stops serving. */
  const inFlight = new Set<AbortController>();
  server.addService(
    { Call: rawUnaryMethod(ACTOR_CALL_PATH), Health: rawUnaryMethod(ACTOR_HEALTH_PATH) },
    {
      Call: (call: import('@grpc/grpc-js').ServerUnaryCall<Buffer, Buffer>, callback: import('@grpc/grpc-js').sendUnaryData<Buffer>) => {
        let method: string;
        let args: unknown[];
        try {
          const req = decodeFrame(call.request);
          if (typeof req['method'] !== 'string') throw new FrayError('FRAY_ACTOR_PROTOCOL', 'actor call frame lacks "method"');
          method = req['method'];
          args = Array.isArray(req['args']) ? (req['args'] as unknown[]) : [];
        } catch (e) {
          callback(fail('FRAY_ACTOR_PROTOCOL', FrayError.from(e, 'FRAY_ACTOR_PROTOCOL').message));
          return;
        }
        const fn = methods.get(method);
        if (fn === undefined) {
          callback(fail('FRAY_ACTOR_METHOD_NOT_FOUND', `actor "${name}" has no method "${method}"; it has ${[...methods.keys()].join(', ')}`));
          return;
        }
        // The method sees the call's cancellation through actorCallSignal(): grpc-js reports a client cancel, a passed
        // deadline and a dropped connection as 'cancelled'.
        const ac = new AbortController();
        const cancel = (): void => ac.abort(new FrayError('FRAY_ACTOR_CALL_CANCELLED', `call of "${method}" on actor "${name}" was cancelled by its caller`));
        call.once('cancelled', cancel);
        inFlight.add(ac);
        Promise.resolve()
          .then(() => runWithCallSignal(ac.signal, () => fn(...args)))
          .finally(() => {
            inFlight.delete(ac);
            call.removeListener('cancelled', cancel);
          })
          .then(
            (value) => {
              let frame: Buffer;
              try {
                frame = encodeFrame({ value: value === undefined ? null : value });
              } catch (e) {
                callback(fail('FRAY_ACTOR_UNSERIALIZABLE', `result of "${method}": ${FrayError.from(e).message}`));
                return;
              }
              callback(null, frame);
            },
            (e: unknown) => {
              const err = e instanceof Error ? e : new Error(String(e));
              callback(fail('FRAY_ACTOR_METHOD_FAILED', err.message, err.name));
            },
          );
      },
      Health: (_call: unknown, callback: import('@grpc/grpc-js').sendUnaryData<Buffer>) => {
        const health: ActorHealth = { name, methods: [...methods.keys()], pid: process.pid };
        callback(null, Buffer.from(JSON.stringify(health), 'utf8'));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
      if (err) reject(new FrayError('FRAY_INVALID_ARGUMENT', `cannot bind actor "${name}" on ${host}:${options.port ?? 0}`, { cause: err }));
      else resolve(bound);
    });
  });
  const address = `${host}:${port}`;
  const jobId = process.env['IRIS_JOB_ID'] ?? '';
  const inIrisTask = jobId !== '' && (process.env['IRIS_TASK_ID'] ?? '') !== '';
  const endpoint = options.irisEndpoint !== undefined && inIrisTask ? `${jobId}/${options.irisEndpoint}` : undefined;
  let unregister = async (): Promise<void> => undefined;
  if (endpoint !== undefined) {
    try {
      unregister = await registerIrisEndpoint(endpoint, address, name);
    } catch (e) {
      server.forceShutdown();
      throw FrayError.from(e, 'FRAY_BACKEND_UNAVAILABLE');
    }
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await unregister();
      for (const ac of inFlight) ac.abort(new FrayError('FRAY_ACTOR_CALL_CANCELLED', `actor "${name}" stopped serving`));
      // forceShutdown: a long call in flight must not keep a stopping actor alive.
      server.forceShutdown();
    })());
  return {
    name,
    address,
    methods: [...methods.keys()],
    ...(endpoint === undefined ? {} : { endpoint }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
