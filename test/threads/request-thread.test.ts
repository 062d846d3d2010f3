import { afterEach, describe, expect, it } from "vitest";
import { RequestThread, type RequestThreadOptions } from "../../src/threads/request-thread.js";
import type { AnsweringData, Request } from "./answering-thread.js";

const threads: RequestThread<Request>[] = [];
function thread(options: RequestThreadOptions & { data?: AnsweringData } = {}): RequestThread<Request> {
  const made = new RequestThread<Request>(new URL("./answering-thread.ts", import.meta.url), "answering", options);
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

  it("carries a failure's own fields across, such as a database error's code, and leaves out what cannot be copied", async () => {
    const failed = await thread()
      .ask({ kind: "fail", message: "duplicate key", code: "23505" })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ message: "duplicate key", code: "23505" });
    expect(failed).not.toHaveProperty("onlyHere");
  });

  it("hands the thread the data it was started with", async () => {
    const asked = thread({ data: { value: { dir: "memory://", size: 3 } } });
    expect(await asked.ask({ kind: "data" })).toEqual({ dir: "memory://", size: 3 });
  });

  it("answers a later request while an earlier one still waits, when told to answer them at once", async () => {
    const concurrent = thread({ data: { concurrent: true } });
    const held = concurrent.ask<string>({ kind: "hold", key: "b" });
    expect(await concurrent.ask<string>({ kind: "echo", text: "past it" })).toBe("past it");
    await concurrent.ask({ kind: "release", key: "b" });
    expect(await held).toBe("released b");
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

  it("fails every later request once a thread that must not restart has died", async () => {
    const asked = thread({ restart: false });
    await expect(asked.ask({ kind: "die" })).rejects.toThrow(/stopped \(exit code 3\)/);
    await expect(asked.ask({ kind: "echo", text: "again" })).rejects.toThrow(/the answering thread stopped \(exit code 3\)/);
  });

  it("rejects what was waiting when it is closed", async () => {
    const asked = thread();
    const waiting = expect(asked.ask({ kind: "echo", text: "late" })).rejects.toThrow(/the answering thread was closed/);
    await asked.close();
    await waiting;
  });
});
