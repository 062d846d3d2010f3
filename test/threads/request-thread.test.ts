import { afterEach, describe, expect, it } from "vitest";
import { RequestThread } from "../../src/threads/request-thread.js";
import type { Request } from "./answering-thread.js";

const threads: RequestThread<Request>[] = [];
function thread(): RequestThread<Request> {
  const made = new RequestThread<Request>(new URL("./answering-thread.ts", import.meta.url), "answering");
  threads.push(made);
  return made;
}

afterEach(async () => {
  for (const made of threads.splice(0)) await made.close();
});

describe("a request thread", () => {
  it("answers each request with its own result, whatever order they were asked in", async () => {
    const asked = thread();
    const answers = await Promise.all(["a", "b", "c"].map((text) => asked.ask<string>({ kind: "echo", text })));
    expect(answers).toEqual(["a", "b", "c"]);
    expect(asked.busy).toBe(0);
  });

  it("counts the requests waiting for it", async () => {
    const asked = thread();
    const answer = asked.ask<string>({ kind: "echo", text: "hello" });
    expect(asked.busy).toBe(1);
    await answer;
    expect(asked.busy).toBe(0);
  });

  it("rejects only the request whose work failed, with its message", async () => {
    const asked = thread();
    const [failed, next] = await Promise.allSettled([
      asked.ask({ kind: "fail", message: "no such model" }),
      asked.ask<string>({ kind: "echo", text: "after" }),
    ]);
    expect(failed).toMatchObject({ status: "rejected", reason: { message: "no such model" } });
    expect(next).toMatchObject({ status: "fulfilled", value: "after" });
  });

  it("moves a transferred result across rather than copying it", async () => {
    const bytes = await thread().ask<Float32Array>({ kind: "bytes", size: 512 });
    expect(bytes).toBeInstanceOf(Float32Array);
    expect(bytes.length).toBe(512);
    expect(bytes.every((v) => v === 1)).toBe(true);
  });

  it("rejects what was waiting when the thread dies, and starts a new one for the next request", async () => {
    const asked = thread();
    const waiting = asked.ask({ kind: "die" });
    await expect(waiting).rejects.toThrow(/the answering thread stopped \(exit code 3\)/);
    await expect(asked.ask<string>({ kind: "echo", text: "again" })).resolves.toBe("again");
  });

  it("rejects what was waiting when it is closed", async () => {
    const asked = thread();
    const waiting = expect(asked.ask({ kind: "echo", text: "late" })).rejects.toThrow(/the answering thread was closed/);
    await asked.close();
    await waiting;
  });
});
