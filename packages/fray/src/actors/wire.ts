import { FrayError } from '../errors.js';
import type { FrayErrorCode } from '../errors.js';

/** gRPC path of an actor method call: request and response are {@link encodeFrame} frames. */
export const ACTOR_CALL_PATH = '/fray.actors.v1.ActorService/Call';
/** gRPC path of the health probe: empty request, JSON {@link ActorHealth} response. */
export const ACTOR_HEALTH_PATH = '/fray.actors.v1.ActorService/Health';
/** Trailing-metadata key holding the exact {@link FrayErrorCode} of a failed call. */
export const ACTOR_ERROR_CODE_KEY = 'fray-error-code';
/** Trailing-metadata key holding the `name` of the error a method threw. */
export const ACTOR_ERROR_NAME_KEY = 'fray-error-name';
/** Marker that stands for a binary value inside a frame's JSON header. */
export const BLOB_MARKER = '$fray_blob';

/** What an actor answers to a health probe. */
export interface ActorHealth {
  readonly name: string;
  readonly methods: readonly string[];
  readonly pid: number;
}

/**
 * A value an actor method takes or returns: JSON (finite numbers, plain objects, arrays) plus `Uint8Array`
 * (a `Buffer` too) anywhere inside it, carried as raw bytes rather than JSON.
 */
export type ActorValue = null | boolean | number | string | Uint8Array | readonly ActorValue[] | { readonly [key: string]: ActorValue };

function unserializable(path: string, what: string): FrayError {
  return new FrayError('FRAY_ACTOR_UNSERIALIZABLE', `${what} at "${path}" cannot be sent to an actor: only JSON values and Uint8Array are`, {
    details: { path },
  });
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Replaces binary values by markers and checks the rest is JSON that round-trips unchanged. */
function lower(value: unknown, path: string, blobs: Uint8Array[], seen: Set<object>): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw unserializable(path, `the number ${String(value)}`);
    return value;
  }
  if (typeof value !== 'object') throw unserializable(path, `a ${typeof value}`);
  if (value instanceof Uint8Array) {
    blobs.push(value);
    return { [BLOB_MARKER]: blobs.length - 1 };
  }
  if (seen.has(value)) throw unserializable(path, 'a cyclic reference');
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v: unknown, i) => lower(v, `${path}[${i}]`, blobs, seen));
    if (!isPlainObject(value)) throw unserializable(path, `an instance of ${value.constructor?.name ?? 'a class'}`);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue; // as JSON.stringify drops it
      out[k] = lower(v, path === '' ? k : `${path}.${k}`, blobs, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function raise(value: unknown, blobs: readonly Uint8Array[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v: unknown) => raise(v, blobs));
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === BLOB_MARKER && typeof obj[BLOB_MARKER] === 'number') {
    const blob = blobs[obj[BLOB_MARKER]];
    if (blob === undefined) throw new FrayError('FRAY_ACTOR_PROTOCOL', `frame names blob ${obj[BLOB_MARKER]} but carries ${blobs.length}`);
    return blob;
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = raise(obj[k], blobs);
  return out;
}

/**
 * Encodes a header object whose values may hold binary: `u32be header length | header JSON (UTF-8) | blob 0 | blob 1 …`,
 * with `header.blobs` = the blob lengths and each binary value replaced by `{"$fray_blob": i}`.
 *
 * @throws {FrayError} FRAY_ACTOR_UNSERIALIZABLE for a value that is not JSON or binary (`details.path`)
 */
export function encodeFrame(header: Record<string, unknown>): Buffer {
  const blobs: Uint8Array[] = [];
  const lowered = lower(header, '', blobs, new Set());
  const json = Buffer.from(JSON.stringify({ ...(lowered as object), blobs: blobs.map((b) => b.byteLength) }), 'utf8');
  const prefix = Buffer.allocUnsafe(4);
  prefix.writeUInt32BE(json.byteLength, 0);
  return Buffer.concat([prefix, json, ...blobs]);
}

/**
 * Decodes a frame written by {@link encodeFrame} (or by a client in another language), restoring binary values as
 * `Buffer`s that share the frame's memory.
 *
 * @throws {FrayError} FRAY_ACTOR_PROTOCOL for a malformed frame
 */
export function decodeFrame(frame: Buffer): Record<string, unknown> {
  if (frame.byteLength < 4) throw new FrayError('FRAY_ACTOR_PROTOCOL', `actor frame of ${frame.byteLength} bytes is shorter than its 4-byte header length`);
  const headerLength = frame.readUInt32BE(0);
  if (4 + headerLength > frame.byteLength) throw new FrayError('FRAY_ACTOR_PROTOCOL', `actor frame header of ${headerLength} bytes overruns the frame`);
  let header: unknown;
  try {
    header = JSON.parse(frame.subarray(4, 4 + headerLength).toString('utf8'));
  } catch (cause) {
    throw new FrayError('FRAY_ACTOR_PROTOCOL', 'actor frame header is not JSON', { cause });
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw new FrayError('FRAY_ACTOR_PROTOCOL', 'actor frame header is not an object');
  const { blobs: lengths = [], ...rest } = header as { blobs?: unknown };
  if (!Array.isArray(lengths) || !lengths.every((n) => Number.isInteger(n) && (n as number) >= 0)) {
    throw new FrayError('FRAY_ACTOR_PROTOCOL', 'actor frame "blobs" must list byte lengths');
  }
  const blobs: Buffer[] = [];
  let at = 4 + headerLength;
  for (const n of lengths as number[]) {
    if (at + n > frame.byteLength) throw new FrayError('FRAY_ACTOR_PROTOCOL', 'actor frame blobs overrun the frame');
    blobs.push(frame.subarray(at, at + n));
    at += n;
  }
  if (at !== frame.byteLength) throw new FrayError('FRAY_ACTOR_PROTOCOL', `actor frame has ${frame.byteLength - at} trailing bytes`);
  return raise(rest, blobs) as Record<string, unknown>;
}

/** The gRPC status each actor error code travels with; the exact code rides in {@link ACTOR_ERROR_CODE_KEY}. */
export const ACTOR_GRPC_STATUS: Readonly<Partial<Record<FrayErrorCode, number>>> = {
  FRAY_ACTOR_METHOD_NOT_FOUND: 12, // UNIMPLEMENTED
  FRAY_ACTOR_UNSERIALIZABLE: 3, // INVALID_ARGUMENT
  FRAY_ACTOR_PROTOCOL: 3, // INVALID_ARGUMENT
  FRAY_ACTOR_METHOD_FAILED: 2, // UNKNOWN
};
