/**
 * A one-dimensional `real[]` in PostgreSQL's binary form, as `array_send(column)` returns it (a bytea). Reading an
 * embedding so costs a few microseconds, where its text form (1,536 decimal numbers) cost a parse that was a tenth
 * of a chat request's CPU. Layout: ndim, has-nulls flag, element type, then per dimension its length and lower
 * bound, then per element its byte length (-1 for NULL) and a big-endian float4.
 */
export function decodeRealArray(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = view.getInt32(0);
  if (dimensions === 0) return new Float32Array(0);
  if (dimensions !== 1) throw new Error(`expected a one-dimensional real[], got ${dimensions} dimensions`);
  const length = view.getInt32(12);
  const values = new Float32Array(length);
  let at = 20;
  for (let i = 0; i < length; i++) {
    const size = view.getInt32(at);
    at += 4;
    // A NULL element counts as 0, as it did in the dot products over the text form.
    if (size === -1) continue;
    values[i] = view.getFloat32(at);
    at += size;
  }
  return values;
}
