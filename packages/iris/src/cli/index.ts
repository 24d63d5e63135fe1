import { Command, CommanderError, Option } from 'commander';
import { IrisError } from '../errors.js';
import type { CliIo } from './cli-context.js';
import type { ClusterStartFlags } from './cluster-commands.js';
import type { WorkerStartFlags } from './daemon-commands.js';
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

const collect = (v: string, prev: string[]) => [...prev, v];

/** Options of {@link main} beyond argv; defaults use the real process. */
export interface CliOptions {
  /** @default process.stdout / process.stderr / process.env */
  readonly io?: CliIo;
  /** Aborts on Ctrl-C; @default SIGINT/SIGTERM of this process */
  readonly signal?: AbortSignal;
}

function processSignal(): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * The `iris` CLI. Returns the exit code: 0 success, 1 failure or a non-SUCCEEDED job, 2 usage
 * errors, 130 after Ctrl-C.
 */
export async function main(argv: readonly string[], options: CliOptions = {}): Promise<number> {
  const io: CliIo = options.io ?? {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    env: process.env,
  };
  const own = options.signal ? undefined : processSignal();
  const signal = options.signal ?? own!.signal;
  let code = 0;
  const program = new Command('iris')
    .description('Iris cluster scheduler: run and watch jobs, keep a local cluster, start workers')
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
    .option('-e, --env <KEY=VALUE>', 'environment variable (repeatable; bare KEY copies your value)', collect, [])
    .option('--extra <group>', 'dependency group (repeatable)', collect, [])
    .option('--region <region>', 'required region (repeatable)', collect, [])
    .option('--zone <zone>', 'required zone')
    .option('--job-name <name>', 'job name (default iris-run-<command>-<timestamp>)')
    .option('--user <name>', 'submitting user')
    .option('--priority <band>', 'production, interactive, batch or inherit (default: the parent job\'s band, else interactive)')
    .option('--no-wait', 'print the job id and exit')
    .option('--no-terminate-on-exit', 'leave the job running on Ctrl-C')
    .argument('<command...>', 'the command, after --')
    .passThroughOptions()
    .action(async (command: string[], flags: JobRunFlags) => {
      code = await (await jobRun()).runJobCommand(flags, command, io, signal);
    });
  job
    .command('list')
    .addOption(controllerOption())
    .option('--state <state>', 'only jobs in this state')
    .option('--prefix <prefix>', 'only jobs whose id starts with this')
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; state?: string; prefix?: string; json?: boolean }) => {
      code = await (await jobCommands()).jobListCommand(flags, io);
    });
  job
    .command('logs')
    .argument('<job>')
    .addOption(controllerOption())
    .option('-f, --follow', 'follow until the job ends')
    .option('--since-seconds <n>', 'only lines from the last N seconds')
    .option('--tail <n>', 'only the last N lines')
    .option('--grep <text>', 'only lines containing text')
    .option('--level <level>', 'minimum level')
    .option('--attempt <n>', 'only this attempt')
    .option('--no-children', 'leave out child jobs')
    .action(async (jobId: string, flags: JobLogsFlags) => {
      code = await (await jobCommands()).jobLogsCommand(jobId, flags, io, signal);
    });
  job
    .command('stop')
    .argument('<jobs...>')
    .addOption(controllerOption())
    .option('--no-include-children', 'leave child jobs running')
    .action(async (jobIds: string[], flags: { controller?: string; includeChildren: boolean }) => {
      code = await (await jobCommands()).jobStopCommand(jobIds, flags, io);
    });
  job
    .command('summary')
    .argument('<job>')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (jobId: string, flags: { controller?: string; json?: boolean }) => {
      code = await (await jobCommands()).jobSummaryCommand(jobId, flags, io);
    });

  const budget = program.command('user').description('users and their scheduling budgets').command('budget').description('budget limits, band caps and spend');
  budget
    .command('set')
    .argument('<user>')
    .addOption(controllerOption())
    .option('--limit <n>', 'spend above which INTERACTIVE work runs as BATCH (0 = unlimited)')
    .option('--max-band <band>', 'best band the user may run in: production, interactive, batch or none')
    .option('--json', 'JSON output')
    .action(async (user: string, flags: UserBudgetSetFlags) => {
      code = await (await userCommands()).userBudgetSetCommand(user, flags, io);
    });
  budget
    .command('get')
    .argument('<user>')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (user: string, flags: { controller?: string; json?: boolean }) => {
      code = await (await userCommands()).userBudgetGetCommand(user, flags, io);
    });
  budget
    .command('list')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      code = await (await userCommands()).userBudgetListCommand(flags, io);
    });

  const cluster = program.command('cluster').description('keep and inspect a local cluster or one started from a config');
  cluster
    .command('start')
    .option('--local', 'a local cluster on this machine')
    .option('--config <file>', 'a cluster from a YAML config: the controller with its autoscaler and platforms')
    .option('--workers <n>', 'CPU workers', '1')
    .option('--simulate-tpu <variant[:slices]>', 'simulated TPU slices (repeatable)', collect, [])
    .option('--state-dir <dir>', 'controller state (default $IRIS_HOME/local)')
    .option('--port <port>', 'controller port', '0')
    .option('--fresh', 'start from an empty state')
    .option('--detach', 'run in the background')
    .option('--bundles', 'ship workspace bundles to jobs instead of running them in place')
    .action(async (flags: ClusterStartFlags) => {
      code = await (await clusterCommands()).clusterStartCommand(flags, io, signal, argv);
    });
  cluster
    .command('status')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      code = await (await clusterCommands()).clusterStatusCommand(flags, io);
    });
  cluster
    .command('dashboard')
    .description('print the web dashboard URL and open it in a browser when one exists')
    .addOption(controllerOption())
    .option('--no-open', 'only print the URL')
    .action(async (flags: { controller?: string; open: boolean }) => {
      code = await (await clusterCommands()).clusterDashboardCommand(flags, io);
    });
  cluster.command('stop').action(async () => {
    code = await (await clusterCommands()).clusterStopCommand(io);
  });
  cluster
    .command('controller')
    .description('the cluster\'s controller')
    .command('checkpoint')
    .description('write a controller checkpoint to its remote state dir now and print where')
    .addOption(controllerOption())
    .option('--json', 'JSON output')
    .action(async (flags: { controller?: string; json?: boolean }) => {
      code = await (await clusterCommands()).clusterCheckpointCommand(flags, io);
    });

  program
    .command('worker')
    .description('worker daemon')
    .command('start')
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
      code = await (await daemonCommands()).workerStartCommand(flags, io, signal);
    });
  program
    .command('controller')
    .description('standalone controller')
    .command('serve')
    .option('--bind <host:port>', 'address to serve on', '127.0.0.1:10000')
    .option('--dashboard-bind <host:port>', 'web dashboard address ("none" serves none)', '127.0.0.1:0')
    .option('--state-dir <dir>', 'state directory (default $IRIS_HOME/controller)')
    .option('--fresh', 'start from an empty state')
    .action(async (flags: { bind: string; dashboardBind: string; stateDir?: string; fresh?: boolean }) => {
      code = await (await daemonCommands()).controllerServeCommand(flags, io, signal);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (IrisError.hasCode(e, 'IRIS_INVALID_ARGUMENT')) {
      io.stderr(`iris: ${e.message}\n`);
      return 2;
    }
    io.stderr(`iris: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    own?.dispose();
  }
}
