import { IrisError } from '../errors.js';

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40, p: 2 ** 50 };

/**
 * Parses a binary, case-insensitive size string (`512`, `64k`, `1m`, `8g`, `8gb`, `8GiB`, `1t`) to bytes.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for anything else.
 */
export function parseSize(input: string | number, field = 'size'): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: ${input} is not a size in bytes`);
    return inRange(Math.floor(input), String(input), field);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$/i.exec(input);
  if (!m) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: "${input}" is not a size (e.g. 512, 64k, 1m, 8g, 8GiB)`);
  return inRange(Math.floor(Number(m[1]) * UNITS[(m[2] ?? '').toLowerCase()]!), input, field);
}

/** Sizes travel as int64 in JS numbers, exact only up to 2^53 - 1 bytes (8 PiB). */
function inRange(bytes: number, input: string, field: string): number {
  if (bytes > Number.MAX_SAFE_INTEGER) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: "${input}" is out of range (at most 8 PiB)`);
  return bytes;
}

/** `cpu_millicores` is an int32 on the wire. */
const MAX_MILLICORES = 2 ** 31 - 1;

/**
 * Cores (`0.5`, `2`) to millicores (`500`, `2000`).
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a negative or non-numeric value.
 */
export function coresToMillicores(cores: number | string, field = 'cpu'): number {
  const n = typeof cores === 'string' ? Number(cores) : cores;
  if (!Number.isFinite(n) || n < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: "${cores}" is not a non-negative number of cores`);
  const millicores = Math.round(n * 1000);
  if (millicores > MAX_MILLICORES) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: "${cores}" cores is out of range`);
  return millicores;
}

/** Bytes as a short binary string, e.g. `8.0 GiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}
