import { createRequire } from 'node:module';
import { Argument, Command, Option } from 'commander';
import type { CliIo } from './cli-context.js';
import type { ClusterStartFlags } from './cluster-commands.js';
import type { ControllerServeFlags, WorkerStartFlags } from './daemon-commands.js';
import type { JobLogsFlags } from './job-commands.js';
import type { JobRunFlags } from './job-run.js';
import type { UserBudgetSetFlags } from './user-commands.js';

// Command modules load on demand: `iris job run` against a running cluster must not pay for the
// controller, SQLite, worker and bundle code it never uses.
const jobRun = () => import('./job-run.js');
const jobCommands = () => import('./job-commands.js');
const clusterCommands = () => import('./cluster-commands.js');
const daemonCommands = () => import('./daemon-commands.js');
const userCommands = () => import('./user-commands.js');
const identityCommands = () => import('./identity-commands.js');
const tpuCommands = () => import('./tpu-commands.js');
const completion = () => import('./completion.js');
const rpcCommand = () => import('./rpc-command.js');
const queryCommand = () => import('./query-command.js');
const taskExecCommand = () => import('./task-exec-command.js');
const restoreCheckpointCommand = () => import('./restore-checkpoint-command.js');
const processCommand = () => import('./process-command.js');

const collect = (v: string, prev: string[]) => [...prev, v];

/** The version in this package's package.json (found through the package's own exports from src/, dist/ and the bundle). */
export function packageVersion(): string {
  return (createRequire(import.meta.url)('@marin/iris/package.json') as { version: string }).version;
}

/** What the command actions need from {@link main}. */
export interface ProgramContext {
  readonly io: CliIo;
  readonly signal: AbortSignal;
  /** The arguments as given (`cluster start --detach` re-runs them). */
  readonly argv: readonly string[];
  /** Records the exit code of the action that ran. */
  readonly setCode: (code: number) => void;
}

/**
 * The `iris` command tree: every command with its description, options and (lazily loaded) action.
 * {@link main} parses with it; shell completion is generated from it.
 */
export function buildProgram(ctx: ProgramContext): Command {
  const { io, signal } = ctx;
  const program = new Command('iris')
    .description('Iris cluster scheduler: run and watch jobs, keep a local cluster, start workers')
    .version(packageVersion(), '-V, --version', 'print the iris version')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .enablePositionalOptions()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const controllerOption = () => new Option('--controller <address>', 'controller host:port (default: IRIS_CONTROLLER_ADDRESS, then the local cluster)');

  const job = program.command('job').description('submit, list, watch and stop jobs');
  job
    .command('run')
    .description('run a command as a job and stream its logs (starts an embedded cluster when none is configured)')
    .addOption(controllerOption())
    .option('--cpu <cores>', 'CPU cores per task', '0.5')
    .option('--memory <size>', 'memory per task', '1GB')
    .option('--disk <size>', 'disk per task', '5GB')
    .option('--tpu <variant>', 'TPU variant, e.g. v5litepod-16 (replicas and coscheduling follow the slice shape)')
    .option('--gpu <spec>', 'GPUs: H100x8, 8 or H100')
    .option('--replicas <n>', 'tasks (TPU: automatic)')
    .option('--max-retries <n>', 'retries after a failure', '0')
    .option('--timeout <seconds>', 'per-attempt timeout (0 = none)', '0')
    .option('-e, --env <KEY=VALUE>', 'environment variable (repeatable; also KEY VALUE before --; bare KEY copies your value)', collect, [])
    .option('--extra <group>', 'dependency group (repeatable)', collect, [])
    .option('--region <region>', 'required region (repeatable)', collect, [])
    .option('--zone <zone>', 'required zone')
    .option('--job-name <name>', 'job name (default iris-run-<command>-<timestamp>)')
    .option('--user <name>', 'submitting user')
    .option('--priority <band>', 'production, interactive, batch or inherit (default: the parent job\'s band, else interactive)')
    .option('--no-wait', 'print the job id and exit')
    .option('--no-terminate-on-exit', 'leave the job running on Ctrl-C')
    .option('--json', 'print one JSON result on stdout when done (job id, state, exit code); logs go to stderr')
    .argument('<command...>', 'the command, after --')
    .passThroughOptions()
    .action(async (command: string[], flags: JobRunFlags) => {
      ctx.setCode(await (await jobRun()).runJobCommand(flags, command, io, signal));
    });
  job
    .command('list')
    .description('list jobs with their state, task counts, resources and pending reason')
    .addOption(controllerOption())
    .option('--state <state>', 'only jobs in this state')
    .option('--prefix <prefix>', 'only jobs whose id starts with this')
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; state?: string; prefix?: string; json?: boolean }) => {
      ctx.setCode(await (await jobCommands()).jobListCommand(flags, io));
    });
  job
    .command('logs')
    .description('print a job\'s logs, or follow them until the job ends')
    .argument('<job>', 'job id')
    .addOption(controllerOption())
    .option('-f, --follow', 'follow until the job ends')
    .option('--since-seconds <n>', 'only lines from the last N seconds')
    .option('--tail <n>', 'only the last N lines')
    .option('--grep <text>', 'only lines containing text')
    .option('--level <level>', 'minimum level')
    .option('--attempt <n>', 'only this attempt')
    .option('--no-children', 'leave out child jobs')
    .option('--json', 'one JSON object per log entry (JSON lines), all on stdout')
    .action(async (jobId: string, flags: JobLogsFlags) => {
      ctx.setCode(await (await jobCommands()).jobLogsCommand(jobId, flags, io, signal));
    });
  job
    .command('stop')
    .alias('kill')
    .description('terminate jobs (and their child jobs)')
    .argument('<jobs...>', 'job ids')
    .addOption(controllerOption())
    .option('--no-include-children', 'leave child jobs running')
    .action(async (jobIds: string[], flags: { controller?: string; includeChildren: boolean }) => {
      ctx.setCode(await (await jobCommands()).jobStopCommand(jobIds, flags, io));
    });
  job
    .command('bug-report')
    .description('one document for an issue: job spec, attempts with reasons, workers, child jobs, last log lines, pending diagnostics, controller version')
    .argument('<job>', 'job id')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .option('--log-lines <n>', 'last log lines to include', '50')
    .action(async (jobId: string, flags: { controller?: string; json?: boolean; logLines: string }) => {
      ctx.setCode(await (await jobCommands()).jobBugReportCommand(jobId, flags, io));
    });
  job
    .command('summary')
    .description('per task: state, attempts, exit code, duration, peak memory, worker, error')
    .argument('<job>', 'job id')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (jobId: string, flags: { controller?: string; json?: boolean }) => {
      ctx.setCode(await (await jobCommands()).jobSummaryCommand(jobId, flags, io));
    });

  const budget = program.command('user').description('users and their scheduling budgets').command('budget').description('budget limits, band caps and spend');
  budget
    .command('set')
    .description('set a user\'s spend limit and best band (unset flags keep their values)')
    .argument('<user>', 'user name')
    .addOption(controllerOption())
    .option('--limit <n>', 'spend above which INTERACTIVE work runs as BATCH (0 = unlimited)')
    .option('--max-band <band>', 'best band the user may run in: production, interactive, batch or none')
    .option('--json', 'JSON output')
    .action(async (user: string, flags: UserBudgetSetFlags) => {
      ctx.setCode(await (await userCommands()).userBudgetSetCommand(user, flags, io));
    });
  budget
    .command('get')
    .description('show a user\'s budget and current spend')
    .argument('<user>', 'user name')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (user: string, flags: { controller?: string; json?: boolean }) => {
      ctx.setCode(await (await userCommands()).userBudgetGetCommand(user, flags, io));
    });
  budget
    .command('list')
    .description('list every user with a budget or current spend')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      ctx.setCode(await (await userCommands()).userBudgetListCommand(flags, io));
    });

  const key = program.command('key').description('per-user API keys (controllers started with --auth api-keys)');
  key
    .command('create')
    .description('create an API key for a user (admins); prints the key once on stdout')
    .requiredOption('--user <user>', 'whose key; a new user is created (best band BATCH until an admin raises it)')
    .option('--role <role>', 'admin or user (default: user for a new user; given for an existing user it changes their role)')
    .option('--name <name>', 'a label for the key, e.g. laptop')
    .addOption(controllerOption())
    .option('--json', 'JSON output (includes the key)')
    .action(async (flags: { controller?: string; user: string; role?: string; name?: string; json?: boolean }) => {
      ctx.setCode(await (await identityCommands()).keyCreateCommand(flags, io));
    });
  key
    .command('list')
    .description('list API keys (admins: everyone\'s; users: their own); never shows a key itself')
    .option('--user <user>', 'only this user\'s keys')
    .option('--all', 'include revoked keys')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; user?: string; all?: boolean; json?: boolean }) => {
      ctx.setCode(await (await identityCommands()).keyListCommand(flags, io));
    });
  key
    .command('revoke')
    .description('revoke API keys by id (admins: any; users: their own); refused from the next request on')
    .argument('<keyIds...>', 'key ids (from `iris key list`)')
    .addOption(controllerOption())
    .action(async (keyIds: string[], flags: { controller?: string }) => {
      ctx.setCode(await (await identityCommands()).keyRevokeCommand(keyIds, flags, io));
    });
  program
    .command('login')
    .description('store your API key for a controller (read from --key-file or stdin) in $IRIS_HOME/credentials.json')
    .option('--key-file <file>', 'read the key from this file instead of stdin')
    .addOption(controllerOption())
    .action(async (flags: { controller?: string; keyFile?: string }) => {
      ctx.setCode(await (await identityCommands()).loginCommand(flags, io));
    });
  program
    .command('logout')
    .description('forget the stored API key for a controller')
    .addOption(controllerOption())
    .action(async (flags: { controller?: string }) => {
      ctx.setCode(await (await identityCommands()).logoutCommand(flags, io));
    });
  program
    .command('whoami')
    .description('who the controller takes you for: user, role and auth mode')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      ctx.setCode(await (await identityCommands()).whoAmICommand(flags, io));
    });
  program
    .command('audit')
    .description('the audit log of admin actions')
    .command('list')
    .description('audit entries, newest first (admins)')
    .option('--limit <n>', 'at most this many (default 100, max 1000)')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; limit?: string; json?: boolean }) => {
      ctx.setCode(await (await identityCommands()).auditListCommand(flags, io));
    });

  const cluster = program.command('cluster').description('keep and inspect a local cluster or one started from a config');
  cluster
    .command('start')
    .description('start a cluster: a local one (--local) or one from a YAML config (--config)')
    .option('--local', 'a local cluster on this machine')
    .option('--config <file>', 'a cluster from a YAML config: the controller with its autoscaler and platforms')
    .option('--workers <n>', 'CPU workers', '1')
    .option('--simulate-tpu <variant[:slices]>', 'simulated TPU slices (repeatable)', collect, [])
    .option('--state-dir <dir>', 'controller state (default $IRIS_HOME/local)')
    .option('--port <port>', 'controller port', '0')
    .option('--fresh', 'start from an empty state')
    .option('--detach', 'run in the background')
    .option('--bundles', 'ship workspace bundles to jobs instead of running them in place')
    .option('--insecure', 'with --config: serve a non-loopback address without IRIS_AUTH_TOKEN (anyone who can reach it can run jobs)')
    .action(async (flags: ClusterStartFlags) => {
      ctx.setCode(await (await clusterCommands()).clusterStartCommand(flags, io, signal, ctx.argv));
    });
  cluster
    .command('status')
    .description('controller address and version, job counts, workers and their free capacity, autoscaler groups')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      ctx.setCode(await (await clusterCommands()).clusterStatusCommand(flags, io));
    });
  cluster
    .command('dashboard')
    .description('print the web dashboard URL and open it in a browser when one exists')
    .addOption(controllerOption())
    .option('--no-open', 'only print the URL')
    .action(async (flags: { controller?: string; open: boolean }) => {
      ctx.setCode(await (await clusterCommands()).clusterDashboardCommand(flags, io));
    });
  cluster
    .command('stop')
    .description('stop the recorded local cluster and remove its record')
    .action(async () => {
    ctx.setCode(await (await clusterCommands()).clusterStopCommand(io));
  });
  const controllerGroup = cluster.command('controller').description('the cluster\'s controller');
  controllerGroup
    .command('checkpoint')
    .description('write a controller checkpoint to its remote state dir now and print where')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      ctx.setCode(await (await clusterCommands()).clusterCheckpointCommand(flags, io));
    });
  controllerGroup
    .command('restore-checkpoint')
    .description('list a controller\'s checkpoints, or restore one into a stopped controller\'s state dir')
    .requiredOption('--remote-state-dir <url>', 'where the controller writes checkpoints (remote_state_dir)')
    .option('--list', 'list the checkpoints, newest first')
    .option('--checkpoint <id>', 'the checkpoint to restore (an id from --list)')
    .option('--state-dir <dir>', 'the stopped controller\'s state dir')
    .option('--json', 'JSON output (with --list)')
    .action(async (flags: { remoteStateDir?: string; stateDir?: string; list?: boolean; checkpoint?: string; json?: boolean }) => {
      ctx.setCode(await (await restoreCheckpointCommand()).restoreCheckpointCommand(flags, io));
    });

  program
    .command('task')
    .description('tasks of running jobs')
    .command('exec')
    .description('run a command in a running task\'s workdir and environment on its worker; exits with its exit code')
    .argument('<task>', 'JOB/TASK, e.g. /alice/train/0 (a bare job id means task 0)')
    .argument('<command...>', 'the command, after --')
    .addOption(controllerOption())
    .option('--timeout <seconds>', 'stop the command after this long (at most 3600)', '600')
    .passThroughOptions()
    .action(async (task: string, command: string[], flags: { controller?: string; timeout: string }) => {
      ctx.setCode(await (await taskExecCommand()).taskExecCommand(task, command, flags, io, signal));
    });

  const processGroup = program.command('process').description('the controller process or a worker daemon itself (admins)');
  const workerOption = () => new Option('--worker <id>', 'a worker daemon instead of the controller (asked through the controller)');
  const targetOption = () => new Option('-t, --target <target>', 'Marin\'s form of --worker: /system/worker/<id> (or /system/controller)');
  processGroup
    .command('status')
    .description('the process: pid, uptime, CPU, memory, event-loop delay, versions (a worker: its running tasks)')
    .addOption(controllerOption())
    .addOption(workerOption())
    .addOption(targetOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean; worker?: string; target?: string }) => {
      ctx.setCode(await (await processCommand()).processStatusCommand(flags, io));
    });
  processGroup
    .command('logs')
    .description('the process\'s own recent log lines (its warnings; a worker: registrations, attempts started), oldest first')
    .addOption(controllerOption())
    .addOption(workerOption())
    .addOption(targetOption())
    .option('--tail <n>', 'only the last N lines (0: all kept, up to 1000)', '100')
    .option('--json', 'one JSON object per line')
    .action(async (flags: { controller?: string; tail: string; json?: boolean; worker?: string; target?: string }) => {
      ctx.setCode(await (await processCommand()).processLogsCommand(flags, io));
    });
  processGroup
    .command('profile')
    .description('a CPU profile (.cpuprofile) or heap snapshot (.heapsnapshot) of the process, written to a file')
    .addOption(controllerOption())
    .addOption(workerOption())
    .addOption(targetOption())
    .option('--kind <kind>', 'cpu or heap', 'cpu')
    .option('--seconds <n>', 'how long to profile the CPU (at most 120)', '10')
    .option('-o, --output <file>', 'where to write it (default: <controller|worker-id>-<time>.<kind>)')
    .action(async (flags: { controller?: string; kind: string; seconds: string; output?: string; worker?: string; target?: string }) => {
      ctx.setCode(await (await processCommand()).processProfileCommand(flags, io));
    });

  program
    .command('query')
    .description('run one read-only SQL statement against a consistent snapshot of the controller\'s database (admins only)')
    .argument('<sql>', 'e.g. "SELECT job_id, state FROM jobs ORDER BY seq DESC LIMIT 10"')
    .addOption(controllerOption())
    .option('--max-rows <n>', 'row cap (at most 10000)', '1000')
    .option('--timeout <seconds>', 'stop the query after this long (at most 60)', '10')
    .option('--json', 'JSON output: { columns, rows, truncated }')
    .action(async (sql: string, flags: { controller?: string; maxRows: string; timeout: string; json?: boolean }) => {
      ctx.setCode(await (await queryCommand()).queryCommand(sql, flags, io));
    });

  program
    .command('rpc')
    .description('call a service method with a JSON request and print the JSON response')
    .command('controller')
    .description('call a ControllerService or ClusterService method: iris rpc controller GetJobStatus \'{"jobId": "/alice/x"}\'')
    .argument('<method>', 'method name, e.g. ListWorkers, GetJobStatus, GetAutoscalerStatus')
    .argument('[json]', 'the request as a JSON object (proto3 JSON field names); default {}')
    .addOption(controllerOption())
    .option('--timeout <seconds>', 'deadline of the call', '30')
    .action(async (method: string, json: string | undefined, flags: { controller?: string; timeout: string }) => {
      ctx.setCode(await (await rpcCommand()).rpcControllerCommand(method, json, flags, io, signal));
    });

  program
    .command('worker')
    .description('worker daemon')
    .command('start')
    .description('run a worker daemon in the foreground until Ctrl-C')
    .addOption(controllerOption())
    .option('--port <port>', 'WorkerService port', '0')
    .option('--host <interface>', 'interface the WorkerService binds (default 127.0.0.1; 0.0.0.0 for all)')
    .option('--advertise-host <host>', 'host the controller and gang peers reach this worker at')
    .option('--worker-id <id>', 'stable worker id')
    .option('--attributes <k=v,...>', 'extra attributes')
    .option('--tpu <variant>', 'simulate one VM of a TPU slice')
    .option('--tpu-name <name>', 'slice name')
    .option('--tpu-worker-id <n>', 'index of this VM in the slice')
    .option('--gpu <spec>', 'advertise GPUs')
    .option('--cpu <cores>', 'CPU capacity')
    .option('--memory <size>', 'memory capacity')
    .option('--disk <size>', 'disk capacity')
    .option('--cache-dir <dir>', 'worker cache (default $IRIS_HOME/worker)')
    .option('--task-env <KEY=VALUE>', 'variable for every task (repeatable)', collect, [])
    .action(async (flags: WorkerStartFlags) => {
      ctx.setCode(await (await daemonCommands()).workerStartCommand(flags, io, signal));
    });
  program
    .command('controller')
    .description('standalone controller')
    .command('serve')
    .description('serve a controller (and its dashboard) in the foreground until Ctrl-C')
    .option('--bind <host:port>', 'address to serve on', '127.0.0.1:10000')
    .option('--dashboard-bind <host:port>', 'web dashboard address ("none" serves none)', '127.0.0.1:0')
    .option('--state-dir <dir>', 'state directory (default $IRIS_HOME/controller)')
    .option('--fresh', 'start from an empty state')
    .option('--log-archive <url>', 'where task logs are archived when their job ends: a directory or gs://… (default $IRIS_LOG_ARCHIVE, else <state dir>/log-archive)')
    .option('--auth <mode>', 'shared-token (default: IRIS_AUTH_TOKEN, or no auth without one) or api-keys (per-user keys; IRIS_AUTH_TOKEN is then the workers\' token)')
    .option('--bootstrap-admin <user>', 'with api-keys and no users yet: create this admin and write its key to <state dir>/bootstrap-admin.key')
    .option('--experiment-prefix <prefix>', 'a prefix the dashboard may show experiments of (repeatable; default $IRIS_EXPERIMENT_PREFIXES, else the local prefix)', collect, [])
    .option('--dashboard-host <name>', 'a host name the dashboard answers to besides loopback and its bind address (repeatable)', collect, [])
    .option('--insecure', 'serve a non-loopback address without IRIS_AUTH_TOKEN (anyone who can reach it can run jobs)')
    .action(async (flags: ControllerServeFlags) => {
      ctx.setCode(await (await daemonCommands()).controllerServeCommand(flags, io, signal));
    });

  program
    .command('tpu')
    .description('TPU variants this CLI knows')
    .command('list')
    .description('list TPU variants with chips, hosts and slice shape (VMs = tasks, chips per VM)')
    .option('--family <family>', 'only this family: v4, v5litepod (or v5e), v5p, v6e')
    .option('--json', 'JSON output')
    .action(async (flags: { family?: string; json?: boolean }) => {
      ctx.setCode(await (await tpuCommands()).tpuListCommand(flags, io));
    });

  program
    .command('completion')
    .description('print a shell completion script; load it with `source <(iris completion bash)`')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh']))
    .action(async (shell: 'bash' | 'zsh') => {
      io.stdout((await completion()).completionScript(program, shell));
    });

  return program;
}
