# The gateway image (docs/deployment.md). Not built on the machines this repository is developed
# on (no container runtime there); what it runs is what the fleet test runs
# (test/helpers/child-service.ts: `node --import tsx server/main.ts`, NODE_ENV=production).

# --- build: dependencies, the Prisma client (postinstall), the dashboard bundle ---------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
# dashboard/dist, served at / (a production install has no Vite to build it at start)
RUN npm run build:dashboard
# runtime dependencies only (tsx is one: the service runs its TypeScript sources directly)
RUN npm prune --omit=dev --no-audit --no-fund

# --- runtime: non-root, no build tools ----------------------------------------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/var/lib/gateway
WORKDIR /app
COPY --from=build --chown=root:root /app /app
RUN mkdir -p /var/lib/gateway && chown node:node /var/lib/gateway
USER node
EXPOSE 4000
VOLUME ["/var/lib/gateway"]
# liveness for `docker ps`; balancers should check /readyz (deploy/haproxy.cfg)
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM reaches node directly (no npm or shell in between): /readyz turns 503 for
# SHUTDOWN_DRAIN, then the graceful shutdown (SHUTDOWN_TIMEOUT)
STOPSIGNAL SIGTERM
CMD ["node", "--max-old-space-size=1024", "--import", "tsx", "server/main.ts"]
