import type { Command } from 'commander';
import { listTpuVariants } from '../core/tpu-topology.js';

/** Options whose value is a TPU variant, completed from the topology table. */
const TPU_OPTIONS = ['--tpu', '--simulate-tpu'];

interface CommandNode {
  /** Space-separated path below `iris`, e.g. `job run`; empty for `iris` itself. */
  readonly path: string;
  /** Subcommand names, then long and short flags. */
  readonly words: readonly string[];
}

function walk(cmd: Command, path: string, out: CommandNode[]): void {
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => c.name());
  const choices = cmd.registeredArguments.flatMap((a) => a.argChoices ?? []);
  const flags = cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);
  out.push({ path, words: [...subs, ...choices, ...(path === '' ? ['help'] : []), ...flags, '--help'] });
  for (const c of cmd.commands) walk(c, path === '' ? c.name() : `${path} ${c.name()}`, out);
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function bashScript(program: Command): string {
  const nodes: CommandNode[] = [];
  walk(program, '', nodes);
  const paths = nodes.filter((n) => n.path !== '').map((n) => quote(` ${n.path}`));
  const cases = nodes.map((n) => `    ${quote(n.path === '' ? '' : ` ${n.path}`)}) words=${quote(n.words.join(' '))} ;;`);
  const tpu = listTpuVariants().map((t) => t.name).join(' ');
  return `# bash completion for iris. Load it in this shell with
#   source <(iris completion bash)
# or for every shell: iris completion bash > ~/.local/share/bash-completion/completions/iris
_iris_complete() {
  local cur prev path w i words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev=""
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=""
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    # After "--" comes the job's own command: complete file names.
    [[ "$w" == "--" ]] && return 0
    case "$path $w" in
      ${paths.join('|')}) path="$path $w" ;;
    esac
  done
  case "$prev" in
    ${TPU_OPTIONS.join('|')})
      COMPREPLY=( $(compgen -W ${quote(tpu)} -- "$cur") )
      return 0 ;;
  esac
  words=""
  case "$path" in
${cases.join('\n')}
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _iris_complete iris
`;
}

/**
 * The completion script for `shell`, generated from the command tree so it lists exactly the
 * commands and flags this version has. zsh loads the bash function through `bashcompinit`.
 */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const bash = bashScript(program);
  if (shell === 'bash') return bash;
  return `# zsh completion for iris. Load it in this shell with
#   source <(iris completion zsh)
# or for every shell, add that line to ~/.zshrc.
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash}`;
}
