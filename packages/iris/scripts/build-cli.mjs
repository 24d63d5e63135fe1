// Builds the `iris` command into a few ES modules in dist/ (`iris-cli.js` plus `iris-cli-*.js`
// chunks), with @grpc/grpc-js, zod, protobuf, commander and rigging inside, so `bin/iris.js` starts
// without resolving and reading hundreds of small files. Each command still loads on first use: the
// dynamic imports of src/cli/index.ts become chunks. Run by the package's `build` script after tsup;
// tests pass another output directory (`node scripts/build-cli.mjs <dir>`), which must sit inside
// this package so the external modules below still resolve.
//
// External, resolved from node_modules at run time:
// - better-sqlite3 and zstd-napi: native optional peers, loaded on first use (src/internal/native-deps.ts);
// - google-auth-library, tar and yaml: large, needed only by cluster configs and bundles, and
//   dependencies of this package, so they are installed next to it.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = resolve(process.argv[2] ?? join(root, 'dist'));
// Chunk names carry content hashes: drop the previous build's, which tsup's clean does not own.
mkdirSync(outdir, { recursive: true });
for (const f of readdirSync(outdir)) if (/^iris-cli(-[A-Z0-9]+)?\.js$/.test(f)) rmSync(join(outdir, f));

// The chunks keep Node's CommonJS globals that bundled CommonJS packages expect.
const banner = [
  "import { createRequire as __irisCreateRequire } from 'node:module';",
  "import { fileURLToPath as __irisFileURLToPath, pathToFileURL as __irisPathToFileURL } from 'node:url';",
  'const require = __irisCreateRequire(import.meta.url);',
  'const __filename = __irisFileURLToPath(import.meta.url);',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
  // rigging finds its own files (cluster configs) and packages (@google-cloud/storage, yaml) from its
  // package.json, looked up on first use so commands that never need them do not pay for it.
  'let __irisRiggingUrl;',
  "const __riggingModuleUrl = () => (__irisRiggingUrl ??= __irisPathToFileURL(require.resolve('@marin/rigging/package.json')).href);",
  'const __riggingRequire = Object.assign((id) => __irisCreateRequire(__riggingModuleUrl())(id), { resolve: (id, o) => __irisCreateRequire(__riggingModuleUrl()).resolve(id, o) });',
].join('\n');

/** Source rewrites that keep bundled code finding what it found from its own file. */
const locationPlugin = {
  name: 'iris-cli-locations',
  setup(b) {
    // rigging resolves files and packages relative to itself; inside the bundle, point it at its package.
    b.onLoad({ filter: /[\\/]rigging[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const contents = text.replaceAll('createRequire(import.meta.url)', '__riggingRequire').replaceAll('import.meta.url', '__riggingModuleUrl()');
      return { contents, loader: 'ts' };
    });
  },
};

await build({
  entryPoints: { 'iris-cli': join(root, 'src/cli/index.ts') },
  outdir,
  chunkNames: 'iris-cli-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  conditions: ['@marin/source'],
  external: ['better-sqlite3', 'zstd-napi', 'google-auth-library', 'tar', 'yaml', '@google-cloud/storage'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  banner: { js: banner },
  plugins: [locationPlugin],
  logLevel: 'warning',
});
