import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  /** Microseconds on the machine's monotonic clock, which `process.hrtime` of every process reads too. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The profile's samples taken between two readings of `process.hrtime.bigint()`, in any process of the machine. */
export function between(profile: Profile, from: bigint, to: bigint): Profile {
  const [start, end] = [Number(from / 1000n), Number(to / 1000n)];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const took = profile.timeDeltas[i] ?? 0;
    at += took;
    if (at < start || at > end) return;
    samples.push(id);
    timeDeltas.push(took);
  });
  return { ...profile, startTime: start, samples, timeDeltas };
}

/** Where code runs: the npm package, Parley's own module, WebAssembly, or Node's core; null for a native frame. */
function placeOf(url: string): string | null {
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg;
  const own = url.match(/\/(src\/.+)$/)?.[1];
  if (own) return own;
  // A WebAssembly frame names no module: on the serving thread it is Prisma's query compiler; in the embedded
  // database's thread, PGlite.
  if (url.startsWith("wasm://")) return "WebAssembly (Prisma's query compiler, or PGlite in its thread)";
  if (url.startsWith("node:")) return "node core";
  return null;
}

/**
 * The profile's busy time by place, largest first, as shares. A native frame (a GC, a socket write, a native
 * search) counts for the nearest caller with a place; the profiler's own work and idle time are left out.
 */
export function topPlaces(profile: Profile, count: number): Array<{ place: string; share: number }> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const placeOfNode = (id: number): string | null => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.url === "node:inspector") return null;
      const place = placeOf(frame.url);
      if (place) return place;
    }
    return byId.get(id)!.callFrame.functionName;
  };
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const place = placeOfNode(id);
    if (place === null || place === "(idle)") return;
    const took = profile.timeDeltas[i] ?? 0;
    busy += took;
    totals.set(place, (totals.get(place) ?? 0) + took);
  });
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([place, took]) => ({ place, share: took / busy }));
}

/** The busy places as a line of a benchmark's report: "pg 12.3 %, node core 8.1 %, …". */
export function placesLine(top: ReturnType<typeof topPlaces>): string {
  return top.map((t) => `${t.place} ${(t.share * 100).toFixed(1)} %`).join(", ");
}

/**
 * Runs `work` under V8's sampling profiler (this thread only: not the load generator's worker) when
 * BENCH_CPU_PROFILE names a directory, writing `<name>.cpuprofile` there (Chrome DevTools opens it).
 */
export async function profiled<T>(
  name: string,
  work: () => Promise<T>,
): Promise<{ result: T; top: ReturnType<typeof topPlaces> }> {
  const directory = process.env.BENCH_CPU_PROFILE;
  if (!directory) return { result: await work(), top: [] };
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    const result = await work();
    const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
    mkdirSync(directory, { recursive: true });
    writeFileSync(`${directory}/${name}.cpuprofile`, JSON.stringify(profile));
    return { result, top: topPlaces(profile, 12) };
  } finally {
    session.disconnect();
  }
}
