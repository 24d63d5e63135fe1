// Consumes the packages as a user does: `npm pack` each one, install the tarballs into scratch projects
// outside the workspace, then typecheck, import and run from there. The light project holds only what a
// user who runs steps locally installs (@marin/executor and what it pulls); the full one adds the
// controller's optional native peers and @marin/pipeline.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['rigging', 'iris', 'fray', 'executor', 'pipeline'] as const;
/** Each package with the siblings it pulls (they are not on a registry, so their tarballs go in together). */
const CLOSURES: Record<(typeof PACKAGES)[number], readonly (typeof PACKAGES)[number][]> = {
  rigging: ['rigging'],
  iris: ['rigging', 'iris'],
  fray: ['rigging', 'iris', 'fray'],
  executor: ['rigging', 'iris', 'fray', 'executor'],
  pipeline: ['rigging', 'iris', 'fray', 'executor', 'pipeline'],
};
/** The controller's optional native peers, installed only in the full project. */
const NATIVE_PEERS = ['better-sqlite3', 'zstd-napi'] as const;
const FIGURES = join(ROOT, 'tools/consumer-check/install-figures.json');
const NPM_FLAGS = ['--no-audit', '--no-fund', '--foreground-scripts', '--loglevel=http'];

/** `out` is stdout and stderr together; `stdout` alone is for machine-readable output. */
type Run = { code: number | null; out: string; stdout: string; ms: number };

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const start = performance.now();
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '', ms: performance.now() - start };
}

function mustRun(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const r = run(cmd, args, cwd, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code} in ${cwd}:\n${r.out}`);
  return r;
}

function diskBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    total += st.isDirectory() ? diskBytes(path) : st.size;
  }
  return total;
}

function entryPoints(pkg: string): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', pkg, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  return Object.keys(manifest.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? manifest.name : `${manifest.name}/${k.slice(2)}`));
}

function scratchProject(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }, null, 2));
}

/** Loads `specifier` in a fresh node and lists the CommonJS modules it loaded (gRPC and the native addons are CommonJS). */
function commonJsLoadedBy(specifier: string, cwd: string): string[] {
  const script = `await import(${JSON.stringify(specifier)});
const { createRequire } = await import('node:module');
console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  const r = mustRun(process.execPath, ['--input-type=module', '-e', script], cwd);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as string[];
}

/** The native addons and gRPC modules among `loaded`. */
function heavy(loaded: string[]): string[] {
  return loaded.filter((k) => k.endsWith('.node') || k.includes('/@grpc/grpc-js/'));
}

let scratch = '';
let packs: Record<string, string> = {};
/** One scratch project per package, holding that package installed alone. */
const alone = new Map<string, { dir: string; install: Run }>();
let light = '';
let full = '';
let fullInstall: Run;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'marin-consumer-'));
  const packDir = join(scratch, 'packs');
  mkdirSync(packDir);
  for (const pkg of PACKAGES) {
    const r = mustRun('npm', ['pack', '--json', '--pack-destination', packDir], join(ROOT, 'packages', pkg));
    const [info] = JSON.parse(r.stdout) as { filename: string }[];
    packs[pkg] = join(packDir, info!.filename);
  }

  for (const pkg of PACKAGES) {
    const dir = join(scratch, `alone-${pkg}`);
    scratchProject(dir);
    alone.set(pkg, { dir, install: mustRun('npm', ['install', ...NPM_FLAGS, ...CLOSURES[pkg].map((p) => packs[p]!)], dir) });
  }
  light = alone.get('executor')!.dir;

  // The full project: every package plus the native peers. Their addons are copied from the workspace's
  // build (same versions, same Node ABI) instead of compiled a second time; a version mismatch compiles.
  full = join(scratch, 'full');
  scratchProject(full);
  const peers = NATIVE_PEERS.map((name) => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    return `${name}@${version}`;
  });
  fullInstall = mustRun('npm', ['install', ...NPM_FLAGS, '--ignore-scripts', ...PACKAGES.map((p) => packs[p]!), ...peers], full);
  for (const name of NATIVE_PEERS) {
    const built = join(ROOT, 'node_modules', name, 'build');
    if (existsSync(built)) cpSync(built, join(full, 'node_modules', name, 'build'), { recursive: true });
    else mustRun('npm', ['rebuild', name], full);
  }

  const figure = (r: Run, dir: string) => ({
    seconds: Math.round(r.ms / 100) / 10,
    nodeModulesMB: Math.round(diskBytes(join(dir, 'node_modules')) / 1e5) / 10,
    packages: Number(/added (\d+) package/.exec(r.out)?.[1] ?? NaN),
  });
  const tarballKB = Object.fromEntries(Object.entries(packs).map(([p, f]) => [p, Math.round(statSync(f).size / 1024)]));
  writeFileSync(
    FIGURES,
    `${JSON.stringify({ cores: availableParallelism(), node: process.version, tarballKB, alone: Object.fromEntries([...alone].map(([pkg, { dir, install }]) => [pkg, figure(install, dir)])), everythingWithNativePeers: figure(fullInstall, full) }, null, 2)}\n`,
  );
}, 300_000);

// Six projects' node_modules: removing them takes a while on a busy disk.
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 300_000);

describe.each(['rigging', 'iris', 'fray', 'executor'] as const)('@marin/%s installed alone from its tarball', (pkg) => {
  it('compiles no native code and installs none of the controller addons', () => {
    const { dir, install } = alone.get(pkg)!;
    expect(install.out).not.toMatch(/node-gyp|gyp info|prebuild-install/);
    for (const name of NATIVE_PEERS) expect(existsSync(join(dir, 'node_modules', name)), name).toBe(false);
    expect(run('find', ['node_modules', '-name', '*.node'], dir).out.trim()).toBe('');
  });
});

describe('@marin/pipeline installed alone from its tarball', () => {
  it('compiles no native code (its addons are prebuilt) and installs none of the controller addons', () => {
    const { dir, install } = alone.get('pipeline')!;
    expect(install.out).not.toMatch(/node-gyp|gyp info|prebuild-install/);
    for (const name of NATIVE_PEERS) expect(existsSync(join(dir, 'node_modules', name)), name).toBe(false);
  });
});

describe('@marin/executor installed alone from its tarball', () => {

  it.each(['@marin/executor', '@marin/fray', '@marin/rigging', '@marin/iris/core'])('imports %s without loading gRPC or a native addon', (specifier) => {
    expect(heavy(commonJsLoadedBy(specifier, light))).toEqual([]);
  });

  it('loads gRPC with @marin/iris itself (so the check above can see it)', () => {
    expect(heavy(commonJsLoadedBy('@marin/iris', light)).length).toBeGreaterThan(0);
  });

  it('runs a copy of experiments/hello_world.js', () => {
    copyFileSync(join(ROOT, 'experiments/hello_world.js'), join(light, 'hello_world.js'));
    const prefix = join(scratch, 'prefix-light');
    mustRun(process.execPath, ['hello_world.js', '--prefix', prefix], light, { CI: '1' });
    expect(readFileSync(join(prefix, 'hello_world/stats-b5daf3/stats.json'), 'utf8')).toBe('{"sum": 4950, "min": 0, "max": 99}');
  });

  it('says how to install the controller when `iris job run` needs it', () => {
    const r = run('npx', ['--no-install', 'iris', 'job', 'run', '--', 'node', '-e', 'console.log(1)'], light, { IRIS_HOME: join(scratch, 'iris-home-light'), IRIS_CONTROLLER_ADDRESS: '' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('npm install better-sqlite3@');
  });
});

describe('every package installed from its tarball', () => {
  it.each(PACKAGES.flatMap((pkg) => entryPoints(pkg).map((specifier) => [specifier, pkg] as const)))(
    'imports %s alone, from a project holding only @marin/%s and what it pulls',
    (specifier, pkg) => {
      mustRun(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`], alone.get(pkg)!.dir);
    },
  );

  it.each([
    ['NodeNext', { module: 'NodeNext', moduleResolution: 'NodeNext' }],
    ['Bundler', { module: 'ESNext', moduleResolution: 'Bundler' }],
    ['node10', { module: 'CommonJS', moduleResolution: 'node10', ignoreDeprecations: '6.0' }],
  ] as const)('typechecks a consumer under %s without skipLibCheck', (name, options) => {
    const specifiers = PACKAGES.flatMap(entryPoints);
    const source = [
      ...specifiers.map((s, i) => `import * as m${i} from '${s}';`),
      `export const modules = [${specifiers.map((_, i) => `m${i}`).join(', ')}];`,
      '',
    ].join('\n');
    writeFileSync(join(full, 'consumer.ts'), source);
    const tsconfig = join(full, `tsconfig.${name}.json`);
    writeFileSync(
      tsconfig,
      JSON.stringify({ compilerOptions: { ...options, target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] }, files: ['consumer.ts'] }),
    );
    const r = run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], full);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  });

  it('runs `npx iris job run -- node -e …` on an embedded cluster', () => {
    const r = mustRun('npx', ['--no-install', 'iris', 'job', 'run', '--', 'node', '-e', "console.log('hello from ' + 'a consumer')"], full, {
      IRIS_HOME: join(scratch, 'iris-home-full'),
      IRIS_CONTROLLER_ADDRESS: '',
      CI: '1',
    });
    expect(r.out).toContain('hello from a consumer');
  });

  it('runs a copy of experiments/hello_world.js', () => {
    copyFileSync(join(ROOT, 'experiments/hello_world.js'), join(full, 'hello_world.js'));
    const prefix = join(scratch, 'prefix-full');
    mustRun(process.execPath, ['hello_world.js', '--prefix', prefix], full, { CI: '1' });
    expect(readFileSync(join(prefix, 'hello_world/stats-b5daf3/stats.json'), 'utf8')).toBe('{"sum": 4950, "min": 0, "max": 99}');
  });

  it('runs it as an Iris task whose stats step is a Fray child job (`--remote-stats`)', () => {
    const prefix = join(scratch, 'prefix-remote');
    mustRun('npx', ['--no-install', 'iris', 'job', 'run', '--', 'node', 'hello_world.js', '--prefix', prefix, '--remote-stats'], full, {
      IRIS_HOME: join(scratch, 'iris-home-remote'),
      IRIS_CONTROLLER_ADDRESS: '',
      CI: '1',
    });
    expect(readFileSync(join(prefix, 'hello_world/stats-b5daf3/stats.json'), 'utf8')).toBe('{"sum": 4950, "min": 0, "max": 99}');
  });
});
