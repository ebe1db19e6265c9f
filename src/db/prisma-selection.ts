/**
 * What Pothos' `prismaField` and `prismaConnection` hand their resolver to pass on to Prisma: the
 * selection the GraphQL query needs (`include` / `select`) and, for a connection, its page (`take`,
 * `skip`, `cursor`). A service takes it beside the viewer and adds its own `where`, so the schema
 * decides what to load and the service alone decides whose rows (test/layout/tenancy.test.ts).
 *
 * `Args` is the Prisma arguments type of the read, e.g. `Prisma.UploadedFileFindManyArgs` (with the
 * page) or `Prisma.UserFindUniqueArgs` (without it).
 */
export type PrismaSelection<Args> = Pick<Args, Extract<keyof Args, 'include' | 'select' | 'take' | 'skip' | 'cursor'>>;
