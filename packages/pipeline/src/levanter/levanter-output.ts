/** Options of {@link meaningfulTail}. */
export interface MeaningfulTailOptions {
  /** Lines kept from the end. @default 20 */
  maxLines?: number;
  /** Longer lines are cut to this many characters plus an elision marker. @default 300 */
  maxChars?: number;
  /** Frames kept of each Python traceback (the innermost ones). @default 3 */
  framesPerTraceback?: number;
}

// A line of Levanter's (Python, glog-style) logging: level letter, date, time, thread id, logger name.
const PY_LOG = /^([IWEFD])\d{8} \d\d:\d\d:\d\d(?:\.\d+)? +\d+ (\S+)/;
// A line of XLA's / absl's C++ logging: `E0000 00:00:1732... 1234 file.cc:56] ...`.
const CPP_LOG = /^[IWEF]\d{4} [\d:.]+ +\d+ \S+\.(?:cc|cpp|h):\d+\]/;
// Loggers whose INFO lines never explain a failure: metric records (some 5,000 characters long),
// progress bars, JAX's and absl's chatter, timing.
const NOISY_LOGGERS = [/^levanter\.json_logger$/, /^tqdm_loggable\./, /^jax[._]/, /^absl$/, /^rigging\.timing$/, /^levanter\.kernels\./];
const NOISE: readonly RegExp[] = [
  /^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$/,
  // tqdm bars: `100%|██████████| 20/20 [00:00<00:00, 90.98it/s]`, `Generating test split: 20 examples [...]`.
  /^\s*\d+%\|.*\|/,
  /^Generating \w+ split: /,
  // A traceback's caret line under the failing expression.
  /^\s*[\^~]+\s*$/,
  // haliax's sharding warning and the source line Python's warnings print after it.
  /No resource mapping found\. Not sharding\./,
];

/** Whether a line of Levanter's output says nothing about what went wrong. */
export function isNoiseLine(line: string): boolean {
  if (line.trim() === '') return true;
  if (CPP_LOG.test(line)) return true;
  const log = PY_LOG.exec(line);
  if (log !== null && (log[1] === 'I' || log[1] === 'D') && NOISY_LOGGERS.some((re) => re.test(log[2] ?? ''))) return true;
  if (log !== null && log[2] === 'levanter.json_logger') return true;
  return NOISE.some((re) => re.test(line));
}

/** `line` cut to `maxChars` characters with `… (+N chars)` when longer. */
export function cutLine(line: string, maxChars: number): string {
  return line.length <= maxChars ? line : `${line.slice(0, maxChars)}… (+${line.length - maxChars} chars)`;
}

// A frame's path into the Python environment: only the part from `site-packages/` on says anything.
const SITE_PACKAGES = /"\/[^"]*\/site-packages\//;
const TRACEBACK_START = /^Traceback \(most recent call last\):$/;
const FRAME = /^ {2}File "[^"]*", line \d+/;

/** Keeps the innermost `keep` frames of each traceback; the others become one `  … N frames` line. */
function shortenTracebacks(lines: readonly string[], keep: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    out.push(line);
    i += 1;
    if (!TRACEBACK_START.test(line)) continue;
    // A frame is its `File …` line and the indented source lines below it.
    const frames: string[][] = [];
    while (i < lines.length && FRAME.test(lines[i] as string)) {
      const frame = [lines[i] as string];
      i += 1;
      while (i < lines.length && /^ {4}/.test(lines[i] as string)) {
        frame.push(lines[i] as string);
        i += 1;
      }
      frames.push(frame);
    }
    const dropped = frames.length - keep;
    if (dropped > 0) out.push(`  … ${dropped} frame${dropped === 1 ? '' : 's'}`);
    for (const frame of frames.slice(Math.max(0, dropped))) out.push(...frame);
  }
  return out;
}

/**
 * The last lines of a Levanter job's output worth showing when it failed: without blank lines, metric
 * records, progress bars and JAX/absl/XLA chatter, each Python traceback shortened to its innermost frames
 * (paths into the Python environment from `…/site-packages/` on), every line cut to `maxChars` characters.
 */
export function meaningfulTail(lines: readonly string[], options: MeaningfulTailOptions = {}): string[] {
  const maxLines = options.maxLines ?? 20;
  const maxChars = options.maxChars ?? 300;
  const kept = shortenTracebacks(
    lines.filter((l) => !isNoiseLine(l)),
    options.framesPerTraceback ?? 3,
  );
  return kept.slice(-maxLines).map((l) => cutLine(l.replace(SITE_PACKAGES, '"…/site-packages/'), maxChars));
}
