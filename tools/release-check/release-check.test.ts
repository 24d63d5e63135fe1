// Runs Nx's release tooling in dry-run as a release would: `nx release version patch` and `nx release
// publish`, whose `npm publish --dry-run` per package goes to a stand-in registry on 127.0.0.1 that knows no
// package. So nothing needs the network or credentials, a real publish could not land anywhere, and the
// registry's request log shows each package was published (dry) and nothing was uploaded. The tarballs'
// contents come from `npm pack --dry-run --json`, the same file selection npm publish makes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['rigging', 'iris', 'fray', 'executor', 'pipeline'] as const;

type Manifest = {
  name: string;
  version: string;
  files: string[];
  bin?: Record<string, string>;
  publishConfig?: { access?: string };
  exports: Record<string, string | Record<string, string>>;
};
type Packed = { name: string; files: { path: string }[] };
type ReleaseOutcome = {
  version: Record<string, { currentVersion: string; newVersion: string | null }>;
  publish: Record<string, { code: number }>;
};

const manifests = Object.fromEntries(
  PACKAGES.map((pkg) => [pkg, JSON.parse(readFileSync(join(ROOT, 'packages', pkg, 'package.json'), 'utf8')) as Manifest]),
) as Record<(typeof PACKAGES)[number], Manifest>;

/**
 * The programmatic API behind `nx release version` / `nx release publish`, run as a script file in a child
 * process (Nx reads the command from process.argv[1]).
 */
const RELEASE_SCRIPT = `const { releasePublish, releaseVersion } = await import(process.env.RELEASE_CHECK_NX_RELEASE);
const v = await releaseVersion({ specifier: 'patch', dryRun: true, verbose: false, gitCommit: false, gitTag: false, stageChanges: false });
const publish = await releasePublish({ dryRun: true, verbose: false, registry: process.env.RELEASE_CHECK_REGISTRY });
const version = Object.fromEntries(Object.entries(v.projectsVersionData).map(([k, d]) => [k, { currentVersion: d.currentVersion, newVersion: d.newVersion }]));
console.log('\\n' + JSON.stringify({ version, publish }));
process.exit(0);
`;

/** The files a release may touch, with their content (absent files as null). */
function releaseFiles(): Record<string, string | null> {
  const paths = ['package-lock.json', ...PACKAGES.flatMap((p) => [`packages/${p}/package.json`, `packages/${p}/CHANGELOG.md`]), 'CHANGELOG.md'];
  return Object.fromEntries(paths.map((p) => [p, existsSync(join(ROOT, p)) ? readFileSync(join(ROOT, p), 'utf8') : null]));
}

function gitTags(): string {
  return spawnSync('git', ['tag', '--list'], { cwd: ROOT, encoding: 'utf8' }).stdout;
}

let scratch = '';
let registry: Server;
const requests: { method: string; url: string }[] = [];
let before: { files: Record<string, string | null>; tags: string };
let run: { code: number | null; out: string };
let outcome: ReleaseOutcome | undefined;
const packed = new Map<string, Packed>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'marin-release-check-'));
  // A registry that has never heard of any package: npm's pre-publish lookup gets 404, and anything but a
  // read is refused (and recorded, so the test can prove nothing tried to publish).
  registry = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
    res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 404 : 403, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;

  before = { files: releaseFiles(), tags: gitTags() };
  writeFileSync(join(scratch, 'release.mjs'), RELEASE_SCRIPT);
  const nxRelease = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('nx/release')).href;
  // Asynchronously: the stand-in registry answers from this process's event loop.
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [join(scratch, 'release.mjs')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        RELEASE_CHECK_REGISTRY: url,
        RELEASE_CHECK_NX_RELEASE: nxRelease,
        NX_DAEMON: 'false',
        NX_TUI: 'false',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  run = { code: r.code, out: `${r.stdout}${r.stderr}` };
  const last = r.stdout.trim().split('\n').at(-1);
  outcome = last?.startsWith('{') ? (JSON.parse(last) as ReleaseOutcome) : undefined;
  for (const pkg of PACKAGES) {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(ROOT, 'packages', pkg), encoding: 'utf8', maxBuffer: 1 << 28 });
    const [info] = JSON.parse(r.stdout) as Packed[];
    packed.set(manifests[pkg].name, info!);
  }
}, 300_000);

afterAll(async () => {
  await new Promise((resolve) => (registry ? registry.close(resolve) : resolve(undefined)));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('nx release version patch --dry-run', () => {
  it('exits 0', () => {
    expect(run.code, run.out).toBe(0);
    expect(outcome, run.out).toBeDefined();
  });

  it('bumps all five packages to the same next patch version (one fixed group)', () => {
    const [major, minor, patch] = manifests.rigging.version.split('.').map(Number) as [number, number, number];
    const next = `${major}.${minor}.${patch + 1}`;
    expect(outcome?.version).toEqual(
      Object.fromEntries(PACKAGES.map((p) => [manifests[p].name, { currentVersion: manifests[p].version, newVersion: next }])),
    );
  });
});

describe('nx release publish --dry-run', () => {
  it('publishes every package successfully', () => {
    expect(outcome?.publish).toEqual(Object.fromEntries(PACKAGES.map((p) => [manifests[p].name, { code: 0 }])));
  });

  it('sends every package to the stand-in registry, which only sees lookups, no upload', () => {
    // npm publish looks the package up before it would upload: `GET /@marin%2frigging`.
    const looked = new Set(requests.map((r) => decodeURIComponent(r.url.slice(1))));
    expect([...looked].sort()).toEqual(PACKAGES.map((p) => manifests[p].name).sort());
    expect(requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD')).toEqual([]);
  });

  it('changes no file in the repository and creates no tag', () => {
    expect({ files: releaseFiles(), tags: gitTags() }).toEqual(before);
  });
});

describe.each(PACKAGES)('the @marin/%s tarball', (pkg) => {
  const manifest = manifests[pkg];
  const files = () => (packed.get(manifest.name)?.files ?? []).map((f) => f.path).sort();

  it('is published with public access (a scoped package is restricted by default)', () => {
    expect(manifest.publishConfig?.access).toBe('public');
  });

  it('holds package.json, README.md, LICENSE, every exports target and every bin', () => {
    const targets = Object.entries(manifest.exports)
      .filter(([key]) => key !== './package.json')
      .flatMap(([, target]) => (typeof target === 'string' ? [target] : Object.entries(target).filter(([cond]) => cond !== '@marin/source').map(([, t]) => t)));
    const required = ['package.json', 'README.md', 'LICENSE', ...targets, ...Object.values(manifest.bin ?? {})].map((p) => p.replace(/^\.\//, ''));
    expect(required.filter((p) => !files().includes(p))).toEqual([]);
  });

  it("holds nothing outside dist, bin, README, LICENSE, package.json and the package's own `files`", () => {
    const allowed = new Set(['dist', 'bin', 'README.md', 'LICENSE', 'package.json', ...manifest.files]);
    expect(files().filter((p) => !allowed.has(p.split('/')[0]!))).toEqual([]);
  });

  it('holds no source, tests, test reports or build configs', () => {
    const forbidden = /(^|\/)(src|test)\/|\.test\.[cm]?[jt]sx?$|test-results[\w-]*\.json$|tsconfig[\w.-]*\.json$|\.tsbuildinfo$|(vitest|tsup)[\w.-]*\.config\.[cm]?[jt]s$/;
    expect(files().length).toBeGreaterThan(0);
    expect(files().filter((p) => forbidden.test(p))).toEqual([]);
  });
});
