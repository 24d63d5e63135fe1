#!/usr/bin/env node
// The `marin` command (`marin gc`). Plain node runs the built CLI (dist/, from
// `npx nx run @marin/executor:build`); `node --conditions=@marin/source --import tsx bin/marin.js`
// runs the same CLI from source.
let cli;
try {
  cli = await import('@marin/executor/cli');
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('/dist/')) {
    console.error('marin: the CLI is not built yet; run `npx nx run @marin/executor:build` first');
    process.exit(2);
  }
  throw e;
}
const code = await cli.main(process.argv.slice(2));
process.exitCode = code;
// Exit even if a storage client left a handle open after the command finished.
setTimeout(() => process.exit(code), 2000).unref();
