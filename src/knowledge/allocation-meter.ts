/**
 * Counts the bytes a document's reader asks for in typed arrays and array buffers, and refuses the one
 * allocation that would take the total past a limit. pdf.js decodes every stream it reads (content, forms,
 * fonts) into typed arrays, whatever its filter: a JPEG-, JBIG2- or CCITT-encoded stream decodes to a size
 * its image header declares, not one its bytes bound, so no look at the file can cap it (a filter may hide
 * behind an indirect object). Counting at the allocation can. Installed only in a document thread, whose
 * globals no one else uses.
 */
export interface AllocationMeter {
  /** Starts counting from zero; allocations past `limitBytes` in total throw. */
  start(limitBytes: number): void;
  /**
   * Counts from zero again, for a part of the document read on its own (a page): what an earlier part
   * allocated is garbage by then, and counting it would refuse long documents for their length.
   */
  restart(): void;
  /** Stops counting. True when an allocation was refused since `start` (even if the reader caught the error). */
  stop(): boolean;
}

// Captured before the meter replaces the globals.
const OriginalArrayBuffer = ArrayBuffer;
const OriginalSharedArrayBuffer = SharedArrayBuffer;
const typedArrays = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
] as const;

/** Bytes `new Kind(first, ...)` allocates: none for a view on an existing buffer. */
function requestedBytes(first: unknown, bytesPerElement: number): number {
  let elements = 0;
  if (typeof first === "number") elements = first;
  else if (
    typeof first === "object" &&
    first !== null &&
    !(first instanceof OriginalArrayBuffer) &&
    !(first instanceof OriginalSharedArrayBuffer)
  ) {
    elements = Number((first as { length?: unknown }).length);
  }
  return Number.isFinite(elements) && elements > 0 ? elements * bytesPerElement : 0;
}

export class AllocationLimitError extends RangeError {}

let installed: AllocationMeter | null = null;

/** The thread's meter, installed on its global constructors the first time it is asked for. */
export function allocationMeter(): AllocationMeter {
  if (installed) return installed;
  let counting = false;
  let limit = 0;
  let total = 0;
  let refused = false;
  const count = (bytes: number) => {
    if (!counting) return;
    total += bytes;
    if (total > limit) {
      refused = true;
      throw new AllocationLimitError(`a document asked for more than ${limit} bytes of buffers`);
    }
  };
  const globals = globalThis as unknown as Record<string, unknown>;
  for (const kind of [...typedArrays, OriginalArrayBuffer]) {
    const bytesPerElement = "BYTES_PER_ELEMENT" in kind ? kind.BYTES_PER_ELEMENT : 1;
    globals[kind.name] = new Proxy(kind, {
      construct(target, args, newTarget) {
        count(requestedBytes(args[0], bytesPerElement));
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
  installed = {
    start(limitBytes) {
      counting = true;
      limit = limitBytes;
      total = 0;
      refused = false;
    },
    restart() {
      total = 0;
    },
    stop() {
      counting = false;
      return refused;
    },
  };
  return installed;
}
