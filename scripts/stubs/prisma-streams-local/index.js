// Only `prisma dev` (Prisma's local Postgres) imports this; the project uses PGlite and PostgreSQL directly.
exports.startLocalDurableStreamsServer = async () => {
  throw new Error('prisma dev is not available in this project: @prisma/streams-local needs Node 22 (see package.json overrides)');
};
