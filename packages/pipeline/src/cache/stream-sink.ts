import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/**
 * A write stream driven with backpressure: `write` resolves once the stream can take more, `close`
 * once its content is in place (rigging's write streams rename their temp file on finish), and
 * `abort` destroys it, leaving nothing behind.
 */
export class StreamSink {
  private failure: Error | null = null;
  private done: Promise<void>;

  constructor(private readonly stream: Writable) {
    stream.on('error', (e: Error) => {
      this.failure ??= e;
    });
    this.done = finished(stream);
    // Errors surface through write/close; this keeps an early failure from going unhandled.
    this.done.catch(() => undefined);
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.stream.write(bytes)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = (): void => {
          this.stream.off('error', onError);
          resolve();
        };
        const onError = (e: Error): void => {
          this.stream.off('drain', onDrain);
          reject(e);
        };
        this.stream.once('drain', onDrain);
        this.stream.once('error', onError);
      });
    }
  }

  async close(): Promise<void> {
    if (this.failure) throw this.failure;
    this.stream.end();
    await this.done;
  }

  abort(): void {
    this.stream.destroy();
  }
}
