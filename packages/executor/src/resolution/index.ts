export { instantiateConfig, stripFloatValues, unresolvedOutputNameError } from './instantiate-config.js';
export type { InstantiateConfigOptions } from './instantiate-config.js';
export { resolveLocalPlaceholders } from './resolve-local-placeholders.js';
export { absolutePrefix, hasScheme, makePrefixAbsolute } from './make-prefix-absolute.js';
export { MIRROR_SCHEME, mirrorUrlForInput } from './mirror-path.js';
export { maxMirrorBudgetGb } from './max-mirror-budget.js';
