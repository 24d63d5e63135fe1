import type { FloatValue, StoragePath } from '@marin/rigging';
import type { ExecutorStep } from './executor-step.js';
import type { InputName } from './input-name.js';
import type { MirroredValue } from './mirrored-value.js';
import type { OutputName } from './output-name.js';
import type { VersionedValue } from './versioned-value.js';

type Opaque =
  | StoragePath
  | Date
  | RegExp
  | URL
  | Error
  | Promise<unknown>
  | ArrayBuffer
  | ArrayBufferView
  | Set<unknown>
  | WeakMap<object, unknown>
  | WeakSet<object>
  | ((...args: never[]) => unknown);

/**
 * The type a step function sees for a config of type `TConfig`: `InputName`, `OutputName`,
 * `ExecutorStep` and `MirroredValue` become `string`, `VersionedValue<T>` becomes `Resolved<T>`,
 * `FloatValue` becomes `number`; records, `Map`s and arrays are mapped recursively.
 */
export type Resolved<TConfig> = TConfig extends InputName | OutputName | ExecutorStep<unknown> | MirroredValue<unknown>
  ? string
  : TConfig extends VersionedValue<infer TInner>
    ? Resolved<TInner>
    : TConfig extends FloatValue
      ? number
      : TConfig extends Opaque
        ? TConfig
        : TConfig extends Map<infer K, infer V>
          ? Map<K, Resolved<V>>
          : TConfig extends readonly unknown[]
            ? { [K in keyof TConfig]: Resolved<TConfig[K]> }
            : TConfig extends object
              ? { [K in keyof TConfig]: Resolved<TConfig[K]> }
              : TConfig;
