// Runs the CLI from source in a child process: node --conditions=@marin/source --import tsx iris-cli-entry.ts ARGS
import { main } from '../../src/cli/index.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), 2000).unref();
