import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionScript } from './completion.js';
import { buildProgram, packageVersion } from './program.js';

function program(): Command {
  return buildProgram({ io: { stdout: () => undefined, stderr: () => undefined, env: {} }, signal: new AbortController().signal, argv: [], setCode: () => undefined });
}

function allCommands(cmd: Command, path = 'iris'): [string, Command][] {
  return cmd.commands.flatMap((c) => [[`${path} ${c.name()}`, c] as [string, Command], ...allCommands(c, `${path} ${c.name()}`)]);
}

describe('the iris command tree', () => {
  it('gives every command and subcommand a description', () => {
    const missing = allCommands(program()).filter(([, c]) => c.description().trim() === '').map(([p]) => p);
    expect(missing).toEqual([]);
  });

  it('reports the version of the package', () => {
    expect(program().version()).toBe(packageVersion());
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('has tpu list and completion commands', () => {
    const paths = allCommands(program()).map(([p]) => p);
    expect(paths).toEqual(expect.arrayContaining(['iris tpu list', 'iris completion', 'iris job run', 'iris job logs']));
  });
});

describe('completionScript()', () => {
  it('lists every command path with its flags in the bash script', () => {
    const p = program();
    const script = completionScript(p, 'bash');
    for (const [path, c] of allCommands(p)) {
      const key = `' ${path.slice('iris '.length)}')`;
      expect(script).toContain(key);
      for (const o of c.options) expect(script).toContain(o.long!);
    }
    expect(script).toContain('complete -o default -F _iris_complete iris');
  });

  it('wraps the same function for zsh through bashcompinit', () => {
    const zsh = completionScript(program(), 'zsh');
    expect(zsh).toContain('bashcompinit');
    expect(zsh).toContain('_iris_complete()');
  });
});
