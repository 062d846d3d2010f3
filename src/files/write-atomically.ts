import { randomBytes } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";

/**
 * Writes `data` to `path` under a temporary name beside it, then renames it there: a reader, or a process that crashes
 * meanwhile, sees the whole old file or the whole new one, never half of one.
 */
export function writeFileAtomically(path: string, data: string | Uint8Array): void {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}
