# syntax=docker/dockerfile:1
# paycall: the marketplace service, production profile.
#   docker build -t paycall .
#   docker compose up            (see docker-compose.yml and docs/operations.md)
#
# Two stages: `deps` installs the production dependencies only (no hardhat, solc, test tools),
# `runtime` copies them beside the sources and runs as the unprivileged `node` user. The
# service runs its TypeScript through tsx (a runtime dependency), so there is no build step.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the project's postinstall only restores hardhat's native package for
# development, and no production dependency needs its install script (esbuild, used by tsx,
# ships its binary as a platform package). The lock lists every platform's optional builds of
# hardhat's EDR and LiteSVM, so npm ci accepts it; npm install from the same lock stays as a
# fallback for a registry that lacks one of them. hardhat's native EDR (an optional dependency
# for the devnet) has no use in production and is removed if npm brought it.
RUN (npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
     || npm install --omit=dev --ignore-scripts --no-audit --no-fund) \
 && rm -rf node_modules/@nomicfoundation \
 && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PAYCALL_PROFILE=production \
    HOST=0.0.0.0 \
    PORT=4020 \
    PAYCALL_DATA_DIR=/app/.data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
# Only what the service reads at run time: the contract (validated against at start), the
# sources and package.json (the version /v1/_health reports). devnet/, test/ and bench/ stay out.
COPY package.json tsconfig.json openapi.yaml ./
COPY src ./src
# The data directory is the only place the process writes (devnet keys in development; the
# forwarded-call signing key when not given by configuration).
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 4020
# Load balancers and `docker ps` use the same check: 200 when the database answers, 503 when
# it does not (a chain RPC down only degrades the answer, still 200).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4020) + '/v1/_health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node, not npm: signals (SIGTERM from `docker stop`) reach the service, which drains in-flight
# requests before exiting.
CMD ["node", "--import", "tsx", "src/main.ts"]
