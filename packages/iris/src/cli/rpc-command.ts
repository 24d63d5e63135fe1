import { Client, Metadata, credentials } from '@grpc/grpc-js';
import type { ClientOptions, ServiceError } from '@grpc/grpc-js';
import { createAuthInterceptor } from '../wire/token-auth.js';
import { IrisError, irisErrorFromServiceError } from '../errors.js';
import { requireConnection } from './cli-context.js';
import { explainControllerError } from './cli-errors.js';
import type { CliIo } from './cli-context.js';
import { CONTROLLER_RPC_METHODS } from './rpc-methods.js';
import type { RpcMethod } from './rpc-methods.js';

/** Flags of `iris rpc controller`. */
export interface RpcFlags {
  controller?: string;
  timeout: string;
}

/** Finds a method by its wire name, in any letter case (`GetJobStatus`, `getjobstatus`). */
export function findRpcMethod(name: string): RpcMethod {
  const wanted = name.toLowerCase();
  const method = CONTROLLER_RPC_METHODS.find((m) => m.name.toLowerCase() === wanted);
  if (method === undefined) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `no controller method "${name}"; one of: ${CONTROLLER_RPC_METHODS.map((m) => m.name).join(', ')}`, {
      details: { method: name },
    });
  }
  if (method.definition.requestStream) throw new IrisError('IRIS_INVALID_ARGUMENT', `${method.name} takes a stream of requests, which iris rpc cannot send`, { details: { method: method.name } });
  return method;
}

/** Parses the request body: a JSON object in the proto3 JSON form (`{"jobId": "/alice/x"}`); empty is `{}`. */
export function parseRpcBody(method: RpcMethod, body: string | undefined): unknown {
  let json: unknown = {};
  if (body !== undefined && body.trim() !== '') {
    try {
      json = JSON.parse(body);
    } catch (e) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `${method.name} request: not JSON (${(e as Error).message})`, { details: { method: method.name } });
    }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new IrisError('IRIS_INVALID_ARGUMENT', `${method.name} request: expected a JSON object`, { details: { method: method.name } });
  return method.request.fromJSON(json);
}

/**
 * `iris rpc controller <Method> [json]`: calls any ControllerService or ClusterService method with a
 * JSON request and prints the response as JSON (a streaming response: one JSON line per message).
 * The controller checks the caller's permission as for any client.
 */
export async function rpcControllerCommand(methodName: string, body: string | undefined, flags: RpcFlags, io: CliIo, signal: AbortSignal): Promise<number> {
  const method = findRpcMethod(methodName);
  const request = parseRpcBody(method, body);
  const timeoutMs = Number(flags.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `--timeout "${flags.timeout}": expected seconds > 0`);
  await using connection = await requireConnection(flags.controller, io.env);
  const { address, token } = connection.controller;
  const options: ClientOptions = token ? { interceptors: [createAuthInterceptor(token)] } : {};
  const client = new Client(address, credentials.createInsecure(), options);
  const def = method.definition;
  const print = (message: unknown) => io.stdout(`${JSON.stringify(method.response.toJSON(message as never), null, def.responseStream ? undefined : 2)}\n`);
  try {
    if (!def.responseStream) {
      const response = await new Promise<unknown>((resolve, reject) => {
        client.makeUnaryRequest(
          def.path,
          (v: unknown) => def.requestSerialize(v as never),
          (b: Buffer) => def.responseDeserialize(b),
          request,
          new Metadata(),
          { deadline: Date.now() + timeoutMs },
          (e: ServiceError | null, r?: unknown) => (e ? reject(irisErrorFromServiceError(e)) : resolve(r)),
        );
      });
      print(response);
      return 0;
    }
    const call = client.makeServerStreamRequest(
      def.path,
      (v: unknown) => def.requestSerialize(v as never),
      (b: Buffer) => def.responseDeserialize(b),
      request,
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
    );
    const onAbort = () => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => {
        call.on('data', print);
        call.on('error', (e: ServiceError) => (signal.aborted ? resolve() : reject(irisErrorFromServiceError(e))));
        call.on('end', () => resolve());
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    return signal.aborted ? 130 : 0;
  } catch (e) {
    throw explainControllerError(e, address);
  } finally {
    client.close();
  }
}
