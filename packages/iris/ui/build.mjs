// Builds the dashboard page into dist/dashboard: one ES module (Preact included) and one stylesheet,
// so the controller serves it offline with no CDN. Run by the package's `build` script after tsup;
// tests pass another output directory (`node ui/build.mjs <dir>`) so they never touch dist.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, '..', 'dist', 'dashboard');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
copyFileSync(join(here, 'styles.css'), join(out, 'app.css'));
