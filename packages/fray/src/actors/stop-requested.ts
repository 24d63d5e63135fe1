/** Env var naming the process that created a local actor; the actor exits when that process is gone. */
export const ACTOR_PARENT_PID_ENV = 'FRAY_ACTOR_PARENT_PID';

/**
 * Resolves when an actor process is asked to stop: SIGTERM or SIGINT, or its creator's process (the pid in
 * `FRAY_ACTOR_PARENT_PID`, polled every second) is gone, so a crashed caller leaves no actor behind. The poll
 * timer does not keep the process alive on its own.
 */
export function actorStopRequested(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
    const parent = Number(process.env[ACTOR_PARENT_PID_ENV] ?? NaN);
    if (!Number.isInteger(parent) || parent <= 0) return;
    const timer = setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch {
        clearInterval(timer);
        resolve();
      }
    }, 1000);
    timer.unref();
  });
}
