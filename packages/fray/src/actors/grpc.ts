import type * as GrpcModule from '@grpc/grpc-js';

/** The `@grpc/grpc-js` module. */
export type Grpc = typeof GrpcModule;

let loading: Promise<Grpc> | undefined;

/**
 * Loads `@grpc/grpc-js` on first use, so importing `@marin/fray` (and running jobs) never loads gRPC; only
 * hosting or calling an actor does.
 */
export function loadGrpc(): Promise<Grpc> {
  loading ??= import('@grpc/grpc-js');
  return loading;
}

const identity = (b: Buffer): Buffer => b;

/** A unary gRPC method whose request and response are raw bytes: no generated stubs on either side. */
export function rawUnaryMethod(path: string): GrpcModule.MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  };
}

/**
 * Channel options of actor clients and servers: frames up to 1 GiB (tensors), no proxy lookups, and a 16 MiB
 * HTTP/2 receive window on the client so a large result is not paced by 64 KiB window updates (grpc-js's server
 * cannot raise its own window).
 */
export const ACTOR_CHANNEL_OPTIONS = {
  'grpc.max_receive_message_length': 1024 * 1024 * 1024,
  'grpc.max_send_message_length': 1024 * 1024 * 1024,
  'grpc.enable_http_proxy': 0,
  'grpc-node.flow_control_window': 16 * 1024 * 1024,
} as const;
