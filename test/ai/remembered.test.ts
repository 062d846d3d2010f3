import { describe, expect, it } from "vitest";
import { remembered } from "../../src/ai/remembered.js";

describe("a remembered computation", () => {
  it("computes once per key and gives each key its own value", () => {
    const computed: string[] = [];
    const lengthOf = remembered(
      10,
      (text: string) => text.toLowerCase(),
      (text) => {
        computed.push(text);
        return { length: text.length };
      },
    );
    const first = lengthOf("Card");
    expect(lengthOf("CARD")).toBe(first);
    expect(lengthOf("card!")).toEqual({ length: 5 });
    expect(lengthOf("card!")).not.toBe(first);
    expect(computed).toEqual(["Card", "card!"]);
  });

  it("remembers a null result as well", () => {
    let calls = 0;
    const nothing = remembered(
      10,
      (text: string) => text,
      () => {
        calls++;
        return null;
      },
    );
    expect(nothing("a")).toBeNull();
    expect(nothing("a")).toBeNull();
    expect(calls).toBe(1);
  });

  it("holds at most its limit, forgetting everything once full", () => {
    const computed: string[] = [];
    const boxed = remembered(
      2,
      (text: string) => text,
      (text) => {
        computed.push(text);
        return [text];
      },
    );
    boxed("a");
    boxed("b");
    boxed("a");
    expect(computed).toEqual(["a", "b"]);
    boxed("c");
    boxed("b");
    boxed("c");
    expect(computed).toEqual(["a", "b", "c", "b"]);
  });
});
