import { describe, expect, it } from "vitest";
import { newId } from "../../src/db/ids.js";

const digits = "0123456789abcdefghjkmnpqrstvwxyz";

describe("newId", () => {
  it("gives ids that sort in the order they were made, within one millisecond too", () => {
    const ids = Array.from({ length: 5_000 }, () => newId("evc"));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("keeps the shape: prefix, ten characters of time, sixteen of randomness, in lowercase Crockford base 32", () => {
    const before = Date.now();
    const id = newId("msg");
    expect(id).toMatch(/^msg_[0-9a-hjkmnp-tv-z]{26}$/);
    const time = [...id.slice(4, 14)].reduce((ms, c) => ms * 32 + digits.indexOf(c), 0);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("steps up by a random amount within a millisecond, so that an id does not give away the next", () => {
    const ids = Array.from({ length: 2_000 }, () => newId("ses"));
    const tail = (id: string) => [...id.slice(-6)].reduce((n, c) => n * 32 + digits.indexOf(c), 0);
    const steps = ids.slice(1).flatMap((id, i) => (id.slice(0, 14) === ids[i]!.slice(0, 14) ? [tail(id) - tail(ids[i]!)] : []));
    expect(steps.length).toBeGreaterThan(0);
    expect(new Set(steps).size).toBeGreaterThan(steps.length / 2);
  });
});
