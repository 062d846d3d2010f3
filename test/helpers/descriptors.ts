import { readdirSync, readlinkSync } from "node:fs";

/** How many of this process's descriptors are open on files in `dir` (Linux: /proc). */
export function descriptorsIn(dir: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`);
    } catch {
      // The descriptor readdir itself had open is gone by now.
      return false;
    }
  }).length;
}
