import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { decodeRealArray } from "../../src/db/real-array.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";

let database: TestDatabase;
let db: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  db = await openDatabase(database);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const sent = async (literal: string) =>
  decodeRealArray((await db.sql.query<{ bytes: Uint8Array }>(`SELECT array_send($1::real[]) AS bytes`, [literal]))[0]!.bytes);

describe("real[] in binary form (array_send)", () => {
  it("reads the same float4 values the text form gives, signs, exponents and extremes included", async () => {
    const values = Float32Array.from([0.1, -0.25, 1e-30, -3.4e38, 0, 123.456, Math.fround(Math.PI)]);
    const [text] = await db.sql.query<{ text: number[] }>(`SELECT $1::real[] AS text`, [`{${[...values].join(",")}}`]);
    expect([...(await sent(`{${[...values].join(",")}}`))]).toEqual(text!.text.map(Math.fround));
    expect([...(await sent(`{${[...values].join(",")}}`))]).toEqual([...values]);
  });

  it("reads 1,536 dimensions, an empty array, and a NULL element as 0", async () => {
    const embedding = Float32Array.from({ length: 1536 }, (_, i) => Math.fround(Math.sin(i) / 40));
    expect(await sent(`{${[...embedding].join(",")}}`)).toEqual(embedding);
    expect(await sent("{}")).toEqual(new Float32Array(0));
    expect([...(await sent("{1.5,NULL,-2}"))]).toEqual([1.5, 0, -2]);
  });
});
