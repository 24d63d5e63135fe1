/**
 * A reference to the consuming step's own output path, joined with `name` when non-empty. Frozen.
 */
export class OutputName {
  /** Sub-path under the step's own output, or `null` for the output path itself. */
  readonly name: string | null;

  constructor(name: string | null) {
    this.name = name;
    Object.freeze(this);
  }

  /** `OutputName(name=…)`, for messages. */
  toString(): string {
    return `OutputName(name=${this.name ?? 'None'})`;
  }
}

/** `new OutputName(name ?? null)`: the step's own output path, or a path under it. */
export function thisOutputPath(name?: string | null): OutputName {
  return new OutputName(name ?? null);
}

/** The step's own output path, usable as a class-field default. */
export const THIS_OUTPUT_PATH: OutputName = new OutputName(null);
