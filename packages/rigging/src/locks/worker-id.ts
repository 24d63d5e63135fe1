import { hostname } from 'node:os';

let counter = 0;

/**
 * A fresh holder id `<hostname>-<pid>-<n>`, `n` counting per process. Leases are re-entrant per id,
 * so every holder (one step attempt, one mirror copy) needs its own.
 */
export function defaultWorkerId(): string {
  counter += 1;
  return `${hostname()}-${process.pid}-${counter}`;
}
