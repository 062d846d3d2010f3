import { defineConfig } from "prisma/config";

// Migrations are applied by our own migrator (src/db/migrate.ts); the CLI is used for `prisma generate` only.
export default defineConfig({
  schema: "prisma/schema.prisma",
});
