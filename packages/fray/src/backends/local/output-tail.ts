/** A bounded buffer of the last output lines of a job. */
export class OutputTail {
  private readonly lines: string[] = [];

  /** @param capacity lines kept; older ones are dropped. */
  constructor(private readonly capacity: number) {}

  /** Appends one line, dropping the oldest past the capacity. */
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** The last `maxLines` lines, oldest first. */
  tail(maxLines: number): string[] {
    return maxLines <= 0 ? [] : this.lines.slice(-maxLines);
  }
}
