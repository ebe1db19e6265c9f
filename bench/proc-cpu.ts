/**
 * CPU time of processes and of the machine, read from /proc (Linux), for the benchmarks that report
 * where the CPU went beside their rates. Nothing here signals a process.
 */
import fs from 'node:fs';

/** Clock ticks a second (USER_HZ on Linux). */
export const TICKS = 100;

/** utime + stime of a process in clock ticks (0 when it is gone or not given). */
export function cpuTicks(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Pids whose command name is one of `names`. */
export function pidsNamed(names: string[]): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return names.includes(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      } catch {
        return false;
      }
    });
}

/** Busy and total jiffies of the whole machine. */
export function machineTicks(): { busy: number; total: number } {
  const [cpu] = fs.readFileSync('/proc/stat', 'utf8').split('\n');
  const values = cpu.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/**
 * The CPU ticks of every process named `names` (PostgreSQL's backends, say) from now until the
 * returned function is called; a process started in between counts from its start, one that ended
 * in between is missed (its ticks are gone from /proc).
 */
export function ticksOfNamedSince(names: string[]): () => number {
  const before = new Map(pidsNamed(names).map((pid) => [pid, cpuTicks(pid)]));
  return () => pidsNamed(names).reduce((sum, pid) => sum + cpuTicks(pid) - (before.get(pid) ?? 0), 0);
}
