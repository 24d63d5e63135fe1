/**
 * @packageDocumentation
 * `@marin/rigging`. See README.md.
 */
export { CodedError, hasBrand } from './coded-error.js';
export type { CodedErrorOptions } from './coded-error.js';
export { RiggingError } from './errors.js';
export type { RiggingErrorCode } from './errors.js';
export {
  FloatValue,
  compareCodePoints,
  float,
  formatPyJsonPath,
  isBuiltinInstance,
  parsePyJson,
  pyFloatRepr,
  pyIntRepr,
  pyJsonDumps,
  pyQuote,
} from './json/index.js';
export type { PyJsonDumpsOptions, PyJsonPathSegment } from './json/index.js';
