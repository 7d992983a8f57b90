// Prisma 7 reads this for `prisma generate` and, on a machine with the native schema engine, `prisma migrate deploy`.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres:postgres@127.0.0.1:5432/phoneloop" },
});
