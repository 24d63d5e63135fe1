/** `1.5 GiB`, `512 MiB`. */
export function bytes(n: number): string {
  if (n <= 0) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** Local `YYYY-MM-DD HH:MM:SS`, or `-` for 0. */
export function time(ms: number): string {
  if (ms <= 0) return '-';
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `3.2 s`, `4 m 10 s`, `2 h 5 m`; `-` when not started. */
export function duration(startMs: number, endMs: number): string {
  if (startMs <= 0) return '-';
  const s = Math.max(0, Math.round(((endMs > 0 ? endMs : Date.now()) - startMs) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} m`;
}

/** `7 days`, `1 day`, `36 hours`, `90 minutes`, `12 s`: a configured span of time. */
export function span(ms: number): string {
  const s = Math.round(ms / 1000);
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (s % 86_400 === 0 && s > 0) return unit(s / 86_400, 'day');
  if (s % 3600 === 0 && s > 0) return unit(s / 3600, 'hour');
  if (s % 60 === 0 && s > 0) return unit(s / 60, 'minute');
  return `${s} s`;
}

/** The hash route of a job page. */
export function jobHref(jobId: string): string {
  return `#/job?id=${encodeURIComponent(jobId)}`;
}
