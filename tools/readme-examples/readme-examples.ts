// Extracts the fenced JavaScript and TypeScript examples from Markdown files, typechecks them against the
// built packages and runs them in plain Node 20, each in a scratch directory of its own. Every problem is
// reported at the README line it comes from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { signalProcessGroup } from '@marin/rigging';
import ts from 'typescript';

/** The fence languages that are checked; every other fence (sh, yaml, json) is left alone. */
const LANGS: Record<string, ExampleLang> = { js: 'js', javascript: 'js', mjs: 'js', ts: 'ts', typescript: 'ts' };
/** The info-string flags an example may carry after its language. */
const FLAGS = new Set(['no-run']);

export type ExampleLang = 'js' | 'ts';

/** One fenced example, located by the README line of its opening fence. */
export interface Example {
  /** The Markdown file, as given to {@link extractExamples}. */
  file: string;
  /** 1-based line of the opening fence. Line `n` of the code is README line `fenceLine + n`. */
  fenceLine: number;
  lang: ExampleLang;
  code: string;
  /** False for a `no-run` example: it needs something the test machine does not have, so it is only checked. */
  run: boolean;
  /** Info-string words after the language that are not known flags. */
  unknownFlags: string[];
}

/** A problem in an example, at the README line it points to. */
export interface Problem {
  file: string;
  line: number;
  message: string;
}

/** Every checked example in `markdown`, in order. Fences may be indented (inside a list) and use ``` or ~~~. */
export function extractExamples(markdown: string, file: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', lang = '', rest = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    }
    const kind = LANGS[lang.toLowerCase()];
    if (kind) {
      const words = rest.split(/\s+/).filter(Boolean);
      examples.push({
        file,
        fenceLine: i + 1,
        lang: kind,
        code: `${body.join('\n')}\n`,
        run: !words.includes('no-run'),
        unknownFlags: words.filter((w) => !FLAGS.has(w)),
      });
    }
    i = j;
  }
  return examples;
}

/** `file:line` of an example's opening fence, the name tests and messages use. */
export function exampleName(example: Example): string {
  return `${example.file}:${example.fenceLine}`;
}

/** A scratch directory whose `node_modules` is the workspace's, so `@marin/*` resolve to the built packages. */
function scratchDir(root: string, parent: string, name: string): string {
  const dir = mkdtempSync(join(parent, `${name}-`));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `readme-example-${name}`, private: true, type: 'module' })}\n`);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** A directory under the OS temp dir for one check; remove it with {@link removeScratch}. */
export function createScratch(): string {
  return mkdtempSync(join(tmpdir(), 'marin-readme-examples-'));
}

export function removeScratch(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Typechecks every example as its own ES module with the repository's compiler settings, resolving
 * `@marin/*` through the exports maps to the built `.d.ts` files (no source condition). JavaScript
 * examples are checked too (`checkJs`). Unused locals and parameters are allowed: an example often binds a
 * value only to show what it is.
 *
 * @returns the problems of each example, keyed by its index in `examples`.
 */
export function typecheckExamples(examples: readonly Example[], opts: { root: string; scratch: string }): Problem[][] {
  const dir = scratchDir(opts.root, opts.scratch, 'typecheck');
  const names = examples.map((ex, i) => `example-${i}.${ex.lang === 'ts' ? 'ts' : 'mjs'}`);
  examples.forEach((ex, i) => writeFileSync(join(dir, names[i]!), ex.code));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(opts.root, 'tsconfig.base.json'),
      compilerOptions: {
        customConditions: [],
        moduleDetection: 'force',
        allowJs: true,
        checkJs: true,
        noEmit: true,
        declaration: false,
        sourceMap: false,
        noUnusedLocals: false,
        noUnusedParameters: false,
      },
      files: names,
    }),
  );
  const problems: Problem[][] = examples.map((ex) =>
    ex.unknownFlags.map((flag) => ({ file: ex.file, line: ex.fenceLine, message: `unknown info-string flag "${flag}" (known: ${[...FLAGS].join(', ')})` })),
  );
  const tsc = spawnSync(process.execPath, [join(opts.root, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = `${tsc.stdout ?? ''}${tsc.stderr ?? ''}`;
  let attributed = 0;
  // Diagnostics look like `example-3.ts(4,7): error TS2304: Cannot find name 'x'.`, continuation lines indented.
  for (const match of out.matchAll(/^(example-(\d+)\.m?[jt]s)\((\d+),\d+\): (error TS\d+: .*(?:\n {2}.*)*)/gm)) {
    const ex = examples[Number(match[2])]!;
    problems[Number(match[2])]!.push({ file: ex.file, line: ex.fenceLine + Number(match[3]), message: match[4]! });
    attributed++;
  }
  if (tsc.status !== 0 && attributed === 0) {
    // A failure no example owns (a broken tsconfig, a missing build): every example carries it.
    for (const [i, ex] of examples.entries()) problems[i]!.push({ file: ex.file, line: ex.fenceLine, message: `tsc exited ${tsc.status}: ${out}` });
  }
  return problems;
}

/** What running one example did. */
export interface RunResult {
  /** Exit code, or null when the process was killed (timeout) or died by a signal. */
  code: number | null;
  timedOut: boolean;
  /** stdout and stderr together. */
  out: string;
}

/**
 * The example as plain Node runs it: JavaScript as written, TypeScript with its types removed by the
 * compiler (target ES2022, so `await using` is lowered as in the packages' own builds).
 */
export function runnableSource(example: Example): string {
  if (example.lang === 'js') return example.code;
  return ts.transpileModule(example.code, {
    fileName: 'example.ts',
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  }).outputText;
}

/**
 * Runs a runnable example in a fresh `node` (no loader, no `@marin/source` condition) in a scratch
 * directory of its own, which is also its MARIN_PREFIX and IRIS_HOME parent. A `no-run` JavaScript example
 * is only parsed (`node --check`), which still rejects syntax Node 20 lacks.
 */
export async function runExample(example: Example, opts: { root: string; scratch: string; name: string; timeoutMs: number }): Promise<RunResult> {
  const dir = scratchDir(opts.root, opts.scratch, opts.name);
  writeFileSync(join(dir, 'example.mjs'), runnableSource(example));
  const env: NodeJS.ProcessEnv = { ...process.env, CI: '1', MARIN_PREFIX: join(dir, 'prefix'), IRIS_HOME: join(dir, 'iris-home') };
  // Nothing from the test runner or the surrounding shell may point the example at a live service or a loader.
  for (const key of ['NODE_OPTIONS', 'IRIS_CONTROLLER_ADDRESS', 'RAY_ADDRESS', 'FRAY_BACKEND']) delete env[key];
  const args = example.run ? ['example.mjs'] : ['--check', 'example.mjs'];
  return await new Promise<RunResult>((resolve, reject) => {
    // Detached, so a timeout can kill the example's own children (cluster workers) with its process group.
    const child = spawn(process.execPath, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    let timedOut = false;
    const killGroup = () => signalProcessGroup(child.pid!, 'SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    let code: number | null = null;
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    // Anything the example left running (a worker it did not stop) goes with its group, so its pipes close.
    child.on('exit', (c) => {
      code = c;
      clearTimeout(timer);
      killGroup();
    });
    child.on('close', () => resolve({ code: timedOut ? null : code, timedOut, out }));
  });
}

/** The Markdown files whose examples are checked: the root README, each package's, and experiments' if any. */
export function readmeFiles(root: string): string[] {
  const candidates = ['README.md', ...readdirSync(join(root, 'packages')).sort().map((p) => `packages/${p}/README.md`), 'experiments/README.md'];
  return candidates.filter((file) => existsSync(join(root, file)));
}

/** Every example of `files` (paths relative to `root`), in file order. */
export function examplesOf(root: string, files: readonly string[]): Example[] {
  return files.flatMap((file) => extractExamples(readFileSync(join(root, file), 'utf8'), relative(root, join(root, file))));
}
