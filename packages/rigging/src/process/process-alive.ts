/**
 * Whether process `pid` exists: `kill(pid, 0)` succeeds, or fails with EPERM (it exists but belongs to
 * another user). A zombie still counts; `isProcessGroupAlive` is the check that skips them.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
