import { defineConfig } from 'prisma/config';

// Only `prisma generate` runs here; the service applies migrations itself (src/db/migrator.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
