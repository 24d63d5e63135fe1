export { FloatValue, float } from './float-value.js';
export { pyFloatRepr, pyIntRepr } from './py-float-repr.js';
export { compareCodePoints, pyQuote, sortByCodePoint } from './py-string.js';
export { formatPyJsonPath, isBuiltinInstance, pyJsonDumps } from './py-json-dumps.js';
export type { PyJsonDumpsOptions, PyJsonPathSegment } from './py-json-dumps.js';
export { isPyJsonObject, isRecord } from './json-object.js';
export { parsePyJson } from './parse-py-json.js';
export { orderedKeys } from './py-key-order.js';
