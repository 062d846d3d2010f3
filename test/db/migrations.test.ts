import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { getDatamodel } from "../../src/db/generated/pothos-types.js";
import { migrate } from "../../src/db/migrate.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";

// Prisma's own view of the model: field names and nullability (Pothos' copy of the DMMF) and the
// database names of models and fields (the client's runtime data model).
interface RuntimeModel {
  dbName: string | null;
  fields: Array<{ name: string; kind: string; dbName?: string }>;
}

const postgresType: Record<string, string> = {
  String: "text",
  Int: "integer",
  Boolean: "boolean",
  DateTime: "timestamp with time zone",
  Json: "jsonb",
  Float: "double precision",
  Bytes: "bytea",
  BigInt: "bigint",
};

/** Columns Prisma declares as Unsupported(...) types: not in the DMMF, read from the schema file. */
function unsupportedColumns(): Map<string, Set<string>> {
  const schemaText = readFileSync(new URL("../../prisma/schema.prisma", import.meta.url), "utf8");
  const result = new Map<string, Set<string>>();
  for (const block of schemaText.matchAll(/model (\w+) \{([\s\S]*?)\n\}/g)) {
    const table = block[2]!.match(/@@map\("(\w+)"\)/)?.[1] ?? block[1]!;
    for (const line of block[2]!.matchAll(/^\s+(\w+)\s+Unsupported\("(\w+)"\)\??(.*)$/gm)) {
      const column = line[3]!.match(/@map\("(\w+)"\)/)?.[1] ?? line[1]!;
      result.set(table, (result.get(table) ?? new Set()).add(column));
    }
  }
  return result;
}

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase({ empty: true });
  db = await openDatabase(testDb);
  await migrate(db.sql);
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

describe("migrations", () => {
  it("produce exactly the tables and columns that schema.prisma declares", async () => {
    const columns = await db.sql.query<{
      table_name: string;
      column_name: string;
      is_nullable: string;
      data_type: string;
      udt_name: string;
    }>(
      `SELECT table_name, column_name, is_nullable, data_type, udt_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const actual = new Map<string, Map<string, (typeof columns)[number]>>();
    for (const c of columns) {
      if (!actual.has(c.table_name)) actual.set(c.table_name, new Map());
      actual.get(c.table_name)!.set(c.column_name, c);
    }

    const runtime = (db.prisma as unknown as { _runtimeDataModel: { models: Record<string, RuntimeModel> } })._runtimeDataModel;
    const pothos = getDatamodel().datamodel.models;
    const unsupported = unsupportedColumns();
    const expected = new Map<string, Set<string>>();

    for (const [model, info] of Object.entries(runtime.models)) {
      const table = info.dbName ?? model;
      const tableColumns = actual.get(table);
      expect(tableColumns, `table ${table} of model ${model}`).toBeDefined();
      const names = new Set(unsupported.get(table) ?? []);
      for (const field of info.fields.filter((f) => f.kind === "scalar" || f.kind === "enum")) {
        const column = field.dbName ?? field.name;
        names.add(column);
        const declared = pothos[model]!.fields.find((f) => f.name === field.name)!;
        const found = tableColumns!.get(column);
        expect(found, `column ${table}.${column}`).toBeDefined();
        if (declared.isList) {
          expect(found!.data_type, `${table}.${column}`).toBe("ARRAY");
        } else {
          expect(found!.is_nullable, `nullability of ${table}.${column}`).toBe(declared.isRequired ? "NO" : "YES");
          expect(found!.data_type, `type of ${table}.${column}`).toBe(postgresType[declared.type]);
        }
      }
      expected.set(table, names);
    }

    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [table, names] of expected) {
      expect([...actual.get(table)!.keys()].sort(), `columns of ${table}`).toEqual([...names].sort());
    }
  });

  it("records each migration in _prisma_migrations with its checksum and applies nothing twice", async () => {
    const rows = await db.sql.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).not.toBeNull();
    }
    expect(await migrate(db.sql)).toEqual([]);
  });
});
