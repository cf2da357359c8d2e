#!/usr/bin/env python3
"""Generate the agent-style judged query set (BEIR layout) for `mindex eval`.

A fictional engineering team's Obsidian-style vault (Kestrel Labs: eight services, 31 people),
about 2,800 notes: hand-written key notes that answer the queries, plus template-generated filler
that shares their vocabulary and carries deliberate hard distractors (near-identical
identifiers, tickets with the same prefix, notes that only link to an answer).

    python3 benches/agent-set/generate.py

Writes corpus.jsonl, queries.jsonl and qrels.tsv next to this file. Standard library only;
deterministic (random.Random(2026), no clock, no environment).
"""

import hashlib
import json
import os
import random
import re
import sys
from datetime import date, timedelta
from textwrap import dedent

OUT = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(2026)

# path -> {"title": str, "text": str, "body": str}   (dicts keep insertion order)
NOTES = {}


# ----------------------------------------------------------------------------------------------
# Rendering helpers
# ----------------------------------------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/()+-]*$")


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if _PLAIN.match(s) and not s.endswith(" ") and s.lower() not in ("yes", "no", "true", "false", "null", "on", "off"):
        return s
    return json.dumps(s, ensure_ascii=False)


def render_fm(fm):
    out = []
    for k, v in fm:
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            out.append(f"{k}: [" + ", ".join(yaml_scalar(x) for x in v) + "]")
        else:
            out.append(f"{k}: {yaml_scalar(v)}")
    return "\n".join(out) + "\n"


def add_note(path, fm, body, title=None):
    """Register one note. `path` is vault-relative; the title defaults to the file stem."""
    assert path.endswith(".md"), path
    assert path not in NOTES, f"duplicate note path {path}"
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 ._()/,'-]*\.md", path), f"unsafe path {path!r}"
    assert all(seg and not seg.startswith(".") and seg != ".." for seg in path.split("/")), path
    if title is None:
        title = path.rsplit("/", 1)[-1][:-3]
    body = dedent(body).strip("\n").rstrip()
    text = f"---\n{render_fm(fm)}---\n\n# {title}\n\n{body}"
    NOTES[path] = {"title": title, "text": text, "body": body}
    return path


def stem(path):
    return path.rsplit("/", 1)[-1][:-3]


def link(path, alias=None, heading=None):
    s = stem(path)
    if heading:
        s += "#" + heading
    if alias:
        s += "|" + alias
    return f"[[{s}]]"


def safe_title(s):
    s = re.sub(r"[`\"'?:#|\[\]*<>\\,]", "", s)
    s = s.replace("/", "-")
    return re.sub(r"\s+", " ", s).strip().rstrip(".")


# ----------------------------------------------------------------------------------------------
# The company: projects and people
# ----------------------------------------------------------------------------------------------

PROJECTS = {
    "ledger": dict(
        name="Ledger Service", team="Ledger", prefixes=["LED", "OPS"], lang="Rust", ns="ledger",
        svc="ledger-api",
        comps=["sync worker", "journal writer", "reconciliation job", "balance cache", "ledger API",
               "statement exporter"],
        envs=["LEDGER_SYNC_TIMEOUT_MS", "LEDGER_SYNC_MAX_RETRIES", "LEDGER_SYNC_BATCH_SIZE",
              "LEDGER_JOURNAL_FLUSH_MS", "LEDGER_API_PORT", "LEDGER_CACHE_TTL_SECONDS"],
        keys=["ledger.sync.batch_size", "ledger.journal.flush_interval_ms",
              "ledger.api.read_timeout_ms", "ledger.cache.ttl_seconds"],
        funcs=["LedgerSyncScheduler", "LedgerJournalWriter", "LedgerSyncWorkerPool",
               "BalanceCache::refresh", "reconcile_accounts", "post_journal_entry"],
        paths=["src/ledger/sync/batch.rs", "src/ledger/sync/scheduler.rs",
               "src/ledger/journal/writer.rs", "src/ledger/api/handlers.rs",
               "src/ledger/cache/balance.rs"],
        errors=["E_LEDGER_LOCK_CONFLICT", "E_LEDGER_TIMEOUT", "E_LEDGER_LOCK_TIMEOUT_RETRY",
                "E_LEDGER_UNBALANCED_ENTRY", "E_LEDGER_SYNC_BEHIND"],
        metrics=["ledger_sync_lag_seconds", "ledger_journal_writes_total", "ledger_api_latency_ms"],
    ),
    "payments": dict(
        name="Payments Gateway", team="Payments", prefixes=["PAY"], lang="TypeScript", ns="payments",
        svc="payments-gateway",
        comps=["card processor adapter", "webhook dispatcher", "retry scheduler", "fraud check",
               "payout batcher", "checkout API"],
        envs=["PAYMENTS_PSP_TIMEOUT_MS", "PAYMENTS_WEBHOOK_WORKERS", "PAYMENTS_PAYOUT_BATCH_SIZE",
              "PAYMENTS_FRAUD_THRESHOLD", "PAYMENTS_API_PORT"],
        keys=["payments.retry.base_delay_ms", "payments.retry.max_delay_ms",
              "payouts.retry.max_attempts", "payments.webhook.max_attempts",
              "payments.psp.connect_timeout_ms"],
        funcs=["retryWithJitter", "PaymentsWebhookDispatcher", "PayoutBatcher", "scoreFraudRisk",
               "CardProcessorAdapter"],
        paths=["src/payments/retry/policy.ts", "src/payments/webhooks/dispatcher.ts",
               "src/payments/payouts/batcher.ts", "src/payments/psp/adapter.ts"],
        errors=["E_PAY_CARD_DECLINED", "E_PAY_IDEMPOTENCY_EXPIRED", "E_PAY_PSP_TIMEOUT",
                "E_PAY_WEBHOOK_SIGNATURE"],
        metrics=["payments_auth_success_ratio", "payments_webhook_queue_depth", "payments_psp_latency_ms"],
    ),
    "search": dict(
        name="Search API", team="Search", prefixes=["SRCH"], lang="Go", ns="search", svc="search-api",
        comps=["indexer", "shard router", "ranking service", "autocomplete", "synonym loader",
               "facet aggregator"],
        envs=["SEARCH_QUERY_TIMEOUT_MS", "SEARCH_SHARD_COUNT", "SEARCH_CACHE_SIZE_MB",
              "SEARCH_SYNONYMS_PATH"],
        keys=["search.query.timeout_ms", "search.shard.count", "search.ranking.boost_recent",
              "search.cache.max_entries"],
        funcs=["SearchShardRouter", "SynonymLoader", "rankResults", "FacetAggregator",
               "AutocompleteIndex"],
        paths=["src/search/index/segments.go", "src/search/router/shard.go",
               "src/search/rank/score.go", "src/search/synonyms/loader.go"],
        errors=["E_SEARCH_SHARD_UNAVAILABLE", "E_SEARCH_QUERY_TOO_LONG", "E_SEARCH_INDEX_READONLY"],
        metrics=["search_query_latency_ms", "search_index_docs_total", "search_shard_errors_total"],
    ),
    "mobile": dict(
        name="Mobile App", team="Mobile", prefixes=["MOB"], lang="TypeScript (React Native)",
        ns="mobile", svc="mobile-bff",
        comps=["push notifications", "login screen", "image cache", "release train",
               "crash reporter", "deep links"],
        envs=["MOBILE_API_BASE_URL", "MOBILE_RELEASE_CHANNEL", "MOBILE_IMAGE_CACHE_MB"],
        keys=["mobile.push.batch_size", "mobile.release.train_day", "mobile.images.max_cache_mb"],
        funcs=["useOfflineCache", "useSyncQueue", "usePushToken", "ImageCacheManager",
               "DeepLinkRouter"],
        paths=["app/src/offline/cache.ts", "app/src/push/token.ts",
               "app/src/navigation/deeplinks.ts", "app/src/images/cache.ts"],
        errors=["E_MOBILE_PUSH_UNREGISTERED", "E_MOBILE_DEEPLINK_UNKNOWN"],
        metrics=["mobile_crash_free_sessions", "mobile_cold_start_ms", "mobile_push_delivery_ratio"],
    ),
    "auth": dict(
        name="Auth Service", team="Identity", prefixes=["AUTH"], lang="Go", ns="auth", svc="auth-service",
        comps=["token service", "session store", "OAuth callback", "MFA flow", "password reset flow",
               "SCIM sync"],
        envs=["AUTH_JWKS_CACHE_SECONDS", "AUTH_MFA_WINDOW_STEPS", "AUTH_SCIM_SYNC_INTERVAL",
              "AUTH_OAUTH_CALLBACK_URL", "AUTH_PASSWORD_MIN_LENGTH"],
        keys=["auth.mfa.totp_skew", "auth.scim.page_size", "auth.oauth.allowed_redirects",
              "auth.password.bcrypt_cost"],
        funcs=["TokenIssuer", "ScimSyncJob", "verifyTotp", "OAuthCallbackHandler"],
        paths=["src/auth/session/store.go", "src/auth/token/issuer.go", "src/auth/mfa/totp.go",
               "src/auth/scim/sync.go"],
        errors=["E_AUTH_TOKEN_EXPIRED", "E_AUTH_MFA_REQUIRED", "E_AUTH_INVALID_GRANT"],
        metrics=["auth_token_issued_total", "auth_login_latency_ms", "auth_mfa_failures_total"],
    ),
    "pipeline": dict(
        name="Data Pipeline", team="Data", prefixes=["DATA"], lang="Python", ns="data", svc="pipeline",
        comps=["ingest consumer", "dedup stage", "warehouse loader", "partition planner",
               "schema registry", "daily aggregates"],
        envs=["PIPELINE_KAFKA_BROKERS", "PIPELINE_DEDUP_WINDOW_S", "PIPELINE_WAREHOUSE_DSN",
              "PIPELINE_PARALLELISM"],
        keys=["pipeline.ingest.batch_size", "pipeline.dedup.window_seconds",
              "pipeline.loader.max_file_mb"],
        funcs=["BackfillPartitionPlanner", "PartitionBackfillJob", "backfill_partition_job",
               "DedupStage", "WarehouseLoader", "IngestConsumer"],
        paths=["pipeline/jobs/backfill_planner.py", "pipeline/stages/dedup.py",
               "pipeline/loaders/warehouse.py", "pipeline/ingest/consumer.py"],
        errors=["E_PIPE_SCHEMA_MISMATCH", "E_PIPE_LATE_EVENT"],
        metrics=["pipeline_events_ingested_total", "pipeline_loader_duration_s", "pipeline_dedup_drops_total"],
    ),
    "kctl": dict(
        name="kctl", team="DevEx", prefixes=["CLI"], lang="Go", ns="devex", svc="kctl",
        comps=["release command", "auth plugin", "config loader", "update checker",
               "shell completion", "logs command"],
        envs=["KCTL_CONFIG", "KCTL_LOG_LEVEL", "KCTL_NO_UPDATE_CHECK"],
        keys=["kctl.update.channel", "kctl.output.format", "kctl.logs.default_since"],
        funcs=["cmd_release", "cmd_reconcile", "load_profile", "check_for_updates"],
        paths=["cmd/kctl/release.go", "cmd/kctl/reconcile.go", "internal/config/profile.go"],
        errors=["E_KCTL_NOT_LOGGED_IN", "E_KCTL_PROFILE_MISSING"],
        flags=["--dry-run", "--dry-run-payouts", "--output json", "--verbose", "--since 2h",
               "--no-color", "--yes"],
        metrics=["kctl_command_duration_ms", "kctl_update_checks_total"],
    ),
    "platform": dict(
        name="Platform", team="Platform", prefixes=["PLAT", "OPS"], lang="Terraform + Helm",
        ns="platform", svc="ingress-nginx",
        comps=["ingress controller", "node pools", "cluster autoscaler", "external-dns",
               "service mesh", "CI runners"],
        envs=["PLAT_NODE_DRAIN_TIMEOUT", "PLAT_AUTOSCALER_MAX_NODES"],
        keys=["autoscaler.scale_down_delay", "mesh.retries.per_try_timeout",
              "ingress.timeouts.read_seconds"],
        funcs=["drain_node_pool", "NodePoolReconciler"],
        paths=["charts/platform-ingress/values.yaml", "terraform/modules/eks-nodegroup/main.tf",
               "terraform/envs/prod/cluster.tf"],
        errors=["CrashLoopBackOff", "OOMKilled"],
        metrics=["node_cpu_utilisation", "ingress_requests_total", "autoscaler_pending_pods"],
    ),
}
PKEYS = list(PROJECTS)

# name, role, team, areas, how to work with them
PEOPLE = [
    ("Dana Whitfield", "Staff Engineer, tech lead", "Ledger", ["ledger data model", "Postgres", "incident command"],
     "Prefers a written proposal before a meeting. Reviews ledger schema changes personally."),
    ("Tomas Ruiz", "Senior Engineer", "Ledger", ["sync workers", "Rust async", "observability"],
     "Happy to pair; mornings in Madrid time work best."),
    ("Hannah Cole", "Engineer", "Ledger", ["database access layer", "sqlx", "performance"],
     "Ask in #ledger rather than DM so answers are searchable."),
    ("Kenji Sato", "Engineer", "Ledger", ["statement exports", "test tooling"],
     "New-ish to the team; good first reviewer for test changes."),
    ("Priya Raman", "Engineering Manager", "Payments", ["people management", "incident process", "PSP contracts"],
     "Bring staffing questions to her 1-1 slot on Thursdays."),
    ("Lukas Becker", "Staff Engineer, tech lead", "Payments", ["checkout API", "PSP integrations", "releases"],
     "Owns payments releases. Direct feedback welcome."),
    ("Amara Nwosu", "Senior Engineer", "Payments", ["payouts", "card networks", "chargebacks"],
     "Very thorough reviewer; give her context up front."),
    ("Jonah Fields", "Engineer", "Payments", ["webhooks", "fraud rules"],
     "Joined in January; pairs well on webhook work."),
    ("Sofia Marchetti", "Tech Lead, Search API", "Search", ["ranking", "relevance tuning", "search architecture"],
     "Tech lead for the Search API. Likes design docs with measurements attached."),
    ("Ravi Menon", "Senior Engineer", "Search", ["indexing", "capacity planning", "Go performance"],
     "Runs search capacity reviews; ask him for dashboards."),
    ("Elena Petrova", "Engineer", "Search", ["analyzers", "multilingual search", "synonyms"],
     "Handles language support, including CJK tokenisation."),
    ("Chloe Martin", "Tech Lead", "Mobile", ["React Native architecture", "release process"],
     "Keeps the mobile release train on schedule; ask before merging on train day."),
    ("Diego Alvarez", "iOS Engineer", "Mobile", ["iOS native modules", "App Store review"],
     "Best contact for anything Xcode or TestFlight."),
    ("Yuki Nakamura", "Android Engineer", "Mobile", ["Android native modules", "Play Console", "mentoring"],
     "Mentors new joiners, including the Japanese onboarding track."),
    ("Sam Okoro", "Engineer", "Mobile", ["offline storage", "app performance"],
     "Works on offline storage and startup time."),
    ("Nadia Haddad", "Tech Lead", "Identity", ["OAuth and OIDC", "session design", "threat modelling"],
     "Wants a threat model for anything touching tokens."),
    ("Ben Carter", "Senior Engineer", "Identity", ["token service", "signing keys", "Go"],
     "Runs the quarterly signing key rotation."),
    ("Li Wei", "Engineer", "Identity", ["SCIM", "admin console"],
     "Based in Shanghai; overlaps with Europe in the morning."),
    ("Oscar Lindqvist", "Data Engineering Lead", "Data", ["warehouse modelling", "dbt", "data quality"],
     "Plans pipeline work in two-week cycles; put requests in the Data board."),
    ("Fatima Zahra", "Senior Data Engineer", "Data", ["Kafka", "consumer lag", "schema registry", "stream processing"],
     "The person to ask about Kafka: consumer groups, lag, partitions and schema registry."),
    ("Wang Fang", "Data Engineer", "Data", ["warehouse loader", "job scheduling"],
     "Writes meeting notes in Chinese for the data weekly; happy to translate."),
    ("Grace Kim", "Platform Lead", "Platform", ["Kubernetes", "cloud accounts", "cost reviews"],
     "Prefers questions in #platform with a clear goal and deadline."),
    ("Marcus Reed", "Site Reliability Engineer", "Platform", ["autoscaling", "alerting", "capacity"],
     "Deputy for Grace; very quick on Slack."),
    ("Ingrid Holm", "Site Reliability Engineer", "Platform", ["Postgres operations", "monitoring"],
     "Owns database monitoring and backup checks."),
    ("Arjun Patel", "Platform Engineer", "Platform", ["CI runners", "deploy tooling", "Argo Rollouts"],
     "Maintains deploy tooling and the progressive delivery setup."),
    ("Theo Laurent", "DevEx Lead", "DevEx", ["kctl", "developer onboarding", "build tooling"],
     "Owns kctl; file bugs in the DevEx board, not in DMs."),
    ("Maya Cohen", "Engineer", "DevEx", ["kctl releases", "code signing"],
     "Cuts kctl releases every second Wednesday."),
    ("Rachel Stone", "VP Engineering", "Leadership", ["org design", "hiring", "budgets"],
     "Skip-level 1-1s monthly; brings a written agenda."),
    ("Omar Farouk", "Security Engineer", "Security", ["network segmentation", "audits", "vulnerability management"],
     "Security reviews need a week's notice."),
    ("Julia Novak", "Product Manager", "Payments", ["checkout conversion", "merchant onboarding"],
     "Weekly product sync with payments on Tuesdays."),
    ("Ethan Brooks", "Product Manager", "Mobile", ["app roadmap", "user research"],
     "Owns the mobile roadmap and release notes copy."),
]
PEOPLE_BY_TEAM = {}
for _p in PEOPLE:
    PEOPLE_BY_TEAM.setdefault(_p[2], []).append(_p[0])
PEOPLE_NAMES = [p[0] for p in PEOPLE]
TEAM_OF = {p[0]: p[2] for p in PEOPLE}


def team_people(pkey):
    return PEOPLE_BY_TEAM[PROJECTS[pkey]["team"]]


def person():
    return rng.choice(PEOPLE_NAMES)


def plink(name):
    return f"[[{name}]]"


def prj(pkey):
    return f"[[{PROJECTS[pkey]['name']}]]"


# ----------------------------------------------------------------------------------------------
# Key notes: hand-written, each answers one or more queries
# ----------------------------------------------------------------------------------------------

# People and projects -------------------------------------------------------------------------

PERSON = {}
for name, role, team, areas, howto in PEOPLE:
    lines = [f"**Role:** {role}", f"**Team:** {team}", "", "## Areas"]
    lines += [f"- {a}" for a in areas]
    lines += ["", f"## How to work with {name.split()[0]}", f"- {howto}"]
    if name == "Priya Raman":
        lines.append("- Owns the [[Payments on-call rotation]]: sets the schedule and is the escalation point.")
    if name == "Fatima Zahra":
        lines.append("- First contact for Kafka consumer lag in the [[Data Pipeline]]; wrote [[Kafka consumer lag]].")
    if name == "Sofia Marchetti":
        lines.append("- Tech lead of the [[Search API]] since 2025; final say on ranking changes.")
    PERSON[name] = add_note(
        f"people/{name}.md",
        [("type", "person"), ("role", role), ("team", team), ("tags", ["person", team.lower()])],
        "\n".join(lines),
    )

PROJECT_NOTE = {}
_proj_text = {
    "ledger": ("The ledger is the system of record for balances: an append-only journal of postings "
               "plus derived balances. Rust services on Postgres.",
               "Dana Whitfield", ["Tomas Ruiz", "Hannah Cole", "Kenji Sato"],
               ["[[ADR-009 Double-entry ledger with immutable journal]]",
                "[[ADR-021 Route ledger sync through PgBouncer]]", "[[Ledger error codes]]",
                "[[Ledger sync environment variables]]"]),
    "payments": ("Card payments, payouts and webhooks for merchants. TypeScript on Node, talks to "
                 "two payment service providers (PSPs).",
                 "Lukas Becker", ["Priya Raman", "Amara Nwosu", "Jonah Fields", "Julia Novak"],
                 ["[[Payments rollback runbook]]", "[[Payments on-call rotation]]",
                  "[[Idempotency keys]]", "[[Payments retry configuration]]"]),
    "search": ("Full-text search over merchant catalogues: indexer, shard router and ranking, in Go.",
               "Sofia Marchetti", ["Ravi Menon", "Elena Petrova"],
               ["[[ADR-017 Search index refresh interval]]", "[[Search API load test results]]"]),
    "mobile": ("The customer app for iOS and Android, React Native with a few native modules.",
               "Chloe Martin", ["Diego Alvarez", "Yuki Nakamura", "Sam Okoro", "Ethan Brooks"],
               ["[[ADR-023 Mobile minimum OS versions]]", "[[2026-05-06 Offline queue dropped writes]]"]),
    "auth": ("Sign-in, sessions, tokens, MFA and SCIM provisioning for all products. Go.",
             "Nadia Haddad", ["Ben Carter", "Li Wei"],
             ["[[ADR-014 Postgres for session storage]]", "[[Rotate JWT signing keys]]",
              "[[Auth service configuration]]"]),
    "pipeline": ("Event ingestion from Kafka into the warehouse: ingest, dedup, load, daily "
                 "aggregates. Python.",
                 "Oscar Lindqvist", ["Fatima Zahra", "Wang Fang"],
                 ["[[2026-06-02 Backfill double counted events]]", "[[Kafka consumer lag]]"]),
    "kctl": ("The internal command-line tool: releases, logs, access requests, reconciliation "
             "helpers. Go, shipped for macOS and Linux.",
             "Theo Laurent", ["Maya Cohen"],
             ["[[kctl reconcile]]", "[[kctl contexts and staging]]"]),
    "platform": ("Kubernetes (EKS) clusters, ingress, node pools, CI runners and progressive "
                 "delivery for every service.",
                 "Grace Kim", ["Marcus Reed", "Ingrid Holm", "Arjun Patel"],
                 ["[[Canary deploys on the platform]]", "[[Ingress request size limits]]",
                  "[[Disaster recovery drill]]"]),
}
for pkey, (overview, lead, members, links) in _proj_text.items():
    p = PROJECTS[pkey]
    extra = ""
    if pkey == "pipeline":
        extra = ("\n\n## Backfills\nBackfills are owned by the Data team. [[Wang Fang]] runs the "
                 "backfill rota and schedules them in the Data board; other teams request a "
                 "backfill there and never start one themselves.")
    if pkey == "payments":
        extra = "\n\n## On-call\nSee [[Payments on-call rotation]] for the schedule and escalation."
    lines = ["## Overview", overview, "", "## People", f"- Tech lead: [[{lead}]]",
             "- Team: " + ", ".join(f"[[{m}]]" for m in members), "", "## Stack",
             f"{p['lang']}. Namespace `{p['ns']}`, main deployment `{p['svc']}`.", "", "## Key notes"]
    lines += [f"- {l}" for l in links]
    PROJECT_NOTE[pkey] = add_note(
        f"projects/{p['name']}.md",
        [("type", "project"), ("status", "active"), ("team", p["team"]), ("lead", f"[[{lead}]]"),
         ("tags", ["project", pkey])],
        "\n".join(lines) + extra,
    )

# Incidents -----------------------------------------------------------------------------------

K_OPS2291 = add_note(
    "work/incidents/2026-04-11 Ledger sync connection pool exhaustion.md",
    [("type", "incident"), ("ticket", "OPS-2291"), ("date", "2026-04-11"), ("severity", "SEV2"),
     ("status", "resolved"), ("project", "[[Ledger Service]]"), ("owner", "[[Tomas Ruiz]]"),
     ("tags", ["incident", "ledger", "postgres"]), ("aliases", ["Ledger sync outage April 2026"])],
    """
    ## Summary
    On Saturday 11 April the ledger sync workers stopped committing batches for 47 minutes.
    Balances shown in the dashboard and the mobile app lagged behind real postings, and the
    reconciliation job flagged 1,912 accounts as out of date. No postings were lost: the journal
    writer kept accepting entries and sync caught up once the workers recovered. Tracked as
    OPS-2291.

    ## Timeline
    All times UTC.
    - 09:02 — Autoscaler raises sync worker replicas from 4 to 12 after the Friday payout batch lands late.
    - 09:06 — First `sync batch commit failed` warnings in the ledger logs; the workers start retrying.
    - 09:09 — The "ledger sync lag" panel crosses 5 minutes; alert `LedgerSyncLagHigh` pages [[Tomas Ruiz]].
    - 09:14 — Tomas acknowledges and suspects the payout batch size; the batch queue depth looks normal.
    - 09:19 — Postgres primary logs `FATAL: sorry, too many clients already` in bursts.
    - 09:23 — [[Hannah Cole]] joins. The ledger API itself is healthy; it uses a separate pool.
    - 09:27 — Two sync pods restarted; they come back and immediately fail to get a connection.
    - 09:31 — Incident declared SEV2 in the ledger incident channel; [[Dana Whitfield]] takes command.
    - 09:35 — `pg_stat_activity` shows 200 of 200 slots in use and 236 waiting clients, nearly all
      from sync workers, many of them `idle in transaction`.
    - 09:38 — Hypothesis: the retry path holds its transaction open while it sleeps between attempts.
    - 09:41 — Read replicas checked: fine, replication lag under one second throughout.
    - 09:44 — Status page updated: "balances may be delayed".
    - 09:46 — Decision to cut replicas back to 4 and pin the autoscaler.
    - 09:49 — Replicas at 4; waiting clients drop to zero within a minute.
    - 09:53 — Sync lag starts falling; backlog of roughly 410k entries.
    - 10:12 — Hot-fix configuration deployed (see Resolution).
    - 10:31 — Lag back under 30 seconds; reconciliation rerun comes back clean.
    - 10:49 — Incident resolved and status page closed.

    ## Root cause
    Each sync worker process opened its own connection pool with a default size of 20. With 4
    replicas that is 80 connections, comfortably under the primary's `max_connections = 200`.
    The autoscaling policy added in March had no upper bound tied to the database, so 12
    replicas asked for 240 connections. On top of that, the retry path slept through its backoff
    while still holding the transaction, and therefore the connection, open. Every failed commit
    made the pile-up worse: workers waiting for a slot timed out, retried, and kept what they had.

    The ledger API was unaffected because it goes through the pooler; the sync workers connected
    to the primary directly, which is why only they ran dry.

    ## Resolution
    1. Scaled sync workers back to 4 replicas and capped the autoscaler at 6.
    2. Set `LEDGER_SYNC_MAX_CONNS=8` on the sync deployment (the default was 20), so even 12
       replicas stay under 100 connections.
    3. Patched the worker to roll back and release its connection *before* sleeping in the retry
       backoff, instead of sleeping inside the open transaction (PR #4821).
    4. Routed sync traffic through PgBouncer in transaction pooling mode, recorded in
       [[ADR-021 Route ledger sync through PgBouncer]].

    After steps 1–3 the backlog drained in 19 minutes. Step 4 shipped the following Tuesday.

    ## Impact
    - Balances stale for up to 47 minutes for all customers; no incorrect postings.
    - 312 support contacts about a "wrong balance", answered with the status page macro.
    - Payout reports for 11 April regenerated once sync caught up.

    ## Follow-ups
    - [x] Cap sync worker autoscaling at 6 replicas — [[Marcus Reed]]
    - [x] Release the connection before the retry backoff — [[Tomas Ruiz]]
    - [x] Move sync onto PgBouncer — [[Hannah Cole]]
    - [ ] Alert when Postgres connection usage passes 80% — [[Ingrid Holm]]
    - [ ] Add a test environment run that scales sync workers to 12 — [[Kenji Sato]]
    """,
)

K_ADR021 = add_note(
    "decisions/ADR-021 Route ledger sync through PgBouncer.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2026-04-14"),
     ("project", "[[Ledger Service]]"), ("owner", "[[Hannah Cole]]"),
     ("tags", ["decision", "ledger", "postgres"])],
    """
    ## Context
    Sync workers connected straight to the Postgres primary, each with a private pool. During
    [[2026-04-11 Ledger sync connection pool exhaustion]] twelve replicas asked for more
    connections than the primary allows. The ledger API already goes through PgBouncer; sync was
    the exception because it relied on session-level advisory locks.

    ## Decision
    Sync workers connect through PgBouncer in transaction pooling mode. Advisory locks move from
    session level (`pg_advisory_lock`) to transaction level (`pg_advisory_xact_lock`) so they work
    under transaction pooling. The per-worker pool stays small (see
    [[Ledger sync environment variables]]).

    ## Consequences
    - Connections on the primary are bounded by the PgBouncer pool (`default_pool_size = 60`)
      whatever the replica count.
    - Sync can't use server-side prepared statements; statement caching is disabled for its pool.
    - One more network hop: median commit latency up about 0.4 ms, irrelevant for batch sync.

    ## Alternatives considered
    - Raise `max_connections` to 500: more memory per backend, and it only moves the cliff.
    - Keep direct connections and cap replicas: fragile, relies on everyone remembering the cap.
    - RDS Proxy: pins connections whenever session state is used, which sync does.
    """,
)

K_PAY1043 = add_note(
    "work/incidents/2026-02-19 Duplicate card charges.md",
    [("type", "incident"), ("ticket", "PAY-1043"), ("date", "2026-02-19"), ("severity", "SEV1"),
     ("status", "resolved"), ("project", "[[Payments Gateway]]"), ("owner", "[[Lukas Becker]]"),
     ("tags", ["incident", "payments", "postmortem"])],
    """
    ## Summary
    Between 14:20 and 16:05 UTC on 19 February, 1,284 card payments were captured twice. Most
    came from the mobile app during a slow period at our primary PSP. All duplicates were
    refunded automatically by 18:30 the same day. Postmortem for PAY-1043.

    ## Timeline
    - 14:12 — PSP status page reports degraded authorisation latency in the EU region.
    - 14:20 — Median PSP response time climbs from 700 ms to 38 s.
    - 14:31 — Support receives the first "charged twice" complaint from a merchant.
    - 14:40 — [[Jonah Fields]] sees two captures with the same cart id a minute apart.
    - 14:52 — More reports; [[Lukas Becker]] declares SEV1 and pages [[Priya Raman]].
    - 15:05 — The mobile client's 30 s timeout identified: the app retries the checkout call.
    - 15:18 — Confirmed that retries crossing a minute boundary produce a *new* key on the server.
    - 15:30 — Mitigation: mobile BFF stops retrying checkout calls (server-side switch).
    - 15:41 — Duplicate rate falls to zero for new payments.
    - 16:05 — PSP latency recovers; incident moved to monitoring.
    - 17:10 — Refund script reviewed by [[Amara Nwosu]] and run against the 1,284 duplicates.
    - 18:30 — All refunds confirmed by the PSP.

    ## Root cause
    The gateway derived the idempotency key on the server as `cart_id` plus the current minute
    (`floor(now / 60s)`). A retry within the same minute was deduplicated, but a retry that
    crossed into the next minute got a fresh key and was processed as a new payment. Normally
    the PSP answers in under a second, so retries never crossed the boundary; with 38 s responses
    and the app's 30 s timeout, many did.

    ## Resolution
    - Clients now generate the idempotency key once per checkout attempt (UUIDv7) and send it in
      the `Idempotency-Key` header; the server no longer derives keys from time.
    - The gateway stores keys for 24 hours. A replay with the same key and body returns the
      original result; the same key with a different body returns `E_PAY_IDEMPOTENCY_CONFLICT`
      (HTTP 409).
    - See [[Idempotency keys]] for the full contract.

    ## Impact
    1,284 duplicate captures, €61,930 in total, all refunded within four hours. 212 merchant
    support tickets.

    ## Follow-ups
    - [x] Client-generated idempotency keys in mobile and web — [[Chloe Martin]]
    - [x] Remove time-based key derivation — [[Lukas Becker]]
    - [ ] Alert on two captures for one cart within 10 minutes — [[Jonah Fields]]
    """,
)

K_IDEMP = add_note(
    "code/payments/Idempotency keys.md",
    [("type", "code"), ("project", "[[Payments Gateway]]"), ("tags", ["code", "payments", "api"])],
    """
    Every mutating call to the payments gateway (`POST /v2/charges`, `POST /v2/refunds`,
    `POST /v2/payouts`) must carry an `Idempotency-Key` header generated by the client, one per
    logical attempt. Introduced after [[2026-02-19 Duplicate card charges]].

    ## Behaviour
    | situation | response |
    |---|---|
    | new key | processed normally, response stored for 24 h |
    | same key, same body | stored response replayed, header `Idempotent-Replay: true` |
    | same key, different body | `409` with error `E_PAY_IDEMPOTENCY_CONFLICT` |
    | key older than 24 h | treated as new |

    ## Implementation
    Keys live in `src/payments/idempotency/store.ts`, backed by a Postgres table with a unique
    index on `(merchant_id, key)`. The body hash is SHA-256 over the canonical JSON.

    ```ts
    const prior = await store.lookup(merchantId, key);
    if (prior && prior.bodyHash !== hash(body)) {
      throw new GatewayError("E_PAY_IDEMPOTENCY_CONFLICT", 409);
    }
    ```
    """,
)

K_SRCH77 = add_note(
    "work/incidents/2026-03-03 Stale search results after shard rebalance.md",
    [("type", "incident"), ("ticket", "SRCH-77"), ("date", "2026-03-03"), ("severity", "SEV2"),
     ("status", "resolved"), ("project", "[[Search API]]"), ("owner", "[[Ravi Menon]]"),
     ("tags", ["incident", "search"])],
    """
    ## Summary
    For about six hours after a planned shard rebalance, the Search API returned outdated
    documents for three large tenants: price changes and deletions made after 08:10 UTC did not
    show up in results. Queries were fast and error-free, so no alert fired. SRCH-77.

    ## Timeline
    - 07:45 — Planned rebalance starts: 24 shards move from the old node group to the new one.
    - 08:10 — Rebalance reports success; old nodes kept in read-only mode for a day as a fallback.
    - 09:30 — Indexer throughput looks normal; nobody notices anything.
    - 11:02 — A merchant reports that a deleted product is still searchable.
    - 11:20 — Support reproduces it and files a ticket; assumed to be a merchant-side cache.
    - 12:45 — Two more merchants report old prices in results.
    - 13:05 — [[Ravi Menon]] compares the indexer's write target with the shard map: they differ.
    - 13:20 — Confirmed that updates for moved shards were written to the retired replicas.
    - 13:31 — Incident declared; [[Sofia Marchetti]] informed.
    - 13:50 — Indexer restarted with the new shard map; new updates land correctly.
    - 14:10 — Reindex of the three affected tenants started from the catalogue database.
    - 14:25 — [[Elena Petrova]] writes a script to diff document versions between old and new nodes.
    - 14:58 — Diff shows 181k documents behind; all within the three tenants.
    - 15:40 — Reindex finished and spot checks pass.

    ## Root cause
    The indexer caches the shard map at start-up and only reloads it on restart. The rebalance
    tool moved shards but didn't restart or signal the indexer, so for six hours it kept sending
    updates to the old replicas, which were still accepting writes even though they were no
    longer serving queries.

    ## Resolution
    Restarted the indexer, reindexed the three tenants, and made retired replicas reject writes.

    ## Follow-ups
    - [x] Retired replicas reject writes (return `E_SEARCH_INDEX_READONLY`) — [[Ravi Menon]]
    - [ ] The indexer watches the shard map and reloads on change instead of caching it — [[Ravi Menon]]
    - [ ] Freshness probe: write a sentinel document every minute and alert if search can't
      find it within 2 minutes — [[Elena Petrova]]
    - [ ] Rebalance tool refuses to finish until the indexer confirms the new map — [[Sofia Marchetti]]
    - [ ] Add a "documents behind" panel to the search dashboard — [[Ravi Menon]]
    """,
)

K_AUTH318 = add_note(
    "work/incidents/2026-01-27 Token refresh storm.md",
    [("type", "incident"), ("ticket", "AUTH-318"), ("date", "2026-01-27"), ("severity", "SEV2"),
     ("status", "resolved"), ("project", "[[Auth Service]]"), ("owner", "[[Ben Carter]]"),
     ("tags", ["incident", "auth", "mobile"])],
    """
    ## Summary
    On 27 January, from 16:00 to 17:10 UTC, roughly 38% of mobile users and 9% of web users were
    signed out and had to enter their password again. The token service was saturated by
    refresh requests that all arrived within the same few seconds.

    ## Timeline
    - 15:00 — Auth service deploy; all access tokens issued in the following minutes get the
      same one-hour lifetime.
    - 15:55 — Access tokens minted during the deploy begin to expire together.
    - 16:00 — Refresh requests jump from 300/s to 21,000/s.
    - 16:01 — Token service p99 latency above 8 s; refresh calls begin timing out.
    - 16:03 — Mobile crash-free sessions unaffected, but support sees "asked to sign in again".
    - 16:08 — [[Ben Carter]] paged by the `AuthTokenLatencyHigh` alert.
    - 16:15 — Token service scaled from 6 to 18 pods; latency improves only briefly.
    - 16:22 — Second wave as the clients that failed retry at once.
    - 16:30 — [[Nadia Haddad]] joins; the JWKS endpoint is also being hammered.
    - 16:41 — Mobile team confirms that the app wipes its session on *any* failed refresh.
    - 16:50 — Server-side: refresh endpoint given its own pod pool and a per-client concurrency cap.
    - 17:10 — Refresh traffic back to normal; incident mitigated.

    ## Root cause
    Three things together. Tokens minted in one burst expired in one burst. Clients refreshed
    exactly at expiry, with no spread. And the mobile app treated a refresh *timeout* the same as
    a rejected refresh token: it deleted the stored session and showed the sign-in screen, so a
    slow token service turned into mass sign-outs.

    ## Resolution
    - Access token lifetime now has ±10% random jitter, so tokens issued together expire apart.
    - Clients refresh at a random point between 70% and 90% of the token's lifetime instead of at
      expiry.
    - The mobile app only clears the session on an explicit `invalid_grant`; timeouts and 5xx are
      retried with backoff and the user stays signed in.
    - JWKS responses cached for 10 minutes at the edge.

    ## Follow-ups
    - [x] Jitter on access token lifetime — [[Ben Carter]]
    - [x] Mobile: keep the session on refresh timeouts — [[Sam Okoro]]
    - [ ] Load shedding on the token service — [[Li Wei]]
    """,
)

K_MOB562 = add_note(
    "work/incidents/2026-05-06 Offline queue dropped writes.md",
    [("type", "incident"), ("ticket", "MOB-562"), ("date", "2026-05-06"), ("severity", "SEV2"),
     ("status", "resolved"), ("project", "[[Mobile App]]"), ("owner", "[[Sam Okoro]]"),
     ("tags", ["incident", "mobile", "android"])],
    """
    ## Summary
    Android users who made changes while offline (renaming a card, adding notes to a payment)
    sometimes found those changes missing after they came back online. About 4,100 queued
    mutations were lost between releases 7.12.0 and 7.12.2.

    ## Timeline
    - 04-28 — Release 7.12.0 moves the offline mutation queue into `useOfflineQueue`.
    - 05-02 — First app store reviews mention "my changes disappeared".
    - 05-04 — [[Sam Okoro]] reproduces it: go offline, make a change, background the app for a
      minute, swipe it away, reopen online. The change is gone.
    - 05-05 — Hot-fix branch cut; [[Chloe Martin]] holds the release train.
    - 05-06 — 7.12.2 released with the fix; incident opened retroactively.

    ## Root cause
    `useOfflineQueue` kept queued mutations in memory and wrote them to storage only when the app
    moved to the background. Android may kill a backgrounded process before that write
    completes, and on some devices the `AppState` change arrives late, so the queue was lost
    with the process. iOS was unaffected because the write finished within its background grace
    period.

    ## Resolution
    The queue is now write-through: every enqueue is persisted to SQLite before the UI confirms
    the change, and the in-memory copy is only a cache. On start-up the app replays whatever is
    in storage. Lost mutations could not be recovered.

    ## Follow-ups
    - [x] Write-through persistence — [[Sam Okoro]]
    - [ ] Kill-the-app test in the Android end-to-end suite — [[Yuki Nakamura]]
    """,
)

K_OFFLINEQ = add_note(
    "code/mobile/useOfflineQueue.md",
    [("type", "code"), ("project", "[[Mobile App]]"), ("tags", ["code", "mobile", "react-native"])],
    """
    React hook that queues mutations made while the device has no connectivity and replays them
    in order when it comes back. Lives in `app/src/offline/queue.ts`.

    ```ts
    const { enqueue, pending, flush } = useOfflineQueue({ maxItems: 500 });
    await enqueue({ kind: "card.rename", cardId, name });
    ```

    - `enqueue` persists to SQLite first (write-through since [[2026-05-06 Offline queue dropped writes]]).
    - `pending` is the number of queued mutations; the app shows a badge when it is non-zero.
    - `flush` runs automatically on reconnect and on app start; each mutation is retried with
      backoff and dropped only on a 4xx.
    - Ordering is per entity: two changes to the same card replay in the order they were made.

    Not to be confused with `useOfflineCache`, which caches *reads*.
    """,
)

K_LED412 = add_note(
    "work/incidents/2026-03-31 Month-end close lock timeouts.md",
    [("type", "incident"), ("ticket", "LED-412"), ("date", "2026-03-31"), ("severity", "SEV2"),
     ("status", "resolved"), ("project", "[[Ledger Service]]"), ("owner", "[[Dana Whitfield]]"),
     ("tags", ["incident", "ledger", "finance"])],
    """
    ## Summary
    The March month-end close failed twice before succeeding on the third run, 3 h 40 min late.
    Finance's reports for March were delayed to the next morning. LED-412.

    ## Timeline
    - 23:00 — Month-end close job starts on schedule.
    - 23:04 — Interest accrual job starts, as every night.
    - 23:09 — Close job fails: 17 batches report `E_LEDGER_LOCK_TIMEOUT`.
    - 23:15 — [[Kenji Sato]] reruns the close job from the failed batch.
    - 23:22 — Fails again with the same error on different accounts.
    - 23:40 — [[Dana Whitfield]] joins; `pg_locks` shows both jobs waiting on `account_balances` rows.
    - 00:05 — Accrual job paused by hand.
    - 00:18 — Third close run starts.
    - 02:40 — Close completes; accrual resumed afterwards and finishes at 03:30.

    ## Root cause
    Both jobs update `account_balances`, but in opposite orders: the close job walks accounts by
    ascending `account_id`, while the accrual job walks them by descending balance. When they
    ran together they each held row locks the other needed. Postgres didn't always see a
    deadlock (the waits went through different statements), so each side waited until
    `lock_timeout` (5 s) and the ledger returned the error for the whole batch. The close job
    normally runs on the last day of the month only, which is why this had never shown up on an
    ordinary night.

    ## Resolution
    - Both jobs now lock balances in ascending `account_id` order.
    - The close job commits in batches of 500 accounts instead of 5,000.
    - On the last day of the month the scheduler runs accrual first and starts the close only
      when accrual has finished.

    ## Follow-ups
    - [x] Consistent lock order — [[Hannah Cole]]
    - [ ] Page when the close job retries more than once — [[Ingrid Holm]]
    """,
)

K_LEDERR = add_note(
    "code/ledger/Ledger error codes.md",
    [("type", "code"), ("project", "[[Ledger Service]]"), ("tags", ["code", "ledger", "errors"])],
    """
    Error codes returned by the ledger API and the batch jobs. Defined in
    `src/ledger/error.rs`; every code maps to one HTTP status.

    | code | status | meaning | retry? |
    |---|---|---|---|
    | `E_LEDGER_LOCK_TIMEOUT` | 503 | waited longer than `lock_timeout` (5 s) for a balance row lock; usually two jobs touching the same accounts | yes, after a pause |
    | `E_LEDGER_LOCK_CONFLICT` | 409 | optimistic version check failed on an account | yes, re-read first |
    | `E_LEDGER_UNBALANCED_ENTRY` | 422 | debits and credits of an entry don't sum to zero | no |
    | `E_LEDGER_SYNC_BEHIND` | 503 | read requested a balance newer than sync has produced | yes |
    | `E_LEDGER_TIMEOUT` | 504 | request exceeded its deadline | caller decides |

    The month-end incident with lock timeouts is written up in
    [[2026-03-31 Month-end close lock timeouts]].
    """,
)

K_OPS2290 = add_note(
    "work/incidents/2026-04-10 Staging TLS certificate expired.md",
    [("type", "incident"), ("ticket", "OPS-2290"), ("date", "2026-04-10"), ("severity", "SEV3"),
     ("status", "resolved"), ("project", "[[Platform]]"), ("owner", "[[Marcus Reed]]"),
     ("tags", ["incident", "platform", "tls"])],
    """
    ## Summary
    The wildcard certificate for `*.stg.kestrel.dev` expired at 06:00 UTC on 10 April. Every
    staging endpoint failed TLS verification for 3 h 15 min, blocking CI end-to-end suites and
    preview environments. Production was not affected. OPS-2290.

    ## Timeline
    - 06:00 — Certificate expires.
    - 06:20 — CI end-to-end jobs start failing with `x509: certificate has expired`.
    - 07:45 — [[Arjun Patel]] notices that every staging suite is red.
    - 08:10 — Certificate resources show renewal failing for 30 days.
    - 08:40 — Cause found (below); IAM policy fixed.
    - 09:15 — Renewal forced; new certificate issued and picked up by the ingress.

    ## Root cause
    Renewal uses a DNS-01 challenge, which needs permission to write TXT records in the staging
    hosted zone. An IAM role was renamed in a Terraform cleanup in early March; the policy
    attachment for the certificate issuer pointed at the old role, so every renewal attempt for
    a month failed quietly. Nothing alerted on failed renewals.

    ## Resolution
    Re-attached the policy to the renamed role, forced renewal, and added an alert that fires
    21 days before any certificate in any cluster expires.
    """,
)

K_DATA905 = add_note(
    "work/incidents/2026-06-02 Backfill double counted events.md",
    [("type", "incident"), ("ticket", "DATA-905"), ("date", "2026-06-02"), ("severity", "SEV3"),
     ("status", "resolved"), ("project", "[[Data Pipeline]]"), ("owner", "[[Wang Fang]]"),
     ("tags", ["incident", "data", "warehouse"])],
    """
    ## Summary
    After the 1 June backfill of 1–14 May, warehouse tables showed twice the real number of
    events for those days: daily active accounts, payment counts and revenue dashboards all
    doubled. Finance caught it the next morning. DATA-905.

    ## Root cause
    `BackfillPartitionJob` re-ran the 14 daily partitions through the normal pipeline. The dedup
    stage only remembers event ids for `PIPELINE_DEDUP_WINDOW_S` (one hour) of *processing*
    time, so month-old events were not recognised as already loaded. The warehouse loader then
    appended the partitions instead of replacing them. Every event from those days ended up in
    the warehouse twice.

    ## Resolution
    - Deleted the 14 partitions and reloaded them once.
    - Backfills now run in replace mode: the loader overwrites whole partitions.
    - `BackfillPartitionJob` refuses to start unless `--mode replace` is given.

    ## Follow-ups
    - [x] Replace-mode loads for backfills — [[Wang Fang]]
    - [ ] Row-count check against the source topic after every backfill — [[Oscar Lindqvist]]
    """,
)

K_BACKFILL = add_note(
    "code/pipeline/BackfillPartitionJob.md",
    [("type", "code"), ("project", "[[Data Pipeline]]"), ("tags", ["code", "data", "python"])],
    """
    Reprocesses whole daily partitions of raw events. Defined in `pipeline/jobs/backfill.py`.

    ```python
    job = BackfillPartitionJob(
        topic="payments.events.v3",
        start=date(2026, 5, 1),
        end=date(2026, 5, 14),
        mode="replace",       # required: append mode double counts, see the incident note
    )
    job.run(parallelism=4)
    ```

    - One task per partition; tasks are idempotent in replace mode.
    - Reads from the archive bucket, not from Kafka, for anything older than 7 days.
    - Progress is written to the `backfill_runs` table so a failed run resumes.
    - Request backfills through the Data board; see [[Data Pipeline#Backfills]].
    """,
)

K_CLI88 = add_note(
    "work/incidents/2026-02-08 kctl release broke on macOS.md",
    [("type", "incident"), ("ticket", "CLI-88"), ("date", "2026-02-08"), ("severity", "SEV3"),
     ("status", "resolved"), ("project", "[[kctl]]"), ("owner", "[[Maya Cohen]]"),
     ("tags", ["incident", "kctl", "macos"])],
    """
    ## Summary
    kctl 2.14.0 could not be started on Apple silicon Macs: Gatekeeper reported that the
    developer could not be verified. Engineers on macOS were stuck on 2.13 or had to clear the
    quarantine attribute by hand for most of a day.

    ## Root cause
    The release job's notarisation step timed out at Apple's service and the job treated the
    timeout as a warning, publishing the signed but un-notarised arm64 binary.

    ## Resolution
    2.14.1 re-released, signed and notarised. The release job now fails on any notarisation
    result other than `Accepted` and checks the published binary with `spctl --assess`.
    """,
)

K_PLAT1207 = add_note(
    "work/incidents/2026-05-20 Canary stuck at 10 percent.md",
    [("type", "incident"), ("ticket", "PLAT-1207"), ("date", "2026-05-20"), ("severity", "SEV3"),
     ("status", "resolved"), ("project", "[[Platform]]"), ("owner", "[[Arjun Patel]]"),
     ("tags", ["incident", "platform", "deploys"])],
    """
    ## Summary
    A Search API release sat at the first canary step (10% of traffic) for nine hours. Nothing
    was broken for users, but two later releases queued behind it and a fix for a customer bug
    missed its promised day.

    ## Root cause
    The analysis template queries the error ratio from Prometheus. A metrics library upgrade
    renamed `http_requests_total` to `http_server_requests_total`, so the query returned no data.
    The analysis run counts "no data" as *inconclusive*, and inconclusive pauses the rollout
    indefinitely. The error threshold (`CANARY_ABORT_ERROR_RATE`, 0.02) was never evaluated.

    ## Resolution
    - Analysis queries updated to the new metric name.
    - An inconclusive analysis now aborts the rollout after 30 minutes instead of pausing forever.
    - A dashboard panel lists rollouts paused for more than an hour.
    """,
)

K_PAY1088_JA = add_note(
    "work/incidents/2026-04-22-payments-gateway-outage-ja.md",
    [("type", "incident"), ("ticket", "PAY-1088"), ("date", "2026-04-22"), ("severity", "SEV2"),
     ("lang", "ja"), ("project", "[[Payments Gateway]]"), ("owner", "[[Amara Nwosu]]"),
     ("tags", ["incident", "payments", "ja"])],
    """
    ## 概要
    4月22日 10:05〜10:48（JST）、決済ゲートウェイでカード決済の約18%がタイムアウトしました。
    チケットは PAY-1088 です。返金や二重決済は発生していません。

    ## 経緯
    - 10:05 — PSP への接続エラー率が上昇し、アラートが発報。
    - 10:12 — [[Amara Nwosu]] が対応開始。PSP 側の障害を疑うが、先方のステータスは正常。
    - 10:30 — 新しい中間証明書を使う接続だけが失敗していることを確認。
    - 10:48 — CA バンドルを更新したイメージをリリースし、復旧。

    ## 原因
    外部決済代行（PSP）が TLS 証明書を更新し、中間証明書が変わりました。ゲートウェイのコンテナ
    イメージに含まれる CA バンドルが古く、新しい証明書チェーンを検証できずに接続が失敗し、
    クライアント側ではタイムアウトとして見えていました。

    ## 対応
    - CA バンドルを更新したイメージを緊急リリース。
    - PSP 接続のエラーを「タイムアウト」ではなく「証明書検証エラー」として記録するよう修正。

    ## 再発防止
    - [ ] ベースイメージの CA バンドルを毎週自動で更新する — [[Amara Nwosu]]
    - [x] PSP の証明書変更のお知らせをメーリングリストで受け取る — [[Julia Novak]]
    """,
    title="決済ゲートウェイ障害の振り返り（2026-04-22）",
)

# Decisions -----------------------------------------------------------------------------------

D_SESSIONS = add_note(
    "decisions/ADR-014 Postgres for session storage.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2025-10-08"), ("project", "[[Auth Service]]"),
     ("owner", "[[Nadia Haddad]]"), ("tags", ["decision", "auth", "postgres"])],
    """
    ## Context
    Sessions lived in a single Redis instance without persistence. A Redis restart in September
    signed everyone out, and we need to revoke all sessions of a user atomically with changes to
    the user record (password reset, account lock). Two options were costed in detail: Postgres
    and DynamoDB.

    ## Decision
    Store sessions in Postgres, in a `sessions` schema on the existing auth cluster, partitioned
    by day of creation. Redis stays in front as a read-through cache that can be lost at any time.

    ## Why not DynamoDB
    - Revoking sessions together with the user update needs a transaction across the user and
      session tables; with DynamoDB that means a second datastore and a distributed workflow.
    - Nobody on the team has operated DynamoDB; we run Postgres daily and already have backups,
      failover and monitoring for it.
    - Our pattern (many short writes, frequent deletes by user) made on-demand pricing about
      three times the cost of the extra Postgres capacity.
    - Single-digit-millisecond reads weren't needed: reads are served by the cache.

    ## Consequences
    - Partition pruning drops expired sessions daily; no vacuum-heavy deletes.
    - The auth cluster needs ~40 GB more storage.
    - A Postgres failover causes a few seconds of sign-in errors, but nobody is signed out.
    """,
)

D_DOUBLE = add_note(
    "decisions/ADR-009 Double-entry ledger with immutable journal.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2025-06-12"), ("project", "[[Ledger Service]]"),
     ("owner", "[[Dana Whitfield]]"), ("tags", ["decision", "ledger", "data-model"])],
    """
    ## Context
    The first version of the ledger updated a `balance` column in place. Audits couldn't explain
    how a balance was reached, and two bugs in 2025 changed balances with no trace.

    ## Decision
    - Every movement of money is a journal entry with two or more postings whose amounts sum to
      zero (double-entry). An entry that doesn't sum to zero is rejected.
    - Journal rows are immutable: never updated, never deleted. Corrections are new reversing
      entries that reference the original.
    - Balances are derived from postings and cached; the cache can always be rebuilt from the
      journal.

    ## Consequences
    - Every balance has a complete, auditable history, and auditors can replay it.
    - The journal only grows (about 30 GB a month); old partitions move to cheaper storage.
    - Fixing a mistake is more work: you write a reversal, you don't edit a row.

    ## Alternatives
    - Keep mutable balances plus an audit log table: two sources of truth that can disagree.
    - Event sourcing with a generic event store: more flexible, but weaker constraints on money.
    """,
)

D_REFRESH = add_note(
    "decisions/ADR-017 Search index refresh interval.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2025-11-20"), ("project", "[[Search API]]"),
     ("owner", "[[Sofia Marchetti]]"), ("tags", ["decision", "search", "performance"])],
    """
    ## Context
    The index was refreshed every second so that catalogue changes appeared almost at once. At
    our write volume, one-second refreshes produced thousands of tiny segments, and segment
    merging used about 40% of indexer CPU at peak, which in turn slowed queries.

    ## Decision
    Set `search.index.refresh_interval` to 30 seconds for all tenants. Tenants with a contractual
    freshness requirement can get 5 seconds through a per-tenant override reviewed by the search
    team.

    ## Consequences
    - Merge CPU dropped from ~40% to ~6%; query p99 improved by about 25%.
    - Product agreed on a 30-second freshness promise, documented for merchants.
    - Tests that write and immediately search need an explicit refresh call.

    ## Alternatives
    - 5 seconds everywhere: still a third of the merge load, with no customer asking for it.
    - Dynamic refresh based on write rate: more moving parts than the benefit justified.
    """,
)

D_MINOS = add_note(
    "decisions/ADR-023 Mobile minimum OS versions.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2026-02-24"), ("project", "[[Mobile App]]"),
     ("owner", "[[Chloe Martin]]"), ("tags", ["decision", "mobile"])],
    """
    ## Context
    The app still supported iOS 14 and Android 7, which doubled the device test matrix and kept
    us from using passkeys and the newer background task APIs.

    ## Decision
    From release 8.0 the app requires **iOS 16** or newer and **Android 9 (API level 28)** or
    newer. The deployment target and `minSdkVersion` change in the same release.

    ## Consequences
    - About 2.1% of monthly active users are on older systems; they keep 7.x, which gets security
      fixes until the end of 2026, and see an in-app notice.
    - Passkeys ship in 8.1.
    - The device lab drops nine devices.

    ## Alternatives
    - iOS 15 / Android 8: saved less than half the test effort and still no passkeys.
    """,
)

D_CI = add_note(
    "decisions/ADR-011 Move CI from Jenkins to GitHub Actions.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2025-08-05"), ("project", "[[Platform]]"),
     ("owner", "[[Arjun Patel]]"), ("tags", ["decision", "ci", "platform"])],
    """
    ## Context
    Jenkins ran on one controller VM with 140 plugins. Plugin upgrades broke builds roughly once a
    month, the controller was a single point of failure (two full-day outages in 2025), and
    three engineers spent about a fifth of their time keeping it alive. Jenkins also needed
    long-lived AWS keys for deploys.

    ## Decision
    Move all pipelines to GitHub Actions. Heavy builds run on self-hosted runners in the CI node
    pool; deploys authenticate to AWS with OIDC, so no long-lived keys remain.

    ## Consequences
    - Pipelines live next to the code and show up on pull requests.
    - Jenkins was switched off on 30 November after a two-month overlap.
    - We depend on GitHub's availability for CI; a manual deploy path stays documented.

    ## Alternatives
    - Jenkins on Kubernetes with configuration as code: fixes the single VM, not the plugins.
    - A hosted CI vendor: another contract, and the same OIDC work.
    """,
)

D_RATE = add_note(
    "decisions/ADR-019 Rate limiting at the edge.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2026-01-15"), ("project", "[[Platform]]"),
     ("owner", "[[Grace Kim]]"), ("tags", ["decision", "api", "platform"])],
    """
    ## Context
    In December one merchant's integration bug sent 9,000 requests per second to the public API
    and degraded checkout for everyone. Each service had its own, different, in-process limiter,
    or none.

    ## Decision
    Rate limiting happens at the edge, in the ingress, with a global token bucket per API key:
    100 requests per second sustained, bursts of 200. Over the limit, clients get `429` with a
    `Retry-After` header. Limits per key can be raised through the merchant admin tool.

    ## Consequences
    - One consistent behaviour for every public endpoint.
    - Services drop their own limiters for public traffic.
    - A shared limit service becomes critical; if it is unreachable the ingress fails open.

    ## Alternatives
    - A limiter library in each service: inconsistent and easy to forget.
    - Limits per IP address: useless for merchants behind a few egress IPs.
    """,
)

D_SECRETS = add_note(
    "decisions/ADR-012 Secrets in AWS Secrets Manager.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2025-09-02"), ("project", "[[Platform]]"),
     ("owner", "[[Omar Farouk]]"), ("tags", ["decision", "security", "platform"])],
    """
    ## Context
    Database passwords, PSP API keys and webhook signing secrets were kept in encrypted files in
    the deploy repository and copied into `.env` files by hand.

    ## Decision
    All credentials live in AWS Secrets Manager. Pods receive them through the External Secrets
    Operator as Kubernetes secrets mounted as files. Nothing sensitive goes into git, images or
    `.env` files committed anywhere.

    ## Consequences
    - Rotation every 90 days is automated for database passwords.
    - Developers read staging credentials with their own IAM role; production ones only through
      break-glass access.

    ## Alternatives
    - HashiCorp's self-hosted product: more capable, but a cluster to run.
    - SOPS-encrypted files in git: still files in git, and rotation stays manual.
    """,
)

D_RETRIES = add_note(
    "decisions/ADR-025 Cap card payment retries.md",
    [("type", "decision"), ("status", "accepted"), ("date", "2026-03-10"), ("project", "[[Payments Gateway]]"),
     ("owner", "[[Lukas Becker]]"), ("tags", ["decision", "payments"])],
    """
    ## Context
    Soft-declined card payments were retried up to eight times over two days. Issuers started
    flagging the repeated attempts, and card network rules penalise excessive retries.

    ## Decision
    A failed card payment is retried at most **3 times** (`payments.retry.max_attempts = 3`),
    with exponential backoff, and only for soft declines and PSP timeouts. Hard declines are
    never retried.

    ## Consequences
    - Recovery rate dropped from 31% to 29% of soft declines, an acceptable trade-off.
    - Network retry fees are gone.

    ## Alternatives
    - Smart retry timing from the PSP: promising, revisit in Q4.
    """,
)

# Code notes ----------------------------------------------------------------------------------

C_LEDGER_ENV = add_note(
    "code/ledger/Ledger sync environment variables.md",
    [("type", "code"), ("project", "[[Ledger Service]]"), ("tags", ["code", "ledger", "config"])],
    """
    Environment variables read by the ledger sync workers at start-up.

    | variable | default | meaning |
    |---|---|---|
    | `LEDGER_SYNC_MAX_CONNS` | 8 | maximum Postgres connections each sync worker process may open (was 20 until April 2026) |
    | `LEDGER_SYNC_TIMEOUT_MS` | 15000 | deadline for one batch commit |
    | `LEDGER_SYNC_MAX_RETRIES` | 5 | attempts per batch before it is parked |
    | `LEDGER_SYNC_BATCH_SIZE` | 2000 | postings per batch |

    Keep `replicas × LEDGER_SYNC_MAX_CONNS` under the PgBouncer pool size; see
    [[ADR-021 Route ledger sync through PgBouncer]].

    ```sh
    LEDGER_SYNC_MAX_CONNS=8 LEDGER_SYNC_BATCH_SIZE=500 cargo run -p ledger-sync
    ```
    """,
)

C_LSW = add_note(
    "code/ledger/LedgerSyncWorker.md",
    [("type", "code"), ("project", "[[Ledger Service]]"), ("tags", ["code", "ledger", "rust"])],
    """
    `LedgerSyncWorker` (in `src/ledger/sync/worker.rs`) turns journal postings into balance
    updates, one batch at a time. It borrows connections from [[Ledger sync pool|the shared pool]].

    ## Loop
    1. Claim the next batch with `SELECT … FOR UPDATE SKIP LOCKED`.
    2. Apply postings to `account_balances` in ascending account order.
    3. Commit and record the high-water mark.

    ## Shutdown
    On `SIGTERM` the worker stops claiming new batches, finishes the batch in flight, commits,
    and exits; Kubernetes gives it 25 seconds (`terminationGracePeriodSeconds: 30`). A batch
    that can't finish in time is rolled back and picked up by another worker, so shutdown never
    loses postings. Never kill workers with `SIGKILL` during a deploy.

    ```rust
    while !shutdown.is_cancelled() {
        let batch = self.claim_batch().await?;
        self.apply(batch).await?;
    }
    ```
    """,
)

C_POOL = add_note(
    "code/ledger/Ledger sync pool.md",
    [("type", "code"), ("project", "[[Ledger Service]]"), ("tags", ["code", "ledger", "rust"])],
    """
    The sync workers' connection pool is built in `src/ledger/sync/pool.rs`. It wraps an sqlx
    `PgPool` configured for PgBouncer transaction pooling: statement caching off, `after_connect`
    hook sets `statement_timeout` and `lock_timeout`.

    ```rust
    pub fn build_pool(cfg: &SyncConfig) -> PgPool {
        PgPoolOptions::new()
            .max_connections(cfg.max_conns)
            .acquire_timeout(Duration::from_secs(3))
            .connect_lazy_with(cfg.pg.clone().statement_cache_capacity(0))
    }
    ```

    Connections are released before any retry sleep; holding one across a backoff is what made
    the April outage so much worse. The pool size comes from [[Ledger sync environment variables]].
    """,
)

C_BACKOFF = add_note(
    "code/payments/retryWithBackoff.md",
    [("type", "code"), ("project", "[[Payments Gateway]]"), ("tags", ["code", "payments", "typescript"])],
    """
    `retryWithBackoff` (in `src/payments/retry/backoff.ts`) wraps an async call and retries it
    on retryable errors with exponential backoff and full jitter.

    ```ts
    export async function retryWithBackoff<T>(
      fn: () => Promise<T>,
      { attempts = 3, baseMs = 200, capMs = 5000 } = {},
    ): Promise<T> {
      for (let i = 0; ; i++) {
        try { return await fn(); }
        catch (e) {
          if (i + 1 >= attempts || !isRetryable(e)) throw e;
          const delay = Math.random() * Math.min(capMs, baseMs * 2 ** i); // full jitter
          await sleep(delay);
        }
      }
    }
    ```

    ## Jitter
    The delay is drawn uniformly between 0 and the exponential cap ("full jitter"), so clients
    that failed together don't retry together. Don't replace it with a fixed delay.
    `retryWithJitter` in the webhook code is an older variant with "equal jitter"; prefer this one.
    """,
)

C_PAYRETRY = add_note(
    "code/payments/Payments retry configuration.md",
    [("type", "code"), ("project", "[[Payments Gateway]]"), ("tags", ["code", "payments", "config"])],
    """
    Retry settings in `config/payments.yaml`, read at start-up.

    | key | value | notes |
    |---|---|---|
    | `payments.retry.max_attempts` | 3 | card payments: soft declines and PSP timeouts only ([[ADR-025 Cap card payment retries]]) |
    | `payments.retry.base_delay_ms` | 2000 | first backoff step |
    | `payments.retry.max_delay_ms` | 30000 | backoff cap |
    | `payouts.retry.max_attempts` | 5 | payouts, not card payments |

    ```yaml
    payments:
      retry:
        max_attempts: 3
        base_delay_ms: 2000
        max_delay_ms: 30000
    ```
    """,
)

C_AUTHCFG = add_note(
    "code/auth/Auth service configuration.md",
    [("type", "code"), ("project", "[[Auth Service]]"), ("tags", ["code", "auth", "config"])],
    """
    Environment variables for `auth-service`.

    | variable | default | meaning |
    |---|---|---|
    | `AUTH_SESSION_TTL_SECONDS` | 43200 | absolute session lifetime: 12 hours, after which the user must sign in again |
    | `AUTH_REFRESH_TTL_SECONDS` | 2592000 | refresh token lifetime (30 days) for mobile clients |
    | `AUTH_ACCESS_TTL_SECONDS` | 3600 | access token lifetime, with ±10% jitter |

    Web sessions end after 12 hours regardless of activity. Mobile clients keep a refresh token
    and stay signed in for up to 30 days.
    """,
)

C_KCTL_RECON = add_note(
    "code/kctl/kctl reconcile.md",
    [("type", "code"), ("project", "[[kctl]]"), ("tags", ["code", "kctl", "cli", "ledger"])],
    """
    `kctl reconcile` compares ledger balances with payout reports for a date range and writes
    adjustment entries for any difference.

    ```sh
    kctl reconcile --from 2026-05-01 --to 2026-05-31 --dry-run-ledger
    ```

    | flag | effect |
    |---|---|
    | `--dry-run-ledger` | compute and print the ledger adjustments but don't post them; the payout report is still written |
    | `--dry-run` | write nothing at all |
    | `--account ID` | limit to one account |

    Use `--dry-run-ledger` first at month end, check the printed adjustments with finance, then
    run again without it.
    """,
)

C_CANARY = add_note(
    "code/platform/Canary analysis settings.md",
    [("type", "code"), ("project", "[[Platform]]"), ("tags", ["code", "platform", "deploys"])],
    """
    Environment variables read by the rollout analysis job (Argo Rollouts `AnalysisTemplate`
    `default-canary`).

    | variable | default | meaning |
    |---|---|---|
    | `CANARY_ABORT_ERROR_RATE` | 0.02 | abort when the canary's 5xx ratio exceeds this fraction |
    | `CANARY_ABORT_LATENCY_MS` | 800 | abort when canary p99 exceeds this |
    | `CANARY_STEP_PERCENT` | 10 | traffic added per step |

    Override per service in its Helm values under `rollout.analysis.env`.
    """,
)

C_KCTLCTX = add_note(
    "code/kctl/kctl contexts and staging.md",
    [("type", "code"), ("project", "[[kctl]]"), ("tags", ["code", "kctl", "staging"])],
    """
    kctl talks to one cluster at a time, chosen by a *context*. Your contexts are in
    `~/.config/kctl/contexts.yaml`.

    ```sh
    kctl ctx list
    kctl ctx use stg-eu-1      # staging
    kctl --ctx stg-eu-1 logs payments-gateway --since 30m   # one command only
    ```

    - `stg-eu-1` is the main staging cluster.
    - Production contexts need an active access grant; see [[Production database access]].
    - The prompt helper `kctl ctx prompt` prints the current context for your shell prompt.
    """,
)

C_INGRESS = add_note(
    "code/platform/Ingress request size limits.md",
    [("type", "code"), ("project", "[[Platform]]"), ("tags", ["code", "platform", "ingress"])],
    """
    The shared ingress rejects request bodies larger than **8 MB** with `413`. Set in
    `charts/platform-ingress/values.yaml`:

    ```yaml
    controller:
      config:
        proxy-body-size: "8m"
    ```

    Exception: the merchant document upload route of the payments gateway allows 25 MB via the
    annotation `nginx.ingress.kubernetes.io/proxy-body-size: "25m"` on its own Ingress object.
    Ask the platform team before adding another exception.
    """,
)

C_CJK_ZH = add_note(
    "code/search/search-cjk-analyzer-zh.md",
    [("type", "code"), ("lang", "zh"), ("project", "[[Search API]]"), ("tags", ["code", "search", "zh"])],
    """
    搜索 API 默认使用标准分词器，对中文会按单字切分，导致召回过多、排序变差。从 v3.4 开始，
    可以为租户单独开启中文分词。

    ## 配置
    在租户配置中设置 `search.analyzer.cjk`：

    ```yaml
    search:
      analyzer:
        cjk: smartcn   # 可选值：bigram、smartcn、off
    ```

    - `bigram`：二元切分，不需要词典，适合中日韩混合的内容。
    - `smartcn`：基于词典的中文分词，适合纯中文商品目录。
    - `off`：关闭，使用标准分词器。

    修改后必须重建索引：`kctl search reindex --tenant <租户ID>`。

    ## 注意事项
    - 同义词文件目前只支持英文。
    - 负责人：[[Elena Petrova]]。
    """,
    title="搜索 API 中文分词配置",
)

# Runbooks and reference ----------------------------------------------------------------------

R_ROLLBACK = add_note(
    "runbooks/Payments rollback runbook.md",
    [("type", "runbook"), ("project", "[[Payments Gateway]]"), ("owner", "[[Lukas Becker]]"),
     ("tags", ["runbook", "payments", "deploys"])],
    """
    Use this when a payments gateway release makes things worse: error rates, declines or
    latency up after a deploy. Rolling back is always allowed without asking; tell #payments
    afterwards.

    ## When to roll back
    - Card authorisation success drops more than 2 points below the 7-day baseline, or
    - p99 checkout latency is above 1.5 s for 10 minutes, or
    - 5xx responses from `/v2/charges` rise above 0.5%.

    ## Steps
    1. `kctl rollout undo payments-gateway --to-previous` returns the deployment to the last
       healthy image (about 2 minutes).
    2. If the release included a database migration, do **not** run a down migration; our
       migrations are expand-only and the old code works with the new schema.
    3. Switch off any feature flag the release turned on.
    4. Watch the "Payments / Checkout" dashboard for 15 minutes.

    ## Afterwards
    - Post the version you rolled back from in #payments.
    - Open an incident note under `work/incidents/` if customers were affected.
    """,
)

R_JWT = add_note(
    "runbooks/Rotate JWT signing keys.md",
    [("type", "runbook"), ("project", "[[Auth Service]]"), ("owner", "[[Ben Carter]]"),
     ("tags", ["runbook", "auth", "security"])],
    """
    Quarterly, or immediately if a key may have leaked. Signing keys are ES256 keys in AWS KMS;
    the public halves are served at `/.well-known/jwks.json`.

    1. Create the new key: `kctl auth keys create --alg ES256`. Note the new `kid`.
    2. Publish it: `kctl auth keys publish <kid>`. The JWKS now serves old and new keys; nothing
       signs with the new one yet.
    3. Wait at least 24 hours so every verifier's JWKS cache has the new key.
    4. Switch signing: `kctl auth keys promote <kid>`. New tokens carry the new `kid`.
    5. Wait for the longest token lifetime (30 days for refresh tokens), then retire the old key
       with `kctl auth keys retire <old-kid>`.

    For a suspected leak, skip the waits in steps 3 and 5 and accept that some sessions end.
    """,
)

R_CANARY = add_note(
    "runbooks/Canary deploys on the platform.md",
    [("type", "runbook"), ("project", "[[Platform]]"), ("owner", "[[Arjun Patel]]"),
     ("tags", ["runbook", "platform", "deploys"])],
    """
    Every service on the platform ships through Argo Rollouts with a canary strategy: a new
    version gets a small share of traffic first, and more only while it looks healthy.

    ## Steps
    | step | traffic | pause |
    |---|---|---|
    | 1 | 10% | 10 min analysis |
    | 2 | 25% | 10 min analysis |
    | 3 | 50% | 10 min analysis |
    | 4 | 100% | — |

    ## Promotion and abort
    - The analysis promotes automatically when the error ratio stays under
      `CANARY_ABORT_ERROR_RATE` and p99 under `CANARY_ABORT_LATENCY_MS`.
    - It aborts, and shifts all traffic back to the stable version, as soon as either is
      exceeded.
    - Promote by hand: `kubectl argo rollouts promote <rollout> -n <ns>`.
    - Abort by hand: `kubectl argo rollouts abort <rollout> -n <ns>`.

    Settings are described in [[Canary analysis settings]].
    """,
)

R_KAFKA = add_note(
    "runbooks/Kafka consumer lag.md",
    [("type", "runbook"), ("project", "[[Data Pipeline]]"), ("owner", "[[Fatima Zahra]]"),
     ("tags", ["runbook", "data", "kafka"])],
    """
    Alert `PipelineConsumerLagHigh` fires when the ingest consumer group is more than 500k
    messages or 15 minutes behind.

    ## Check
    ```sh
    kafka-consumer-groups --bootstrap-server $PIPELINE_KAFKA_BROKERS \\
      --describe --group pipeline-ingest
    ```
    Look at which partitions lag. One partition far behind usually means a poison message;
    all partitions behind means the consumers are too slow or rebalancing.

    ## Usual causes
    - Warehouse loader slow, so the consumers block on back-pressure.
    - Rebalance loop after a deploy: consumers exceed `max.poll.interval.ms`.
    - One oversized or malformed message on a partition.

    ## Contact
    [[Fatima Zahra]] knows this best; otherwise the Data on-call.
    """,
)

R_DBACCESS = add_note(
    "runbooks/Production database access.md",
    [("type", "runbook"), ("project", "[[Platform]]"), ("tags", ["runbook", "access", "postgres"])],
    """
    Read access to a production database is granted for a limited time and recorded.

    1. Request it: `kctl access request --db ledger-prod --role read --reason "LED-xxx investigation"`.
    2. Wait for approval (see [[Production access approvals]]).
    3. Connect: `kctl db connect ledger-prod --read-only`. The session is recorded.
    4. The grant expires on its own; nothing to clean up.

    Write access is never granted this way; data fixes go through a migration or the reviewed
    data-fix flow.
    """,
)

R_DR = add_note(
    "runbooks/Disaster recovery drill.md",
    [("type", "runbook"), ("project", "[[Platform]]"), ("owner", "[[Ingrid Holm]]"),
     ("tags", ["runbook", "platform", "resilience"])],
    """
    Twice a year we restore the critical systems into the recovery account from backups only,
    as if the primary region were gone.

    ## Scope
    Ledger Postgres, payments Postgres, the auth cluster and the search indices. Kafka is out of
    scope: the pipeline can replay from the archive bucket.

    ## Procedure
    1. Freeze: announce the drill in #eng a week ahead; no production changes are needed.
    2. In the recovery account, apply `terraform/envs/dr` to create the network and an empty
       cluster.
    3. Restore each database from the latest snapshot, then replay WAL from the archive up to
       the drill's start time.
    4. Start the services pointing at the restored databases, with external traffic disabled.
    5. Run the verification suite: ledger balances sum to zero per currency, the last 1,000
       payments match the PSP report, sign-in works for test users.
    6. Record timings, then tear everything down.

    ## Targets
    RTO 60 minutes for ledger and payments; RPO 5 minutes.

    ## Results of the last drill (2026-03-07)
    - Ledger database restored and verified in **42 minutes** (snapshot 18 min, WAL replay
      21 min, checks 3 min); data loss 3 seconds.
    - Payments database: 35 minutes.
    - Auth cluster: 22 minutes.
    - Search indices rebuilt from the catalogue in 2 h 10 min, outside the target; accepted
      because search can be degraded during a disaster.
    """,
)

F_SEV = add_note(
    "reference/Incident severity levels.md",
    [("type", "reference"), ("tags", ["reference", "incidents"])],
    """
    | level | definition | response |
    |---|---|---|
    | SEV1 | customers can't pay, balances are wrong, data is lost, or a security breach | page the incident commander at once; updates every 30 min; postmortem within 5 days |
    | SEV2 | a core feature is degraded for many customers, no data loss | page the owning team; postmortem within 10 days |
    | SEV3 | a minor feature or internal tool is broken, workaround exists | fix during working hours |
    | SEV4 | cosmetic, or risk without impact | ticket |

    When unsure, pick the higher level; downgrading later is free.
    """,
)

F_HANDOFF = add_note(
    "reference/On-call handoff template.md",
    [("type", "reference"), ("tags", ["reference", "oncall", "template"])],
    """
    Copy this into the on-call channel when your shift ends.

    ```
    On-call handoff — <team>, <dates>
    Open incidents: <links or "none">
    Alerts that fired: <count>, noisy ones: <names>
    Things in flight: <deploys, migrations, vendor issues>
    Watch out for: <anything the next person should know>
    ```

    Keep it short. If you silenced an alert, say until when.
    """,
)

F_FLAGS = add_note(
    "reference/Requesting a feature flag.md",
    [("type", "reference"), ("owner", "[[Theo Laurent]]"), ("tags", ["reference", "feature-flags"])],
    """
    1. Open a pull request in the `flags` repository adding your flag to `flags/<team>.yaml`.
    2. Give it an `owner`, a `description` and an `expires` date at most 90 days out.
    3. New flags default to off in every environment.
    4. DevEx reviews within a day; after merge the flag appears in the admin console within
       five minutes.

    Flags past their expiry date show up in the weekly cleanup report and block the owner's next
    flag request until removed.
    """,
)

F_ONBOARD = add_note(
    "reference/Onboarding checklist.md",
    [("type", "reference"), ("owner", "[[Theo Laurent]]"), ("tags", ["reference", "onboarding"])],
    """
    ## Day one
    - [ ] Laptop set up, disk encryption on.
    - [ ] Accounts: Okta, GitHub, Slack, Grafana.
    - [ ] `kctl auth login` works.

    ## Week one
    - [ ] Read the project notes of your team.
    - [ ] Ship one small change to production with your buddy.
    - [ ] Shadow an on-call shift.

    A Japanese version lives in [[ja-onboarding-guide|オンボーディングガイド]].
    """,
)

F_ONCALL = add_note(
    "work/oncall/Payments on-call rotation.md",
    [("type", "reference"), ("project", "[[Payments Gateway]]"), ("owner", "[[Priya Raman]]"),
     ("tags", ["oncall", "payments"])],
    """
    The payments gateway on-call rotation is owned by [[Priya Raman]]. She builds the schedule in
    PagerDuty each quarter, approves swaps, and is the escalation point when the primary and
    secondary can't resolve an incident.

    - Weekly shifts, handover Monday 10:00 UTC.
    - Primary and secondary from [[Lukas Becker]], [[Amara Nwosu]] and [[Jonah Fields]].
    - Swaps: agree with a teammate, then tell Priya so she updates the schedule.
    - Runbooks: [[Payments rollback runbook]].
    """,
)

F_LOADTEST = add_note(
    "reference/Search API load test results.md",
    [("type", "reference"), ("project", "[[Search API]]"), ("owner", "[[Ravi Menon]]"),
     ("date", "2026-01-20"), ("tags", ["reference", "search", "performance"])],
    """
    Pre-launch load test of the v3 Search API, run by [[Ravi Menon]] in January.

    ## Setup
    - 6 query pods (4 vCPU, 8 GB), 24 shards, production-sized catalogue of 41M documents.
    - Query mix replayed from a week of production logs: 70% keyword, 20% faceted, 10%
      autocomplete.
    - k6 ramping from 500 to 8,000 requests per second over 40 minutes.

    ## Method notes
    The cache was cleared before each run. Numbers are from the second of three runs; the three
    were within 4% of each other.

    ## Results
    - Sustained **4,800 requests per second** with p99 latency 180 ms and no errors.
    - Latency knee at about 5,600 requests per second, where p99 passed 400 ms.
    - At 7,000 requests per second the shard router's CPU saturated and errors began.
    - Conclusion: 6 pods cover the 2026 peak forecast (3,100 rps) with 50% headroom.
    """,
)

# Meetings ------------------------------------------------------------------------------------

M_LEDGERQ2 = add_note(
    "meetings/2026/2026-04-02 Ledger Q2 planning.md",
    [("type", "meeting"), ("date", "2026-04-02"), ("project", "[[Ledger Service]]"),
     ("attendees", ["[[Dana Whitfield]]", "[[Tomas Ruiz]]", "[[Hannah Cole]]", "[[Kenji Sato]]", "[[Rachel Stone]]"]),
     ("tags", ["meeting", "ledger", "planning"])],
    """
    Attendees: [[Dana Whitfield]], [[Tomas Ruiz]], [[Hannah Cole]], [[Kenji Sato]], [[Rachel Stone]]

    ## Agenda
    1. Journal growth and sharding
    2. Cross-region replication
    3. Staffing

    ## Notes
    - Journal is at 1.1 TB and growing ~30 GB/month; single-primary write headroom ends around Q4.
    - Sharding discussed at length: by merchant (uneven, a few huge merchants) versus by account.

    ## Decisions
    - **Shard the journal by a hash of `account_id` into 16 partitions**, all on the same primary
      for now, so we can move partitions to separate primaries later without another migration.
    - Cross-region replication is postponed to Q3.
    - No new hire this quarter; Kenji moves to sharding full time.

    ## Action items
    - [ ] [[Dana Whitfield]] writes the sharding ADR by 16 April
    - [ ] [[Hannah Cole]] prototypes partition routing in the journal writer
    - [x] [[Tomas Ruiz]] collects journal growth numbers per merchant
    """,
)

M_AUTHREVIEW = add_note(
    "meetings/2026/2026-05-14 Auth architecture review.md",
    [("type", "meeting"), ("date", "2026-05-14"), ("project", "[[Auth Service]]"),
     ("attendees", ["[[Nadia Haddad]]", "[[Ben Carter]]", "[[Li Wei]]", "[[Omar Farouk]]", "[[Grace Kim]]"]),
     ("tags", ["meeting", "auth", "architecture"])],
    """
    Attendees: [[Nadia Haddad]], [[Ben Carter]], [[Li Wei]], [[Omar Farouk]], [[Grace Kim]]

    ## Topics
    - Splitting token issuance from session management into two deployments.
    - Passkeys for web after the mobile launch.
    - Whether the session cache in front of Postgres is still needed ([[ADR-014 Postgres for session storage]]).

    ## Outcome
    Agreed to split the deployments but keep one codebase. Cache stays for now.

    ## Action items
    - [ ] [[Ben Carter]]: design doc for the token issuer split, due 28 May
    - [ ] [[Li Wei]]: measure session cache hit rate for two weeks
    - [ ] [[Omar Farouk]]: threat model for passkeys on web
    - [x] [[Nadia Haddad]]: share the review notes with mobile and payments
    - [ ] [[Grace Kim]]: reserve a second node pool for the auth deployments
    """,
)

M_PCI = add_note(
    "meetings/2026/2026-03-18 PCI audit prep.md",
    [("type", "meeting"), ("date", "2026-03-18"), ("project", "[[Payments Gateway]]"),
     ("attendees", ["[[Priya Raman]]", "[[Amara Nwosu]]", "[[Omar Farouk]]", "[[Julia Novak]]"]),
     ("tags", ["meeting", "payments", "compliance"])],
    """
    Attendees: [[Priya Raman]], [[Amara Nwosu]], [[Omar Farouk]], [[Julia Novak]]

    ## Notes
    - The PCI DSS audit runs **8–12 June 2026**, with the assessor on site on 9 and 10 June.
    - [[Amara Nwosu]] is preparing the evidence pack (access reviews, change records, scans).
    - [[Omar Farouk]] owns the network segmentation section and the quarterly scan reports.
    - Last year's findings: two, both closed.

    ## Action items
    - [ ] [[Amara Nwosu]]: evidence folder structure shared by 1 April
    - [ ] [[Omar Farouk]]: segmentation test report by 15 May
    - [ ] [[Priya Raman]]: book the meeting rooms for the on-site days
    """,
)

M_DATA_ZH = add_note(
    "meetings/2026/2026-05-21-data-pipeline-weekly-zh.md",
    [("type", "meeting"), ("date", "2026-05-21"), ("lang", "zh"), ("project", "[[Data Pipeline]]"),
     ("attendees", ["[[Oscar Lindqvist]]", "[[Fatima Zahra]]", "[[Wang Fang]]"]),
     ("tags", ["meeting", "data", "zh"])],
    """
    参会人：[[Oscar Lindqvist]]、[[Fatima Zahra]]、[[Wang Fang]]

    ## 讨论
    - 上周 Kafka 集群扩容完成，消费延迟已恢复正常。
    - 仓库加载任务平均耗时从 42 分钟降到 27 分钟。
    - 讨论是否把去重窗口从 1 小时延长到 6 小时，结论是暂不调整，先观察两周。

    ## 行动项
    - [ ] [[Wang Fang]]：整理回填任务的操作手册（下周三前）
    - [ ] [[Fatima Zahra]]：评估 schema registry 升级的风险
    - [x] [[Oscar Lindqvist]]：与财务确认日报的统计口径
    """,
    title="数据管道周会 2026-05-21",
)

# CJK reference notes --------------------------------------------------------------------------

J_ONBOARD = add_note(
    "onboarding/ja-onboarding-guide.md",
    [("type", "reference"), ("lang", "ja"), ("aliases", ["オンボーディングガイド", "Japanese onboarding"]),
     ("tags", ["onboarding", "ja"])],
    """
    ようこそ！このノートは入社して最初の一週間にやることをまとめた日本語版の手順です。
    英語版は [[Onboarding checklist]] を参照してください。

    ## 初日
    - 社用ノートPCを受け取り、ディスク暗号化を有効にする。
    - Okta にログインし、GitHub・Slack・Grafana へのアクセスを申請する。
    - `kctl auth login` を実行して CLI の認証を済ませる。うまくいかない場合は #devex で質問する。

    ## 最初の一週間
    - メンター（[[Yuki Nakamura]] など）と毎日15分の1on1を行う。
    - 自分のチームのプロジェクトノートを読む。
    - 小さな修正で最初のプルリクエストを出し、本番デプロイまで一通り体験する。
    - オンコールを見学する前に [[Incident severity levels]] を読んでおく。

    ## よくある質問
    - 本番環境へのアクセスは最初の1か月は付与されません。
    - 分からないことは遠慮せずにメンターに聞いてください。
    """,
    title="新人エンジニア向けオンボーディングガイド",
)

Z_DEPLOY = add_note(
    "runbooks/zh-deploy-checklist.md",
    [("type", "runbook"), ("lang", "zh"), ("tags", ["runbook", "deploys", "zh"])],
    """
    适用于所有后端服务的生产发布。每次上线前由发布负责人逐项确认。

    ## 发布前
    - [ ] 变更已通过代码评审，并关联了工单。
    - [ ] CI 全部通过，包括集成测试。
    - [ ] 数据库迁移已在预发布环境演练过。
    - [ ] 运行 `kctl release verify --env prod`，确认镜像签名和配置差异都没有问题。
    - [ ] 在 #deploys 频道发布公告，写明回滚方案。

    ## 发布中
    - [ ] 先放 10% 流量，观察错误率和 p99 延迟至少 15 分钟。
    - [ ] 监控面板没有异常后再全量发布。

    ## 发布后
    - [ ] 观察告警和日志 30 分钟。
    - [ ] 在工单中记录发布的版本号。
    """,
    title="上线部署检查清单",
)

J_LOGS = add_note(
    "reference/ja-log-retention.md",
    [("type", "reference"), ("lang", "ja"), ("owner", "[[Grace Kim]]"), ("tags", ["reference", "logging", "ja"])],
    """
    ログの種類ごとの保存期間と保存先です。

    | 種類 | 保存先 | 保存期間 |
    |---|---|---|
    | アプリケーションログ | Loki | 30日 |
    | アクセスログ | S3 | 90日 |
    | 監査ログ | S3（Object Lock） | 400日 |

    ## 注意
    - 個人情報をログに出力しないこと。カード番号は必ずマスクする。
    - 保存期間を延ばしたい場合は [[Grace Kim]] に相談する。
    """,
    title="ログ保存ポリシー",
)

# Memories and sessions -----------------------------------------------------------------------

MM_MIGRATE = add_note(
    "memories/Schema changes need migrate-check.md",
    [("type", "memory"), ("date", "2026-02-03"), ("tags", ["memory", "postgres"])],
    """
    Always run `make migrate-check` before merging schema changes: it replays every migration
    against a copy of the production schema and fails on any lock held longer than 2 seconds.
    Learned on [[Ledger Service]].
    """,
)

MM_PREVIEW = add_note(
    "memories/Preview builds go to stg-eu-2.md",
    [("type", "memory"), ("date", "2026-03-21"), ("tags", ["memory", "staging"])],
    """
    Preview builds deploy to the `stg-eu-2` cluster. `stg-us-1` is reserved for performance
    runs, so previews deployed there get evicted.
    """,
)

MM_SQUASH = add_note(
    "memories/Mobile repo squash merges only.md",
    [("type", "memory"), ("date", "2026-01-12"), ("tags", ["memory", "mobile", "git"])],
    """
    The mobile repo only allows squash merges. Keep the PR title in Conventional Commits form,
    because it becomes the release-notes line.
    """,
)

MM_SETTLE = add_note(
    "memories/Settlement reports use New York time.md",
    [("type", "memory"), ("date", "2026-02-27"), ("tags", ["memory", "payments", "finance"])],
    """
    Payments settlement reports are cut at midnight America/New_York (the acquiring bank's
    business day), not UTC. Comparing them with UTC dashboards shows a 4–5 hour shift.
    """,
)

MM_PRODACCESS = add_note(
    "memories/Production access approvals.md",
    [("type", "memory"), ("date", "2026-01-30"), ("tags", ["memory", "access"])],
    """
    Production access requests are approved by [[Grace Kim]], or [[Marcus Reed]] when she is
    away. Your own manager can't approve them. Grants expire after 8 hours.
    """,
)

MM_PRODDB_JA = add_note(
    "memories/prod-db-write-ja.md",
    [("type", "memory"), ("date", "2026-04-08"), ("lang", "ja"), ("tags", ["memory", "ja", "postgres"])],
    """
    本番データベースに手動で UPDATE や DELETE を実行してはいけない。データ修正は必ずマイグレーションか、
    レビュー付きの data-fix フロー経由で行うこと。
    """,
    title="本番DBへの直接書き込み禁止",
)

SS_FLAKY = add_note(
    "sessions/2026-05-02-1432.md",
    [("type", "session"), ("date", "2026-05-02"), ("agent", "claude-code"), ("project", "[[Ledger Service]]"),
     ("tags", ["session"])],
    """
    Q: The ledger integration test `ledger_sync_it` is flaky on CI, always failing close to
    midnight. Known issue?

    A: Yes. The test builds "today's" journal partition from local time while the fixture uses
    UTC, so it fails whenever the two dates differ. Run it as
    `TZ=UTC cargo test -p ledger --test ledger_sync_it`; CI now sets `TZ=UTC` in the job
    environment, fixed in PR #4710.
    """,
)

SS_GENCLIENT = add_note(
    "sessions/2026-04-17-0915.md",
    [("type", "session"), ("date", "2026-04-17"), ("agent", "codex"), ("project", "[[Payments Gateway]]"),
     ("tags", ["session"])],
    """
    Q: How do I regenerate the payments API client after changing the OpenAPI spec?

    A: `make gen-client SERVICE=payments` from the monorepo root. Don't edit anything under
    `clients/generated/` by hand; CI fails when the generated files drift from the spec.
    """,
)

SS_EXPLAIN = add_note(
    "sessions/2026-03-09-1610.md",
    [("type", "session"), ("date", "2026-03-09"), ("agent", "gemini"), ("project", "[[Search API]]"),
     ("tags", ["session"])],
    """
    Q: Can the search API show me how it planned a query?

    A: Set `SEARCH_DEBUG_EXPLAIN=1` on the pod (or send `X-Search-Explain: 1` in staging) and
    the query plan is logged at debug level, with timings per shard.
    """,
)

KEY_PATHS = list(NOTES)


# ----------------------------------------------------------------------------------------------
# Filler: template notes that share vocabulary with the key notes but never state their facts
# ----------------------------------------------------------------------------------------------

# One fixed description per distractor identifier, so filler notes stay consistent.
IDENT_DESC = {
    # ledger
    "LEDGER_SYNC_TIMEOUT_MS": "deadline for one sync batch commit, default 15000",
    "LEDGER_SYNC_MAX_RETRIES": "attempts per sync batch before it is parked, default 5",
    "LEDGER_SYNC_BATCH_SIZE": "postings per sync batch, default 2000",
    "LEDGER_JOURNAL_FLUSH_MS": "how often the journal writer flushes its buffer, default 50",
    "LEDGER_API_PORT": "HTTP port of the ledger API, default 8081",
    "LEDGER_CACHE_TTL_SECONDS": "lifetime of cached balances, default 60",
    "ledger.sync.batch_size": "file form of the sync batch size",
    "ledger.journal.flush_interval_ms": "journal writer flush interval in milliseconds",
    "ledger.api.read_timeout_ms": "read timeout of the ledger API handlers, default 2000",
    "ledger.cache.ttl_seconds": "balance cache lifetime in seconds",
    "LedgerSyncScheduler": "decides which sync batch runs next and on which worker",
    "LedgerJournalWriter": "appends postings to the journal in order",
    "LedgerSyncWorkerPool": "supervises the sync tasks inside one process",
    "BalanceCache::refresh": "reloads one account's cached balance from postings",
    "reconcile_accounts": "compares derived balances with the journal",
    "post_journal_entry": "validates and writes one journal entry",
    "src/ledger/sync/batch.rs": "batch claiming and bookkeeping",
    "src/ledger/sync/scheduler.rs": "the sync scheduler",
    "src/ledger/journal/writer.rs": "the journal writer",
    "src/ledger/api/handlers.rs": "HTTP handlers of the ledger API",
    "src/ledger/cache/balance.rs": "the balance cache",
    "E_LEDGER_LOCK_CONFLICT": "optimistic version check failed on an account; re-read and retry",
    "E_LEDGER_TIMEOUT": "the request exceeded its deadline",
    "E_LEDGER_LOCK_TIMEOUT_RETRY": "internal marker on a batch re-queued after a lock wait; never returned to callers",
    "E_LEDGER_UNBALANCED_ENTRY": "an entry's postings don't sum to zero",
    "E_LEDGER_SYNC_BEHIND": "the requested balance is newer than what sync has produced",
    # payments
    "PAYMENTS_PSP_TIMEOUT_MS": "timeout for one PSP call, default 10000",
    "PAYMENTS_WEBHOOK_WORKERS": "concurrent webhook deliveries per pod, default 16",
    "PAYMENTS_PAYOUT_BATCH_SIZE": "payouts per batch file, default 500",
    "PAYMENTS_FRAUD_THRESHOLD": "risk score above which a payment is held for review, default 0.85",
    "PAYMENTS_API_PORT": "HTTP port of the gateway, default 8080",
    "payments.retry.base_delay_ms": "first backoff step for card payment retries",
    "payments.retry.max_delay_ms": "backoff cap for card payment retries",
    "payouts.retry.max_attempts": "attempts for a failed payout file upload",
    "payments.webhook.max_attempts": "delivery attempts for one merchant webhook, default 8",
    "payments.psp.connect_timeout_ms": "TCP and TLS connect timeout towards the PSPs",
    "retryWithJitter": "older retry helper with equal jitter, still used by the webhook code",
    "PaymentsWebhookDispatcher": "sends merchant webhooks and records delivery attempts",
    "PayoutBatcher": "groups payouts into bank files",
    "scoreFraudRisk": "calls the fraud model and returns a score between 0 and 1",
    "CardProcessorAdapter": "common interface over both PSPs",
    "src/payments/retry/policy.ts": "which errors count as retryable",
    "src/payments/webhooks/dispatcher.ts": "the webhook dispatcher",
    "src/payments/payouts/batcher.ts": "the payout batcher",
    "src/payments/psp/adapter.ts": "the PSP adapter",
    "E_PAY_CARD_DECLINED": "the issuer declined the card; the decline code is in `details`",
    "E_PAY_IDEMPOTENCY_EXPIRED": "legacy code from the old key scheme, no longer returned",
    "E_PAY_PSP_TIMEOUT": "the PSP didn't answer within the timeout",
    "E_PAY_WEBHOOK_SIGNATURE": "a webhook from the PSP failed signature verification",
    # search
    "SEARCH_QUERY_TIMEOUT_MS": "per-query deadline, default 800",
    "SEARCH_SHARD_COUNT": "shards per tenant index, default 8",
    "SEARCH_CACHE_SIZE_MB": "result cache size per pod, default 512",
    "SEARCH_SYNONYMS_PATH": "path of the synonyms file inside the pod",
    "search.query.timeout_ms": "file form of the per-query deadline",
    "search.shard.count": "file form of the shard count",
    "search.ranking.boost_recent": "boost for recently updated documents, default 1.2",
    "search.cache.max_entries": "result cache entries per pod",
    "search.index.refresh_interval_ms": "legacy millisecond form of an indexer setting; ignored since v3",
    "SearchShardRouter": "maps a tenant and document id to a shard",
    "SynonymLoader": "reloads the synonyms file when it changes",
    "rankResults": "final scoring pass over the candidates",
    "FacetAggregator": "computes facet counts for filters",
    "AutocompleteIndex": "prefix index used by autocomplete",
    "src/search/index/segments.go": "segment bookkeeping of the indexer",
    "src/search/router/shard.go": "the shard router",
    "src/search/rank/score.go": "ranking",
    "src/search/synonyms/loader.go": "the synonym loader",
    "E_SEARCH_SHARD_UNAVAILABLE": "a shard didn't answer; results are partial",
    "E_SEARCH_QUERY_TOO_LONG": "the query has more than 64 terms",
    "E_SEARCH_INDEX_READONLY": "the index refuses writes (maintenance or retired replica)",
    # mobile
    "MOBILE_API_BASE_URL": "backend URL baked into a build",
    "MOBILE_RELEASE_CHANNEL": "which update channel a build listens to",
    "MOBILE_IMAGE_CACHE_MB": "on-device image cache size, default 150",
    "mobile.push.batch_size": "push notifications per provider call",
    "mobile.release.train_day": "weekday the release train leaves",
    "mobile.images.max_cache_mb": "remote-config form of the image cache size",
    "useOfflineCache": "hook that caches read responses for offline display",
    "useSyncQueue": "hook that batches analytics events until the next upload",
    "usePushToken": "hook that registers the device push token",
    "ImageCacheManager": "evicts cached images by size and age",
    "DeepLinkRouter": "maps incoming links to screens",
    "app/src/offline/cache.ts": "the read cache",
    "app/src/push/token.ts": "push token registration",
    "app/src/navigation/deeplinks.ts": "deep link routing",
    "app/src/images/cache.ts": "the image cache",
    "E_MOBILE_PUSH_UNREGISTERED": "the device token is no longer valid",
    "E_MOBILE_DEEPLINK_UNKNOWN": "a link pointed at a screen that doesn't exist",
    # auth
    "AUTH_JWKS_CACHE_SECONDS": "how long verifiers cache the JWKS, default 600",
    "AUTH_MFA_WINDOW_STEPS": "TOTP steps accepted either side of now, default 1",
    "AUTH_SCIM_SYNC_INTERVAL": "minutes between SCIM pulls, default 15",
    "AUTH_OAUTH_CALLBACK_URL": "callback URL registered with identity providers",
    "AUTH_PASSWORD_MIN_LENGTH": "minimum password length, default 12",
    "auth.mfa.totp_skew": "file form of the TOTP window",
    "auth.scim.page_size": "users per SCIM page",
    "auth.oauth.allowed_redirects": "allow-list of redirect URLs",
    "auth.password.bcrypt_cost": "bcrypt cost factor, default 12",
    "TokenIssuer": "mints access and refresh tokens",
    "ScimSyncJob": "pulls users and groups from customer directories",
    "verifyTotp": "checks a TOTP code against the stored secret",
    "OAuthCallbackHandler": "completes the OAuth code exchange",
    "src/auth/session/store.go": "session persistence",
    "src/auth/token/issuer.go": "the token issuer",
    "src/auth/mfa/totp.go": "TOTP verification",
    "src/auth/scim/sync.go": "the SCIM sync job",
    "E_AUTH_TOKEN_EXPIRED": "the access token is past its expiry",
    "E_AUTH_MFA_REQUIRED": "the action needs a second factor",
    "E_AUTH_INVALID_GRANT": "the refresh token or code was rejected",
    # pipeline
    "PIPELINE_KAFKA_BROKERS": "bootstrap servers of the events cluster",
    "PIPELINE_DEDUP_WINDOW_S": "how long the dedup stage remembers event ids",
    "PIPELINE_WAREHOUSE_DSN": "warehouse connection string",
    "PIPELINE_PARALLELISM": "worker processes per stage, default 4",
    "pipeline.ingest.batch_size": "events per ingest batch",
    "pipeline.dedup.window_seconds": "file form of the dedup window",
    "pipeline.loader.max_file_mb": "largest file the loader stages at once",
    "BackfillPartitionPlanner": "splits a date range into partition tasks",
    "PartitionBackfillJob": "name of the backfill class before the 2025 rewrite; kept as an alias",
    "backfill_partition_job": "Airflow task id that wraps the backfill",
    "DedupStage": "drops events whose id was seen recently",
    "WarehouseLoader": "stages files and loads them into warehouse tables",
    "IngestConsumer": "reads the raw events topic from Kafka",
    "pipeline/jobs/backfill_planner.py": "the backfill planner",
    "pipeline/stages/dedup.py": "the dedup stage",
    "pipeline/loaders/warehouse.py": "the warehouse loader",
    "pipeline/ingest/consumer.py": "the ingest consumer",
    "E_PIPE_SCHEMA_MISMATCH": "an event doesn't match its registered schema",
    "E_PIPE_LATE_EVENT": "an event arrived after its partition was closed",
    # kctl
    "KCTL_CONFIG": "path of the kctl config file",
    "KCTL_LOG_LEVEL": "log level of kctl itself",
    "KCTL_NO_UPDATE_CHECK": "disables the update check when set",
    "kctl.update.channel": "stable or beta",
    "kctl.output.format": "default output format",
    "kctl.logs.default_since": "default window of `kctl logs`",
    "cmd_release": "implements `kctl release`",
    "cmd_reconcile": "implements `kctl reconcile`",
    "load_profile": "reads the user's profile and merges defaults",
    "check_for_updates": "compares the local version with the latest release",
    "cmd/kctl/release.go": "the release command",
    "cmd/kctl/reconcile.go": "the reconcile command",
    "internal/config/profile.go": "profile loading",
    "E_KCTL_NOT_LOGGED_IN": "no valid credentials; run `kctl auth login`",
    "E_KCTL_PROFILE_MISSING": "the named profile doesn't exist",
    "--dry-run": "print what would happen and change nothing",
    "--dry-run-payouts": "skip writing payout files but do everything else",
    "--output json": "machine-readable output",
    "--verbose": "log every API call",
    "--since 2h": "limit logs to the last two hours",
    "--no-color": "plain output for CI logs",
    "--yes": "skip confirmation prompts",
    # platform
    "PLAT_NODE_DRAIN_TIMEOUT": "how long a node drain waits for pods, default 10m",
    "PLAT_AUTOSCALER_MAX_NODES": "upper bound of the general node pool",
    "autoscaler.scale_down_delay": "wait before removing an idle node",
    "mesh.retries.per_try_timeout": "timeout per retry attempt in the mesh",
    "ingress.timeouts.read_seconds": "upstream read timeout at the ingress",
    "drain_node_pool": "drains one node pool, respecting disruption budgets",
    "NodePoolReconciler": "keeps node pools in line with the Terraform definition",
    "charts/platform-ingress/values.yaml": "values of the shared ingress chart",
    "terraform/modules/eks-nodegroup/main.tf": "the node group module",
    "terraform/envs/prod/cluster.tf": "the production cluster definition",
    "CrashLoopBackOff": "pod keeps crashing on start",
    "OOMKilled": "container exceeded its memory limit",
}
PROJECTS["search"]["keys"].append("search.index.refresh_interval_ms")
for _pk, _p in PROJECTS.items():
    for _kind in ("envs", "keys", "funcs", "paths", "errors", "flags"):
        for _i in _p.get(_kind, []):
            assert _i in IDENT_DESC, _i


def ident(pkey, kinds=("envs", "keys", "funcs", "paths", "errors")):
    p = PROJECTS[pkey]
    pool = [i for k in kinds for i in p.get(k, [])]
    return rng.choice(pool)


def comp(pkey):
    return rng.choice(PROJECTS[pkey]["comps"])


def cap(s):
    return s[:1].upper() + s[1:]


START = date(2025, 9, 1)
END = date(2026, 6, 30)
SPAN = (END - START).days


def rdate():
    return START + timedelta(days=rng.randrange(SPAN + 1))


def hhmm():
    return f"{rng.randrange(24):02d}:{rng.choice([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]):02d}"


def people_for(pkey, n):
    team = list(team_people(pkey))
    others = [x for x in PEOPLE_NAMES if x not in team]
    picked = rng.sample(team, min(len(team), max(1, n - 1)))
    while len(picked) < n:
        o = rng.choice(others)
        if o not in picked:
            picked.append(o)
    return picked


def mention(name):
    """A person wikilink, sometimes with an alias (first name)."""
    if rng.random() < 0.15:
        return f"[[{name}|{name.split()[0]}]]"
    return f"[[{name}]]"


def alert_name(pkey, c):
    base = "".join(w.capitalize() for w in re.split(r"[ -]", PROJECTS[pkey]["name"] + " " + c) if w)
    return base + rng.choice(["High", "Errors", "Latency", "Saturated", "Down"])


# Lines that only link to a key note; never state its facts.
LINK_ONLY = [
    "Re-read [[2026-04-11 Ledger sync connection pool exhaustion]] before the capacity review.",
    "[[ADR-021 Route ledger sync through PgBouncer]] came up again; no change proposed.",
    "Mentioned [[2026-02-19 Duplicate card charges]] in the retro as an example of a good write-up.",
    "Background for the new joiner: [[2026-03-03 Stale search results after shard rebalance]].",
    "Follow-ups from [[2026-01-27 Token refresh storm]] reviewed briefly; owners unchanged.",
    "[[2026-05-06 Offline queue dropped writes]] was mentioned in the app store review summary.",
    "Finance asked about [[2026-03-31 Month-end close lock timeouts]]; sent them the link.",
    "Shared [[Payments rollback runbook]] with the new on-call engineers.",
    "Read [[ADR-014 Postgres for session storage]] before touching anything session related.",
    "[[Canary deploys on the platform]] could use fresh screenshots.",
    "Pointed a colleague at [[Kafka consumer lag]] for the alert they asked about.",
    "[[Disaster recovery drill]] is on the calendar again for September.",
    "Someone asked where [[Search API load test results]] are; linked it in the channel.",
    "[[ADR-019 Rate limiting at the edge]] numbers were questioned by a merchant; forwarded to product.",
    "Linked [[Ledger error codes]] from the API reference.",
    "[[Idempotency keys]] is linked from the public API docs now.",
    "[[2026-04-10 Staging TLS certificate expired]] mentioned as a reason to check alert coverage.",
    "[[ADR-009 Double-entry ledger with immutable journal]] printed for the auditors' binder.",
    "[[Requesting a feature flag]] should mention the admin console; suggested an edit.",
    "[[Incident severity levels]] table linked from the PagerDuty service description.",
    "[[kctl reconcile]] got a typo fix.",
    "[[ADR-023 Mobile minimum OS versions]] linked from the support macros.",
    "[[Rotate JWT signing keys]] is due again next quarter.",
    "[[Production database access]] linked from the platform help channel topic.",
]

# Notes where a ticket number only appears inside a longer number or ticket.
LONGER_NUMBER = [
    "Reconciled payout batch 7022291 with finance.",
    "Refunded order 51043977 by hand after a chargeback.",
    "Build 20260377 of the mobile app passed the smoke suite.",
    "Ticket OPS-22914 closed as duplicate.",
    "Merchant 3180042 asked for a CSV export.",
    "Trace 56200871 attached to the bug report.",
    "Invoice 9050012 disputed; passed to finance.",
    "Release candidate 4120.3 of the statement exporter tagged.",
    "PR 12070 in the deploy repo merged.",
    "Crash group 88017 is from an old build.",
    "Search job SRCH-770 is unrelated; it was a synonyms request.",
    "PAY-10430 turned out to be a merchant configuration mistake.",
]

# ---- incidents -------------------------------------------------------------------------------

SYMPTOMS = [
    "elevated p99 latency", "a burst of 502s", "OOM kills", "disk pressure", "a stuck deploy",
    "slow cold starts", "a memory leak", "CPU throttling", "DNS resolution failures",
    "webhook delivery delays", "clock skew errors", "a crash loop after deploy",
    "partial outage in eu-west-1", "a cache stampede", "long GC pauses", "log shipping gaps",
    "slow writes", "upstream timeouts", "high error rate", "a noisy neighbour",
]

CAUSES = [
    ("A config change set `{env}` to a new value in production only, while staging kept the old one.",
     "Reverted the change and added a CI check that diffs production and staging values."),
    ("The {c} shared a node pool with a batch job that saturated CPU every hour on the hour.",
     "Moved the {c} to a dedicated node pool with guaranteed CPU."),
    ("A dependency bump pulled in a logging library that serialised every request, doubling the allocation rate.",
     "Pinned the previous version and opened an upstream issue."),
    ("An upstream provider degraded and our client kept calling it with no circuit breaker.",
     "Added a circuit breaker in front of the provider client and a fallback response."),
    ("A missing index on a new column made a hot query scan hundreds of thousands of rows per call.",
     "Added the index concurrently and rewrote the query to use it."),
    ("The {c} cached negative lookups with no expiry, so one bad deploy poisoned the cache until restart.",
     "Negative cache entries now expire after 60 seconds."),
    ("Node clocks drifted after an NTP server was decommissioned, and signature checks started failing.",
     "Pointed nodes at the new time servers and added a clock drift alert."),
    ("A cron schedule written in local time fired twice during the daylight-saving change.",
     "Rewrote every schedule of the service in UTC."),
    ("A feature flag meant for internal users was switched on for everyone.",
     "Switched the flag off and added an audience check to flag reviews."),
    ("The health check called a dependency, so one slow dependency marked every pod unhealthy at once.",
     "Split liveness and readiness; liveness no longer calls dependencies."),
    ("`{func}` swallowed an error and returned an empty result, which callers treated as success.",
     "`{func}` now returns the error; callers handle it explicitly."),
    ("The memory limit was copied from another service's chart; the {c} needs roughly twice that under real traffic.",
     "Raised the memory limit and added an alert at 80% of it."),
    ("Debug logging left on after an investigation filled the node disks with logs from `{func}`.",
     "Turned debug logging off and added a per-pod log volume budget."),
    ("The client timeout in `{path}` was shorter than the server's own deadline, so work was repeated while still running.",
     "Aligned the timeouts so the client always waits longer than the server's deadline."),
    ("After a database failover the {c} kept connections in its connection pool pointed at the old primary until they were recycled.",
     "Connections are now validated on checkout and the connection pool is recycled on failover events."),
    ("A DNS record for the internal endpoint had a one-day TTL and pointed at a retired load balancer.",
     "Lowered the TTL to 60 seconds and removed the stale record."),
    ("A base image update changed the default thread pool size, starving the {c} under load.",
     "Set the pool size explicitly instead of relying on the image default."),
    ("Two deploys of the {c} overlapped and the older one finished last.",
     "Deploys of the same service are now serialised by the pipeline."),
    ("A large tenant's traffic pattern changed overnight and hit a code path that was never exercised.",
     "Added that tenant's traffic shape to the performance suite and fixed the slow path."),
]

IMPACTS = [
    "About {n}% of requests failed during the worst {m} minutes.",
    "Internal users only; no customer impact.",
    "Merchants saw slower responses but no errors.",
    "{n} support contacts; no data was lost.",
    "Degraded for {m} minutes, no data loss.",
    "A handful of merchants noticed; we sent them a summary.",
]

TIMELINE = [
    "Alert `{alert}` fires and pages {p}.",
    "{p} acknowledges and opens the {P} dashboard.",
    "`{metric}` climbs to several times its baseline.",
    "Recent deploys checked: the last {P} release went out {n} hours earlier.",
    "Rolled back the latest release as a precaution; no improvement.",
    "Scaled the {c} from {a} to {b} replicas.",
    "Logs show repeated `{err}` from the {c}.",
    "Suspected the {c2}; ruled out after checking its metrics.",
    "Status page updated.",
    "{p} joins to help.",
    "Checked `{env}`: same value as last week.",
    "Heap profile taken from one {c} pod.",
    "Traffic shifted away from the affected zone.",
    "Mitigation applied; error rate back to baseline.",
    "Incident closed; follow-ups filed.",
]

FOLLOWUPS = [
    "Alert on `{metric}` — {p}",
    "Regression test for `{func}` — {p}",
    "Document `{env}` in the {P} notes — {p}",
    "Dashboard panel for the {c} — {p}",
    "Check the other services for the same pattern — {p}",
    "Write a runbook for the {c} — {p}",
    "Add the scenario to the game day list — {p}",
]

NEAR_TICKETS = {
    "ledger": ["OPS-2219", "OPS-229", "LED-4120", "LED-421", "OPS-2292"],
    "payments": ["PAY-1034", "PAY-104", "PAY-1044", "PAY-1808"],
    "search": ["SRCH-770", "SRCH-177", "SRCH-7"],
    "auth": ["AUTH-3180", "AUTH-381"],
    "mobile": ["MOB-5620", "MOB-526"],
    "pipeline": ["DATA-9050", "DATA-95"],
    "kctl": ["CLI-888", "CLI-8"],
    "platform": ["PLAT-1270", "PLAT-12070", "OPS-2209"],
}
RESERVED_TICKETS = {"OPS-2291", "OPS-2290", "PAY-1043", "PAY-1088", "SRCH-77", "AUTH-318",
                    "MOB-562", "DATA-905", "LED-412", "CLI-88", "PLAT-1207"}
TICKET_RANGE = {"OPS": (1000, 3999), "PAY": (100, 1999), "SRCH": (10, 999), "AUTH": (100, 999),
                "MOB": (100, 999), "DATA": (100, 1999), "LED": (100, 999), "CLI": (10, 299),
                "PLAT": (100, 1999)}
USED_TICKETS = set(RESERVED_TICKETS)


def new_ticket(pkey):
    near = NEAR_TICKETS[pkey]
    while near:
        t = near.pop(0)
        if t not in USED_TICKETS:
            USED_TICKETS.add(t)
            return t
    while True:
        pre = rng.choice(PROJECTS[pkey]["prefixes"])
        lo, hi = TICKET_RANGE[pre]
        t = f"{pre}-{rng.randint(lo, hi)}"
        if t not in USED_TICKETS:
            USED_TICKETS.add(t)
            return t


def fill(s, pkey, c=None):
    p = PROJECTS[pkey]
    c = c or comp(pkey)
    return s.format(
        P=p["name"], c=c, c2=rng.choice([x for x in p["comps"] if x != c]),
        env=rng.choice(p["envs"]), func=rng.choice(p["funcs"]), path=rng.choice(p["paths"]),
        err=rng.choice(p["errors"]), metric=rng.choice(p["metrics"]), key=rng.choice(p["keys"]),
        p=mention(person()), alert=alert_name(pkey, c), n=rng.randint(2, 40), m=rng.randint(5, 90),
        a=rng.randint(2, 6), b=rng.randint(8, 24),
    )


INCIDENT_TITLES = set()


INCIDENT_PROJECTS = [k for k in PKEYS if k != "kctl"]


def gen_incident(i):
    pkey = INCIDENT_PROJECTS[i % len(INCIDENT_PROJECTS)]
    p = PROJECTS[pkey]
    while True:
        d = rdate()
        c = comp(pkey)
        sym = rng.choice(SYMPTOMS)
        title = safe_title(f"{d.isoformat()} {cap(c)} {sym}")
        if title not in INCIDENT_TITLES:
            INCIDENT_TITLES.add(title)
            break
    ticket = new_ticket(pkey)
    owner = rng.choice(team_people(pkey))
    cause, fix = rng.choice(CAUSES)
    sev = rng.choice(["SEV2", "SEV3", "SEV3", "SEV4"])
    t0 = rng.randrange(24 * 60)
    steps = TIMELINE[:2] + rng.sample(TIMELINE[2:-2], rng.randint(3, 8)) + TIMELINE[-2:]
    lines = []
    for s in steps:
        t0 += rng.randint(2, 25)
        lines.append(f"- {(t0 // 60) % 24:02d}:{t0 % 60:02d} — " + fill(s, pkey, c))
    fups = [f"- [{'x' if rng.random() < 0.4 else ' '}] " + fill(f, pkey, c)
            for f in rng.sample(FOLLOWUPS, rng.randint(2, 4))]
    mention_ticket = ticket if rng.random() < 0.6 else None
    summary = (f"The {c} of the {prj(pkey)} showed {sym} for about {rng.randint(6, 150)} minutes. "
               + fill(rng.choice(IMPACTS), pkey, c))
    if mention_ticket:
        summary += f" Tracked as {ticket}."
    extra = ""
    r = rng.random()
    if r < 0.12:
        extra = "\n\n" + rng.choice(LINK_ONLY)
    elif r < 0.17:
        extra = "\n\n" + rng.choice(LONGER_NUMBER)
    body = (
        f"## Summary\n{summary}\n\n## Timeline\nAll times UTC.\n" + "\n".join(lines)
        + f"\n\n## Root cause\n{fill(cause, pkey, c)}\n\n## Resolution\n{fill(fix, pkey, c)}"
        + f"\n\n## Impact\n{fill(rng.choice(IMPACTS), pkey, c)}\n\n## Follow-ups\n" + "\n".join(fups)
        + extra + f"\n\n#incident #{pkey}"
    )
    add_note(
        f"work/incidents/{title}.md",
        [("type", "incident"), ("ticket", ticket), ("date", d.isoformat()), ("severity", sev),
         ("status", rng.choice(["resolved", "resolved", "monitoring"])), ("project", prj(pkey)),
         ("owner", plink(owner)), ("tags", ["incident", pkey])],
        body,
    )


# ---- decisions -------------------------------------------------------------------------------

TECH = [
    ("Redis", "hot-key caching", "ledger payments search auth"), ("gRPC", "internal service calls", None),
    ("OpenTelemetry", "tracing", None), ("Protobuf", "event schemas", "pipeline payments ledger"),
    ("Terraform", "cloud resources", "platform"), ("Argo CD", "deploy sync", "platform"),
    ("SQLite", "local test fixtures", "ledger kctl mobile"), ("ClickHouse", "analytics queries", "pipeline"),
    ("Temporal", "long-running workflows", "payments pipeline"), ("Sentry", "error reporting", None),
    ("structured JSON logs", "application logging", None), ("OpenAPI", "public API contracts", "payments search auth"),
    ("Renovate", "dependency updates", None), ("buf", "protobuf linting", "pipeline payments ledger"),
    ("testcontainers", "integration tests", "ledger payments search auth pipeline"),
    ("pre-commit hooks", "formatting", None), ("semantic versioning", "internal libraries", None),
    ("trunk-based development", "branching", None), ("Kustomize", "environment overlays", "platform"),
    ("Helm", "service packaging", "platform"), ("Prometheus recording rules", "SLO dashboards", None),
    ("mTLS", "service-to-service traffic", "platform auth payments"), ("Debezium", "change data capture", "pipeline"),
    ("dbt", "warehouse models", "pipeline"), ("Kotlin coroutines", "Android background work", "mobile"),
    ("SwiftUI", "new iOS screens", "mobile"), ("Hermes", "the JavaScript engine", "mobile"),
    ("Go 1.22", "the service runtime", "search auth kctl"), ("tokio", "the async runtime", "ledger"),
    ("sqlx", "database access", "ledger"), ("cobra", "command parsing", "kctl"),
    ("goreleaser", "CLI packaging", "kctl"), ("Karpenter", "node provisioning", "platform"),
    ("Istio", "the service mesh", "platform"), ("OPA", "policy checks", "platform auth"),
    ("Loki", "log storage", "platform"), ("Tempo", "trace storage", "platform"),
    ("MinIO", "local object storage", "pipeline search"), ("NATS", "internal notifications", "payments mobile auth"),
    ("Bazel", "monorepo builds", None), ("Detox", "end-to-end tests", "mobile"),
    ("Fastlane", "store uploads", "mobile"), ("zod", "request validation", "payments"),
    ("pydantic", "event validation", "pipeline"), ("tantivy", "the test index", "search"),
]

PROBLEMS = [
    "hand-written configuration that drifts between environments",
    "no tracing across service boundaries",
    "slow CI builds of about {n} minutes",
    "log formats that differ between services",
    "manual steps in every release",
    "integration tests that depend on shared staging data",
    "a library that is no longer maintained",
    "idle capacity we pay for all night",
    "copy-pasted client code in five repositories",
    "alerts nobody can act on",
    "long review queues for routine changes",
    "new engineers needing a week to get a build running",
]

CONSEQ = [
    "Engineers need a short introduction; {p} will run one.",
    "Build time of the {c} should drop by roughly {n}%.",
    "One more dependency to keep up to date.",
    "The old approach stays available for one quarter as a fallback.",
    "Dashboards for the {c} have to be rebuilt.",
    "`{env}` becomes obsolete and will be removed.",
    "Local development needs Docker for one more container.",
    "We accept some lock-in in exchange for less code to maintain.",
    "The {c} team owns the migration; others follow when convenient.",
    "Costs go up slightly until the old setup is switched off.",
]

ALT_REASONS = [
    "more work to operate", "nobody on the team has used it", "licence cost",
    "doesn't fit how we deploy", "good, but too big a change for one quarter",
    "solves a problem we don't have", "weaker community support",
]


def gen_decision(n):
    while True:
        tech, purpose, fit = rng.choice(TECH)
        pkey = rng.choice(fit.split() if fit else PKEYS)
        verb = rng.choice(["Adopt", "Pilot", "Standardise on"])
        title = f"ADR-{n:03d} {verb} {tech} for {purpose} in {PROJECTS[pkey]['name']}"
        title = safe_title(title)
        if not any(stem(x).split(" ", 1)[1:] == title.split(" ", 1)[1:] for x in DECISION_PATHS):
            break
    c = comp(pkey)
    d = rdate()
    owner = rng.choice(team_people(pkey))
    problem = rng.choice(PROBLEMS).format(n=rng.randint(12, 45))
    ctx = rng.choice([
        f"The {c} of the {prj(pkey)} suffers from {problem}.",
        f"Two incidents this quarter traced back to {problem} in the {c}.",
        f"New joiners on the {PROJECTS[pkey]['team']} team keep tripping over {problem}.",
        f"Before the next launch we need to get rid of {problem}.",
    ])
    if rng.random() < 0.4:
        ctx += " " + fill(rng.choice([
            "`{func}` is the part most affected.", "The `{env}` workaround no longer scales.",
            "The `{metric}` graph makes the problem obvious.", "{p} raised it in the last retro.",
        ]), pkey, c)
    alts = rng.sample([t for t in TECH if t[0] != tech and (not t[2] or pkey in t[2].split())], 2)
    body = (
        f"## Context\n{ctx}\n\n## Decision\n"
        + {"Adopt": f"Use {tech} for {purpose} in the {prj(pkey)}, starting with the {c}.",
           "Pilot": f"Try {tech} for {purpose} in the {c} of the {prj(pkey)} for one quarter, then decide.",
           "Standardise on": f"Every component of the {prj(pkey)} uses {tech} for {purpose}; the {c} goes first."}[verb] + (f" {mention(rng.choice(team_people(pkey)))} leads the change." if rng.random() < 0.5 else "")
        + "\n\n## Consequences\n" + "\n".join("- " + fill(x, pkey, c) for x in rng.sample(CONSEQ, rng.randint(2, 4)))
        + "\n\n## Alternatives considered\n"
        + "\n".join(f"- {a[0]}: {rng.choice(ALT_REASONS)}." for a in alts[: rng.randint(1, 2)])
    )
    if rng.random() < 0.1:
        body += "\n\n" + rng.choice(LINK_ONLY)
    DECISION_PATHS.append(add_note(
        f"decisions/{title}.md",
        [("type", "decision"), ("status", rng.choice(["accepted", "accepted", "accepted", "proposed", "superseded", "rejected"])),
         ("date", d.isoformat()), ("project", prj(pkey)), ("owner", plink(owner)),
         ("tags", ["decision", pkey])],
        body,
    ))


DECISION_PATHS = []

# ---- code notes ------------------------------------------------------------------------------

ASPECTS = ["configuration", "internals", "error handling", "metrics", "tests", "local setup", "logging"]
FENCE = {"ledger": "rust", "payments": "ts", "search": "go", "mobile": "ts", "auth": "go",
         "pipeline": "python", "kctl": "go", "platform": "yaml"}


def code_snippet(pkey, func):
    lang = FENCE[pkey]
    name = re.sub(r"\W", "_", func)
    if lang == "rust":
        return f"```rust\npub async fn {name.lower()}(ctx: &Ctx) -> Result<()> {{\n    let cfg = ctx.config();\n    tracing::debug!(batch = cfg.batch_size, \"start\");\n    ctx.run().await\n}}\n```"
    if lang == "ts":
        return f"```ts\nexport async function {name[0].lower() + name[1:]}(ctx: Context): Promise<void> {{\n  const cfg = ctx.config;\n  logger.debug({{ component: \"{name}\" }}, \"start\");\n  await ctx.run(cfg);\n}}\n```"
    if lang == "go":
        return f"```go\nfunc {name[0].upper() + name[1:]}(ctx context.Context, cfg Config) error {{\n\tlog.Debug(\"start\", \"component\", \"{name}\")\n\treturn run(ctx, cfg)\n}}\n```"
    if lang == "python":
        return f"```python\ndef {name.lower()}(ctx):\n    cfg = ctx.config\n    log.debug(\"start\", component=\"{name}\")\n    return ctx.run(cfg)\n```"
    return f"```yaml\n# {func}\nspec:\n  replicas: 3\n  strategy:\n    type: RollingUpdate\n```"


def gen_code(pkey, c, aspect):
    p = PROJECTS[pkey]
    title = f"{p['name']} {c} {aspect}"
    envs = rng.sample(p["envs"], min(len(p["envs"]), rng.randint(2, 3)))
    keys = rng.sample(p["keys"], min(len(p["keys"]), 2))
    funcs = rng.sample(p["funcs"], 2)
    paths = rng.sample(p["paths"], 2)
    intro = rng.choice([
        f"Notes on the {c} of the {prj(pkey)}: {aspect}.",
        f"How the {c} handles {aspect}, collected while working on the {prj(pkey)}.",
        f"Working notes about {aspect} for the {c}. Owner: {mention(rng.choice(team_people(pkey)))}.",
        f"What I keep looking up about the {c} ({aspect}).",
    ])
    parts = [intro]
    if aspect == "configuration":
        rows = "\n".join(f"| `{x}` | {IDENT_DESC[x]} |" for x in envs + keys)
        parts.append(f"## Settings\n| name | meaning |\n|---|---|\n{rows}")
        parts.append("```sh\n" + "\n".join(f"export {e}=..." for e in envs) + "\n```")
    elif aspect == "internals":
        parts.append(f"## Structure\nThe entry point is `{funcs[0]}` in `{paths[0]}` ({IDENT_DESC[paths[0]]}); "
                     f"it hands work to `{funcs[1]}`, which {IDENT_DESC[funcs[1]]}.")
        parts.append(code_snippet(pkey, funcs[0]))
    elif aspect == "error handling":
        errs = rng.sample(p["errors"], min(2, len(p["errors"])))
        parts.append("## Errors\n" + "\n".join(f"- `{e}`: {IDENT_DESC[e]}." for e in errs))
        parts.append(f"Errors from `{funcs[0]}` are wrapped with context before they reach the caller; "
                     f"timeouts are controlled by `{envs[0]}`.")
    elif aspect == "metrics":
        parts.append("## Metrics\n" + "\n".join(f"- `{m}`" for m in p["metrics"]))
        parts.append(f"```promql\nhistogram_quantile(0.99, sum by (le) (rate({p['metrics'][0]}_bucket[5m])))\n```")
    elif aspect == "tests":
        parts.append(f"## Running\n`make test-{p['ns']}` runs the unit tests; the {c} integration tests need "
                     f"`{envs[0]}` set and Docker running. Fixtures live next to `{paths[0]}`.")
        parts.append(f"Tests around `{funcs[0]}` use a fake clock; don't sleep in them.")
    elif aspect == "local setup":
        parts.append("## Steps\n1. `make dev` starts the dependencies.\n"
                     f"2. Export `{envs[0]}` and `{envs[-1]}`.\n3. Run the {c} with `make run-{p['ns']}`.")
        parts.append(f"If it fails on start, check `{keys[0]}` ({IDENT_DESC[keys[0]]}).")
    else:  # logging
        parts.append(f"## Log fields\n- `component` = `{funcs[0]}`\n- `tenant`, `request_id`\n"
                     f"- errors carry their code, for example `{rng.choice(p['errors'])}`")
        parts.append(f"Raise verbosity for the {c} only, never globally; `{funcs[1]}` is very chatty at debug level.")
    if rng.random() < 0.3:
        parts.append(f"Related: [[{p['name']}#Key notes]].")
    if rng.random() < 0.08:
        parts.append(rng.choice(LINK_ONLY))
    add_note(
        f"code/{pkey}/{safe_title(title)}.md",
        [("type", "code"), ("project", prj(pkey)), ("tags", ["code", pkey])],
        "\n\n".join(parts),
    )


# ---- runbooks --------------------------------------------------------------------------------

ACTIONS = [
    ("Restart the {c}", ["`kctl rollout restart {svc}` restarts pods one at a time.",
                         "Watch `{metric}` until it returns to normal.",
                         "If pods don't become ready within five minutes, check the events with `kubectl -n {ns} get events`."]),
    ("Scale the {c}", ["Edit the replica count in the Helm values of `{svc}`.",
                       "For an emergency, `kctl scale {svc} --replicas N` works until the next deploy.",
                       "Check `{env}` still makes sense for the new size."]),
    ("Clear the {c} cache", ["Run `kctl exec {svc} -- cache flush --component \"{c}\"`.",
                             "Expect higher latency for a few minutes while the cache warms.",
                             "Never flush during the evening peak."]),
    ("Replay dead-lettered messages", ["List them with `kctl dlq list {svc}`.",
                                       "Fix the cause first; replaying into the same bug only refills the queue.",
                                       "Replay with `kctl dlq replay {svc} --limit 100` and watch `{metric}`."]),
    ("Collect a heap profile from the {c}", ["Pick one pod with high memory.",
                                             "`kctl debug profile {svc} --heap --pod <name>` saves the profile locally.",
                                             "Attach it to the ticket, not to Slack."]),
    ("Recover from a full disk", ["Find the node with `kubectl top nodes` and the pod writing most logs.",
                                  "Lower log verbosity of the {c} first.",
                                  "Only then clean up old files; never delete volumes by hand."]),
    ("Re-run a failed job", ["Find the run id in the job dashboard.",
                             "`kctl jobs rerun {svc} <run-id>` resumes from the last checkpoint.",
                             "If it fails again with `{err}`, escalate to the owning team."]),
    ("Inspect slow requests in the {c}", ["Open the traces view filtered on the {c}.",
                                          "Sort by duration and compare the slowest spans with `{func}`.",
                                          "Check `{env}` if timeouts dominate."]),
    ("Rotate the {c} credentials", ["Create the new credential in the provider console.",
                                    "Update it in the configuration and roll the pods.",
                                    "Revoke the old one after a day."]),
    ("Pause the {c}", ["Set the replicas of the {c} to zero through the Helm values.",
                       "Tell the owning team in their channel.",
                       "Resume by reverting the change; backlog is processed in order."]),
]
RUNBOOK_TITLES = set()


def gen_runbook():
    while True:
        pkey = rng.choice(PKEYS)
        p = PROJECTS[pkey]
        c = comp(pkey)
        act, steps = rng.choice(ACTIONS)
        title = safe_title(f"Runbook - {act.format(c=c)} ({p['name']})")
        if title not in RUNBOOK_TITLES:
            RUNBOOK_TITLES.add(title)
            break
    fmt = dict(c=c, svc=p["svc"], ns=p["ns"], metric=rng.choice(p["metrics"]), env=rng.choice(p["envs"]),
               err=rng.choice(p["errors"]), func=rng.choice(p["funcs"]))
    body = (f"When to use: the {c} of the {prj(pkey)} needs manual attention.\n\n## Steps\n"
            + "\n".join(f"{i}. {s.format(**fmt)}" for i, s in enumerate(steps, 1))
            + f"\n\nOwner: {mention(rng.choice(team_people(pkey)))}")
    add_note(f"runbooks/{title}.md",
             [("type", "runbook"), ("project", prj(pkey)), ("tags", ["runbook", pkey])], body)


# ---- meetings --------------------------------------------------------------------------------

MTYPES = ["weekly sync", "standup", "retro", "design review", "sprint planning", "ops review",
          "backlog grooming", "demo"]
AGENDA = [
    "Status of the {c}", "Open incidents", "Next release", "Hiring", "Tech debt list",
    "Alert noise", "Roadmap check-in", "Dependencies on other teams", "Cost review",
    "Test coverage of the {c}", "On-call feedback", "Migration plan for the {c}",
]
MNOTES = [
    "{p} reported that the {c} is stable since the last release.",
    "`{metric}` is trending up slowly; nobody is worried yet.",
    "Discussed whether `{env}` should move into the config file; no conclusion.",
    "The {c} refactor is about {n}% done.",
    "{p} wants fewer pages at night; most come from the {c}.",
    "`{err}` shows up in the logs a few times a day; probably harmless, to be confirmed.",
    "Next release is on track; release notes drafted by {p}.",
    "Test suite for the {c} takes {n} minutes; goal is under 10.",
    "Agreed to delete the unused `{func}` code path next sprint.",
    "{p} is out next week; {q} covers reviews.",
    "Cost of the {c} went down after the node changes.",
    "Dependency upgrades: two minor versions behind, nothing urgent.",
    "Customer feedback on the {c} mostly positive; two bug reports filed.",
    "The retry and timeout settings of the {c} were reviewed; no changes.",
    "Talked about moving `{path}` into its own module.",
    "Ticket {ticket} reviewed; waiting on another team.",
    "Sync lag and timeout graphs look normal this week.",
    "Connection pool and timeout settings of the {c} reviewed; nothing to change.",
    "{p} demoed the new {c} dashboard.",
]
MDECISIONS = [
    "Agreed: the {c} gets a named owner.",
    "Agreed: no new features in the {c} until the test suite is faster.",
    "Agreed: `{env}` stays an environment variable.",
    "Agreed: remove `{func}` once callers have moved.",
    "Agreed: the next retro is async.",
]
MACTIONS = [
    "{p} to write up the {c} proposal",
    "{p} to check `{metric}` after the release",
    "{p} to clean up `{path}`",
    "{p} to follow up on {ticket}",
    "{p} to book the design review",
    "{p} to update the {P} notes",
    "{p} to ask the platform team about node sizes",
]
MEETING_TITLES = set()


def some_ticket(pkey):
    pre = rng.choice(PROJECTS[pkey]["prefixes"])
    lo, hi = TICKET_RANGE[pre]
    while True:
        t = f"{pre}-{rng.randint(lo, hi)}"
        if t not in RESERVED_TICKETS:
            return t


def gen_meeting():
    while True:
        pkey = rng.choice(PKEYS)
        d = rdate()
        mt = rng.choice(MTYPES)
        title = f"{d.isoformat()} {PROJECTS[pkey]['name']} {mt}"
        if title not in MEETING_TITLES:
            MEETING_TITLES.add(title)
            break
    att = people_for(pkey, rng.randint(3, 6))

    def f(s):
        c = comp(pkey)
        s = s.replace("{q}", mention(rng.choice(att))).replace("{ticket}", some_ticket(pkey))
        return fill(s.replace("{p}", mention(rng.choice(att))), pkey, c)

    notes = [f(x) for x in rng.sample(MNOTES, rng.randint(3, 7))]
    if rng.random() < 0.12:
        notes.append(rng.choice(LINK_ONLY))
    if rng.random() < 0.04:
        notes.append(rng.choice(LONGER_NUMBER))
    body = ("Attendees: " + ", ".join(mention(a) for a in att) + "\n\n## Agenda\n"
            + "\n".join(f"{i}. {fill(a, pkey)}" for i, a in enumerate(rng.sample(AGENDA, rng.randint(2, 4)), 1))
            + "\n\n## Notes\n" + "\n".join("- " + n for n in notes))
    if rng.random() < 0.5:
        body += "\n\n## Decisions\n" + "\n".join("- " + f(x) for x in rng.sample(MDECISIONS, rng.randint(1, 2)))
    body += "\n\n## Action items\n" + "\n".join(
        f"- [{'x' if rng.random() < 0.3 else ' '}] " + f(x) for x in rng.sample(MACTIONS, rng.randint(2, 4)))
    add_note(
        f"meetings/{d.year}/{title}.md",
        [("type", "meeting"), ("date", d.isoformat()), ("project", prj(pkey)),
         ("attendees", [f"[[{a}]]" for a in att]), ("tags", ["meeting", pkey])],
        body,
    )


# ---- 1-1s, journal, work items ---------------------------------------------------------------

ONE_TOPICS = [
    "Wants more ownership of the {c}.", "Feels the on-call load is fair this month.",
    "Interested in speaking at the internal tech talk.", "Asked about the promotion criteria.",
    "Frustrated by slow reviews on the {c}.", "Would like to pair more with {q}.",
    "Planning two weeks of holiday in August.", "Finished the course on distributed systems.",
    "Raised that `{env}` is undocumented.", "Proud of the fix for {ticket}.",
    "Wants to mentor the next new joiner.", "Unsure about priorities between the {c} and support work.",
]
ONE_FEEDBACK = [
    "Great incident write-up last week.", "Design doc for the {c} was clear and short.",
    "Could say no more often to side requests.", "Code reviews are thorough; keep them kind.",
    "Ask for help earlier when blocked.", "Good job keeping stakeholders informed.",
]
ONE_TITLES = set()


def gen_one_on_one():
    while True:
        who = rng.choice(PEOPLE_NAMES)
        d = rdate()
        title = f"{who} {d.isoformat()}"
        if title not in ONE_TITLES:
            ONE_TITLES.add(title)
            break
    pkey = next((k for k, v in PROJECTS.items() if v["team"] == TEAM_OF[who]), rng.choice(PKEYS))

    def f(s):
        s = s.replace("{q}", mention(person())).replace("{ticket}", some_ticket(pkey))
        return fill(s, pkey)

    body = (f"1-1 with {mention(who)}.\n\n## Talking points\n"
            + "\n".join("- " + f(x) for x in rng.sample(ONE_TOPICS, rng.randint(2, 4)))
            + "\n\n## Feedback\n" + "\n".join("- " + f(x) for x in rng.sample(ONE_FEEDBACK, rng.randint(1, 2)))
            + "\n\n## Action items\n" + f"- [ ] {f(rng.choice(MACTIONS))}")
    add_note(f"work/1-1/{title}.md",
             [("type", "one-on-one"), ("date", d.isoformat()), ("person", plink(who)), ("tags", ["1-1"])],
             body)


DAILY = [
    "Paired with {p} on the {c}.", "Reviewed a PR touching `{path}`.",
    "Chased `{err}` in the {c}; turned out to be test data.", "Read up on `{func}` before changing it.",
    "Quiet on-call shift; one page for the {c}, auto-resolved.", "Wrote tests for `{func}`.",
    "Bumped `{env}` in staging to try something; reverted.", "Answered questions about the {c} in the team channel.",
    "Spent the afternoon on {ticket}.", "Tidied up the {P} notes.", "Dashboards for `{metric}` updated.",
    "Timeout and retry settings of the {c} compared between environments; all consistent.",
    "Looked at the connection pool metrics of the {c}; nothing unusual.",
]
DAILY_DATES = set()


def gen_daily():
    while True:
        d = rdate()
        if d not in DAILY_DATES:
            DAILY_DATES.add(d)
            break
    lines = []
    for s in rng.sample(DAILY, rng.randint(3, 7)):
        pkey = rng.choice(PKEYS)
        lines.append("- " + fill(s.replace("{ticket}", some_ticket(pkey)), pkey))
    if rng.random() < 0.08:
        lines.append("- " + rng.choice(LINK_ONLY))
    if rng.random() < 0.05:
        lines.append("- " + rng.choice(LONGER_NUMBER))
    tasks = []
    for _ in range(rng.randint(1, 3)):
        pkey = rng.choice(PKEYS)
        t = rng.choice(MACTIONS).replace("{p} to ", "").replace("{ticket}", some_ticket(pkey))
        tasks.append(f"- [{'x' if rng.random() < 0.5 else ' '}] " + cap(fill(t, pkey)))
    add_note(f"journal/{d.isoformat()}.md", [("type", "daily"), ("date", d.isoformat()), ("tags", ["daily"])],
             "## Log\n" + "\n".join(lines) + "\n\n## Tasks\n" + "\n".join(tasks))


INITIATIVES = [
    "Upgrade the {c} to the new SDK", "Reduce {c} p99 latency", "Split the {c} into its own deployment",
    "Add tracing to the {c}", "Retire the legacy {c} endpoint", "Document the {c}",
    "Cut {c} cloud cost", "Make the {c} tests hermetic",
]
WORK_TITLES = set()


def gen_work():
    while True:
        pkey = rng.choice(PKEYS)
        c = comp(pkey)
        ini = rng.choice(INITIATIVES).format(c=c)
        title = safe_title(f"{PROJECTS[pkey]['name']} - {ini}")
        if title not in WORK_TITLES:
            WORK_TITLES.add(title)
            break
    owner = rng.choice(team_people(pkey))
    body = (f"## Goal\n{ini} in the {prj(pkey)}.\n\n## Status\n"
            + fill(rng.choice([
                "About {n}% done; blocked on a review from {p}.", "Not started; waiting for the next planning.",
                "In progress; the `{func}` part is done.", "Paused while the team handles on-call work.",
                "Nearly done; only `{path}` is left.",
            ]), pkey, c)
            + "\n\n## Next steps\n" + "\n".join(
                f"- [ ] " + fill(x, pkey, c) for x in rng.sample([
                    "Measure `{metric}` before and after", "Update `{env}` defaults", "Write the rollout plan",
                    "Ask {p} for a review", "Remove `{func}`", "Announce in the team channel"], rng.randint(2, 3)))
            + f"\n\nOwner: {mention(owner)} · see [[{PROJECTS[pkey]['name']}#Key notes|project key notes]]")
    add_note(f"work/active/{title}.md",
             [("type", "work"), ("status", rng.choice(["active", "active", "paused", "done"])),
              ("project", prj(pkey)), ("owner", plink(owner)), ("due", rdate().isoformat()),
              ("tags", ["work", pkey])], body)


# ---- memories and sessions -------------------------------------------------------------------

CMDS = ["make lint", "make fmt-check", "make test-fast", "make audit-deps", "make proto-check",
        "make docs", "kctl doctor", "make e2e-local", "make bench-smoke", "make licenses",
        "make openapi-lint", "make sbom"]
EVENTS = ["pushing a release tag", "opening a PR against main", "bumping a dependency",
          "editing protobuf files", "changing CI workflows", "cutting a hotfix branch",
          "touching the Helm charts", "publishing a kctl release", "updating the Go toolchain",
          "merging a dependency bump"]
WHYS = ["CI runs the same check but takes far longer", "the pre-push hook doesn't cover it",
        "reviewers will ask for it anyway", "it catches in a minute what CI finds after twenty"]
PREFS = [("short PR summaries", "review requests with a two-line summary on top"),
         ("async updates", "async written updates over status meetings"),
         ("small PRs", "small PRs, ideally under 300 lines"),
         ("ticket mentions", "being tagged in the ticket rather than messaged directly"),
         ("rollout plans", "design docs that end with a rollout plan"),
         ("screenshots in PRs", "screenshots in every UI pull request"),
         ("recorded demos", "short recorded demos instead of live ones"),
         ("heads-up before refactors", "a heads-up before big refactors in their area")]
ANTI = [("log full request bodies", "they can contain personal data"),
        ("add cron jobs without an owner", "nobody notices when they stop"),
        ("call other services inside a database transaction", "it holds row locks for the whole call"),
        ("bump the base image on a Friday", "nobody is around when it breaks"),
        ("hard-code region names", "the second region is coming"),
        ("add config sections without defaults", "old pods crash on start")]
REQS = [("Docker with 6 GB", "Docker running with at least 6 GB of memory"),
        ("a fresh db-reset", "a fresh `make db-reset` after switching branches"),
        ("the VPN off", "the VPN switched off (the fixtures resolve to local addresses)"),
        ("single-threaded runs", "`--test-threads=1`, because the fixtures share one database")]
USE_INSTEAD = [("kctl logs", "kubectl logs", "it follows pods across restarts"),
               ("make dev", "docker compose up", "it also seeds the fixtures"),
               ("kctl port-forward", "kubectl port-forward", "it reconnects when the pod restarts"),
               ("kctl exec", "kubectl exec", "it picks a ready pod for you"),
               ("make test-fast", "make test", "it skips the slow container tests locally")]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MEMORY_TITLES = set()


def gen_memory():
    for _ in range(1000):
        kind = rng.randrange(9)
        pkey = rng.choice(PKEYS)
        p = PROJECTS[pkey]
        if kind == 0:
            cmd, ev, why = rng.choice(CMDS), rng.choice(EVENTS), rng.choice(WHYS)
            title, text = f"Run {cmd} before {ev}", f"Always run `{cmd}` before {ev}; {why}."
        elif kind == 1:
            env = rng.choice(p["envs"])
            title = f"{env} needs a restart"
            text = (f"`{env}` ({IDENT_DESC[env]}) is read once at start-up in {prj(pkey)}; changing it "
                    "needs a rolling restart, not a config reload.")
        elif kind == 2:
            who = rng.choice(PEOPLE_NAMES)
            short, long = rng.choice(PREFS)
            title, text = f"{who} prefers {short}", f"{mention(who)} prefers {long}."
        elif kind == 3:
            c = comp(pkey)
            title = f"{p['name']} {c} dashboard location"
            text = f"The {c} dashboard for {prj(pkey)} is in the {p['team']} folder in Grafana, not in the shared one."
        elif kind == 4:
            a, why = rng.choice(ANTI)
            title, text = f"Don't {a} in {p['name']}", f"Don't {a} in {prj(pkey)}: {why}."
        elif kind == 5:
            short, long = rng.choice(REQS)
            title, text = f"{p['name']} integration tests need {short}", f"Integration tests for {prj(pkey)} need {long}."
        elif kind == 6:
            a, b, why = rng.choice(USE_INSTEAD)
            title = f"Use {a} instead of {b} for {p['name']}"
            text = f"Use `{a}` instead of `{b}` when working on {prj(pkey)}; {why}."
        elif kind == 7:
            c, day = comp(pkey), rng.choice(WEEKDAYS)
            title = f"{p['name']} {c} alerts on {day}s"
            text = (f"The {c} alerts of {prj(pkey)} fire every {day} around {rng.randint(1, 6):02d}:00 UTC "
                    "because of the weekly batch; acknowledge and ignore unless they last an hour.")
        else:
            x = ident(pkey, ("envs", "keys"))
            title = f"{x} default"
            text = f"`{x}`: {IDENT_DESC[x]}. Ask {mention(rng.choice(team_people(pkey)))} before changing it."
        title = safe_title(title)
        if title not in MEMORY_TITLES:
            MEMORY_TITLES.add(title)
            break
    d = rdate()
    add_note(f"memories/{title}.md", [("type", "memory"), ("date", d.isoformat()), ("tags", ["memory", pkey])], text)


SESSIONS = [
    ("How do I run the {P} locally?",
     "`make dev` in the {ns} repository starts it with Docker Compose. Export `{env}` first or it falls back to its default."),
    ("Where are the metrics for the {c}?", "Grafana, {team} folder, dashboard \"{c}\". The main series is `{metric}`."),
    ("Why does `{func}` log a warning at start-up?",
     "It warns when `{env}` isn't set and uses the default ({envdesc}). Harmless locally."),
    ("What does `{err}` mean?", "{errdesc}. It comes from the {c}."),
    ("Is the {P} end-to-end suite flaky on CI?",
     "The {c} tests time out on shared runners now and then. Rerun once; if it fails again ping {p}."),
    ("How do I tail logs for the {c}?", "`kctl logs {svc} --since 30m --follow`, and `--grep` to filter."),
    ("How do I reset my local {P} database?", "`make db-reset` drops it and reseeds from the fixtures in `testdata/`."),
    ("Where is `{env}` set in production?",
     "In the Helm values of `{svc}` under `env:`; changes go through a PR to the deploy repository."),
    ("Who reviews changes to the {c}?", "{p} or {q}; CODEOWNERS enforces it."),
    ("What's the difference between `{id1}` and `{id2}`?", "`{id1}`: {d1}. `{id2}`: {d2}."),
    ("How do I get a heap profile from the {c}?", "`kctl debug profile {svc} --heap`; it writes the file to the current directory."),
    ("Can I bump a dependency in the {P}?", "Yes, run `{cmd}` first and mention it in the {team} channel."),
    ("Why is the {c} slow on my laptop the first time?", "It builds its cache on first start; the second start takes seconds."),
    ("Where does `{path}` get its configuration?", "From `{key}` ({keydesc}) in the service config, loaded at start-up."),
    ("Which timeout applies when the {c} calls another service?",
     "The client timeout in `{path}`; `{env}` overrides it. Keep it longer than the server's own deadline."),
]
SESSION_PATHS = set()


def gen_session():
    while True:
        d = rdate()
        stamp = f"{d.isoformat()}-{rng.randrange(7, 23):02d}{rng.randrange(60):02d}"
        if f"sessions/{stamp}.md" not in NOTES and stamp not in SESSION_PATHS:
            SESSION_PATHS.add(stamp)
            break
    while True:
        pkey = rng.choice(PKEYS)
        q, a = rng.choice(SESSIONS)
        if "flaky" in q and pkey == "ledger":
            continue
        break
    p = PROJECTS[pkey]
    c = comp(pkey)
    env = rng.choice(p["envs"])
    err = rng.choice(p["errors"])
    key = rng.choice(p["keys"])
    id1, id2 = rng.sample(p[rng.choice(["envs", "keys", "funcs"])], 2)
    team_ = team_people(pkey)
    fmt = dict(P=p["name"], ns=p["ns"], env=env, envdesc=IDENT_DESC[env], c=c, team=p["team"],
               metric=rng.choice(p["metrics"]), func=rng.choice(p["funcs"]), err=err,
               errdesc=cap(IDENT_DESC[err]), p=mention(rng.choice(team_)), q=mention(rng.choice(team_)),
               svc=p["svc"], id1=id1, id2=id2, d1=IDENT_DESC[id1], d2=IDENT_DESC[id2],
               cmd=rng.choice(CMDS), path=rng.choice(p["paths"]), key=key, keydesc=IDENT_DESC[key])
    add_note(f"sessions/{stamp}.md",
             [("type", "session"), ("date", d.isoformat()), ("agent", rng.choice(["claude-code", "codex", "gemini"])),
              ("project", prj(pkey)), ("tags", ["session"])],
             f"Q: {q.format(**fmt)}\n\nA: {a.format(**fmt)}")


def generate_filler():
    for i in range(224):
        gen_incident(i)
    for n in range(26, 226):
        gen_decision(n)
    combos = [(k, c, a) for k in PKEYS for c in PROJECTS[k]["comps"] for a in ASPECTS]
    for k, c, a in rng.sample(combos, 300):
        gen_code(k, c, a)
    for _ in range(100):
        gen_runbook()
    for _ in range(420):
        gen_meeting()
    for _ in range(150):
        gen_one_on_one()
    for _ in range(290):
        gen_daily()
    for _ in range(120):
        gen_work()
    for _ in range(480):
        gen_memory()
    for _ in range(400):
        gen_session()


# ----------------------------------------------------------------------------------------------
# Queries: hand-written, with graded judgments (2 = answers it, 1 = clearly useful related note)
# ----------------------------------------------------------------------------------------------

PRIYA, FATIMA, SOFIA, BEN = (PERSON["Priya Raman"], PERSON["Fatima Zahra"], PERSON["Sofia Marchetti"],
                             PERSON["Ben Carter"])
QUERIES = []


def Q(category, text, rel, exact=(), body_free=()):
    """`exact`: strings that must occur (case-sensitive, not inside a longer identifier) only in
    judged notes; `body_free`: tickets that must appear in the frontmatter but not the body."""
    QUERIES.append(dict(category=category, text=text, rel=rel, exact=list(exact), body_free=list(body_free)))


# identifier
Q("identifier", "LEDGER_SYNC_MAX_CONNS", {C_LEDGER_ENV: 2, K_OPS2291: 1}, ["LEDGER_SYNC_MAX_CONNS"])
Q("identifier", "retryWithBackoff jitter", {C_BACKOFF: 2}, ["retryWithBackoff"])
Q("identifier", "E_LEDGER_LOCK_TIMEOUT", {K_LEDERR: 2, K_LED412: 2}, ["E_LEDGER_LOCK_TIMEOUT"])
Q("identifier", "payments.retry.max_attempts", {C_PAYRETRY: 2, D_RETRIES: 1}, ["payments.retry.max_attempts"])
Q("identifier", "src/ledger/sync/pool.rs", {C_POOL: 2}, ["src/ledger/sync/pool.rs"])
Q("identifier", "LedgerSyncWorker shutdown", {C_LSW: 2}, ["LedgerSyncWorker"])
Q("identifier", "--dry-run-ledger", {C_KCTL_RECON: 2}, ["--dry-run-ledger"])
Q("identifier", "AUTH_SESSION_TTL_SECONDS", {C_AUTHCFG: 2}, ["AUTH_SESSION_TTL_SECONDS"])
Q("identifier", "search.index.refresh_interval", {D_REFRESH: 2}, ["search.index.refresh_interval"])
Q("identifier", "BackfillPartitionJob", {K_BACKFILL: 2, K_DATA905: 1}, ["BackfillPartitionJob"])
Q("identifier", "E_PAY_IDEMPOTENCY_CONFLICT", {K_IDEMP: 2, K_PAY1043: 1}, ["E_PAY_IDEMPOTENCY_CONFLICT"])
Q("identifier", "useOfflineQueue hook", {K_OFFLINEQ: 2, K_MOB562: 1}, ["useOfflineQueue"])
Q("identifier", "CANARY_ABORT_ERROR_RATE", {C_CANARY: 2, R_CANARY: 1, K_PLAT1207: 1}, ["CANARY_ABORT_ERROR_RATE"])
Q("identifier", "SEARCH_DEBUG_EXPLAIN", {SS_EXPLAIN: 2}, ["SEARCH_DEBUG_EXPLAIN"])
Q("identifier", "pg_advisory_xact_lock", {K_ADR021: 2}, ["pg_advisory_xact_lock"])

# ticket
Q("ticket", "OPS-2291", {K_OPS2291: 2, K_ADR021: 1}, ["OPS-2291"])
Q("ticket", "what happened in PAY-1043", {K_PAY1043: 2, K_IDEMP: 1}, ["PAY-1043"])
Q("ticket", "SRCH-77", {K_SRCH77: 2}, ["SRCH-77"])
Q("ticket", "AUTH-318 postmortem", {K_AUTH318: 2}, ["AUTH-318"], body_free=["AUTH-318"])
Q("ticket", "MOB-562", {K_MOB562: 2}, ["MOB-562"], body_free=["MOB-562"])
Q("ticket", "DATA-905 root cause", {K_DATA905: 2}, ["DATA-905"])
Q("ticket", "PLAT-1207", {K_PLAT1207: 2}, ["PLAT-1207"], body_free=["PLAT-1207"])
Q("ticket", "LED-412 month-end close", {K_LED412: 2}, ["LED-412"])
Q("ticket", "OPS-2290", {K_OPS2290: 2}, ["OPS-2290"])
Q("ticket", "CLI-88 kctl", {K_CLI88: 2}, ["CLI-88"], body_free=["CLI-88"])

# question
Q("question", "how did we fix the ledger sync connection exhaustion?", {K_OPS2291: 2, K_ADR021: 1, C_POOL: 1, C_LEDGER_ENV: 1})
Q("question", "why did we choose Postgres over DynamoDB for sessions?", {D_SESSIONS: 2})
Q("question", "who owns the payments gateway on-call rotation?", {F_ONCALL: 2, PRIYA: 2})
Q("question", "what was the root cause of the duplicate card charges?", {K_PAY1043: 2, K_IDEMP: 1})
Q("question", "why is the search index refresh interval 30 seconds?", {D_REFRESH: 2})
Q("question", "how do I rotate the JWT signing keys?", {R_JWT: 2, BEN: 1})
Q("question", "what is the rollback procedure for a bad payments deploy?", {R_ROLLBACK: 2})
Q("question", "what minimum iOS and Android versions does the mobile app support?", {D_MINOS: 2})
Q("question", "why did the month-end close fail with lock timeouts?", {K_LED412: 2, K_LEDERR: 1})
Q("question", "which team owns data pipeline backfills?", {PROJECT_NOTE["pipeline"]: 2, K_BACKFILL: 1})
Q("question", "how long is an auth session valid before the user has to sign in again?", {C_AUTHCFG: 2})
Q("question", "what follow-ups came out of the stale search results incident?", {K_SRCH77: 2})
Q("question", "how do I get read access to a production database?", {R_DBACCESS: 2, MM_PRODACCESS: 1})
Q("question", "why did we move CI from Jenkins to GitHub Actions?", {D_CI: 2})
Q("question", "how does a canary deploy get promoted or aborted?", {R_CANARY: 2, C_CANARY: 1, K_PLAT1207: 1})
Q("question", "what caused the mobile offline queue to drop writes?", {K_MOB562: 2, K_OFFLINEQ: 1})
Q("question", "how did we stop the token refresh storm?", {K_AUTH318: 2})
Q("question", "what is the maximum request body size allowed through the ingress?", {C_INGRESS: 2})
Q("question", "who should I ask about Kafka consumer lag in the data pipeline?", {FATIMA: 2, R_KAFKA: 2})
Q("question", "what did we agree about sharding in the ledger Q2 planning meeting?", {M_LEDGERQ2: 2})
Q("question", "when is the PCI audit and who is preparing the evidence?", {M_PCI: 2})
Q("question", "how do I request a new feature flag?", {F_FLAGS: 2})
Q("question", "what throughput did the search API sustain in the load test?", {F_LOADTEST: 2})
Q("question", "how do I point kctl at the staging cluster?", {C_KCTLCTX: 2})
Q("question", "why are ledger journal entries never updated or deleted?", {D_DOUBLE: 2})
Q("question", "what happened with the expired TLS certificate on staging?", {K_OPS2290: 2})
Q("question", "what are the open action items from the auth architecture review?", {M_AUTHREVIEW: 2})
Q("question", "how many times do we retry a failed card payment?", {C_PAYRETRY: 2, D_RETRIES: 2})
Q("question", "how long did the last disaster recovery drill take to restore the ledger database?", {R_DR: 2})
Q("question", "who is the tech lead for the search API?", {SOFIA: 2, PROJECT_NOTE["search"]: 2})
Q("question", "what counts as a SEV1 incident?", {F_SEV: 2})
Q("question", "why did the search API canary sit at 10 percent for hours?", {K_PLAT1207: 2})
Q("question", "what did we change after the kctl release couldn't be opened on macOS?", {K_CLI88: 2})

# keyword
Q("keyword", "rollback runbook", {R_ROLLBACK: 2})
Q("keyword", "rate limiting", {D_RATE: 2})
Q("keyword", "canary deploy", {R_CANARY: 2, C_CANARY: 1, K_PLAT1207: 1})
Q("keyword", "feature flag request", {F_FLAGS: 2})
Q("keyword", "JWT key rotation", {R_JWT: 2, BEN: 1})
Q("keyword", "PCI audit", {M_PCI: 2})
Q("keyword", "load test results", {F_LOADTEST: 2})
Q("keyword", "onboarding checklist", {F_ONBOARD: 2, J_ONBOARD: 1})
Q("keyword", "incident severity levels", {F_SEV: 2})
Q("keyword", "on-call handoff", {F_HANDOFF: 2})
Q("keyword", "kafka consumer lag", {R_KAFKA: 2, FATIMA: 1})
Q("keyword", "pgbouncer transaction pooling", {K_ADR021: 2, K_OPS2291: 1, C_POOL: 1, C_LEDGER_ENV: 1})
Q("keyword", "disaster recovery drill", {R_DR: 2})
Q("keyword", "idempotency keys", {K_IDEMP: 2, K_PAY1043: 1})

# paraphrase: different words from the answer note
Q("paraphrase", "the service kept running out of database connections", {K_OPS2291: 2, K_ADR021: 1, C_POOL: 1})
Q("paraphrase", "customers were billed twice for one order", {K_PAY1043: 2, K_IDEMP: 1})
Q("paraphrase", "people kept getting logged out of the app", {K_AUTH318: 2})
Q("paraphrase", "why can't we ship builds for older iPhones anymore", {D_MINOS: 2})
Q("paraphrase", "how do we guarantee money movements always balance", {D_DOUBLE: 2})
Q("paraphrase", "search was returning old versions of documents", {K_SRCH77: 2})
Q("paraphrase", "phones lost edits made without a signal", {K_MOB562: 2, K_OFFLINEQ: 1})
Q("paraphrase", "gradually shifting traffic to a new version of a service", {R_CANARY: 2, C_CANARY: 1})
Q("paraphrase", "stop a single client from hammering our public API", {D_RATE: 2})
Q("paraphrase", "where should service passwords and API keys be stored", {D_SECRETS: 2})
Q("paraphrase", "warehouse showed every event two times after reprocessing old data", {K_DATA905: 2})
Q("paraphrase", "which engineer knows the event streaming backlog stuff", {FATIMA: 2, R_KAFKA: 1})
Q("paraphrase", "undo a bad release of the card processing service", {R_ROLLBACK: 2})
Q("paraphrase", "how big can an uploaded file be before the load balancer rejects it", {C_INGRESS: 2})

# cjk
Q("cjk", "新人オンボーディングの初日にやること", {J_ONBOARD: 2})
Q("cjk", "上线前需要检查什么", {Z_DEPLOY: 2})
Q("cjk", "kctl release verify 是做什么的", {Z_DEPLOY: 2}, ["kctl release verify"])
Q("cjk", "PAY-1088 の障害の原因は？", {K_PAY1088_JA: 2}, ["PAY-1088"])
Q("cjk", "搜索 API 中文分词怎么配置", {C_CJK_ZH: 2})
Q("cjk", "search.analyzer.cjk 有哪些可选值", {C_CJK_ZH: 2}, ["search.analyzer.cjk"])
Q("cjk", "アプリケーションログの保存期間は何日？", {J_LOGS: 2})
Q("cjk", "数据管道周会的行动项", {M_DATA_ZH: 2})
Q("cjk", "本番データベースを直接更新してもいいですか", {MM_PRODDB_JA: 2})

# memory: the answer is one short memory or one session note among hundreds of similar ones
Q("memory", "what should I run before merging a schema migration?", {MM_MIGRATE: 2}, ["make migrate-check"])
Q("memory", "which staging cluster do preview builds go to?", {MM_PREVIEW: 2}, ["stg-eu-2"])
Q("memory", "how did we fix the flaky ledger integration test last time?", {SS_FLAKY: 2}, ["ledger_sync_it"])
Q("memory", "what's the command to regenerate the payments API client?", {SS_GENCLIENT: 2}, ["make gen-client"])
Q("memory", "does the mobile repo use squash merges?", {MM_SQUASH: 2})
Q("memory", "what timezone are payments settlement reports cut in?", {MM_SETTLE: 2})
Q("memory", "who approves production access requests?", {MM_PRODACCESS: 2, R_DBACCESS: 1})
Q("memory", "how do I make the search API log its query plans?", {SS_EXPLAIN: 2})

MINIMUM = {"identifier": 12, "ticket": 8, "question": 25, "keyword": 10, "paraphrase": 10, "cjk": 5, "memory": 6}

# Phrases that carry a key fact; filler must never contain them (case-insensitive), so no filler
# note silently answers a query.
FORBIDDEN_IN_FILLER = [
    "pgbouncer", "pool exhaustion", "max_connections", "idempotency key", "idempotency-key",
    "charged twice", "captured twice", "shard rebalance", "refresh storm", "signed out",
    "logged out", "offline queue", "month-end", "lock timeout", "certificate", "double count",
    "double-count", "canary", "rate limit", "secrets manager", "jenkins", "github actions",
    "double-entry", "refresh interval", "jwt", "signing key", "rollback runbook",
    "rollback procedure", "pci", "load test", "onboarding", "handoff", "consumer lag",
    "disaster recovery", "body size", "migrate-check", "preview build", "squash", "settlement",
    "production access", "query plan", "gen-client", "tz=utc", "minimum os", "ios 16",
    "dynamodb", "on-call rotation", "tech lead", "stg-eu", "kctl ctx", "shard the journal",
    "feature flag request", "request a feature flag", "sev1", "kafka consumer", "backfills are owned",
    "explain", "session lifetime", "journal rows", "immutable",
]


# ----------------------------------------------------------------------------------------------
# Checks and output
# ----------------------------------------------------------------------------------------------

def occurs(s, text):
    """`s` occurs in `text` as a whole token: not inside a longer identifier, path or number."""
    pat = r"(?<![A-Za-z0-9_./-])" + re.escape(s) + r"(?![A-Za-z0-9_]|[./-][A-Za-z0-9_])"
    return re.search(pat, text) is not None


def check():
    errors = []
    key = set(KEY_PATHS)
    filler = [p for p in NOTES if p not in key]

    # categories
    counts = {}
    for q in QUERIES:
        counts[q["category"]] = counts.get(q["category"], 0) + 1
    for cat, n in MINIMUM.items():
        if counts.get(cat, 0) < n:
            errors.append(f"category {cat}: {counts.get(cat, 0)} queries, need {n}")
    if len(QUERIES) < 80:
        errors.append(f"only {len(QUERIES)} queries")
    if len({q["text"] for q in QUERIES}) != len(QUERIES):
        errors.append("duplicate query text")

    for i, q in enumerate(QUERIES, 1):
        rel = q["rel"]
        for p in rel:
            if p not in NOTES:
                errors.append(f"q{i:03d}: judged note missing: {p}")
        if not any(g == 2 for g in rel.values()):
            errors.append(f"q{i:03d}: no grade-2 note")
        grade2 = {p for p, g in rel.items() if g == 2}
        for s in q["exact"]:
            hits = {p for p, n in NOTES.items() if occurs(s, n["text"])}
            if not hits:
                errors.append(f"q{i:03d}: {s!r} occurs nowhere")
            extra = hits - set(rel)
            if extra:
                errors.append(f"q{i:03d}: {s!r} also occurs in unjudged {sorted(extra)[:5]}")
            if q["category"] in ("identifier", "ticket") and not grade2 <= hits:
                errors.append(f"q{i:03d}: {s!r} missing from grade-2 {sorted(grade2 - hits)}")
            if not (hits & grade2):
                errors.append(f"q{i:03d}: {s!r} in no grade-2 note")
        for t in q["body_free"]:
            for p in grade2:
                n = NOTES[p]
                fm = n["text"][: n["text"].index("\n---\n")]
                if not occurs(t, fm) or occurs(t, n["body"]) or occurs(t, n["title"]):
                    errors.append(f"q{i:03d}: {t} should be in the frontmatter only of {p}")

    # filler never states a key fact
    for p in filler:
        low = re.sub(r"\[\[[^\]]*\]\]", " ", NOTES[p]["text"]).lower()  # link-only mentions are fine
        for phrase in FORBIDDEN_IN_FILLER:
            if phrase in low:
                errors.append(f"filler {p} contains forbidden phrase {phrase!r}")

    # wikilinks resolve to a note (by file stem, as Obsidian does), headings exist
    stems = {stem(p).lower(): p for p in NOTES}
    for p, n in NOTES.items():
        for m in re.finditer(r"\[\[([^\]|#]+)(?:#([^\]|]+))?(?:\|[^\]]+)?\]\]", n["text"]):
            target = m.group(1).strip().lower()
            if target not in stems:
                errors.append(f"{p}: unresolved link [[{m.group(1)}]]")
            elif m.group(2) and f"## {m.group(2)}" not in NOTES[stems[target]]["text"]:
                errors.append(f"{p}: link to missing heading {m.group(0)}")

    # ids
    for p in NOTES:
        if not p.isascii() or ".." in p.split("/"):
            errors.append(f"bad id {p}")
    if errors:
        for e in errors[:60]:
            print("error:", e, file=sys.stderr)
        sys.exit(f"{len(errors)} check(s) failed")


def main():
    generate_filler()
    check()
    paths = sorted(NOTES)
    corpus = "".join(
        json.dumps({"_id": p, "title": NOTES[p]["title"], "text": NOTES[p]["text"]}, ensure_ascii=False) + "\n"
        for p in paths
    ).encode("utf-8")
    assert len(corpus) <= 4 * 1024 * 1024, f"corpus.jsonl is {len(corpus)} bytes, over 4 MB"
    assert 2500 <= len(NOTES) <= 3000, f"{len(NOTES)} notes"
    queries = ""
    qrels = "query-id\tcorpus-id\tscore\n"
    njudg = 0
    for i, q in enumerate(QUERIES, 1):
        qid = f"q{i:03d}"
        queries += json.dumps({"_id": qid, "text": q["text"], "category": q["category"]}, ensure_ascii=False) + "\n"
        for p, g in sorted(q["rel"].items(), key=lambda x: (-x[1], x[0])):
            qrels += f"{qid}\t{p}\t{g}\n"
            njudg += 1
    files = {"corpus.jsonl": corpus, "queries.jsonl": queries.encode("utf-8"), "qrels.tsv": qrels.encode("utf-8")}
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)

    kinds = {}
    for p in NOTES:
        top = p.split("/")[0]
        kinds[top] = kinds.get(top, 0) + 1
    cats = {}
    for q in QUERIES:
        cats[q["category"]] = cats.get(q["category"], 0) + 1
    g2 = sum(1 for q in QUERIES for g in q["rel"].values() if g == 2)
    print(f"notes: {len(NOTES)} ({len(KEY_PATHS)} hand-written key notes)")
    print("  by folder: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"corpus.jsonl: {len(corpus):,} bytes; longest note {max(len(n['text']) for n in NOTES.values()):,} chars")
    print(f"queries: {len(QUERIES)} (" + ", ".join(f"{k} {v}" for k, v in cats.items()) + ")")
    print(f"judgments: {njudg} ({g2} grade 2, {njudg - g2} grade 1)")
    for name, data in files.items():
        print(f"  {name}: sha256 {hashlib.sha256(data).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
