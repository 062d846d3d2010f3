import { readFileSync, writeFileSync } from "node:fs";
import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "../src/graphql/schema/index.js";

// `npm run schema:print` writes schema.graphql; with --check it fails when the committed file drifted.
const target = new URL("../schema.graphql", import.meta.url);
const printed = `${printSchema(lexicographicSortSchema(schema))}\n`;
if (process.argv.includes("--check")) {
  const committed = readFileSync(target, "utf8");
  if (committed !== printed) {
    console.error("schema.graphql is out of date: run `npm run schema:print` and commit it");
    process.exit(1);
  }
  console.log("schema.graphql is up to date");
} else {
  writeFileSync(target, printed);
  console.log("wrote schema.graphql");
}
