/**
 * Runs a real controller as its own process for the worker end-to-end tests:
 * `node --conditions=@marin/source --import tsx worker-controller-main.ts '<ControllerOptions JSON>'`.
 * Prints `{"event":"ready","address":…}` once serving; closes on SIGTERM.
 */
import { startController } from '../../src/cluster/start-controller.js';

const options = JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof startController>[0];
const controller = await startController({ ...options, warn: () => undefined });
process.stdout.write(`${JSON.stringify({ event: 'ready', address: controller.address, port: controller.port })}\n`);
process.on('SIGTERM', () => {
  void controller.close().then(() => process.exit(0));
});
