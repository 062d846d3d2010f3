import { readFileSync } from "node:fs";
import os from "node:os";

// USER_HZ, the unit of the CPU times in /proc: 100 on every Linux architecture Node runs on.
const ticksPerS = 100;

/** CPU seconds (user + system, all its threads) a process has used so far; null where /proc has none (gone, not Linux). */
function processCpuS(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (2nd field) may hold spaces and parentheses: fields are counted from its closing one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / ticksPerS;
  } catch {
    return null;
  }
}

function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** What the machine's CPU did while `run` ran. */
export interface CpuWindow<T> {
  result: T;
  seconds: number;
  /** Per group, its processes' CPU over the window in cores (1 = one core busy throughout); null when unreadable. */
  cores: Map<string, number | null>;
  /** The share of all the machine's cores busy, whoever used them. */
  machineBusy: number;
  /** The 1-minute load average at the start and at the end. */
  load: [number, number];
}

/**
 * Runs `run`, reading the CPU of each group of processes (`groups` named by label, asked at the start and the
 * end) before and after. A process that appears during the window (a database connection opened under load)
 * counts from zero; one that ends during it is left out, its time unknown.
 */
export async function cpuOver<T>(groups: () => Promise<Map<string, number[]>>, run: () => Promise<T>): Promise<CpuWindow<T>> {
  const startGroups = await groups();
  const before = new Map<number, number | null>();
  for (const pids of startGroups.values()) for (const pid of pids) before.set(pid, processCpuS(pid));
  const machine = machineTimes();
  const load: [number, number] = [os.loadavg()[0]!, 0];
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  const machineAfter = machineTimes();
  load[1] = os.loadavg()[0]!;
  const cores = new Map<string, number | null>();
  for (const [label, pids] of await groups()) {
    const union = new Set([...(startGroups.get(label) ?? []), ...pids]);
    let used: number | null = null;
    for (const pid of union) {
      const now = processCpuS(pid);
      const then = before.has(pid) ? before.get(pid)! : 0;
      if (now !== null && then !== null) used = (used ?? 0) + now - then;
    }
    cores.set(label, used === null ? null : used / seconds);
  }
  const machineBusy = (machineAfter.busy - machine.busy) / (machineAfter.total - machine.total);
  return { result, seconds, cores, machineBusy, load };
}
