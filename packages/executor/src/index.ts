/**
 * @packageDocumentation
 * `@marin/executor`. See README.md.
 */
export { ExecutorError } from './errors.js';
export type { ExecutorErrorCode } from './errors.js';
