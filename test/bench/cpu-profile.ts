import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a sample's time goes: the npm package, Parley's own module, or V8's own bucket (GC, program, idle). */
function placeOf(frame: ProfileNode["callFrame"]): string {
  const pkg = frame.url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg;
  const own = frame.url.match(/\/(src\/.+)$/)?.[1];
  if (own) return own;
  if (frame.url.startsWith("node:")) return "node core";
  return frame.functionName || "(anonymous)";
}

/** The profile's busy time (idle left out) by place, largest first, as shares. */
export function topPlaces(profile: Profile, count: number): Array<{ place: string; share: number }> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const place = placeOf(byId.get(id)!.callFrame);
    if (place === "(idle)") return;
    const took = profile.timeDeltas[i] ?? 0;
    busy += took;
    totals.set(place, (totals.get(place) ?? 0) + took);
  });
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([place, took]) => ({ place, share: took / busy }));
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
    writeFileSync(`${directory}/${name}.cpuprofile`, JSON.stringify(profile));
    return { result, top: topPlaces(profile, 12) };
  } finally {
    session.disconnect();
  }
}
