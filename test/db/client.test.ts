import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { Prisma } from "../../src/db/generated/prisma/client.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";

let database: TestDatabase;
let db: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await openDatabase(database);
  await db.sql.exec(`CREATE TABLE client_probe (id int PRIMARY KEY, note text)`);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const tenantId = "t_client_probe";

describe("the database client", () => {
  it("reports a failed statement with the database's own code, through plain SQL and through Prisma", async () => {
    await db.sql.query(`INSERT INTO client_probe (id, note) VALUES (1, 'first')`);
    await expect(db.sql.query(`INSERT INTO client_probe (id, note) VALUES (1, 'again')`)).rejects.toMatchObject({
      code: "23505",
      message: expect.stringContaining("client_probe_pkey"),
    });

    await db.prisma.tenant.create({ data: { id: tenantId, name: "Probe" } });
    const key = { tenantId, name: "k", prefix: "pk_", hash: "client-probe-hash" };
    await db.prisma.apiKey.create({ data: { id: "k1", ...key } });
    await expect(db.prisma.apiKey.create({ data: { id: "k2", ...key } })).rejects.toMatchObject({ code: "P2002" });
  });

  it("keeps a transaction's writes to itself until it commits, and leaves nothing of one that fails", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const insideWrote = new Promise<void>((resolve) => (written = resolve));
    const transaction = db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO client_probe (id, note) VALUES (2, 'in a transaction')`;
      written();
      await held;
      throw new Error("changed my mind");
    });
    await insideWrote;
    const outside = db.sql.query<{ id: number }>(`SELECT id FROM client_probe WHERE id = 2`);
    release();
    await expect(transaction).rejects.toThrow("changed my mind");
    expect(await outside).toEqual([]);
    expect(await db.sql.query(`SELECT id FROM client_probe WHERE id = 2`)).toEqual([]);

    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO client_probe (id, note) VALUES (3, 'committed')`;
    });
    expect(await db.sql.query(`SELECT note FROM client_probe WHERE id = 3`)).toEqual([{ note: "committed" }]);
  });

  it("returns dates, numbers, JSON, arrays and bytes as their JavaScript types", async () => {
    const [row] = await db.sql.query<Record<string, unknown>>(
      `SELECT now() AS at, 42::int AS n, '{"a":[1,2]}'::jsonb AS doc, ARRAY[1.5,2.5]::real[] AS reals, '\\x0102'::bytea AS bytes`,
    );
    expect(row!.at).toBeInstanceOf(Date);
    expect(row).toMatchObject({ n: 42, doc: { a: [1, 2] }, reals: [1.5, 2.5] });
    expect([...(row!.bytes as Uint8Array)]).toEqual([1, 2]);
  });
});

describe("raw statements on the service's own connection", () => {
  it("count the rows they wrote, with fragments and values as Prisma's $executeRaw takes them", async () => {
    await db.sql.exec(`CREATE TABLE statements_probe (id int PRIMARY KEY, note text, at timestamp(3))`);
    const insert = (id: number, note: string | null, extra = Prisma.empty) =>
      db.statements.$executeRaw`INSERT INTO statements_probe (id, note) VALUES (${id}, ${note}) ON CONFLICT DO NOTHING${extra}`;
    expect(await insert(1, "first")).toBe(1);
    expect(await insert(1, "again")).toBe(0);
    expect(await insert(2, null)).toBe(1);
    expect(
      await db.statements.$executeRaw(Prisma.sql`UPDATE statements_probe SET note = ${"both"} WHERE id = ANY(${[1, 2]})`),
    ).toBe(2);
    expect(await db.sql.query(`SELECT id, note FROM statements_probe ORDER BY id`)).toEqual([
      { id: 1, note: "both" },
      { id: 2, note: "both" },
    ]);
  });

  it("write a date as Prisma does, whatever the process's time zone", async () => {
    const at = new Date("2026-03-29T01:30:00.123Z");
    await db.statements.$executeRaw`INSERT INTO statements_probe (id, at) VALUES (${10}, ${at})`;
    await db.prisma.$executeRaw`INSERT INTO statements_probe (id, at) VALUES (${11}, ${at})`;
    const rows = await db.prisma.$queryRaw<Array<{ id: number; at: Date }>>`
      SELECT id, at FROM statements_probe WHERE id IN (10, 11) ORDER BY id`;
    expect(rows.map((r) => r.at.toISOString())).toEqual([at.toISOString(), at.toISOString()]);
  });
});

describe.skipIf(Boolean(process.env.DATABASE_URL))("the embedded database", () => {
  it("runs its statements off the serving thread, which keeps turning while a long one runs", async () => {
    let turns = 0;
    let done = false;
    const long = db.sql
      .query(`SELECT count(*) FROM generate_series(1, 3000000) a, (SELECT 1) b WHERE a % 7 = 3`)
      .finally(() => (done = true));
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    await long;
    expect(turns).toBeGreaterThan(10);
  });

  it("dumps its data, which another database starts from", async () => {
    const copy = await openDatabase({ pgliteDir: "memory://", pgliteSeed: await db.dump!() });
    try {
      expect(await copy.sql.query(`SELECT note FROM client_probe WHERE id = 1`)).toEqual([{ note: "first" }]);
    } finally {
      await copy.close();
    }
  });

  it("refuses every statement once closed, with the reason", async () => {
    const other = await openDatabase({ pgliteDir: "memory://" });
    await other.close();
    await expect(other.sql.query(`SELECT 1`)).rejects.toThrow(/embedded-database thread was closed/);
  });
});
