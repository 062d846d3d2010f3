import { describe, expect, it } from "vitest";
import { RecentlyUsed, remembered } from "../../src/ai/remembered.js";

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

  it("computes again when the value remembered under the key does not hold for the arguments", () => {
    const computed: string[] = [];
    const titled = remembered(
      10,
      (text: string, _title: string) => text,
      (text, title) => {
        computed.push(`${title}: ${text}`);
        return { title, line: `${title}: ${text}` };
      },
      (value, _text, title) => value.title === title,
    );
    expect(titled("Lost cards", "Cards").line).toBe("Cards: Lost cards");
    expect(titled("Lost cards", "Help").line).toBe("Help: Lost cards");
    expect(titled("Lost cards", "Help").line).toBe("Help: Lost cards");
    expect(computed).toEqual(["Cards: Lost cards", "Help: Lost cards"]);
  });

  it("holds at most its limit, forgetting the least recently used key first", () => {
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
    // "b" is the least recently used: "c" takes its place, and "a" stays.
    boxed("c");
    boxed("a");
    boxed("c");
    expect(computed).toEqual(["a", "b", "c"]);
    boxed("b");
    expect(computed).toEqual(["a", "b", "c", "b"]);
    // When "b" came back, "a" was the least recently used: it is computed again.
    boxed("c");
    boxed("a");
    expect(computed).toEqual(["a", "b", "c", "b", "a"]);
  });
});

describe("a map of recently used values", () => {
  it("replaces a key's value without forgetting another, and forgets the least recently read or written", () => {
    const recent = new RecentlyUsed<number>(2);
    recent.set("a", 1);
    recent.set("b", 2);
    recent.set("a", 3);
    expect([recent.size, recent.get("a"), recent.get("b")]).toEqual([2, 3, 2]);
    // "a" was read before "b": it goes first.
    recent.set("c", 4);
    expect([recent.has("a"), recent.get("b"), recent.get("c")]).toEqual([false, 2, 4]);
  });

  it("forgets a deleted key only while it holds the value given, and keeps the order of the others", () => {
    const recent = new RecentlyUsed<number>(3);
    recent.set("a", 1);
    recent.set("b", 2);
    recent.set("c", 3);
    recent.delete("b", 20);
    expect(recent.get("b")).toBe(2);
    // Order now: a, c, b. Deleting the middle, the newest and the oldest leaves the list whole each time.
    recent.delete("c", 3);
    recent.delete("b", 2);
    expect([recent.size, recent.has("b"), recent.has("c")]).toEqual([1, false, false]);
    recent.set("d", 4);
    recent.set("e", 5);
    recent.delete("a", 1);
    recent.set("f", 6);
    recent.set("g", 7);
    // d was the least recently used of d, e, f: g takes its place.
    expect([recent.size, recent.has("d"), recent.get("e"), recent.get("f"), recent.get("g")]).toEqual([3, false, 5, 6, 7]);
  });
});
