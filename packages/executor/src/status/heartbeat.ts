import { RiggingError } from '@marin/rigging';
import type { ExecutorLogger } from '../logger.js';

/** The part of a lease the heartbeat drives. */
export interface RefreshableLease {
  refresh(): Promise<unknown>;
}

/** Options of `startHeartbeat`. */
export interface HeartbeatOptions {
  lease: RefreshableLease;
  /** Interval between refreshes. */
  heartbeatMs: number;
  /** With no successful refresh for this long, the lease counts as lost. */
  timeoutMs: number;
  /** Called once when the lease is lost; `cause` is the refresh error, if any. */
  onLost(cause: unknown): void;
  logger: ExecutorLogger;
  /** The step label, for log lines. */
  label: string;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
}

/** A running heartbeat; `stop()` cancels the timer and waits for an in-flight refresh. */
export interface Heartbeat {
  stop(): Promise<void>;
  /** True once the lease was declared lost. */
  readonly lost: boolean;
}

/**
 * Refreshes a lease every `heartbeatMs`. A refresh reporting `RIGGING_LEASE_LOST` (the lease is gone
 * or another worker holds it) declares the lease lost at once; any other refresh error is logged and
 * retried on the next tick, and the lease is declared lost once no refresh has succeeded for
 * `timeoutMs`. A tick delayed by more than one interval (a blocked event loop) is logged.
 */
export function startHeartbeat(opts: HeartbeatOptions): Heartbeat {
  const now = opts.now ?? Date.now;
  let lastOk = now();
  let stopped = false;
  let lost = false;
  let inflight: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let due = now() + opts.heartbeatMs;

  const declareLost = (cause: unknown): void => {
    if (lost) return;
    lost = true;
    stopped = true;
    if (timer) clearTimeout(timer);
    opts.onLost(cause);
  };

  const tick = (): void => {
    timer = null;
    if (stopped) return;
    const t = now();
    if (t - due > opts.heartbeatMs) {
      opts.logger.warn(
        `Heartbeat for ${opts.label} ran ${((t - due) / 1000).toFixed(1)}s late; is the event loop blocked?`,
      );
    }
    if (t - lastOk > opts.timeoutMs) {
      declareLost(undefined);
      return;
    }
    if (inflight === null) {
      inflight = opts.lease.refresh().then(
        () => {
          lastOk = now();
        },
        (e: unknown) => {
          if (RiggingError.hasCode(e, 'RIGGING_LEASE_LOST')) {
            declareLost(e);
          } else if (now() - lastOk > opts.timeoutMs) {
            declareLost(e);
          } else {
            opts.logger.warn(`Lease refresh for ${opts.label} failed, retrying on the next heartbeat: ${String(e)}`);
          }
        },
      ).finally(() => {
        inflight = null;
      });
    }
    due = t + opts.heartbeatMs;
    timer = setTimeout(tick, opts.heartbeatMs);
  };
  timer = setTimeout(tick, opts.heartbeatMs);

  return {
    get lost() {
      return lost;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (inflight) await inflight;
    },
  };
}
