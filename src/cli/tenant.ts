import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { openDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { createTenant } from "../tenants/create-tenant.js";

const usage = `Usage: npm run tenant -- create "<name>" [--json]

Creates a tenant and prints its owner API key (shown once).
  --json   print one line {"tenantId":…,"apiKey":…} on stdout and nothing else`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
  });
  const [command, name] = positionals;
  if (values.help || command !== "create" || !name?.trim()) {
    process.stderr.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadConfig();
  const db = await openDatabase({ url: config.DATABASE_URL, pgliteDir: `${config.DATA_DIR}/pglite` });
  try {
    await migrate(db.sql);
    const tenant = await createTenant(db.prisma, name);
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ tenantId: tenant.tenantId, apiKey: tenant.apiKey })}\n`);
    } else {
      process.stdout.write(
        `Created tenant "${tenant.name}" (${tenant.tenantId}).\nOwner API key (shown once, keep it):\n  ${tenant.apiKey}\n`,
      );
    }
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
