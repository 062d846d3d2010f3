import { afterAll, describe, expect, it } from "vitest";
import { runVectorUpkeep, startVectorUpkeep, vectorUpkeepQueue } from "../../src/knowledge/vector-upkeep.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { testDatabaseHasPgvector } from "../helpers/database.js";

// The vector index's upkeep as a worker runs it: booked at start where the index has any, run, and booked again.

const pgvectorHere = await testDatabaseHasPgvector();
const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

const upkeepJobs = (app: TestApp) =>
  app.services.db.prisma.job.findMany({ where: { queue: vectorUpkeepQueue }, orderBy: { runAt: "asc" } });

describe("the vector index's upkeep", () => {
  it.runIf(pgvectorHere)("runs on a worker every few minutes with pgvector, each run booking the next", async () => {
    const app = await startTestApp({ VECTOR_INDEX: "pgvector" });
    apps.push(app);
    await startVectorUpkeep(app.services);
    await startVectorUpkeep(app.services);
    expect(await upkeepJobs(app)).toHaveLength(1);
    app.startWorker();
    await expect
      .poll(async () => (await upkeepJobs(app)).map((j) => j.status), { timeout: 20_000, interval: 100 })
      .toEqual(["completed", "pending"]);
    const [, next] = await upkeepJobs(app);
    expect(next!.runAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("books the next run when a run fails", async () => {
    const app = await startTestApp({ VECTOR_INDEX: "memory" });
    apps.push(app);
    app.services.vectors.upkeep = async () => {
      throw new Error("the build was cancelled");
    };
    await expect(runVectorUpkeep(app.services)).rejects.toThrow(/cancelled/);
    const [next] = await upkeepJobs(app);
    expect(next).toMatchObject({ status: "pending" });
    expect(next!.runAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("is not booked for the in-process index, which keeps itself", async () => {
    const app = await startTestApp({ VECTOR_INDEX: "memory" });
    apps.push(app);
    await startVectorUpkeep(app.services);
    expect(await upkeepJobs(app)).toEqual([]);
  });
});
