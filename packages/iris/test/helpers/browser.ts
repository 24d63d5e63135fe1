import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where browser tests write their screenshots (git-ignored); `IRIS_SCREENSHOT_DIR` overrides. */
export const SCREENSHOT_DIR = process.env['IRIS_SCREENSHOT_DIR'] || join(PACKAGE_ROOT, '.screenshots');

/**
 * Debian's `chromium`, found on PATH. A missing browser fails the test with the install command,
 * never skips it: no browser build is ever downloaded.
 */
export function chromiumPath(): string {
  try {
    return execSync('which chromium', { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium is not installed; run `apt-get update && apt-get install -y chromium`');
  }
}

/** Launches headless Chromium through playwright-core with the system executable. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** Builds the dashboard page into a temp dir (about 0.2 s) so tests never depend on or touch `dist`. */
export function buildDashboardAssets(): string {
  const out = mkdtempSync(join(tmpdir(), 'iris-dashboard-assets-'));
  execFileSync(process.execPath, [join(PACKAGE_ROOT, 'ui', 'build.mjs'), out], { stdio: 'inherit' });
  return out;
}
