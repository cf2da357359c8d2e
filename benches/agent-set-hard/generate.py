#!/usr/bin/env python3
"""Generate agent-set-hard: a hand-written engineer's vault and judged agent queries (BEIR layout).

Every note below is written by hand as one engineer's Obsidian vault at a fictional company
(Fernhill, subscription billing; six projects, January to May 2026). Subjects overlap on purpose:
each project has its project note, decision records, an incident postmortem, review meetings, a
runbook, a draft arguing the opposite, Slack summaries, weekly notes and 1:1s that mention it in
passing. The vault also carries obsidian-mind scaffolding (templates, agent manuals) and agent
memories, which are never judged as answers.

    python3 benches/agent-set-hard/generate.py

Writes corpus.jsonl, queries.jsonl, offtopic.jsonl and qrels.tsv next to this file and fails if a
check does not hold (see check()). Python 3 standard library only; no randomness, no clock.
"""

import hashlib
import json
import os
import re
import sys
from textwrap import dedent

OUT = os.path.dirname(os.path.abspath(__file__))

# path -> whole note text (frontmatter and all), in insertion order
NOTES = {}


def N(path, text):
    """Register one note, written as the whole file (frontmatter, `# Title`, body)."""
    assert path.endswith(".md"), path
    assert path not in NOTES, f"duplicate note {path}"
    NOTES[path] = dedent(text).strip("\n").rstrip()


def title_of(path):
    m = re.search(r"^# (.+)$", NOTES[path], re.M)
    return m.group(1).strip() if m else path.rsplit("/", 1)[-1][:-3]


def stem(path):
    return path.rsplit("/", 1)[-1][:-3]


# ==============================================================================================
# Project 1: Smart Retries (payments retry and dunning)
# ==============================================================================================

N("work/active/Smart Retries.md", """
---
date: 2026-01-08
description: Project note for Smart Retries, the scheduler that re-attempts failed subscription charges, and the dunning flow that replaced most of it in March.
tags: [work-note, project, payments]
status: active
quarter: Q1-2026
project: Smart Retries
---
# Smart Retries

Owner on the engineering side: [[Dana Okafor]]. Product: [[Aoife Brennan]]. I review most of the
scheduler changes and keep this note current. Manager: [[Priya Raman]].

## What it is

When a renewal charge fails, the payments service (`services/payments`, Go) decides whether to try
the card again later. The decline classifier in `services/payments/internal/retry/classify.go`
sorts issuer responses into *hard* (stolen card, closed account: never again) and *soft*
(insufficient funds, do not honor, issuer unavailable). Soft ones went into the retry scheduler
(`services/payments/internal/retry/scheduler.go`), which tried again with exponential backoff.

The knobs live in the payments config:

| key | before 2026-02-24 | now | meaning |
|---|---|---|---|
| `payments.retry.max_attempts` | 6 | 3 | attempts per invoice, first charge included |
| `payments.retry.backoff_base_ms` | 900000 | 86400000 | first wait; doubles each time |
| `payments.retry.soft_declines.enabled` | true | false | whether soft declines are re-attempted at all |
| `payments.dunning.max_attempts` | 0 | 4 | reminder emails before the subscription is paused |

## Timeline

- 2026-01-08: project note created; goal for Q1 was to lift recovered revenue above 12%.
- 2026-02-10: the retry storm, see [[2026-02-10 Retry storm on issuer outage]].
- 2026-02-19: [[2026-02-19 Smart Retries review]].
- 2026-02-24: [[Decision - Stop automatic retries for soft declines]] accepted (PAY-1042).
- 2026-03-09: dunning emails live for all merchants (PAY-1057).
- 2026-04-08: [[2026-04-08 Dunning results review]]; we keep the new setup.

## Open

- [ ] Card updater integration so expired cards get refreshed before the renewal (PAY-1061)
- [ ] Per-BIN circuit breaker, still wanted even with fewer retries (PAY-1045)
- [x] Dunning email sequence (PAY-1057)
- [ ] SMS reminder experiment, [[Aoife Brennan]] to scope

Runbook: [[Runbook - Payment retries]]. Config reference: [[Payments retry config reference]].
""")

N("work/incidents/2026-02-10 Retry storm on issuer outage.md", """
---
date: 2026-02-10
quarter: Q1-2026
description: Postmortem of the February retry storm, when an issuing bank outage made our scheduler re-attempt tens of thousands of card charges and the acquirer warned us.
project: Smart Retries
status: completed
ticket: PAY-1038
severity: high
role: responder
tags: [work-note, incident, payments]
---
# 2026-02-10 Retry storm on issuer outage

## Context

Between 14:05 and 16:40 UTC one large issuer, Northbank, answered almost every authorization with
response code `05` (do not honor) and, for a while, `91` (issuer unavailable). Both were classified
as soft declines, so every failed renewal went into the retry scheduler with
`payments.retry.max_attempts = 6` and a 15 minute base backoff.

## Root Cause

Two things together:

1. `classify.go` treated `05` as retryable. Card networks consider repeated attempts on a do-not-honor
   response abusive when they are not spaced out, and our spacing was minutes, not days.
2. Nothing limited retries per issuer. A single issuer going dark produced a flood that the
   scheduler happily worked through.

About 38,000 charges failed in the window. The scheduler made roughly 190,000 authorization
attempts against them in six hours. Some cardholders saw four or five pending authorizations.

## Resolution

[[Tomasz Nowak]] was incident commander. At 16:52 we flipped `PAYMENTS_RETRY_SCHEDULER_ENABLED=false`
on all payments pods, which stops new attempts without losing the queue. [[Dana Okafor]] shipped a
hotfix the same evening that moves `05` to the hard bucket (commit `c41d9e2`). The scheduler came
back at 21:30 with `payments.retry.max_attempts` lowered to 3 as a stopgap.

## Timeline
- 14:05 Northbank starts declining
- 14:40 decline-rate alert fires, dismissed as an issuer problem (it was, but not only)
- 15:55 support sees the first "charged five times" tickets from [[Keiko Tanaka]]'s team
- 16:20 incident declared in #inc-retry-storm
- 16:52 scheduler disabled with the env var
- 21:30 scheduler re-enabled with the hotfix

## Impact

214 support tickets, 61 disputes opened over the following two weeks, and on 2026-02-12 a formal
warning from our acquirer, Corridor Payments, about excessive reattempts. No double capture: the
extra attempts were authorizations that failed or were voided, but customers could not tell.

## Involved Personnel
[[Tomasz Nowak]] (IC), [[Dana Okafor]], me, [[Keiko Tanaka]] for support, [[Aoife Brennan]] for
merchant comms.

## Follow-ups
- [x] Move `05` to hard declines (`c41d9e2`)
- [x] Decide what to do with soft-decline retries at all: [[Decision - Stop automatic retries for soft declines]]
- [ ] Per-BIN circuit breaker (PAY-1045)
- [x] Reply to the acquirer warning (Aoife, done 2026-02-20)

Discussed at [[2026-02-19 Smart Retries review]].
""")

N("work/active/Decision - Stop automatic retries for soft declines.md", """
---
date: 2026-02-24
description: We disabled auto-retry for soft declines except issuer-unavailable codes, capped attempts at three, and moved recovery to dunning emails.
status: accepted
project: Smart Retries
ticket: PAY-1042
tags: [decision, payments]
---
# Decision: Stop automatic retries for soft declines

## Context

The [[2026-02-10 Retry storm on issuer outage]] showed that our scheduler could hammer an issuer.
Corridor Payments sent a formal warning on 2026-02-12. Visa counts more than 15 reattempts on one
card in 30 days as excessive, and Mastercard publishes merchant advice codes that tell us when not
to try again; we ignored both. At the same time the scheduler is our main revenue recovery tool:
in Q4 2025 it recovered 11.2% of failed renewal value.

## Options Considered
1. Keep retries, add a per-issuer circuit breaker and space attempts by days.
2. Buy timing from a vendor that predicts the best moment to retry.
3. Disable auto-retry for soft declines, keep a small retry only for issuer-unavailable codes
   (`91`, `96`), and recover the rest by asking the customer: dunning emails and the card updater.

## Decision

Option 3. Soft declines are no longer re-attempted automatically:
`payments.retry.soft_declines.enabled = false`. Codes `91` and `96` still get up to two more
attempts, one day and three days later, so `payments.retry.max_attempts = 3` and
`payments.retry.backoff_base_ms = 86400000`. Everything else starts the dunning sequence
(PAY-1057). Tracked as PAY-1042.

[[Dana Okafor]] and [[Aoife Brennan]] agreed; [[Priya Raman]] signed off. I argued for option 1 in
[[The case for keeping smart retries]] and changed my mind after the acquirer call: a circuit
breaker limits the blast radius but does not make a do-not-honor retry legitimate.

## Consequences
- Expect recovered revenue to drop about two points until dunning catches up.
- Fewer disputes and no more network warnings, we hope.
- The circuit breaker (PAY-1045) is still useful for `91`/`96` and stays on the backlog.
- Revisit after six weeks of data: [[2026-04-08 Dunning results review]].

## Related
[[Smart Retries]], [[Runbook - Payment retries]], [[Key Decisions]]
""")

N("thinking/The case for keeping smart retries.md", """
---
date: 2026-02-21
description: Draft arguing that we should keep automatic card retries after the retry storm, with a circuit breaker and payday-aware timing, instead of switching them off.
tags: [thinking, draft, payments]
status: draft
project: Smart Retries
---
# The case for keeping smart retries

*Draft, written before the 2026-02-24 decision. Kept because the argument is worth having again
if the dunning numbers disappoint.*

Everybody is reacting to the Northbank afternoon as if retrying were the sin. It wasn't. The sin was
retrying every few minutes, with no limit per issuer, on a code that means "stop". Fix those and
the scheduler is the best money-making feature we own.

Numbers I pulled from the warehouse on Friday:

| quarter | failed renewal value | recovered by scheduler | share |
|---|---|---|---|
| Q3 2025 | €4.1M | €0.43M | 10.5% |
| Q4 2025 | €4.6M | €0.52M | 11.2% |

Dunning emails at comparable companies recover somewhere between 5 and 8% in the first month. If we
turn the scheduler off for insufficient funds we are betting that customers fix their cards
faster than their salary arrives. Half of our insufficient-funds declines clear on a second try
within 72 hours, usually after the 1st or the 15th of the month.

What I would do instead:

- a circuit breaker per issuer BIN range: when one issuer's decline rate triples, stop retrying it
  for six hours (PAY-1045);
- no retry sooner than 24 hours, and retries aligned with common paydays;
- respect Mastercard merchant advice codes `03` and `21` as hard stops;
- keep the 15-in-30-days network cap as a hard limit in code, not in a wiki.

Counterpoint I can't answer yet: [[Aoife Brennan]] says the acquirer does not care about our
recovery rate, and a second warning could cost us the processing agreement. If that's true the
risk is asymmetric and I lose this argument.

Update 2026-02-24: I lost it, and I think rightly. See [[Decision - Stop automatic retries for soft declines]].
""")

N("work/meetings/2026-02-19 Smart Retries review.md", """
---
date: 2026-02-19
description: Review meeting after the retry storm where we weighed a circuit breaker, vendor timing and turning soft-decline retries off.
tags: [meeting, payments]
project: Smart Retries
---
# 2026-02-19 Smart Retries review

Attendees: [[Priya Raman]], [[Dana Okafor]], [[Aoife Brennan]], [[Tomasz Nowak]], me.

## Notes
- Tomasz walked through [[2026-02-10 Retry storm on issuer outage]]. The env-var kill switch worked
  but nobody knew it existed until Dana mentioned it; it goes in the runbook.
- Aoife read out the acquirer letter. Corridor wants a written remediation plan by 2026-03-06.
  Her view: "they don't care how much we recover, they care that we stop".
- Dana: the classifier is fixed for `05`, but insufficient funds (`51`) is the bulk of the volume
  and it is legitimately soft. The question is whether *we* should be the ones retrying it.
- I argued for keeping retries with a per-issuer breaker and day-level spacing. Priya asked for the
  recovery numbers in writing; I'll put them in a draft.
- Vendor option (predictive timing): Aoife got a quote, roughly €90k a year. Nobody loved it.

## Outcome
No decision in the room. Dana and I write up options by Monday; Priya decides Tuesday.

## Action items
- [x] Dana: options write-up → became [[Decision - Stop automatic retries for soft declines]]
- [x] Me: recovery numbers → [[The case for keeping smart retries]]
- [x] Tomasz: kill switch into [[Runbook - Payment retries]]
- [x] Aoife: draft remediation letter
""")

N("work/meetings/2026-04-08 Dunning results review.md", """
---
date: 2026-04-08
description: Six weeks after turning off soft-decline retries, we compared recovered revenue, disputes and support load, and agreed to keep dunning.
tags: [meeting, payments]
project: Smart Retries
---
# 2026-04-08 Dunning results review

With [[Aoife Brennan]], [[Dana Okafor]], [[Priya Raman]], [[Keiko Tanaka]].

Six weeks of data since PAY-1042 went out.

| metric | Q4 2025 (retries) | 2026-02-25 to 2026-04-05 (dunning) |
|---|---|---|
| recovered share of failed renewals | 11.2% | 8.9% |
| disputes per 1,000 failed renewals | 4.6 | 1.3 |
| "charged several times" support tickets per week | 19 | 2 |
| acquirer warnings | 1 | 0 |

- Recovery is down 2.3 points, slightly worse than the two points we expected. Aoife thinks the
  second reminder email is too polite; new copy goes out next week.
- Disputes down 71%. Keiko says the support queue feels different, fewer angry tickets.
- The card updater (PAY-1061) should win back some of the gap; it is blocked on the network
  enrolment paperwork.

Decision: keep the setup from [[Decision - Stop automatic retries for soft declines]]. Revisit at
the end of Q2 with card updater numbers. My draft [[The case for keeping smart retries]] stays a
draft.

- [ ] Aoife: rewrite reminder #2, A/B against the current one
- [ ] Dana: chase card updater enrolment
""")

N("reference/Runbook - Payment retries.md", """
---
date: 2026-02-20
description: How to pause, inspect and drain the payment retry scheduler, including the kill switch used during the February retry storm.
tags: [runbook, payments]
project: Smart Retries
---
# Runbook - Payment retries

For the scheduler in `services/payments`. Background in [[Smart Retries]].

## Stop everything now

Set the kill switch on the deployment and roll the pods:

```sh
kubectl -n payments set env deploy/payments PAYMENTS_RETRY_SCHEDULER_ENABLED=false
```

Queued attempts stay in the `retry_attempts` table; nothing is lost. This is what we did at 16:52
during [[2026-02-10 Retry storm on issuer outage]].

## Pause one merchant or one issuer

```sh
payctl retries pause --merchant m_4821 --reason "merchant asked"
payctl retries pause --bin 457173 --until 2026-02-11T06:00Z
```

## Look before you drain

`payctl retries drain` re-attempts everything that is due. Always run it with `--dry-run` first;
it prints counts per issuer and decline code. Use `--max-per-minute 200` unless Dana says otherwise.

## Config

See [[Payments retry config reference]] for every `payments.retry.*` key. Since PAY-1042 soft
declines are not retried, so a large queue now means codes `91`/`96`: an issuer is down.

## Escalation
Payments on-call first, then [[Dana Okafor]]. If an acquirer or network is involved, page
[[Aoife Brennan]] for merchant comms.
""")

N("reference/Payments retry config reference.md", """
---
date: 2026-03-02
description: Every payments.retry and payments.dunning configuration key, its default, and what changed with PAY-1042.
tags: [reference, payments, config]
project: Smart Retries
---
# Payments retry config reference

Read by `services/payments/internal/config/retry.go` at start-up (a change needs a rollout, not a
reload).

| key | default | notes |
|---|---|---|
| `payments.retry.max_attempts` | 3 | attempts per invoice including the first; was 6 until PAY-1042 |
| `payments.retry.backoff_base_ms` | 86400000 | first wait, doubled per attempt |
| `payments.retry.backoff_max_ms` | 345600000 | upper bound on one wait (4 days) |
| `payments.retry.soft_declines.enabled` | false | soft declines go to dunning instead |
| `payments.retry.retryable_codes` | `["91","96"]` | issuer unavailable / system error |
| `payments.retry.network_cap_30d` | 15 | hard cap per card per 30 days |
| `payments.dunning.max_attempts` | 4 | reminder emails, days 1, 3, 7, 14 |
| `payments.dunning.pause_after_days` | 21 | subscription paused after this |

Env overrides use the upper-case form, for example `PAYMENTS_RETRY_MAX_ATTEMPTS`. The kill switch
`PAYMENTS_RETRY_SCHEDULER_ENABLED` has no config-file form on purpose.

Don't confuse `payments.retry.max_attempts` with `payments.dunning.max_attempts`: the first counts
charges, the second counts emails. [[Ravi Kulkarni]] tripped on this in March.

Related: [[Runbook - Payment retries]], [[Decision - Stop automatic retries for soft declines]].
""")

N("work/slack/2026-02-10 inc-retry-storm summary.md", """
---
date: 2026-02-10
description: Summary of the #inc-retry-storm channel on the afternoon the scheduler kept retrying Northbank declines.
tags: [slack, incident, payments]
project: Smart Retries
---
# #inc-retry-storm summary (2026-02-10)

Condensed from about 300 messages.

- **16:20** Tomasz opens the channel: decline alert plus Keiko's tickets ("customer says she was
  charged 5x for one invoice").
- **16:31** Dana: all of it is Northbank, code 05 and 91. Scheduler is doing what it was told.
- **16:38** Someone suggests scaling the scheduler to zero. Dana: don't, the env flag is cleaner,
  `PAYMENTS_RETRY_SCHEDULER_ENABLED=false`.
- **16:52** Flag set, attempts stop within a minute.
- **17:10** Aoife asks whether we captured any money twice. Dana checks: no captures, only
  authorizations, most voided.
- **18:45** Dana's PR to treat 05 as hard is up; I reviewed it. Merged as c41d9e2.
- **21:30** Scheduler back on with max attempts at 3. Tomasz closes the incident; postmortem owner
  is Dana, I help.

Postmortem: [[2026-02-10 Retry storm on issuer outage]].
""")

N("work/slack/2026-02-12 payments acquirer warning thread.md", """
---
date: 2026-02-12
description: Thread in #payments about the formal letter from Corridor Payments warning us about excessive card reattempts.
tags: [slack, payments]
project: Smart Retries
---
# #payments: the acquirer letter (2026-02-12)

[[Aoife Brennan]] posted the letter from Corridor Payments. Short version: our reattempt ratio on
2026-02-10 was "materially above" network guidelines; they want a remediation plan within 22 days
or they may apply the network's excessive retry fees, which are charged per attempt above the cap.

Replies worth keeping:

- [[Priya Raman]]: this is now the top priority for payments; the card updater work pauses.
- [[Dana Okafor]]: even after the 05 fix we would still retry 51 (insufficient funds) six times.
  She'd rather stop retrying soft declines entirely and email the customer.
- Me: pointed out that insufficient funds often clears after payday, and asked for a day before we
  decide. Priya agreed to a review on the 19th ([[2026-02-19 Smart Retries review]]).
- [[Hannah Berg]] asked whether the letter goes into the compliance folder. It does.
""")

N("work/slack/2026-03-03 payments dunning email copy thread.md", """
---
date: 2026-03-03
description: Slack thread on the wording and cadence of the reminder emails sent when a renewal charge fails.
tags: [slack, payments]
project: Smart Retries
---
# #payments: dunning email copy (2026-03-03)

[[Aoife Brennan]] shared the four reminder emails for PAY-1057: day 1, 3, 7 and 14 after the
failed renewal, then the subscription pauses on day 21.

- [[Keiko Tanaka]] wants the first email to say plainly that nothing was charged, because after
  February customers assume the worst.
- [[Marco Bellini]] asked that the "update your card" button deep-link into [[Portal Next]] for
  accounts on the beta, and into the old portal for everyone else.
- Dana: the link carries a signed token valid for 72 hours; longer needs security review.
- I asked that the emails respect the merchant's locale and currency formatting; Aoife said the
  templates use the same formatter as invoices.

Copy approved 2026-03-05; live for all merchants 2026-03-09.
""")

N("work/meetings/2026-03-05 Payments team retro.md", """
---
date: 2026-03-05
description: Quarterly payments team retrospective covering the retry storm, the acquirer letter and how we work with support.
tags: [meeting, retro, payments]
---
# 2026-03-05 Payments team retro

Facilitated by [[Priya Raman]]. Whole payments team plus [[Keiko Tanaka]] as a guest.

## Went well
- The kill switch existed and worked; stopping attempts took one command.
- Dana's classifier fix was reviewed and out within five hours.
- The acquirer remediation plan went out four days early.

## Didn't go well
- The decline alert fired at 14:40 and was ignored for 80 minutes because "it's the issuer".
- Support learned about the incident from customers.
- The retry design had never been reviewed against card network rules. Nobody on the team knew
  the 15-reattempts-in-30-days rule before the letter.

## Changes
- Alerts on decline rate page when the retry queue grows at the same time.
- Support gets an incident channel invite automatically for payments incidents.
- New rule for payments design docs: a "network rules" section.
- I'll write down how we run postmortems so the next one doesn't depend on who is around:
  [[How we run postmortems]].
""")

N("reference/Reading - Card network retry rules.md", """
---
date: 2026-02-16
description: Reading notes on Visa and Mastercard rules for re-attempting declined card-not-present transactions.
tags: [reading, payments]
---
# Reading - Card network retry rules

Notes from the network docs Aoife forwarded after the acquirer letter. Paraphrased, not legal text.

- Visa: a declined transaction may be reattempted, but no more than 15 times in 30 days for the
  same card and merchant. Some response codes (lost, stolen, pick up card) must never be retried.
- Mastercard: merchant advice codes travel with the decline. `03` and `21` mean do not try again;
  `01` means new account information is available (use the card updater); `02` means try later.
- Both networks charge per-attempt fees above the limits, passed on by the acquirer.
- "Do not honor" (`05`) is a generic refusal; issuers use it for fraud suspicion. Repeating it
  quickly looks like card testing.

What this means for us: see [[Decision - Stop automatic retries for soft declines]] and
[[Smart Retries]].
""")


# ==============================================================================================
# Project 2: Ledger v2 (double-entry ledger, warehouse sync)
# ==============================================================================================

N("work/active/Ledger v2.md", """
---
date: 2026-01-12
description: Project note for Ledger v2, the Rust double-entry ledger and its sync into the finance warehouse, with release history and open work.
tags: [work-note, project, ledger]
status: active
quarter: Q1-2026
project: Ledger v2
---
# Ledger v2

Tech lead: [[Luis Ferreira]]. I'm the payments-side reviewer for anything that touches postings.
SRE contact: [[Tomasz Nowak]].

## Shape

`services/ledger` is a Rust service that owns every money movement as double-entry postings in
Postgres. A sync loop (`services/ledger/src/sync.rs`) copies committed postings into the finance
warehouse, where balances, revenue reports and the month-end close are computed. The warehouse is
the thing finance looks at, so sync lag or gaps are visible to them within the hour.

Principles, see [[Decision - Ledger is append-only with reversal entries]]:
postings are never updated or deleted; corrections are new reversal postings.

## Releases (v2.4 line)

| version | date | what |
|---|---|---|
| v2.4.6 | 2026-02-26 | reversal reports, stable baseline |
| v2.4.7 | 2026-03-12 | batched cursor commits in sync; **rolled back**, see incident |
| v2.4.8 | 2026-03-18 | fixed cursor, snapshot-based |
| v2.4.17 | 2026-05-19 | multi-currency reversal report, sync metrics |

Details: [[Ledger v2.4.7]], [[Ledger v2.4.8]], [[Ledger v2.4.17]].

## Incidents
- [[2026-03-12 Stale balances after ledger sync skipped entries]]

## Decisions
- [[Decision - Ledger is append-only with reversal entries]]
- [[Decision - No ledger deploys during month-end close]]

## Next
- [ ] v2.5.0: partition the `postings` table by month (LED-250), planned for June
- [x] Move the ledger to EKS: done 2026-04-07, see [[EKS Migration]]
- [x] Reconciliation every 15 minutes instead of hourly (LED-236), live since 2026-04-02
""")

N("work/active/Decision - Ledger is append-only with reversal entries.md", """
---
date: 2026-01-20
description: Ledger v2 never updates or deletes a posting; every correction is a new reversal posting that references the original.
status: accepted
project: Ledger v2
tags: [decision, ledger]
---
# Decision: Ledger is append-only with reversal entries

## Context

Ledger v1 allowed `UPDATE` on postings for "small fixes". Twice in 2025 a fix changed history that
finance had already closed, and the auditors asked us to explain a balance we could no longer
reconstruct. Ledger v2 is the chance to stop that.

## Options Considered
1. Keep updates, add an audit table written by a trigger.
2. Append-only postings; corrections are reversal postings pointing at what they reverse.
3. Event-sourced ledger with balances only in projections.

## Decision

Option 2. The `postings` table has no `UPDATE` or `DELETE` grant for the service role. A
correction is a pair: a reversal of the wrong posting and a new correct one, both carrying
`reverses_id`. Option 3 was attractive but nobody wanted to rebuild reporting on projections this
year.

## Consequences
- Storage grows faster; partitioning by month follows (LED-250).
- Sync into the warehouse can be a simple cursor over an increasing id, because nothing changes
  after commit. (That assumption about ids turned out to be subtler than we thought; see
  [[2026-03-12 Stale balances after ledger sync skipped entries]].)
- Finance gets reversal reports for free.

Agreed at [[2026-01-21 Ledger v2 design review]]. Owner [[Luis Ferreira]].
""")

N("work/meetings/2026-01-21 Ledger v2 design review.md", """
---
date: 2026-01-21
description: Design review of Ledger v2 covering append-only postings, the warehouse sync cursor and the rollout plan.
tags: [meeting, ledger, design-review]
project: Ledger v2
---
# 2026-01-21 Ledger v2 design review

[[Luis Ferreira]] presented; [[Priya Raman]], [[Tomasz Nowak]], [[Mei Lin Zhou]] (for the warehouse
side) and me.

- Append-only accepted, see [[Decision - Ledger is append-only with reversal entries]].
- Sync design: the loop reads postings with `id > cursor` in batches of `ledger.sync.batch_size`
  (500), writes them to the warehouse in one transaction, then stores the new cursor. Mei Lin asked
  what happens with a posting whose transaction commits late. Luis: ids come from a sequence and
  the loop only reads committed rows, so the cursor is safe.

  > I wrote in the margin: "sequence order ≠ commit order?" and never followed up. Seven weeks later
  > it mattered.

- Tomasz wants a reconciliation job comparing ledger and warehouse balances. Hourly to start.
- Rollout: dual-run v1 and v2 until end of February, then v2 only.

Action items
- [x] Luis: reconciliation job (`ledger_recon_drift` alert)
- [ ] Me: write up the commit-order question → I didn't, see [[2026-03-16 Ledger incident review]]
""")

N("work/incidents/2026-03-12 Stale balances after ledger sync skipped entries.md", """
---
date: 2026-03-12
quarter: Q1-2026
description: Postmortem of the March ledger incident where a release made the warehouse sync skip postings, leaving finance balances wrong for about four hours.
project: Ledger v2
status: completed
ticket: LED-231
severity: high
role: responder
tags: [work-note, incident, ledger]
---
# 2026-03-12 Stale balances after ledger sync skipped entries

## Context

Ledger v2.4.7 went out at 09:40 UTC. It changed the sync loop in `services/ledger/src/sync.rs` to
commit the cursor once per batch, using the highest posting id seen in that batch (commit
`a3f9c21`, "batch sync cursor commits"). The goal was fewer round trips to the warehouse.

## Root Cause

Posting ids come from a sequence when the row is inserted, but a transaction can commit after
another one that took a later id. When the sync loop read a batch, a long-running payout
transaction holding ids in the middle of that range had not committed yet. The cursor moved past
them, and when they committed a minute later the loop never looked back.

Before v2.4.7 the same race existed in theory, but the cursor was only advanced to the last id of
a contiguous run, which hid it. The batching made it likely.

1,832 postings (about €412k of movements) never reached the warehouse. Finance dashboards showed
wrong balances for roughly four hours.

## Resolution
- 13:05 `ledger_recon_drift` fired (hourly reconciliation).
- 13:20 [[Tomasz Nowak]] declared; [[Luis Ferreira]] and I joined.
- 13:55 rolled back to v2.4.6 with `shipit rollback ledger --to v2.4.6`.
- 14:30 rewound the cursor: `ledgerctl sync rewind --to 2026-03-12T09:30Z`, then replay. The
  warehouse upsert is idempotent, so replaying postings it already had was safe.
- 14:35 to 15:05 replay; reconciliation clean at 15:10.

## Impact
Finance saw wrong balances for ~4 h (09:40 to ~13:55, and until 15:10 for the replay). No
customer-facing money was wrong; the ledger itself was always right.

## Involved Personnel
[[Tomasz Nowak]] (IC), [[Luis Ferreira]], me, [[Mei Lin Zhou]] for the warehouse.

## Follow-ups
- [x] Fix the cursor so it never passes an uncommitted id: v2.4.8, commit `7be0d44` (LED-234)
- [x] Reconcile every 15 minutes (LED-236)
- [x] Decide on deploys around month-end: [[Decision - No ledger deploys during month-end close]]
- [x] Mark v2.4.7 as do-not-deploy in the release tooling

Review: [[2026-03-16 Ledger incident review]].
""")

N("work/meetings/2026-03-16 Ledger incident review.md", """
---
date: 2026-03-16
description: Postmortem review meeting for the ledger sync incident; root cause, what the fix should be, and the month-end deploy question.
tags: [meeting, incident-review, ledger]
project: Ledger v2
---
# 2026-03-16 Ledger incident review

Blameless review of [[2026-03-12 Stale balances after ledger sync skipped entries]]. Present:
[[Luis Ferreira]], [[Tomasz Nowak]], [[Priya Raman]], [[Mei Lin Zhou]], [[Jonas Eklund]] for the
first half, me.

## Discussion
- The race was named in the design review in January and dropped. That's on me as much as anyone;
  I wrote the question in the margin and didn't chase it.
- Luis's fix for v2.4.8: read the current snapshot's `xmin` horizon and never advance the cursor
  past the oldest in-flight transaction id. Reviewed by me and Mei Lin; commit `7be0d44`.
- v2.4.7 is now blocked in the release tooling; `shipit` refuses to deploy it.
- Jonas asked what would have happened at month-end, when finance closes the books. Answer: the
  close would have been signed off on wrong numbers. That started the freeze discussion.
- Tomasz: detection took 3h25m because reconciliation is hourly and the first run after the deploy
  compared against a warehouse that was only slightly behind. Move to 15 minutes (LED-236).

## Outcome
- Fix ships as v2.4.8 this week.
- Luis drafts a month-end deploy freeze proposal by Friday.
""")

N("work/active/Decision - No ledger deploys during month-end close.md", """
---
date: 2026-03-20
description: After the March sync incident we stopped deploying the ledger during the finance month-end close window, with a two-person exception.
status: accepted
project: Ledger v2
ticket: LED-238
tags: [decision, ledger]
---
# Decision: No ledger deploys during month-end close

## Context

Finance closes the books from the last business day of the month to the third business day of the
next. A sync problem during that window means signing off numbers that are wrong, which is a
different category of bad from a dashboard being stale for an afternoon. The March 12 sync
incident happened mid-month; it could just as well have happened on the 31st.

## Options Considered
1. No change; rely on better canaries and faster reconciliation.
2. Freeze ledger deploys (service and sync) during the close window.
3. Freeze all deploys company-wide during the close.

## Decision

Option 2. From two business days before month-end to the third business day after, the ledger
and anything that writes postings is not deployed. Exceptions need both [[Luis Ferreira]] and
[[Priya Raman]] to approve in #ledger, and the person deploying stays on call for 24 hours.
The freeze dates are published in the ops calendar.

Option 3 was rejected as too broad: the portal and search have nothing to do with the close.

## Consequences
- Ledger releases bunch up in the middle of the month.
- Security fixes go through the exception path.
- [[Deploy freezes make us worse at deploying]] argues against this; worth rereading in Q3.

## Related
[[Ledger v2]], [[2026-03-16 Ledger incident review]], [[Key Decisions]]
""")

N("thinking/Deploy freezes make us worse at deploying.md", """
---
date: 2026-03-19
description: Draft arguing against the month-end deploy freeze for the ledger; freezes batch risk up and weaken the deploy muscle.
tags: [thinking, draft, ledger]
status: draft
project: Ledger v2
---
# Deploy freezes make us worse at deploying

Writing this the night before Luis's freeze proposal goes out, to get my objection straight.

The March incident was caused by a change nobody tested against late-committing transactions, not
by the day of the month it shipped. A freeze doesn't touch that. What it does:

- Changes pile up in front of the window, so the first deploy after the close carries two weeks of
  work. Bigger batches are riskier batches; every DORA-style study says so.
- People get less practice. The ledger already deploys less than twice a week.
- The exception process becomes the normal process for anything urgent, with two approvers who are
  both in finance meetings that week.

What I'd rather have:

1. Reconciliation every 15 minutes (LED-236), so drift is noticed in minutes.
2. A canary that syncs into a shadow warehouse schema and compares before the real one.
3. Automatic rollback when `ledger_recon_drift` fires within an hour of a deploy.

I'll raise it, but I expect to lose: finance trusts a calendar more than a canary, and that is a
reasonable thing for finance to trust. If the freeze goes ahead I want a date to review it.

Outcome: freeze accepted 2026-03-20, see [[Decision - No ledger deploys during month-end close]];
review in Q3.
""")

N("reference/Runbook - Ledger sync.md", """
---
date: 2026-03-17
description: Runbook for the ledger-to-warehouse sync - checking lag, rewinding the cursor, replaying postings, and which releases must never be deployed.
tags: [runbook, ledger]
project: Ledger v2
---
# Runbook - Ledger sync

Service: `services/ledger`, loop in `services/ledger/src/sync.rs`. Owner [[Luis Ferreira]].

## Is it behind?

```sh
ledgerctl sync status            # cursor, lag in postings and seconds
ledgerctl recon --since 1h       # compare ledger and warehouse balances now
```

Alert `ledger_recon_drift` means the balances disagree. Lag alone is not an incident; drift is.

## Rewind and replay

The warehouse upsert is idempotent, so replaying is safe. Rewind to a time before the problem:

```sh
ledgerctl sync rewind --to 2026-03-12T09:30Z --dry-run   # prints how many postings will replay
ledgerctl sync rewind --to 2026-03-12T09:30Z
```

Replay runs at `ledger.sync.batch_size` per batch (500). For a big replay raise it with
`LEDGER_SYNC_BATCH_SIZE=2000` on the sync deployment; put it back afterwards.

## Do not deploy

- **v2.4.7**: batched cursor commits skip late-committing postings. Blocked in `shipit`; if you
  see it anywhere, roll back to v2.4.6 or forward to v2.4.8 or later.

## Month-end
No deploys in the close window: [[Decision - No ledger deploys during month-end close]].

History: [[2026-03-12 Stale balances after ledger sync skipped entries]].
""")

N("reference/releases/Ledger v2.4.7.md", """
---
date: 2026-03-12
description: Release notes for ledger v2.4.7, which batched sync cursor commits and was rolled back the same day.
tags: [release, ledger]
project: Ledger v2
version: v2.4.7
status: withdrawn
---
# Ledger v2.4.7

**Withdrawn.** Rolled back on 2026-03-12 after the sync skipped postings; do not deploy.

## Changes
- sync: commit the cursor once per batch instead of per contiguous run (`a3f9c21`)
- sync: new metric `ledger_sync_batch_seconds`
- posting: reject zero-amount reversal postings (LED-229)

## Known problems
- The cursor can pass postings whose transaction commits after the batch was read. See
  [[2026-03-12 Stale balances after ledger sync skipped entries]]. Fixed in [[Ledger v2.4.8]].
""")

N("reference/releases/Ledger v2.4.8.md", """
---
date: 2026-03-18
description: Release notes for ledger v2.4.8, the fix for the sync cursor regression, using the snapshot xmin horizon.
tags: [release, ledger]
project: Ledger v2
version: v2.4.8
---
# Ledger v2.4.8

## Changes
- sync: never advance the cursor past the oldest in-flight transaction; reads `pg_snapshot_xmin`
  of the current snapshot (`7be0d44`, LED-234). Fixes the regression in v2.4.7.
- sync: keeps the per-batch commit from v2.4.7 for throughput, now safe.
- recon: `ledgerctl recon` accepts `--since` (LED-235).

Deployed 2026-03-18 14:00 UTC, canary 10% for one hour, then all. Reconciliation clean since.

Previous: [[Ledger v2.4.7]]. Project: [[Ledger v2]].
""")

N("reference/releases/Ledger v2.4.17.md", """
---
date: 2026-05-19
description: Release notes for ledger v2.4.17 - multi-currency reversal report and new sync metrics.
tags: [release, ledger]
project: Ledger v2
version: v2.4.17
---
# Ledger v2.4.17

## Changes
- reports: reversal report can group by currency (LED-247), asked for by finance for the JPY and
  KRW merchants
- sync: `ledger_sync_oldest_inflight_seconds` metric, so we can see when a long transaction holds
  the cursor back
- deps: tokio and sqlx bumps (`7bd0e44`)
- build: ledger images now built with sccache in CI (build time 14m → 6m)

Deployed 2026-05-19, mid-month, outside the close window. Nothing to report.

Last release of the v2.4 line; v2.5.0 brings monthly partitions. See [[Ledger v2]].
""")

N("reference/Ledger sync internals.md", """
---
date: 2026-03-23
description: How the ledger warehouse sync loop works after the March fix - cursor, snapshot horizon, batch size and idempotent upserts.
tags: [reference, ledger, architecture]
project: Ledger v2
---
# Ledger sync internals

Written after the March incident so the next person doesn't have to read `sync.rs` cold.

## The loop (`services/ledger/src/sync.rs`)

1. Take a snapshot; read `pg_snapshot_xmin(pg_current_snapshot())` as the *horizon*: every
   transaction older than that has committed or aborted.
2. Read postings with `cursor < id` in id order, at most `ledger.sync.batch_size` rows.
3. Drop rows whose inserting transaction is not older than the horizon; they will be read next
   time.
4. Upsert into the warehouse (`ON CONFLICT (posting_id) DO NOTHING`), in one transaction.
5. Advance the cursor to the highest id below the first dropped row, in `cursor.rs`.

Step 3 and the "highest id below" in step 5 are what v2.4.8 added. Without them a late-committing
transaction's postings get skipped forever.

## Config
| key | default |
|---|---|
| `ledger.sync.batch_size` | 500 |
| `ledger.sync.poll_interval_ms` | 1000 |
| `ledger.sync.max_lag_alert_seconds` | 300 |

## Why not CDC?
Logical replication (Debezium) was considered in January; we didn't want another moving part before
the v1 shutdown. Might revisit with v2.5. See [[Ledger v2]] and [[Runbook - Ledger sync]].
""")

N("work/slack/2026-03-12 ledger rollback thread.md", """
---
date: 2026-03-12
description: Summary of the #ledger thread on the day the warehouse balances drifted and we rolled the ledger back.
tags: [slack, ledger, incident]
project: Ledger v2
---
# #ledger: rollback day (2026-03-12)

- 13:07 [[Mei Lin Zhou]]: finance pinged, the revenue dashboard for EU merchants dropped by ~€400k
  since this morning. `ledger_recon_drift` fired two minutes earlier.
- 13:15 [[Luis Ferreira]]: only change today is v2.4.7 at 09:40. Suspects the cursor batching.
- 13:20 [[Tomasz Nowak]] declares an incident, moves to #inc-ledger-drift.
- 13:55 rolled back to v2.4.6. Luis: "the missing rows are all from the payout batch job, which
  runs one huge transaction".
- 14:30 cursor rewound to 09:30, replay running.
- 15:10 reconciliation clean. Finance told the numbers are right again.
- 15:40 [[Jonas Eklund]] asks if month-end would have been affected. Long thread, ends with "let's
  talk about it at the review".

Postmortem: [[2026-03-12 Stale balances after ledger sync skipped entries]].
""")

N("work/slack/2026-05-19 ledger release thread.md", """
---
date: 2026-05-19
description: Short #ledger thread about shipping the multi-currency reversal report release.
tags: [slack, ledger]
project: Ledger v2
---
# #ledger: release day (2026-05-19)

[[Luis Ferreira]] shipped v2.4.17 at 10:00 UTC. Canary clean, full rollout 11:15.

- Finance confirmed the reversal report now splits JPY and KRW correctly.
- [[Tomasz Nowak]] liked the new `ledger_sync_oldest_inflight_seconds` metric and added it to the
  ledger dashboard.
- Someone asked whether this counts as a deploy in the freeze window. It doesn't, the close for May
  starts on the 27th.
- Luis: this is the last v2.4 release; v2.5 planning is tomorrow ([[2026-05-20 Ledger v2.5 planning]]).
""")

N("work/meetings/2026-05-20 Ledger v2.5 planning.md", """
---
date: 2026-05-20
description: Planning meeting for ledger v2.5 - monthly partitions of postings, CDC for the warehouse sync, and retiring the last v1 tables.
tags: [meeting, ledger, planning]
project: Ledger v2
---
# 2026-05-20 Ledger v2.5 planning

With [[Luis Ferreira]], [[Mei Lin Zhou]], [[Femi Adebayo]], me.

- **Partitions** (LED-250): `postings` by month. Luis wants it in before the table passes 2 billion
  rows in August. Migration by `pg_partman`, online. Femi checks the EKS nodes have the IOPS.
- **CDC**: Mei Lin would like logical replication into the warehouse instead of the polling loop.
  I'm for it long term, but not in the same release as partitions. Agreed: spike in June, decide
  in July.
- **v1 tables**: the last reader of v1 balances is an old finance export. Keiko's team uses it for
  refunds; they need a replacement report first.
- Ship date for v2.5.0: 2026-06-10, outside the close window.

- [ ] Luis: partition migration plan
- [ ] Mei Lin: CDC spike
- [ ] Me: find every reader of the v1 tables
""")


# ==============================================================================================
# Project 3: Invoice Search Migration (Elasticsearch 6.8 -> OpenSearch 2.11)
# ==============================================================================================

N("work/active/Invoice Search Migration.md", """
---
date: 2026-01-26
description: Project note for moving invoice search off the old Elasticsearch 6.8 cluster onto managed OpenSearch, with dual writes and an alias cutover.
tags: [work-note, project, search]
status: completed
quarter: Q2-2026
project: Invoice Search Migration
---
# Invoice Search Migration

Owner: [[Mei Lin Zhou]]. I'm the second reviewer and did the cutover with her. Epic SRCH-77.

## Why

Merchants search their invoices in the portal by number, customer name, amount and status.
That runs on an Elasticsearch 6.8 cluster we operate ourselves, which is end of life, runs on
instances nobody wants to patch, and fell over twice in 2025 under reindex load. Decision:
[[Decision - Move invoice search to OpenSearch]].

## Plan (as executed)

1. New indexer release with dual writes: `invoice-indexer` 1.18.3 writes every change to both
   clusters (2026-04-14).
2. Backfill the new cluster from Postgres with `reindex --since 2019-01-01 --throttle 2000`.
3. Compare counts and a sample of 10,000 queries between clusters for a week.
4. Swap the `invoices-read` alias to the new cluster (2026-04-22).
5. Stop writing to Elasticsearch, keep it read-only for a month, then delete (2026-05-25).

How we cut over: [[Decision - Cut over invoice search with dual writes]].

## What went wrong
The cutover left new invoices unsearchable for hours: [[2026-04-22 New invoices missing from search after cutover]].
Fixed in `invoice-indexer` 1.18.4.

## Config
- `search.indexer.bulk_size`: 1000 documents per bulk request (was 5000 on ES, which timed out)
- `search.indexer.bulk_timeout_ms`: 30000
- `index.refresh_interval`: 1s in normal operation; -1 only during backfill

Runbook: [[Runbook - Invoice search reindex]].

## Status
- [x] dual writes
- [x] backfill
- [x] alias swap
- [x] Elasticsearch decommissioned 2026-05-25
""")

N("work/active/Decision - Move invoice search to OpenSearch.md", """
---
date: 2026-01-28
description: Why invoice search moves from self-run Elasticsearch 6.8 to a managed OpenSearch 2.11 domain rather than Elasticsearch 8 or Postgres full-text search.
status: accepted
project: Invoice Search Migration
ticket: SRCH-77
tags: [decision, search]
---
# Decision: Move invoice search to OpenSearch

## Context
The invoice search cluster is Elasticsearch 6.8, self-hosted on EC2, end of life, and the last
thing in our estate on a JVM we can't patch. Query volume is modest (about 40 queries per second
at peak), the index is ~310M documents, and the team that knows it is one person: [[Mei Lin Zhou]].

## Options Considered
1. Upgrade to Elasticsearch 8, self-hosted. Two major versions, mapping changes, same
   operational burden.
2. Managed OpenSearch 2.11 on AWS. Close enough to 6.8's query DSL that most queries port
   unchanged; AWS patches it.
3. Drop the search cluster and use Postgres full-text search on a read replica.

## Decision
Option 2. Option 3 was argued seriously (see [[Postgres full-text search is probably enough]]);
it would work for invoice numbers and names but not for the fuzzy customer-name matching merchants
rely on, and the read replica is already busy with reporting.

## Consequences
- Cost goes up by about $1,900/month; we stop paying in on-call hours.
- Migration needs a way to switch without downtime: [[Decision - Cut over invoice search with dual writes]].
- Mei Lin stops being a single point of failure for search operations, mostly.

[[Invoice Search Migration]]
""")

N("work/active/Decision - Cut over invoice search with dual writes.md", """
---
date: 2026-03-04
description: Invoice search switches clusters through dual writes from the indexer and an atomic alias swap, not a snapshot restore with a maintenance window.
status: accepted
project: Invoice Search Migration
tags: [decision, search]
---
# Decision: Cut over invoice search with dual writes

## Context
Snapshots from Elasticsearch 6.8 can't be restored into OpenSearch 2.11 directly (two major
versions apart). A restore through an intermediate 7.10 cluster would take roughly 14 hours for
310M documents, and merchants search invoices around the clock.

## Options Considered
1. Snapshot → 7.10 → OpenSearch, with a read-only maintenance window of ~14 h.
2. Dual writes from the indexer, backfill from Postgres, compare, then swap the read alias.

## Decision
Option 2. The indexer writes to both clusters from release 1.18.3 on. The backfill runs with
`index.refresh_interval: -1` for speed and `--throttle 2000` to spare Postgres. After a week of
comparison the `invoices-read` alias moves to OpenSearch in one atomic `_aliases` call; rollback is
the same call the other way.

## Consequences
- Two clusters for about five weeks.
- The backfill has to restore the refresh interval when it's done. (It didn't; see
  [[2026-04-22 New invoices missing from search after cutover]].)

Agreed at [[2026-02-11 Invoice search migration kickoff]]; owner [[Mei Lin Zhou]].
""")

N("thinking/Postgres full-text search is probably enough.md", """
---
date: 2026-01-24
description: Draft arguing that invoice search does not need a search cluster at all and Postgres full-text search with trigram indexes would do.
tags: [thinking, draft, search]
status: draft
project: Invoice Search Migration
---
# Postgres full-text search is probably enough

Contrarian draft before the search decision. I half believe it.

What merchants actually type into invoice search, from a week of query logs (Mei Lin's export):

| kind | share |
|---|---|
| invoice number, exact or prefix | 52% |
| customer email | 21% |
| customer or company name | 19% |
| amount | 6% |
| anything else | 2% |

Invoice numbers and emails are B-tree lookups. Names are where a search engine earns its keep, but
`pg_trgm` with a GIN index handles "Jonh Smith" → "John Smith" well enough for 19% of queries. We
would delete a whole cluster, a whole indexer, and a whole class of consistency bugs (the index
lagging behind the database).

Problems I can see:
- the read replica already serves reporting and is at 70% CPU at month-end;
- merchants with 5M+ invoices would need careful partial indexes;
- relevance sorting by recency and match quality is clumsy in SQL.

Probably loses, and should lose if the replica can't take it. But it should be on the table.

Outcome: lost, see [[Decision - Move invoice search to OpenSearch]].
""")

N("work/meetings/2026-02-11 Invoice search migration kickoff.md", """
---
date: 2026-02-11
description: Kickoff for the invoice search migration - plan, owners, comparison method and the cutover approach.
tags: [meeting, search]
project: Invoice Search Migration
---
# 2026-02-11 Invoice search migration kickoff

[[Mei Lin Zhou]], [[Marco Bellini]] (portal is the main client), [[Femi Adebayo]] (infra), me.

- Mappings: Mei Lin ported the 6.8 mapping; only the `customer_name` analyzer changed (the old
  `standard` + `asciifolding` is now a custom analyzer with an edge n-gram subfield).
- Indexer: the Kotlin `invoice-indexer` gets a second writer behind a flag. Release 1.18.3.
- Comparison: replay 10,000 real queries from the logs against both clusters, compare top 10.
  Marco: the portal only ever shows 25 results, so compare top 25.
- Backfill from Postgres, not from the old cluster, so we also fix the 2025 documents that drifted.
- Cutover approach: dual writes and alias swap, see [[Decision - Cut over invoice search with dual writes]].
- I raised the day-of-week: not during month-end close. Mei Lin picked 2026-04-22.

Owners: Mei Lin overall, me for the comparison tooling, Femi for the domain and IAM.
""")

N("work/incidents/2026-04-22 New invoices missing from search after cutover.md", """
---
date: 2026-04-22
quarter: Q2-2026
description: Postmortem of the search cutover problem where invoices created after the alias swap could not be found for about five hours because index refresh stayed disabled.
project: Invoice Search Migration
status: completed
ticket: SRCH-91
severity: medium
role: incident commander
tags: [work-note, incident, search]
---
# 2026-04-22 New invoices missing from search after cutover

## Context
At 08:00 UTC we swapped the `invoices-read` alias to the OpenSearch cluster. Comparisons had been
clean for eight days.

## Root Cause
The backfill set `index.refresh_interval` to `-1` on the new index, which is the standard trick to
speed up bulk loading. `invoice-indexer` 1.18.3 was supposed to put it back to `1s` when the
backfill finished; the reset ran against the *write* alias, which at that point still pointed at a
different index name. So the new cluster never refreshed. Documents were indexed but not visible
to searches.

The comparison tooling didn't catch it because it compared old documents, and those had been
refreshed during the last manual `_refresh` after the backfill.

## Resolution
- 10:40 [[Keiko Tanaka]] forwards three tickets: "invoice I created this morning isn't in search".
- 11:05 I took IC. First guess was indexer lag; the indexer was fine.
- 12:30 [[Mei Lin Zhou]] spotted `refresh_interval: -1` in the index settings.
- 12:34 set it to `1s`; invoices visible within seconds.
- 13:10 confirmed with support; incident closed.

We did not swap back: the old cluster would have had the same invoices, but the swap back would
have been a second change under pressure for no gain.

## Impact
About 5 hours (08:00 to ~12:34) in which invoices created after the swap, roughly 41,000, could
not be found by search. Viewing and paying them by link worked. 23 support tickets.

## Follow-ups
- [x] `invoice-indexer` 1.18.4 restores the refresh interval on the concrete index name, and
  refuses to finish a backfill while it's -1 (SRCH-91)
- [x] Comparison tooling includes documents created in the last hour
- [x] Runbook step: check index settings before and after any alias swap

Retro: [[2026-04-24 Search cutover retro]].
""")

N("work/meetings/2026-04-24 Search cutover retro.md", """
---
date: 2026-04-24
description: Retro on the invoice search cutover, two days after new invoices went missing from search.
tags: [meeting, retro, search]
project: Invoice Search Migration
---
# 2026-04-24 Search cutover retro

[[Mei Lin Zhou]], [[Keiko Tanaka]], [[Marco Bellini]], [[Priya Raman]], me.

What went well
- The swap itself was instant and nobody noticed it.
- Support noticed the problem before any alert did, and told us within 40 minutes of the first
  ticket.

What didn't
- No alert for "documents indexed but not searchable". We now have a synthetic check: create a
  test invoice every 5 minutes and search for it.
- The reset of the refresh interval was tested on a single-index setup where the alias and the
  index had the same name. The real setup had versioned index names (`invoices-v7`).
- I was IC and also the person most likely to know the fix. Next time I hand IC to someone else.

Mei Lin's summary: "the settings change that makes a backfill fast is the setting you must
remember to undo". It's also in [[brain/Gotchas|Gotchas]] now.

Incident note: [[2026-04-22 New invoices missing from search after cutover]].
""")

N("reference/Runbook - Invoice search reindex.md", """
---
date: 2026-04-25
description: How to reindex invoice search, run a backfill, and swap the read alias safely, including the index settings to check.
tags: [runbook, search]
project: Invoice Search Migration
---
# Runbook - Invoice search reindex

Cluster: managed OpenSearch 2.11, domain `invoices-prod`. Indexer: `invoice-indexer` (Kotlin).

## Backfill a new index

```sh
invoice-indexer reindex --target invoices-v8 --since 2019-01-01 --throttle 2000 --dry-run
invoice-indexer reindex --target invoices-v8 --since 2019-01-01 --throttle 2000
```

`--throttle` is documents per second read from Postgres. 2000 keeps the primary under 60% CPU.
The reindex sets `index.refresh_interval: -1` on the target and, since 1.18.4, restores `1s` when
it finishes. **Check it anyway.**

## Before and after any alias swap

```sh
curl -s "$OS/invoices-v8/_settings?filter_path=**.refresh_interval"
```

Must say `1s`. Then:

```sh
curl -s -XPOST "$OS/_aliases" -d @swap-invoices-read.json
```

The swap is atomic; swapping back is the same call with the indices exchanged.

## Bulk settings
`search.indexer.bulk_size` (1000) and `search.indexer.bulk_timeout_ms` (30000). If bulk requests
time out, lower the size before raising the timeout.

History: [[2026-04-22 New invoices missing from search after cutover]]. Owner [[Mei Lin Zhou]].
""")

N("reference/releases/invoice-indexer 1.18.3.md", """
---
date: 2026-04-14
description: Release notes for invoice-indexer 1.18.3, which added dual writes to OpenSearch and the backfill command.
tags: [release, search]
project: Invoice Search Migration
version: 1.18.3
---
# invoice-indexer 1.18.3

## Changes
- Dual writes: every invoice change goes to Elasticsearch and OpenSearch when
  `search.indexer.dual_write` is on (SRCH-80)
- `reindex` command for backfills from Postgres, with `--since`, `--throttle`, `--target`,
  `--dry-run`
- Bulk size default lowered from 5000 to 1000 (`search.indexer.bulk_size`)
- Refresh interval disabled during backfill and reset at the end

## Known problems
- The refresh interval reset targets the write alias rather than the concrete index. Fixed in
  1.18.4 after [[2026-04-22 New invoices missing from search after cutover]].

Project: [[Invoice Search Migration]].
""")

N("work/slack/2026-04-14 search dual-write launch thread.md", """
---
date: 2026-04-14
description: #search thread on the day dual writes to the new invoice search cluster were switched on.
tags: [slack, search]
project: Invoice Search Migration
---
# #search: dual writes on (2026-04-14)

- [[Mei Lin Zhou]]: indexer 1.18.3 is out, `search.indexer.dual_write=true` since 09:12. Write
  latency p99 went from 40 ms to 55 ms, fine.
- Backfill started 10:00 at `--throttle 2000`. ETA Thursday night.
- [[Femi Adebayo]]: the OpenSearch domain is on 3 × r6g.xlarge data nodes, 3 dedicated masters.
- Me: comparison job scheduled nightly from Friday, 10,000 queries, top 25 overlap.
- [[Marco Bellini]] asked whether the portal needs to change anything. No, it talks to the search
  API, not the cluster.
""")

N("work/slack/2026-04-22 support missing invoices thread.md", """
---
date: 2026-04-22
description: #support-escalations thread where merchants reported that invoices created that morning were not showing up in search.
tags: [slack, support, search]
project: Invoice Search Migration
---
# #support-escalations: "can't find today's invoice" (2026-04-22)

- 10:40 [[Keiko Tanaka]]: three merchants since 10:00 say invoices they created this morning don't
  show up in the portal search. They can open them from the email link. Anything going on?
- 10:52 Me: we moved search to the new cluster at 08:00, looking now.
- 11:30 Keiko: up to 11 tickets. Suggested macro: "search is delayed, use the invoice link".
- 12:36 Me: fixed, a setting on the new index stopped new documents from becoming visible. All
  invoices should be searchable now.
- 13:05 Keiko: merchants confirm. She asked for a heads-up before the next migration. Fair.

Incident: [[2026-04-22 New invoices missing from search after cutover]].
""")


# ==============================================================================================
# Project 4: Webhooks v2 (outgoing webhook delivery)
# ==============================================================================================

N("work/active/Webhooks v2.md", """
---
date: 2026-01-19
description: Project note for Webhooks v2, the rewrite of outgoing event delivery to merchants - signing, retries, per-endpoint limits and replay.
tags: [work-note, project, webhooks]
status: active
quarter: Q2-2026
project: Webhooks v2
---
# Webhooks v2

I lead this one; [[Ravi Kulkarni]] is building most of it, [[Hannah Berg]] owns the signing part.

## Scope
Merchants subscribe endpoints to events (`invoice.paid`, `subscription.renewed`, …). v1 was a
cron job that POSTed in a loop. v2 (`services/webhooks`, Go) is a dispatcher with a worker pool,
retries with backoff for up to 3 days, signatures with rotating secrets, and a replay tool.

## Settings
| key | value | note |
|---|---|---|
| `webhooks.delivery.max_inflight` | 512 | global worker pool |
| `webhooks.delivery.per_endpoint_limit` | 8 | since HOOK-311 |
| `webhooks.delivery.timeout_ms` | 10000 | was 30000 until the April backlog |
| `webhooks.replay.max_inflight` | 50 | default for `hookctl replay` |

## Milestones
- 2026-02-03 [[Decision - Sign webhooks with two active secrets]]
- 2026-03-02 v2 dispatcher live for 10% of merchants
- 2026-03-30 100% of merchants; v1 cron deleted
- 2026-04-29 [[2026-04-29 Webhook deliveries delayed by one slow endpoint]]
- 2026-05-05 [[Decision - Per-endpoint concurrency limit for webhook delivery]]
- 2026-05-13 per-endpoint limit rolled out (`e81c0f2`)

## Open
- [ ] Dead-letter view in the portal, with [[Marco Bellini]] (HOOK-330)
- [ ] Auto-disable endpoints failing for 72 h, with merchant email (HOOK-325)
- [ ] Ravi: load test with 2,000 slow endpoints

Runbook: [[Runbook - Webhook backlog]]. Signing: [[Webhook signing reference]].
""")

N("work/incidents/2026-04-29 Webhook deliveries delayed by one slow endpoint.md", """
---
date: 2026-04-29
quarter: Q2-2026
description: Postmortem of the webhook backlog where one merchant's slow endpoint tied up every delivery worker and delayed events for all other merchants by up to two hours.
project: Webhooks v2
status: completed
ticket: HOOK-309
severity: high
role: responder
tags: [work-note, incident, webhooks]
---
# 2026-04-29 Webhook deliveries delayed by one slow endpoint

## Context
One large merchant, Larkspur Rentals, deployed a change to their receiving endpoint at 13:10 UTC
that made it take ~29 seconds to answer, just under our 30 second timeout. They receive about 8% of
all our events.

## Root Cause
The dispatcher has one global pool (`webhooks.delivery.max_inflight = 512`). Nothing stopped a
single endpoint from occupying all of it. Within twenty minutes nearly every worker was waiting on
Larkspur, and every other merchant's events queued behind them. Classic head-of-line blocking; we
had discussed it in design and decided it was unlikely.

## Resolution
- 13:52 queue-age alert (oldest undelivered event > 15 min).
- 14:05 [[Tomasz Nowak]] IC; me and [[Ravi Kulkarni]] (shadowing on-call) responding.
- 14:20 disabled Larkspur's endpoint with `hookctl endpoint disable ep_77120 --reason incident`.
  Workers freed within 30 s.
- 14:25 lowered `webhooks.delivery.timeout_ms` from 30000 to 10000.
- 14:30 to 16:15 backlog of ~1.3M events drained.
- 16:40 Larkspur fixed their endpoint; re-enabled, their events replayed with
  `hookctl replay --endpoint ep_77120 --since 2026-04-29T13:10Z --max-inflight 20`.

## Impact
Events for every merchant delayed, worst case 2 h 10 min. No events lost. 37 merchants asked
support; two said their fulfilment was delayed.

## Involved Personnel
[[Tomasz Nowak]] (IC), me, [[Ravi Kulkarni]], [[Keiko Tanaka]] for support.

## Follow-ups
- [x] Per-endpoint concurrency limit (HOOK-311): [[Decision - Per-endpoint concurrency limit for webhook delivery]]
- [x] Timeout stays at 10 s
- [ ] Auto-disable endpoints that fail for 72 h (HOOK-325)
- [x] Replay defaults to a bounded inflight (it was unlimited; Ravi almost replayed 400k events at
  once)

Review: [[2026-05-04 Webhook incident review]].
""")

N("work/meetings/2026-05-04 Webhook incident review.md", """
---
date: 2026-05-04
description: Incident review of the webhook backlog - head-of-line blocking, timeouts, and the options for isolating slow merchant endpoints.
tags: [meeting, incident-review, webhooks]
project: Webhooks v2
---
# 2026-05-04 Webhook incident review

Reviewing [[2026-04-29 Webhook deliveries delayed by one slow endpoint]] with [[Tomasz Nowak]],
[[Ravi Kulkarni]], [[Priya Raman]], [[Hannah Berg]], me.

## Discussion
- Ravi presented the timeline; good job, first postmortem he's written.
- Options for isolation:
  1. per-endpoint semaphore in the dispatcher (cap concurrent deliveries per endpoint);
  2. a queue per endpoint (bigger change, fair scheduling for free);
  3. just keep the timeout low (10 s or 5 s) and accept it.
- Tomasz: option 3 alone still lets 512/10 s = 51 deliveries a second go to one bad endpoint; with
  a few slow merchants we'd be back here.
- Hannah: whatever we pick, disabling an endpoint must notify the merchant, since they'd otherwise
  miss events silently.
- Ravi worried that a per-endpoint limit would hurt our biggest merchants' throughput. Numbers:
  Larkspur's normal traffic peaks at ~30 events/s with ~200 ms responses, so a limit of 8 is
  plenty.

## Outcome
Semaphore per endpoint, default limit 8 (option 1). Queue per endpoint is the long-term option if we
need fairness. Written up the next day as [[Decision - Per-endpoint concurrency limit for webhook delivery]].
""")

N("work/active/Decision - Per-endpoint concurrency limit for webhook delivery.md", """
---
date: 2026-05-05
description: The webhook dispatcher caps concurrent deliveries per merchant endpoint so one slow endpoint can no longer starve everyone else.
status: accepted
project: Webhooks v2
ticket: HOOK-311
tags: [decision, webhooks]
---
# Decision: Per-endpoint concurrency limit for webhook delivery

## Context
On 2026-04-29 one merchant's slow endpoint held all 512 delivery workers and delayed every other
merchant's events for up to two hours ([[2026-04-29 Webhook deliveries delayed by one slow endpoint]]).

## Options Considered
1. A semaphore per endpoint inside the existing pool.
2. A queue per endpoint with a fair scheduler across queues.
3. Only a lower timeout (see [[Just lower the webhook timeout]]).

## Decision
Option 1. Each endpoint may have at most `webhooks.delivery.per_endpoint_limit` (default 8)
deliveries in flight; when it's at the limit, the worker takes the next event for another endpoint
and the skipped one is re-queued without losing its position in that endpoint's order.
Implemented in `services/webhooks/dispatcher/pool.go`, commit `e81c0f2`. The global
`webhooks.delivery.max_inflight` stays at 512. Timeout stays at 10 s.

Merchants that need more can get a per-endpoint override; so far nobody has.

## Consequences
- One slow endpoint can occupy at most 8 of 512 workers.
- Per-endpoint ordering is preserved; it already was best effort.
- Option 2 stays the next step if we ever need weighted fairness.

[[Webhooks v2]]
""")

N("thinking/Just lower the webhook timeout.md", """
---
date: 2026-05-01
description: Draft arguing that a shorter webhook timeout is enough after the April backlog, and that per-endpoint queues or limits are over-engineering.
tags: [thinking, draft, webhooks]
status: draft
project: Webhooks v2
---
# Just lower the webhook timeout

Ravi asked me to steelman the simple option before the review, so here it is.

The Larkspur afternoon happened because we let a receiver take 29 seconds. Nobody's webhook
receiver should take more than a second or two; every provider's docs say "acknowledge fast, do
the work later". If the timeout were 5 seconds:

- a slow endpoint costs us 5 s per attempt instead of 30, six times less worker time;
- it fails fast and goes into retry backoff, which naturally reduces its share;
- no new concurrency code, no new config, nothing to explain to merchants.

Per-endpoint limits add a scheduling decision to the hot path, and the re-queue logic is exactly
the kind of code that breaks ordering in subtle ways.

Where this falls down (I checked after writing the above): at 5 s, 512 workers can still spend
~100 deliveries a second on one endpoint, and if three big merchants go slow together we're back
to a full pool. Backoff helps only after failures pile up. So: lower timeout yes, but not instead.

See [[2026-05-04 Webhook incident review]].
""")

N("work/active/Decision - Sign webhooks with two active secrets.md", """
---
date: 2026-02-03
description: Webhook payloads are signed with HMAC-SHA256 and, during a secret rotation, with both the new and the previous secret so merchants can switch without dropping events.
status: accepted
project: Webhooks v2
ticket: HOOK-318
tags: [decision, webhooks, security]
---
# Decision: Sign webhooks with two active secrets

## Context
v1 webhooks were signed with one secret per merchant that could never change; rotating it meant
the merchant's verification failed until they deployed the new one. [[Hannah Berg]] flagged it in
the 2025 security review.

## Options Considered
1. One secret, rotation with a maintenance window agreed with the merchant.
2. Two active secrets during rotation; the `Fernhill-Signature` header carries one `v1=` signature
   per active secret.
3. Asymmetric signatures (Ed25519) with a published key set.

## Decision
Option 2. During a rotation (default 72 h) each delivery carries two signatures. Merchants verify
against whichever secret they have. The dispatcher reads `WEBHOOK_SIGNING_SECRET` and
`WEBHOOK_SIGNING_SECRET_PREVIOUS` from the secret store per merchant. Option 3 is nicer but every
merchant library would need to change.

## Consequences
- Rotation is self-service in the portal (HOOK-318).
- The header grows by ~70 bytes during rotation.

Reviewed at [[2026-02-02 Webhook signing review]]. Details: [[Webhook signing reference]].
""")

N("work/meetings/2026-02-02 Webhook signing review.md", """
---
date: 2026-02-02
description: Security review of how Webhooks v2 signs payloads and rotates merchant secrets.
tags: [meeting, security, webhooks]
project: Webhooks v2
---
# 2026-02-02 Webhook signing review

[[Hannah Berg]], [[Ravi Kulkarni]], me.

- Hannah's requirements: HMAC-SHA256, timestamp in the signed payload, reject anything older than 5
  minutes on the merchant side (we document it, we can't enforce it), secrets never logged.
- Rotation: she prefers two active secrets over a hard switch. Ravi asked how long both stay valid;
  72 hours by default, merchant can end it early.
- Ed25519 was discussed; parked, because merchant SDKs in PHP would need a sodium dependency.
- Ravi found that the v1 code logged the full request headers on failure, including an old
  signature. Not the secret, but Hannah wants the header redacted anyway.

Decision written up as [[Decision - Sign webhooks with two active secrets]].

- [x] Ravi: redact `Fernhill-Signature` in dispatcher logs
- [x] Hannah: add secret store paths for `WEBHOOK_SIGNING_SECRET_PREVIOUS`
""")

N("reference/Webhook signing reference.md", """
---
date: 2026-02-09
description: How webhook payloads are signed, the header format, rotation with two secrets, and how merchants verify.
tags: [reference, webhooks, security]
project: Webhooks v2
---
# Webhook signing reference

## Header

```
Fernhill-Signature: t=1767225600,v1=5f2b…,v1=9a0c…
```

`t` is the Unix timestamp; each `v1` is `HMAC_SHA256(secret, t + "." + body)` hex-encoded. Two `v1`
values appear only during a rotation.

## Secrets
- `WEBHOOK_SIGNING_SECRET`: current secret, per merchant, from the secret store path
  `webhooks/merchants/<id>/current`.
- `WEBHOOK_SIGNING_SECRET_PREVIOUS`: set only during rotation; cleared after 72 h or when the
  merchant ends the rotation.

Neither is ever logged. The dispatcher redacts `Fernhill-Signature` in its own logs too.

## Verifying (merchant side)
Compare in constant time against each `v1`; accept if any matches and `t` is within 5 minutes.

Owner: [[Hannah Berg]]. Decision: [[Decision - Sign webhooks with two active secrets]].
""")

N("reference/Runbook - Webhook backlog.md", """
---
date: 2026-05-06
description: Runbook for a growing webhook delivery backlog - finding the endpoint responsible, disabling it, replaying events safely.
tags: [runbook, webhooks]
project: Webhooks v2
---
# Runbook - Webhook backlog

Alert: oldest undelivered event older than 15 minutes.

## 1. Who is it?

```sh
hookctl stats --top-endpoints 10 --by inflight
```

Since the per-endpoint limit (HOOK-311) one endpoint can hold at most 8 workers, so a backlog now
usually means many endpoints are slow at once, or the dispatcher itself is unhealthy.

## 2. Disable a misbehaving endpoint

```sh
hookctl endpoint disable ep_77120 --reason "incident 2026-04-29"
```

The merchant gets an email (HOOK-325 adds this automatically; until then tell support).

## 3. Replay

```sh
hookctl replay --endpoint ep_77120 --since 2026-04-29T13:10Z --max-inflight 20 --dry-run
hookctl replay --endpoint ep_77120 --since 2026-04-29T13:10Z --max-inflight 20
```

Without `--max-inflight` replay uses `webhooks.replay.max_inflight` (50). It used to be unlimited.

## Settings
`webhooks.delivery.max_inflight` 512, `webhooks.delivery.per_endpoint_limit` 8,
`webhooks.delivery.timeout_ms` 10000.

History: [[2026-04-29 Webhook deliveries delayed by one slow endpoint]]. Project: [[Webhooks v2]].
""")

N("work/slack/2026-04-29 inc-webhook-backlog summary.md", """
---
date: 2026-04-29
description: Summary of the #inc-webhook-backlog channel during the afternoon one merchant endpoint blocked webhook delivery.
tags: [slack, incident, webhooks]
project: Webhooks v2
---
# #inc-webhook-backlog summary (2026-04-29)

- 13:52 queue-age alert. [[Ravi Kulkarni]] (shadowing on-call) posts the dashboard: inflight pinned
  at 512.
- 14:05 [[Tomasz Nowak]] takes IC.
- 14:12 Ravi: 497 of 512 workers are on ep_77120 (Larkspur Rentals). Their p50 is 29 s.
- 14:20 endpoint disabled, inflight drops to ~60 in half a minute.
- 14:25 timeout to 10 s. Tomasz: "leave it there".
- 15:10 [[Keiko Tanaka]]: 20+ merchants asking. Status page updated.
- 16:15 backlog drained.
- 16:40 Larkspur says they're fixed. Ravi starts a replay without `--max-inflight`; I stop him
  before it gets far, rerun with 20. He took it well. Replay default gets fixed as a follow-up.

Postmortem owner: Ravi, with me. [[2026-04-29 Webhook deliveries delayed by one slow endpoint]]
""")

N("work/meetings/2026-05-13 Webhook per-endpoint rollout check.md", """
---
date: 2026-05-13
description: Short check-in on rolling out the per-endpoint webhook concurrency limit to all merchants.
tags: [meeting, webhooks]
project: Webhooks v2
---
# 2026-05-13 Webhook per-endpoint rollout check

[[Ravi Kulkarni]] and me, 20 minutes.

- `e81c0f2` has been on 25% of the dispatcher pods since Monday. Throughput unchanged; p99
  delivery latency slightly better.
- Ravi's load test: 2,000 endpoints, 50 of them answering in 9 s. With the limit the healthy
  endpoints' latency stays flat. Without it the pool filled in four minutes.
- The re-queue path had one bug in review: it put skipped events at the tail of the global queue,
  breaking per-endpoint order. Fixed before merge.

Going to 100% today. Ravi announces in #webhooks.

Related: [[Decision - Per-endpoint concurrency limit for webhook delivery]], [[Webhooks v2]].
""")


# ==============================================================================================
# Project 5: EKS Migration (platform: ECS -> EKS)
# ==============================================================================================

N("work/active/EKS Migration.md", """
---
date: 2026-01-09
description: Project note for moving Fernhill's services from ECS to EKS, service by service, with the deploy tool, cluster versions and the order of moves.
tags: [work-note, project, platform]
status: active
quarter: Q2-2026
project: EKS Migration
---
# EKS Migration

Led by [[Femi Adebayo]] (platform) with [[Tomasz Nowak]] for SRE. I represent the payments services
and helped move payments and webhooks.

## Why
ECS served us well but every team had its own Terraform for task definitions, autoscaling was
per-service and crude, and we want one deploy path (`shipit`) with canaries for everything.
[[Decision - Migrate services from ECS to EKS]].

## Clusters
- `prod-eu-1`, Kubernetes 1.29, managed node groups, Karpenter for scaling.
- Upgrade to 1.30 planned for July; 1.28 is what staging ran until February.

## Order of moves
| service | moved | notes |
|---|---|---|
| payments | 2026-01-26 | DNS timeouts the day after, see below |
| webhooks | 2026-02-23 | smooth |
| invoice-indexer | 2026-03-09 | |
| ledger | 2026-04-07 | after the March close; needed the freeze window respected |
| portal | 2026-05-18 | |
| search API | planned June | |

## Incidents
- [[2026-01-27 DNS timeouts after moving payments to EKS]]

## Decisions
- [[Decision - Migrate services from ECS to EKS]]
- [[Decision - Run NodeLocal DNSCache on every node]]

Runbook: [[Runbook - EKS deploys]].

## Open
- [ ] Move search API (June)
- [ ] Delete the ECS clusters after 30 days with no tasks
- [ ] Cost report: EKS vs ECS per service, [[Femi Adebayo]]
""")

N("work/active/Decision - Migrate services from ECS to EKS.md", """
---
date: 2026-01-12
description: Why Fernhill moves its services from ECS to Kubernetes on EKS in 2026, and what we gave up.
status: accepted
project: EKS Migration
tags: [decision, platform]
---
# Decision: Migrate services from ECS to EKS

## Context
Eleven services on ECS with eleven slightly different deploy setups. Canary deploys exist only for
payments, built by hand. Autoscaling is CPU-based per service and wastes roughly 35% of the fleet
at night. Platform has two people.

## Options Considered
1. Stay on ECS and standardise: one Terraform module, one deploy pipeline, canaries via CodeDeploy.
2. Move to EKS with Karpenter, Helm charts from one base chart, `shipit` as the deploy tool.
3. A PaaS (Fly, Render) for the stateless services.

## Decision
Option 2. The deciding arguments were the shared base chart, bin-packing with Karpenter, and that
every new hire already knows Kubernetes. [[Femi Adebayo]] owns it; [[Jonas Eklund]] approved the
headcount for one more platform engineer in H2.

## Consequences
- A migration that takes most of H1, one service at a time.
- New failure modes we didn't have on ECS (DNS, CNI, node rotation).
- Everyone learns `kubectl`. Training sessions in February.

The opposite view: [[Maybe we should stay on ECS]]. Project: [[EKS Migration]].
""")

N("thinking/Maybe we should stay on ECS.md", """
---
date: 2026-01-10
description: Draft arguing that moving from ECS to Kubernetes costs more than it saves for a team with two platform engineers.
tags: [thinking, draft, platform]
status: draft
project: EKS Migration
---
# Maybe we should stay on ECS

Before Monday's decision. Femi is convinced; I want to be sure we're not moving for fashion.

Costs of Kubernetes I think we underestimate:

- **Operations.** Control plane is managed, but node groups, CNI, CoreDNS, cert-manager, the ingress
  controller, Karpenter and the upgrade every year are ours. Two platform engineers.
- **Failure modes.** DNS inside a cluster is its own subject (`ndots`, conntrack races, CoreDNS
  scaling). On ECS, DNS just works because it's the VPC resolver.
- **Migration risk.** Eleven services, each a chance to break something that works today.

What ECS would need to match the goals: one Terraform module, CodeDeploy canaries for everyone,
and Fargate Spot for the batch jobs. Maybe three months of work instead of six.

What I can't argue away: bin-packing. Our fleet at night is mostly idle reservations, and ECS
capacity providers won't fix it like Karpenter would.

Decision went the other way: [[Decision - Migrate services from ECS to EKS]]. Two weeks later the
DNS point came true ([[2026-01-27 DNS timeouts after moving payments to EKS]]).
""")

N("work/incidents/2026-01-27 DNS timeouts after moving payments to EKS.md", """
---
date: 2026-01-27
quarter: Q1-2026
description: Postmortem of intermittent five second latency spikes in payments the day after it moved to EKS, caused by DNS lookups multiplied by ndots and dropped UDP packets.
project: EKS Migration
status: completed
ticket: PLAT-77
severity: medium
role: responder
tags: [work-note, incident, platform]
---
# 2026-01-27 DNS timeouts after moving payments to EKS

## Context
Payments moved to EKS on 2026-01-26. The next morning p99 latency for charges jumped from 800 ms to
just over 5 s, for about 2% of requests. Error rate normal.

## Root Cause
Two Kubernetes defaults together:
1. Pods get `ndots:5` in `/etc/resolv.conf`. Our acquirer's API host has fewer than five dots, so
   every lookup first tries the cluster search domains (`payments.svc.cluster.local`,
   `svc.cluster.local`, `cluster.local`, the VPC domain) before the real name: up to five queries
   per connection, each for A and AAAA.
2. Under that volume, the kernel conntrack race for parallel UDP A/AAAA queries on the same
   socket occasionally dropped one. The resolver waited its default 5 s timeout and retried.
   That's the 5 s.

## Resolution
- Immediate (11:40): `dnsConfig` with `ndots: 2` in the payments chart, plus
  `single-request-reopen`. p99 back to normal within minutes of the rollout.
- Permanent: NodeLocal DNSCache on every node ([[Decision - Run NodeLocal DNSCache on every node]]),
  manifest in `infra/k8s/base/coredns-nodelocal.yaml`.

## Timeline
- 09:10 latency alert on charges
- 09:45 ruled out the acquirer (their status fine, our ECS canary fine)
- 10:30 [[Femi Adebayo]] sees the 5 s pattern and suspects DNS
- 11:40 ndots fix out
- 12:00 closed

## Impact
~2% of charge requests took 5 s extra for about 2.5 h. No failed charges, a few client timeouts
in the portal.

## Involved Personnel
[[Femi Adebayo]] (IC), [[Tomasz Nowak]], me.

## Follow-ups
- [x] ndots 2 in the base chart for every service
- [x] NodeLocal DNSCache (PLAT-81)
- [x] Add DNS latency to the service dashboards
""")

N("work/active/Decision - Run NodeLocal DNSCache on every node.md", """
---
date: 2026-02-05
description: After the payments DNS incident every EKS node runs a local DNS cache, and the base chart sets ndots to 2.
status: accepted
project: EKS Migration
ticket: PLAT-81
tags: [decision, platform]
---
# Decision: Run NodeLocal DNSCache on every node

## Context
[[2026-01-27 DNS timeouts after moving payments to EKS]]: the `ndots` default multiplied our DNS
queries and the conntrack race for UDP turned a small share of them into 5 second waits.

## Options Considered
1. `ndots: 2` everywhere and nothing else.
2. Scale CoreDNS up (more replicas, autoscaler).
3. NodeLocal DNSCache as a DaemonSet: pods talk to a cache on their own node over a link-local IP,
   the cache uses TCP upstream, no conntrack entries for pod DNS.

## Decision
Option 3 plus option 1. Every node runs the cache (`infra/k8s/base/coredns-nodelocal.yaml`); the
base Helm chart sets `dnsConfig.options: ndots: "2"`. CoreDNS stays at 4 replicas.

## Consequences
- One more DaemonSet to upgrade with the cluster.
- Services that relied on short names resolving through search domains must use full names; two
  did (found by [[Femi Adebayo]] in staging).

[[EKS Migration]]
""")

N("work/meetings/2026-01-29 EKS migration sync.md", """
---
date: 2026-01-29
description: Weekly EKS migration sync two days after the payments DNS incident; order of the next moves and the DNS fix.
tags: [meeting, platform]
project: EKS Migration
---
# 2026-01-29 EKS migration sync

[[Femi Adebayo]], [[Tomasz Nowak]], [[Luis Ferreira]], me.

- DNS incident recap (my summary from [[2026-01-27 DNS timeouts after moving payments to EKS]]).
  Femi proposes NodeLocal DNSCache cluster-wide; write-up next week.
- Next moves: webhooks in February, invoice-indexer in March. Luis wants the ledger to wait until
  after the March close, and not in the same week as a ledger release.
- `shipit` canary defaults: 10% for 15 minutes, automatic rollback on error-rate alert. Tomasz
  wants latency in the rollback condition too, after this week.
- Staging is still on Kubernetes 1.28; Femi upgrades it to 1.29 to match prod before the next move.

- [ ] Femi: NodeLocal DNSCache decision record
- [ ] Tomasz: latency condition in shipit rollback
""")

N("work/meetings/2026-03-25 EKS migration status.md", """
---
date: 2026-03-25
description: Mid-migration status of the ECS to EKS move, cost so far and the ledger move date.
tags: [meeting, platform]
project: EKS Migration
---
# 2026-03-25 EKS migration status

[[Femi Adebayo]] presenting to [[Priya Raman]], [[Jonas Eklund]], [[Luis Ferreira]], me.

| | ECS (Dec) | EKS (Mar, projected) |
|---|---|---|
| monthly compute | $41k | $33k |
| services moved | 0 | 3 of 6 in scope |
| deploy paths | 11 | 1 for moved services |

- Ledger moves 2026-04-07, after the close, with a full `shipit --dry-run` the week before.
- Jonas asked about the node rotation process after the DNS incident. Femi: rotations are
  Karpenter-driven now, with PodDisruptionBudgets on everything that matters.
- Portal goes in May, search API in June.
- The ECS clusters get deleted 30 days after the last task stops.
""")

N("reference/Runbook - EKS deploys.md", """
---
date: 2026-02-06
description: How to deploy, canary and roll back a service on EKS with shipit, including the flags people get wrong.
tags: [runbook, platform]
project: EKS Migration
---
# Runbook - EKS deploys

Tool: `shipit`, wraps Helm with canaries. Owner [[Femi Adebayo]].

## Deploy

```sh
shipit deploy payments --version v3.12.0 --dry-run     # renders the chart, diffs against the cluster
shipit deploy payments --version v3.12.0 --canary 10   # 10% for 15 min, then the rest
```

Flags:
- `--canary N` percent of pods on the new version during the canary phase (default 10)
- `--max-surge N` extra pods during the rollout (default 25%)
- `--dry-run` render and diff only; always do this for a service's first EKS deploy
- `--skip-canary` only with IC approval during an incident

## Roll back

```sh
shipit rollback ledger --to v2.4.6
```

Automatic rollback happens when the error-rate or p99-latency alert fires during the canary.

## Blocked versions
`shipit` refuses versions listed in `infra/shipit/blocked.yaml` (the ledger release withdrawn in
March is there).

## DNS
The base chart sets `ndots: 2` and uses the node-local DNS cache. Don't override `dnsConfig` in a
service chart. Why: [[Decision - Run NodeLocal DNSCache on every node]].
""")

N("work/slack/2026-01-27 inc-dns-timeouts summary.md", """
---
date: 2026-01-27
description: Summary of the #inc-dns-timeouts channel on the morning payments latency spiked after the EKS move.
tags: [slack, incident, platform]
project: EKS Migration
---
# #inc-dns-timeouts summary (2026-01-27)

- 09:10 charge latency alert, p99 5.1 s.
- 09:30 Someone: "is it the acquirer?" Corridor's status page green; our remaining ECS canary for
  payments is fine. So it's us, and it's the move.
- 10:05 [[Tomasz Nowak]]: error rate normal, just slow, and slow by almost exactly five seconds.
- 10:30 [[Femi Adebayo]]: five seconds is the resolver timeout. Pods have ndots:5, every call to
  the acquirer does five lookups. Links a well-known Kubernetes issue about conntrack and UDP.
- 11:00 Me: reproduced with `dig` inside a pod, one in ~50 lookups stalls.
- 11:40 chart change with ndots 2 rolled out. Latency normal by 11:50.
- 12:00 closed. Femi will write up NodeLocal DNSCache.

[[2026-01-27 DNS timeouts after moving payments to EKS]]
""")

N("work/slack/2026-03-26 platform ledger move thread.md", """
---
date: 2026-03-26
description: #platform thread planning the ledger's move to EKS around the month-end freeze.
tags: [slack, platform, ledger]
project: EKS Migration
---
# #platform: moving the ledger (2026-03-26)

- [[Femi Adebayo]] proposed 2026-03-31 for the ledger move. [[Luis Ferreira]]: that's inside the
  close window, no. The freeze applies to infrastructure moves too.
- New date 2026-04-07 (the Tuesday after the close ends).
- Luis asked for `shipit --dry-run` output a week before and a rehearsal on staging with a copy of
  the payout batch job, since that's the job with the long transactions.
- [[Tomasz Nowak]] will be IC-on-standby during the move.
- Done 2026-04-07 at 10:00, no drift. Femi posted the graph.
""")

N("reference/Reading - Kubernetes DNS and ndots.md", """
---
date: 2026-01-28
description: Reading notes on how resolv.conf search domains and ndots work in Kubernetes pods, and why lookups get slow.
tags: [reading, platform, kubernetes]
---
# Reading - Kubernetes DNS and ndots

Written up the day after the payments incident, mostly for myself.

- A pod's `/etc/resolv.conf` has `search <ns>.svc.cluster.local svc.cluster.local cluster.local`
  plus the node's domains, and `options ndots:5`.
- `ndots:5` means: a name with fewer than five dots is tried with each search domain appended
  first. `api.corridor-payments.com` has two dots → four failed lookups before the real one.
- Each lookup is A and AAAA in parallel from the same socket. Linux conntrack can drop one of two
  simultaneous UDP packets with the same tuple (a known race). glibc then waits the full timeout
  (5 s) before retrying.
- Fixes, in order of effort: end external names with a dot (`api.corridor-payments.com.`), set
  `ndots` lower, `single-request-reopen`, run NodeLocal DNSCache.

How we applied it: [[Decision - Run NodeLocal DNSCache on every node]].
""")


# ==============================================================================================
# Project 6: Portal Next (customer billing portal rewrite)
# ==============================================================================================

N("work/active/Portal Next.md", """
---
date: 2026-02-09
description: Project note for Portal Next, the rewrite of the merchant billing portal in Next.js, its beta rollout by feature flag and open issues.
tags: [work-note, project, portal]
status: active
quarter: Q2-2026
project: Portal Next
---
# Portal Next

Lead: [[Marco Bellini]]. Product: [[Aoife Brennan]]. I'm involved for the payments APIs it calls
and for money formatting.

## What
The merchant portal (invoices, customers, payouts, settings) is a 2017 Angular app. Portal Next is
a Next.js rewrite, page by page, served at the same URL. Accounts are switched with the feature
flag `portal.next.enabled`; beta started 2026-04-20 with 200 accounts.

Code: `apps/portal` in the monorepo; invoice pages in `apps/portal/src/app/invoices/`. The API base
comes from `PORTAL_API_BASE_URL`.

## Decisions
- [[Decision - Render invoice pages on the server]]
- [[Decision - Currency exponent comes from the API]]

## Incidents
- [[2026-05-06 Portal Next showed JPY amounts divided by 100]]

## Status
| page | state |
|---|---|
| invoices list and detail | beta |
| customers | beta |
| payouts | building |
| settings, webhooks | not started; webhooks page waits for HOOK-330 |

## Open
- [ ] Payouts page (PORT-530)
- [ ] Beta to 2,000 accounts once PORT-512 is verified in production for a week
- [ ] Accessibility audit, external, booked for June
- [ ] Remove `@fernhill/money` 1.8.3 pin once every app is on 1.9
""")

N("work/active/Decision - Render invoice pages on the server.md", """
---
date: 2026-02-17
description: Portal Next renders invoice pages on the server rather than as a client-side single page app, for speed on large invoices and for PDF parity.
status: accepted
project: Portal Next
tags: [decision, portal]
---
# Decision: Render invoice pages on the server

## Context
The old portal fetches an invoice as JSON and renders it in the browser. Invoices with 2,000 line
items take 6+ seconds to show on a mid-range laptop. The PDF is rendered separately on the server
from different code, and the two disagree about rounding once or twice a quarter.

## Options Considered
1. Client-side rendering, like today, with virtualised line-item tables.
2. Server-side rendering of invoice pages in Next.js, sharing the formatting code with the PDF
   renderer.
3. Static generation at invoice finalisation time.

## Decision
Option 2. Invoice detail pages are server components; the line-item table streams. The PDF renderer
and the page use the same `@fernhill/money` package, so a number can't look different in the two.

Option 3 fails for draft invoices, which change.

## Consequences
- Portal Next needs its own Node runtime on EKS (it moved 2026-05-18).
- Time to first render for the 2,000-line invoice: 6.4 s → 1.1 s in the prototype.

Reviewed at [[2026-02-16 Portal Next architecture review]]. Project [[Portal Next]].
""")

N("work/meetings/2026-02-16 Portal Next architecture review.md", """
---
date: 2026-02-16
description: Architecture review of Portal Next - rendering approach, auth, money formatting and how the beta will be gated.
tags: [meeting, design-review, portal]
project: Portal Next
---
# 2026-02-16 Portal Next architecture review

[[Marco Bellini]], [[Aoife Brennan]], [[Hannah Berg]], [[Femi Adebayo]], me.

- Rendering: Marco proposed server components for invoices; agreed, written up as
  [[Decision - Render invoice pages on the server]].
- Auth: sessions stay in the existing auth service; Portal Next only reads the cookie. Hannah wants
  CSP headers from day one.
- Money: I asked that all amounts go through `@fernhill/money`, never `amount / 100` in a
  component. Marco agreed; it's in the lint rules. (Foreshadowing: the lint rule only caught `/ 100`,
  not a helper that did the same thing.)
- Beta: per-account flag `portal.next.enabled`, 200 accounts chosen by Aoife, mixed currencies.
- Hosting: EKS, Femi to add it to the migration order for May.
""")

N("work/incidents/2026-05-06 Portal Next showed JPY amounts divided by 100.md", """
---
date: 2026-05-06
quarter: Q2-2026
description: Postmortem of the Portal Next beta bug where amounts in yen and other zero-decimal currencies were shown a hundred times too small.
project: Portal Next
status: completed
ticket: PORT-512
severity: medium
role: responder
tags: [work-note, incident, portal]
---
# 2026-05-06 Portal Next showed JPY amounts divided by 100

## Context
A release of Portal Next at 08:30 UTC moved the invoice list to a new table component.

## Root Cause
The table formatted amounts with a local helper, `formatMinor()` in
`apps/portal/src/lib/money.ts`, that assumed two decimal places for every currency. JPY and KRW
have none: ¥12,000 is stored as `12000` minor units, and the helper displayed ¥120. The shared
`@fernhill/money` package (1.8.3) gets this right, but the new component didn't use it. The lint
rule against `amount / 100` didn't fire because the helper divided by `10 ** 2`.

## Resolution
- 11:15 a Japanese merchant on the beta reported it to [[Keiko Tanaka]].
- 11:40 [[Marco Bellini]] IC; flag `portal.next.enabled` turned off for the 41 beta accounts with
  zero-decimal currencies.
- 13:20 fix: the table uses `@fernhill/money`; the helper is deleted. Flag back on 14:00.

## Impact
41 accounts saw wrong amounts in lists for about 3 hours (detail pages and PDFs were right). One
merchant sent a wrong figure to their accountant. No payment was wrong.

## Involved Personnel
[[Marco Bellini]] (IC), me, [[Keiko Tanaka]], [[Aoife Brennan]] for merchant contact.

## Follow-ups
- [x] Currency exponent supplied by the API: [[Decision - Currency exponent comes from the API]]
- [x] Beta cohort test fixtures include JPY, KRW and a three-decimal currency (BHD)
- [x] Lint rule bans local money helpers altogether

Review: [[2026-05-11 Portal beta review]].
""")

N("work/active/Decision - Currency exponent comes from the API.md", """
---
date: 2026-05-12
description: Every amount the API returns now carries its currency exponent, so clients never assume two decimal places.
status: accepted
project: Portal Next
ticket: PORT-515
tags: [decision, portal, payments]
---
# Decision: Currency exponent comes from the API

## Context
[[2026-05-06 Portal Next showed JPY amounts divided by 100]]. Every client that formats money has
to know that JPY has 0 decimals, BHD has 3, and so on. Each client kept its own table, and the
tables disagreed.

## Options Considered
1. Keep a table in `@fernhill/money` and make every client use it.
2. The API returns amounts as `{ "value": 12000, "currency": "JPY", "exponent": 0 }`.
3. The API returns formatted strings.

## Decision
Option 2, and `@fernhill/money` 1.9 reads the exponent instead of its own table. Formatted strings
(option 3) would break sorting and sums in clients and push locale into the API.

## Consequences
- API v2024-11 responses gain an `exponent` field on every money object (additive, no version
  bump).
- Old clients keep working; new code must use the field.
- Payments and ledger already store minor units with the currency; no data change.

Discussed at [[2026-05-11 Portal beta review]]. Project [[Portal Next]].
""")

N("thinking/Why not just fix the old portal.md", """
---
date: 2026-02-12
description: Draft arguing against the Portal Next rewrite, proposing to fix the slow pages of the existing Angular portal instead.
tags: [thinking, draft, portal]
status: draft
project: Portal Next
---
# Why not just fix the old portal

Marco's rewrite pitch is good, but rewrites are where projects go to die. Arguing the other side
for the review:

- The complaints are concentrated: the invoice page with huge invoices, and search. Both could be
  fixed in the old app: virtualise the line-item table, and the search is moving to OpenSearch
  anyway.
- The old portal has seven years of edge cases in it. Tax display rules for 14 countries, the weird
  Swiss rounding, credit notes. A rewrite rediscovers each one through a support ticket.
- Angular 1 → Angular 17 migration paths exist; a rewrite to Next.js is a rewrite of team skills
  too.

What makes me doubt this: the PDF and the page come from different code and disagree on rounding,
and the old app has no tests worth the name. A rewrite can fix the shared-formatting problem at the
root.

Outcome: rewrite approved, page by page. See [[Portal Next]]. I was right about the edge cases,
at least once: [[2026-05-06 Portal Next showed JPY amounts divided by 100]].
""")

N("work/meetings/2026-05-11 Portal beta review.md", """
---
date: 2026-05-11
description: Review of the Portal Next beta after three weeks - adoption, the yen incident, feedback and the plan to widen the beta.
tags: [meeting, portal]
project: Portal Next
---
# 2026-05-11 Portal beta review

[[Marco Bellini]], [[Aoife Brennan]], [[Keiko Tanaka]], [[Priya Raman]], me.

- 200 beta accounts, 164 active weekly. Invoice page time to first render p75 1.3 s (old portal
  5.8 s).
- The JPY incident ([[2026-05-06 Portal Next showed JPY amounts divided by 100]]): I proposed the
  API send the currency exponent; accepted, I write it up ([[Decision - Currency exponent comes from the API]]).
- Feedback from Keiko's team: merchants like the speed, miss the bulk "mark as paid" action (to
  come behind `portal.next.bulk_actions`), and
  two asked where webhooks settings went (not built yet).
- Aoife wants 2,000 accounts by June. Marco wants a week of clean production with the fix first.
  Agreed: widen on 2026-05-25 if nothing new breaks.

- [ ] Marco: bulk mark-as-paid (PORT-534)
- [ ] Me: exponent decision record
- [ ] Keiko: beta feedback form in the help widget
""")

N("reference/Runbook - Portal Next rollout.md", """
---
date: 2026-04-17
description: How to add or remove merchant accounts from the Portal Next beta with the feature flag, and how to roll a Portal Next release back.
tags: [runbook, portal]
project: Portal Next
---
# Runbook - Portal Next rollout

## Flag
`portal.next.enabled`, per account, in flagd. Off means the old portal.

```sh
flagctl set portal.next.enabled --account acct_19d3 --value true
flagctl set portal.next.enabled --segment currency:JPY --value false   # what we did on 2026-05-06
flagctl get portal.next.enabled --account acct_19d3
```

A flag change takes effect on the next page load; no deploy.

## Release rollback
Portal Next deploys with `shipit` like everything else on EKS since 2026-05-18:

```sh
shipit rollback portal-next --to previous
```

Before 2026-05-18 it was a Vercel preview promotion; ignore old notes that say so.

## Environment
`PORTAL_API_BASE_URL` must point at the public API, never the internal one; the internal one skips
the rate limiter.

Owner [[Marco Bellini]]. Project [[Portal Next]].
""")

N("work/slack/2026-05-06 portal-beta yen thread.md", """
---
date: 2026-05-06
description: #portal-beta thread where a Japanese merchant's report of tiny invoice amounts turned into an incident.
tags: [slack, portal, incident]
project: Portal Next
---
# #portal-beta: the yen thread (2026-05-06)

- 11:15 [[Keiko Tanaka]] posts a screenshot: invoice list shows ¥120 for a ¥12,000 invoice. Detail
  page shows ¥12,000.
- 11:22 [[Marco Bellini]]: the new list table, released this morning. Looking.
- 11:31 Me: the list uses a local `formatMinor()` in `money.ts`, two decimals hard-coded.
- 11:40 Marco turns the flag off for JPY and KRW accounts, declares an incident.
- 12:10 [[Aoife Brennan]] drafts an apology for the 41 affected accounts.
- 13:20 fix merged (uses the shared money package). 14:00 flag back on.
- 14:30 Marco: "we had a lint rule for exactly this". Me: the rule matched `/ 100`, the helper used
  `10 ** 2`. Rule now bans local helpers.

[[2026-05-06 Portal Next showed JPY amounts divided by 100]]
""")


# ==============================================================================================
# People
# ==============================================================================================

N("org/People & Context.md", """
---
date: 2026-01-05
description: Index of the people I work with at Fernhill, their teams and what they own.
tags: [index, people]
---
# People & Context

| person | role | owns |
|---|---|---|
| [[Priya Raman]] | Engineering manager, Payments Platform (my manager) | payments team, priorities |
| [[Jonas Eklund]] | VP Engineering | everything, ultimately |
| [[Dana Okafor]] | Senior engineer, payments | retry scheduler, decline classifier, dunning |
| [[Luis Ferreira]] | Tech lead, ledger | Ledger v2, warehouse sync |
| [[Mei Lin Zhou]] | Data engineer | invoice search, warehouse |
| [[Ravi Kulkarni]] | Engineer (joined 2026-01), I mentor him | Webhooks v2 |
| [[Hannah Berg]] | Security engineer | webhook signing, PCI scope, secret store |
| [[Tomasz Nowak]] | SRE lead | on-call, incident command, reconciliation alerts |
| [[Femi Adebayo]] | Platform engineer | EKS migration, shipit |
| [[Marco Bellini]] | Frontend lead | Portal Next |
| [[Aoife Brennan]] | Product manager, billing | dunning, Portal Next beta, merchant comms |
| [[Keiko Tanaka]] | Support engineering lead | escalations, support tooling |

Teams: payments (Priya), ledger (Luis), platform (Femi, Tomasz), web (Marco), data (Mei Lin).
""")

N("org/people/Priya Raman.md", """
---
date: 2026-01-05
title: Engineering Manager, Payments Platform
description: My manager Priya Raman - how she works, what she cares about, and a dated log of our 1:1s.
tags: [person]
---
# Priya Raman

Engineering manager for Payments Platform since 2024. My manager.

- Decides by writing: wants options in a doc before a meeting, decides within a day or two.
- Cares about: incident count going down, the acquirer relationship, people not burning out.
- Pushes me to delegate and to write things down. Her phrase: "if it's only in your head it's a
  single point of failure with a salary".
- Sponsor for my principal engineer promotion case (H2 2026 cycle).

## 1:1 log
- 2026-01-14 Q1 goals, promotion timeline: [[Priya Raman 2026-01-14]]
- 2026-01-28 EKS DNS incident, mentoring Ravi: [[Priya Raman 2026-01-28]]
- 2026-02-11 retry storm aftermath: [[Priya Raman 2026-02-11]]
- 2026-02-25 after the retries decision: [[Priya Raman 2026-02-25]]
- 2026-03-11 workload: [[Priya Raman 2026-03-11]]
- 2026-03-25 freeze disagreement: [[Priya Raman 2026-03-25]]
- 2026-04-09 Q2 plan: [[Priya Raman 2026-04-09]]
- 2026-04-23 search cutover, IC habits: [[Priya Raman 2026-04-23]]
- 2026-05-07 promotion packet: [[Priya Raman 2026-05-07]]
- 2026-05-21 H2 and on-call: [[Priya Raman 2026-05-21]]
""")

N("org/people/Jonas Eklund.md", """
---
date: 2026-01-05
title: VP Engineering
description: Jonas Eklund, VP Engineering at Fernhill - priorities, how to get time with him, skip-level notes.
tags: [person]
---
# Jonas Eklund

VP Engineering, about 60 engineers under him. Former SRE; asks sharp operational questions in
reviews ("what would this have done at month-end?").

- 2026 priorities he repeats: fewer customer-visible incidents, finish the EKS move, hire two
  platform engineers.
- Skip-level every quarter: [[Jonas Eklund 2026-03-30]].
- Approved the month-end freeze for the ledger after the March incident and pushed for the
  reconciliation to run every 15 minutes.
""")

N("org/people/Dana Okafor.md", """
---
date: 2026-01-05
title: Senior Software Engineer, Payments
description: Dana Okafor, senior payments engineer who owns the retry scheduler, the decline classifier and the dunning flow.
tags: [person]
---
# Dana Okafor

Senior engineer on payments, five years at Fernhill. Knows card networks better than anyone here.

- Owns `services/payments/internal/retry/` (scheduler and classifier) and the dunning sequence.
- Wrote the `05` hotfix during the retry storm in five hours, then the option that won
  ([[Decision - Stop automatic retries for soft declines]]), which was the opposite of what I argued.
- Wants to grow towards staff; we talk about it in her 1:1s with me (I'm not her manager, Priya is;
  these are mentoring 1:1s).
- Was running on fumes after February. Took a week off in March.

1:1s: [[Dana Okafor 2026-02-13]], [[Dana Okafor 2026-03-27]]. Project: [[Smart Retries]].
""")

N("org/people/Luis Ferreira.md", """
---
date: 2026-01-05
title: Tech Lead, Ledger
description: Luis Ferreira, tech lead of the ledger team - Ledger v2, the warehouse sync and the month-end freeze.
tags: [person]
---
# Luis Ferreira

Tech lead for the ledger. Careful, slow to change his mind, usually right about data.

- Designed [[Ledger v2]]; owner of [[Decision - Ledger is append-only with reversal entries]].
- Shipped and rolled back v2.4.7 on 2026-03-12, then wrote the v2.4.8 fix; proposed the month-end
  freeze ([[Decision - No ledger deploys during month-end close]]). One of the two approvers for
  freeze exceptions.
- Has a strong aversion to "clever" sync designs since March; sceptical of CDC.

1:1s: [[Luis Ferreira 2026-03-19]], [[Luis Ferreira 2026-05-22]].
""")

N("org/people/Mei Lin Zhou.md", """
---
date: 2026-01-05
title: Data Engineer
description: Mei Lin Zhou, data engineer who owns invoice search and the finance warehouse loads.
tags: [person]
---
# Mei Lin Zhou

Data engineer. The person for anything OpenSearch or warehouse.

- Owner of [[Invoice Search Migration]] and the warehouse side of the ledger sync.
- Found the `refresh_interval: -1` on the new index during the cutover incident.
- Wants to be less of a single point of failure; asked to do incident commander training.
- Pushing for CDC (logical replication) for the ledger sync in v2.5.

1:1: [[Mei Lin Zhou 2026-04-10]].
""")

N("org/people/Ravi Kulkarni.md", """
---
date: 2026-01-05
title: Software Engineer
description: Ravi Kulkarni, engineer who joined in January 2026; I mentor him; he builds most of Webhooks v2.
tags: [person]
---
# Ravi Kulkarni

Joined 2026-01-12 from a fintech startup. I'm his mentor and tech lead on [[Webhooks v2]].

- Strengths: fast, thorough tests, asks good questions in writing.
- Working on: confidence in code review (he approves too easily), Go concurrency, on-call.
- First on-call shadow week included the webhook backlog (2026-04-29); wrote the postmortem.
- Mixed up `payments.retry.max_attempts` and `payments.dunning.max_attempts` in March; harmless
  in staging, good lesson.

## 1:1 log
- [[Ravi Kulkarni 2026-01-16]] onboarding
- [[Ravi Kulkarni 2026-02-06]] first PRs
- [[Ravi Kulkarni 2026-03-06]] code review confidence
- [[Ravi Kulkarni 2026-03-20]] the config mix-up
- [[Ravi Kulkarni 2026-04-03]] on-call prep
- [[Ravi Kulkarni 2026-04-30]] after the backlog incident
- [[Ravi Kulkarni 2026-05-15]] growth plan
""")

N("org/people/Hannah Berg.md", """
---
date: 2026-01-05
title: Security Engineer
description: Hannah Berg, security engineer - webhook signing and secret rotation, PCI scope, security reviews.
tags: [person]
---
# Hannah Berg

Security engineering. Reviews anything touching card data, secrets, or auth.

- Owner of webhook signing: [[Decision - Sign webhooks with two active secrets]] and
  [[Webhook signing reference]].
- Runs the yearly PCI scope review; payments and ledger are in scope, the portal mostly not.
- Prefers to be asked early. "Security review" with her is a conversation, not a gate, if you come
  before the code exists.
""")

N("org/people/Tomasz Nowak.md", """
---
date: 2026-01-05
title: SRE Lead
description: Tomasz Nowak, SRE lead - on-call rotation, incident command, alerting and reconciliation checks.
tags: [person]
---
# Tomasz Nowak

SRE lead. Incident commander for most of our big incidents this year: the retry storm, the ledger
sync drift, the webhook backlog.

- Owns the on-call rotation and [[On-call handbook]].
- Pushes for detection: the 15-minute reconciliation (LED-236), queue-age alerts for webhooks,
  latency in `shipit` rollback conditions.
- Blunt in reviews, fair in postmortems. Never lets a review end without owners and dates.
""")

N("org/people/Femi Adebayo.md", """
---
date: 2026-01-05
title: Platform Engineer
description: Femi Adebayo, platform engineer leading the EKS migration and the shipit deploy tool.
tags: [person]
---
# Femi Adebayo

Platform engineer, leads [[EKS Migration]]. Built `shipit`.

- Diagnosed the ndots DNS problem in an hour during the payments move.
- Wants a second platform engineer; Jonas approved one for H2.
- 1:1 (mentoring, he asked): [[Femi Adebayo 2026-02-20]].
""")

N("org/people/Marco Bellini.md", """
---
date: 2026-01-05
title: Frontend Lead
description: Marco Bellini, frontend lead, running the Portal Next rewrite of the merchant billing portal.
tags: [person]
---
# Marco Bellini

Frontend lead. Runs [[Portal Next]].

- Good at pitching; sometimes optimistic on dates.
- IC for the yen display incident in May, handled it well and fast.
- Asks for payments API changes through me.
""")

N("org/people/Aoife Brennan.md", """
---
date: 2026-01-05
title: Product Manager, Billing
description: Aoife Brennan, billing product manager - dunning emails, the Portal Next beta, and merchant communication during incidents.
tags: [person]
---
# Aoife Brennan

Product manager for billing. Handles the acquirer relationship on the product side.

- Read the acquirer's letter out at the February review; her point that the acquirer doesn't care
  about our recovery rate decided the retries question.
- Owns the dunning copy and the SMS reminder experiment.
- Picks the Portal Next beta cohorts.
""")

N("org/people/Keiko Tanaka.md", """
---
date: 2026-01-05
title: Support Engineering Lead
description: Keiko Tanaka, support engineering lead who relays merchant escalations and often spots incidents first.
tags: [person]
---
# Keiko Tanaka

Leads support engineering. Her team saw the retry storm, the missing invoices and the yen bug before
any alert did.

- Ask her for: how merchants are experiencing something, macros, status page wording.
- Wants a heads-up before migrations; reasonable and we keep forgetting.
- Runs the merchant beta feedback for [[Portal Next]].
""")


# ==============================================================================================
# 1:1s
# ==============================================================================================

N("work/1-1/Priya Raman 2026-01-14.md", """
---
date: 2026-01-14
description: 1:1 with Priya on Q1 goals, Ravi's onboarding and the timeline for my principal promotion case.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Priya — 2026-01-14

With [[Priya Raman]]

## Key Takeaways
- Q1 goals for me: lift Smart Retries recovery (target 12%+), land Webhooks v2 for all merchants,
  mentor [[Ravi Kulkarni]] through his first quarter.
- Promotion: she thinks the H2 cycle is realistic if I show cross-team impact, "not just the
  payments service getting better".
- She wants me to stop being the default reviewer for the ledger; Luis's team should own it.

## Action Items
- [x] Me: onboarding plan for Ravi by Friday
- [ ] Priya: find out who else can review ledger posting changes

## What to Watch
I said yes to three design reviews this week. She noticed.
""")

N("work/1-1/Priya Raman 2026-01-28.md", """
---
date: 2026-01-28
description: 1:1 with Priya the day after the payments DNS incident on EKS; how Ravi is settling in.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Priya — 2026-01-28

With [[Priya Raman]]

- Talked about yesterday's latency spike after the payments move. She asked whether payments
  should have gone first. My view: yes, because we have the best dashboards, and we found the DNS
  problem for everyone. She wants the ndots fix in the base chart before anyone else moves.
- Ravi: two weeks in, shipped his first change (webhook event filter). Asks lots of questions in
  DMs; I encouraged him to ask in #webhooks instead.
- Priya shared the Q1 incident target: no more than two customer-visible high-severity incidents.
  (We used it up by mid-March.)

## Action Items
- [x] Me: check the base chart has `ndots: 2` before webhooks moves
""")

N("work/1-1/Priya Raman 2026-02-11.md", """
---
date: 2026-02-11
description: 1:1 with Priya the day after the retry storm; acquirer risk, support pain and my argument for keeping retries.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Priya — 2026-02-11

With [[Priya Raman]]

Mostly about yesterday.

- She is more worried about the acquirer than about the support queue. If Corridor drops us we
  have no second acquirer for EUR cards until Q4.
- I told her I think turning retries off is an overreaction and that insufficient-funds retries
  make real money. She said: "then write it down with numbers, and be ready to lose".
- She asked how Dana is doing. Honestly: tired. Dana was on the incident until 22:00 and back at
  08:00.

## Action Items
- [x] Me: recovery numbers for the review on the 19th
- [x] Priya: tell Dana to take Friday off

## Quotes Worth Noting
"Being right about the revenue doesn't help if we lose the processing agreement."
""")

N("work/1-1/Priya Raman 2026-02-25.md", """
---
date: 2026-02-25
description: 1:1 with Priya after the retries decision went against my proposal; how to disagree well, and Webhooks v2 progress.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Priya — 2026-02-25

With [[Priya Raman]]

## Key Takeaways
- The soft-decline decision went Dana's way yesterday. Priya said my draft was the most useful
  document in the discussion because it made the trade-off concrete, even though it lost.
- Webhooks v2: 10% rollout next Monday (2026-03-02). She asked who's on call for it; me, with Ravi
  shadowing from April.
- She asked me to write a short guide on how we run postmortems; the retro on the 5th will ask for
  it anyway.

## Action Items
- [x] Me: postmortem guide draft ([[How we run postmortems]])
- [x] Me: webhooks 10% rollout plan
""")

N("work/1-1/Priya Raman 2026-03-11.md", """
---
date: 2026-03-11
description: 1:1 with Priya about my workload, too many reviews, and the ledger release going out the next day.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Priya — 2026-03-11

With [[Priya Raman]]

- Workload: I'm reviewing for four teams. Priya: pick two. I'll drop portal reviews (Marco's team is
  fine) and keep ledger for now because Luis's big sync change ships tomorrow and I looked at it
  in January.
- Ravi mixed up two retry config keys in staging last week. No harm, and a good reason to make the
  names less similar. Ticket for later.
- Promotion doc: she wants a first draft by end of April.

## Action Items
- [ ] Me: hand portal reviews to someone on Marco's team
- [ ] Me: promotion draft by 2026-04-30
""")

N("work/1-1/Priya Raman 2026-03-25.md", """
---
date: 2026-03-25
description: 1:1 with Priya about my disagreement with the month-end deploy freeze and how to disagree and commit.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Priya — 2026-03-25

With [[Priya Raman]]

## Key Takeaways
- I told her I still think the freeze is the wrong fix. She agreed it's not a fix, it's a
  guardrail for finance. "Disagree and commit, and put a review date on it." Review in Q3.
- She liked that I owned the dropped design-review question in the ledger incident review. Said
  it's the kind of thing that belongs in the promotion case: not the mistake, the follow-through.
- Q2: she wants me to lead the webhooks isolation work and hand Smart Retries fully to Dana.

## Action Items
- [x] Me: add a Q3 review date to the freeze decision's consequences
- [ ] Priya: talk to Jonas about a second acquirer
""")

N("work/1-1/Priya Raman 2026-04-09.md", """
---
date: 2026-04-09
description: 1:1 with Priya planning Q2 - webhooks, the search cutover and handing over payments retries.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Priya — 2026-04-09

With [[Priya Raman]]

- Q2 plan for me: Webhooks v2 hardening, search cutover with Mei Lin (2026-04-22), currency
  formatting work with Marco's team, mentoring Ravi into on-call.
- Yesterday's dunning review: recovery 8.9% vs 11.2%. Priya: "that's the price, and it's fine".
- She wants a single page on our incident history this year for the H1 review with Jonas. I'll
  pull it from the incident notes.

## Action Items
- [ ] Me: H1 incident summary page
- [x] Me: give Dana the Smart Retries project note
""")

N("work/1-1/Priya Raman 2026-04-23.md", """
---
date: 2026-04-23
description: 1:1 with Priya the day after the search cutover problem; being IC and fixer at once, and support communication.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Priya — 2026-04-23

With [[Priya Raman]]

## Key Takeaways
- Yesterday I was incident commander and the person debugging. Priya: that's how it took two hours
  to find a setting. Next time I hand IC off the moment I start debugging.
- Keiko complained, rightly, that support found out about the migration from merchants. Priya wants
  a "migration heads-up" step in the release checklist.
- Good news: she heard from Mei Lin that the comparison tooling I built caught two mapping bugs
  before the cutover.

## What Went Well
The fix itself was small and we didn't make a second change under pressure.

## Action Items
- [x] Me: add support heads-up to the release checklist
- [ ] Me: IC training for Mei Lin, with Tomasz
""")

N("work/1-1/Priya Raman 2026-05-07.md", """
---
date: 2026-05-07
description: 1:1 with Priya reviewing the first draft of my principal promotion packet.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Priya — 2026-05-07

With [[Priya Raman]]

Promotion packet draft ([[Promotion case draft]]) review.

- Strongest parts: the ledger review follow-through, the webhooks isolation design, mentoring Ravi
  (he wrote his first postmortem last week).
- Weakest: "cross-team impact" is still mostly payments-adjacent. She suggested the currency
  exponent change as an example, since it touches every client.
- Don't list incidents as achievements. List what changed because of them.
- Calibration is in September; packet due 2026-08-15.

## Action Items
- [ ] Me: rewrite the impact section around outcomes
- [ ] Priya: ask Luis and Marco for written feedback
""")

N("work/1-1/Priya Raman 2026-05-21.md", """
---
date: 2026-05-21
description: 1:1 with Priya about H2 priorities, my on-call load and who takes over webhooks.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Priya — 2026-05-21

With [[Priya Raman]]

- H2: Priya wants me on the second-acquirer project (routing EUR cards through two acquirers).
  Webhooks goes to Ravi as owner, with me as reviewer. He's ready.
- On-call: I've been secondary or primary for five of the last eight weeks. She's fixing the
  rotation with Tomasz.
- Ledger v2.5 planning yesterday: she asked whether I'm comfortable with partitions and CDC in
  the same quarter. Not in the same release; agreed.

## Action Items
- [ ] Priya: on-call rotation change with Tomasz
- [ ] Me: handover doc for webhooks to Ravi
""")

N("work/1-1/Ravi Kulkarni 2026-01-16.md", """
---
date: 2026-01-16
description: First mentoring 1:1 with Ravi - onboarding plan, how the webhooks code is laid out, and how to ask for help.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Ravi — 2026-01-16

With [[Ravi Kulkarni]]

Onboarding week one.

- Gave him the tour of `services/webhooks`: dispatcher, worker pool, retry schedule, v1 cron still
  running alongside.
- First task: event type filter per endpoint (small, touches everything).
- He asked how we decide things. Pointed him at the decision records in `work/active/` and the
  postmortems; told him the postmortems teach more about a system than its code does.
- Agreed: 1:1 every two to three weeks, DMs for quick questions, but design questions in the
  channel.

## Action Items
- [x] Ravi: dev environment, first PR by next Friday
- [x] Me: pair with him on the dispatcher tests
""")

N("work/1-1/Ravi Kulkarni 2026-02-06.md", """
---
date: 2026-02-06
description: Mentoring 1:1 with Ravi after his first PRs and the webhook signing review.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Ravi — 2026-02-06

With [[Ravi Kulkarni]]

- First PR merged (event filter). Second one, header redaction from the signing review, also in.
- He found the v1 code logging signature headers himself; I told him to say that in standup, not
  only to me. He's shy about credit.
- Asked for reading on Go concurrency. Suggested he read the dispatcher's worker pool and write down
  three things that could go wrong. (One of his three was "a slow endpoint could take all the
  workers". Filed it, nobody prioritised it. Remember this for April.)

## Action Items
- [ ] Ravi: three failure modes of the worker pool, written up
""")

N("work/1-1/Ravi Kulkarni 2026-03-06.md", """
---
date: 2026-03-06
description: Mentoring 1:1 with Ravi on code review confidence - he approves too quickly and doesn't leave comments on senior engineers' code.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Ravi — 2026-03-06

With [[Ravi Kulkarni]]

## Key Takeaways
- He approves PRs from senior people without comments because he assumes they're right. I showed
  him two of mine he approved that had bugs.
- Exercise: for the next five reviews, leave at least one question, even if the answer is obvious.
- Webhooks 10% rollout went fine; he watched the dashboards all day. Told him the alerts are there
  so he doesn't have to.

## Quotes Worth Noting
"I didn't want to waste their time." — Asking a question in review is not wasting time.
""")

N("work/1-1/Ravi Kulkarni 2026-03-20.md", """
---
date: 2026-03-20
description: Mentoring 1:1 with Ravi after he changed the wrong retry config key in staging.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Ravi — 2026-03-20

With [[Ravi Kulkarni]]

- Last week he wanted to change the number of reminder emails in staging and changed the number of
  charge attempts instead. The two keys differ by one word. Caught by Dana in review of the config PR.
- Not his fault more than the naming's. I wrote a note in the config reference and opened a ticket to
  rename them (PAY-1077).
- He's reading the ledger incident postmortem; asked a good question about why the reconciliation
  was hourly.
- Next: on-call shadowing in April.

## Action Items
- [x] Me: warning in [[Payments retry config reference]]
- [ ] Ravi: on-call handbook read-through before April
""")

N("work/1-1/Ravi Kulkarni 2026-04-03.md", """
---
date: 2026-04-03
description: Mentoring 1:1 with Ravi preparing for his first on-call shadow week.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Ravi — 2026-04-03

With [[Ravi Kulkarni]]

- Walked through the [[On-call handbook]] together: paging, severity, when to declare.
- He's nervous about being paged at night. Shadow weeks are day-only for the first two.
- Gave him the rule I got when I started: "declare early, you can always downgrade".
- Code review exercise: he left questions on 6 of 7 reviews. One question found a real bug in
  Femi's chart change.
""")

N("work/1-1/Ravi Kulkarni 2026-04-30.md", """
---
date: 2026-04-30
description: Mentoring 1:1 with Ravi the day after the webhook backlog incident, his first, and the replay mistake.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Ravi — 2026-04-30

With [[Ravi Kulkarni]]

## Key Takeaways
- He found the slow endpoint in seven minutes from the dashboards. Told him so, in the channel too.
- The replay: he started it without an inflight limit and I stopped it. He was embarrassed. We
  agreed the tool was wrong to default to unlimited; he'll fix the default himself.
- He remembered his February note about a slow endpoint taking all the workers. Yes. That's the
  point of writing things down, and the point of someone reading them.
- He'll write the postmortem draft; I review.

## Action Items
- [x] Ravi: postmortem draft by Monday
- [x] Ravi: bounded default for replay inflight
""")

N("work/1-1/Ravi Kulkarni 2026-05-15.md", """
---
date: 2026-05-15
description: Mentoring 1:1 with Ravi about his growth plan and taking over ownership of the webhooks service.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Ravi — 2026-05-15

With [[Ravi Kulkarni]]

- The per-endpoint limit went to 100% on Wednesday. His load test made the rollout boring, which is
  the best kind.
- Growth plan for H2: owner of the webhooks service, on the primary on-call rotation from July,
  lead the dead-letter view with Marco's team.
- He asked what "owning" means. My list: decide the roadmap with product, be the escalation point,
  write the decision records, say no.
- He wants feedback more often than every three weeks. Weekly 15 minutes from June.
""")

N("work/1-1/Dana Okafor 2026-02-13.md", """
---
date: 2026-02-13
description: Mentoring 1:1 with Dana after the retry storm; she wants to stop soft-decline retries entirely, and she is exhausted.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Dana — 2026-02-13

With [[Dana Okafor]]

- She's exhausted. Incident Tuesday, acquirer letter Thursday, and she's the only one who knows the
  classifier. We agreed she writes down the classifier rules this month so it isn't only her.
- She wants to stop auto-retrying soft declines and move to dunning. I said I'd argue the other side
  with numbers, openly, and she said good, someone should.
- Staff path: she wants to lead a cross-team project in H2. The second-acquirer project could be
  it.

## Action Items
- [ ] Dana: classifier rules written down
- [x] Me: recovery numbers before the review
""")

N("work/1-1/Dana Okafor 2026-03-27.md", """
---
date: 2026-03-27
description: Mentoring 1:1 with Dana back from her week off; dunning early numbers, card updater, staff path.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Dana — 2026-03-27

With [[Dana Okafor]]

- Back from a week off, looks better.
- Dunning after three weeks: recovery about 9%, disputes way down. She thinks the card updater could
  close most of the gap if the enrolment paperwork ever finishes.
- The classifier rules doc exists now, 4 pages, in the payments repo.
- Staff path: I suggested she write the decision record for the second acquirer routing when it
  starts. She'd rather build it. Told her writing it is how staff engineers build things.
""")

N("work/1-1/Luis Ferreira 2026-03-19.md", """
---
date: 2026-03-19
description: 1:1 with Luis the week after the ledger sync incident - the v2.4.7 cursor change, what we missed in design review, and the freeze proposal.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Luis — 2026-03-19

With [[Luis Ferreira]]

- He's taking v2.4.7 personally. I told him I wrote "sequence order ≠ commit order?" in January and
  didn't push it, so it's shared.
- v2.4.8 went out yesterday, canary clean. He wants a metric for the oldest in-flight transaction so
  the next time the cursor is held back we see it (became part of v2.4.17 in May).
- Freeze: he's writing it tomorrow. I said I'd argue against it but not block it. He laughed: "you
  argued against Dana too".
- He asked me to stop being the ledger's default reviewer by Q3, which is what Priya wants too.
""")

N("work/1-1/Luis Ferreira 2026-05-22.md", """
---
date: 2026-05-22
description: 1:1 with Luis about ledger v2.5 - partitions, the CDC spike, and his doubts about logical replication.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Luis — 2026-05-22

With [[Luis Ferreira]]

- Partition migration plan is half written. Worried about `pg_partman` and foreign keys from
  `reversals` to `postings`.
- CDC: he doesn't trust it yet. "The polling loop failed once and we understand exactly why. CDC
  will fail in ways we don't understand." Mei Lin's spike will decide.
- He's found someone on his team to take my reviews: Ana. I'll pair with her on two posting PRs.
""")

N("work/1-1/Mei Lin Zhou 2026-04-10.md", """
---
date: 2026-04-10
description: 1:1 with Mei Lin before the search cutover - comparison results, cutover date and her wish to stop being the only search person.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Mei Lin — 2026-04-10

With [[Mei Lin Zhou]]

- Comparison tool found two mapping bugs (customer name analyzer, a missing `currency` keyword
  field). Both fixed.
- Cutover date stays 2026-04-22, 08:00 UTC, low traffic.
- She's tired of being the only person who can operate search. Wants me or Femi to learn the
  OpenSearch runbook, and wants IC training herself.
- Her worry for the cutover: "settings we change for the backfill and forget". (She was right.)
""")

N("work/1-1/Femi Adebayo 2026-02-20.md", """
---
date: 2026-02-20
description: Mentoring 1:1 with Femi about the EKS migration, platform headcount and writing decision records.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Femi — 2026-02-20

With [[Femi Adebayo]]

- He asked for help writing decision records; his NodeLocal DNSCache one was good but buried the
  decision in paragraph four. Rule: the decision in one sentence at the top of its section.
- Webhooks moves Monday. He wants payments people to stop overriding `dnsConfig` in their charts.
- Headcount: Jonas said yes to one platform engineer in H2. Femi wants two. I suggested a cost
  report showing what EKS saves; money talks to Jonas.
""")

N("work/1-1/Jonas Eklund 2026-03-30.md", """
---
date: 2026-03-30
description: Quarterly skip-level with Jonas - incident trend, the freeze, promotion, and the second acquirer.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# Skip-level with Jonas — 2026-03-30

With [[Jonas Eklund]]

- Q1 had three high-severity incidents against a target of two. He's not angry; he wants detection
  faster. The ledger drift took over three hours to notice.
- Freeze: he knows I disagreed. He backs it anyway because finance asked for something they can
  see. Fine.
- Promotion: he'd like to see me lead something outside payments in H2. Second acquirer is
  payments, but touches ledger and finance.
- Asked what slows us down: I said review load concentrated on a few people.
""")


# ==============================================================================================
# Weekly notes
# ==============================================================================================

N("work/weekly/2026-W02.md", """
---
date: 2026-01-05
description: Week of 2026-01-05 - Q1 planning, the EKS kickoff announcement, setting up project notes.
tags: [weekly]
---
# Week 2026-W02

First week back.

- Q1 planning on Wednesday ([[2026-01-07 Q1 planning]]). My three: Smart Retries recovery, Webhooks
  v2 to all merchants, onboarding Ravi.
- Platform announced the move from ECS to EKS on Friday. Femi wants payments first.
- Created project notes for [[Smart Retries]] and [[EKS Migration]].
- Cleaned up the vault: moved 2025 projects to the archive.

Next week: Ravi starts Monday. Onboarding doc not finished.
""")

N("work/weekly/2026-W03.md", """
---
date: 2026-01-12
description: Week of 2026-01-12 - Ravi's first week, the decision to move to EKS, promotion timeline with Priya.
tags: [weekly]
---
# Week 2026-W03

## Happened
- Ravi's first week. Tour of the webhooks code, dev environment took two days (the usual Docker on
  ARM issue).
- [[Decision - Migrate services from ECS to EKS]] accepted Monday. I wrote a contrarian draft the
  weekend before; it didn't change the outcome but Femi added a DNS section to his plan because of
  it.
- 1:1 with Priya: H2 promotion cycle is realistic.

## Didn't get to
- Smart Retries Q4 recovery analysis.
""")

N("work/weekly/2026-W04.md", """
---
date: 2026-01-19
description: Week of 2026-01-19 - Webhooks v2 kicked off, ledger design review, search migration options.
tags: [weekly]
---
# Week 2026-W04

- Wrote the [[Webhooks v2]] project note; Ravi's first PR is the per-endpoint event filter.
- Ledger design review Wednesday. Append-only accepted. I asked in the margin about commit order vs
  sequence order and let it drop.
- Mei Lin circulated search migration options. I wrote a draft arguing Postgres full-text might be
  enough, mostly to make sure someone had argued it.
- Payments move to EKS scheduled for Monday the 26th.
""")

N("work/weekly/2026-W05.md", """
---
date: 2026-01-26
description: Week of 2026-01-26 - payments moved to EKS and the DNS latency incident the next day; search decision.
tags: [weekly]
---
# Week 2026-W05

Payments moved to EKS Monday. Tuesday morning: p99 on charges jumped to 5 s. Femi found it was DNS
(ndots and a UDP race) by 10:30, fix out at 11:40. Write-up:
[[2026-01-27 DNS timeouts after moving payments to EKS]].

Also:
- Search: OpenSearch decision accepted Wednesday; Postgres FTS lost, as expected.
- Read up on Kubernetes DNS properly ([[Reading - Kubernetes DNS and ndots]]).
- Ravi shipped his first change.

Incident count for Q1: one (medium).
""")

N("work/weekly/2026-W06.md", """
---
date: 2026-02-02
description: Week of 2026-02-02 - webhook signing review and decision, NodeLocal DNS cache, EKS deploy runbook.
tags: [weekly]
---
# Week 2026-W06

| day | what |
|---|---|
| Mon | webhook signing review with Hannah and Ravi |
| Tue | two-secret rotation decision written and accepted |
| Thu | Femi's NodeLocal DNSCache decision accepted |
| Fri | EKS deploy runbook; Ravi 1:1 |

Thought of the week: Ravi listed "slow endpoint could take all the workers" as a failure mode of the
webhooks pool. Filed as HOOK-302, low priority.
""")

N("work/weekly/2026-W07.md", """
---
date: 2026-02-09
description: Week of 2026-02-09 - the retry storm, the acquirer letter, search migration kickoff.
tags: [weekly]
---
# Week 2026-W07

Rough week.

- **Tuesday**: the retry storm. An issuer went down, our scheduler re-attempted charges all
  afternoon, customers saw multiple pending authorizations. Kill switch at 16:52. Postmortem:
  [[2026-02-10 Retry storm on issuer outage]].
- **Wednesday**: search migration kickoff with Mei Lin; cutover approach is dual writes.
- **Thursday**: Corridor Payments' letter. Priya makes it the top priority.
- Friday: Dana 1:1, she's exhausted. Priya gave her Friday off; she came in anyway for an hour.
- Started Portal Next involvement: Marco wants me at the architecture review next week.
""")

N("work/weekly/2026-W08.md", """
---
date: 2026-02-16
description: Week of 2026-02-16 - Portal Next architecture review, the Smart Retries review, my draft for keeping retries.
tags: [weekly]
---
# Week 2026-W08

- Mon: Portal Next architecture review. Server rendering for invoices; I pushed for one money
  formatting package.
- Thu: Smart Retries review. No decision. I'm writing the recovery numbers up over the weekend.
- Fri: mentoring 1:1 with Femi; payments retry runbook now has the kill switch.
- Sat: [[The case for keeping smart retries]]. I'm not sure I believe it after the acquirer call.
""")

N("work/weekly/2026-W09.md", """
---
date: 2026-02-23
description: Week of 2026-02-23 - soft-decline retries switched off, webhooks moved to EKS, ledger v2.4.6.
tags: [weekly]
---
# Week 2026-W09

- Tuesday Priya decided: no more automatic retries for soft declines, dunning instead. My draft
  lost. Dana owns the rollout (PAY-1042) and the email sequence (PAY-1057).
- Webhooks moved to EKS Monday without incident. ndots in the base chart did its job.
- Ledger v2.4.6 shipped Thursday: reversal reports. Stable.
- Postmortem guide: started, Priya asked for it.
""")

N("work/weekly/2026-W10.md", """
---
date: 2026-03-02
description: Week of 2026-03-02 - Webhooks v2 at 10%, dunning email copy, dual-write decision for search, payments retro.
tags: [weekly]
---
# Week 2026-W10

## Shipped
- Webhooks v2 dispatcher for 10% of merchants (Monday).
- Config reference for the retry and dunning keys.

## Decided
- Search cutover by dual writes and alias swap, not snapshot restore.

## Other
- Dunning copy thread: Keiko wants the first email to say nothing was charged.
- Payments retro Thursday. Good one. Outcome includes me writing [[How we run postmortems]].
- Acquirer remediation plan sent Tuesday, four days before their deadline.
""")

N("work/weekly/2026-W11.md", """
---
date: 2026-03-09
description: Week of 2026-03-09 - dunning emails live, invoice-indexer on EKS, and the ledger v2.4.7 rollback on Thursday.
tags: [weekly]
---
# Week 2026-W11

- Mon: dunning emails live for all merchants. Invoice-indexer moved to EKS.
- Wed: Priya 1:1, dropping portal reviews.
- **Thu**: ledger v2.4.7 went out at 09:40; by 13:00 finance's balances were off by ~€400k.
  Rolled back to v2.4.6, rewound the sync cursor, replayed. The cursor batching in v2.4.7 skipped
  postings from a long-running payout transaction, exactly the commit-order question I dropped in
  January. [[2026-03-12 Stale balances after ledger sync skipped entries]].
- Fri: wrote the timeline while it was fresh.

Q1 incident count: three. Target was two.
""")

N("work/weekly/2026-W12.md", """
---
date: 2026-03-16
description: Week of 2026-03-16 - ledger incident review, the sync fix release, the month-end freeze decision.
tags: [weekly]
---
# Week 2026-W12

- Mon: ledger incident review. I said out loud that I had dropped the question in January. Felt
  better after.
- Wed: the fix shipped (snapshot horizon for the cursor). Reconciliation clean since.
- Thu: drafted my objection to a deploy freeze ([[Deploy freezes make us worse at deploying]]).
- Fri: freeze accepted anyway. Two approvers for exceptions: Luis and Priya.
- Ravi mixed up the retry and dunning max-attempts keys in staging. Caught in review.
""")

N("work/weekly/2026-W13.md", """
---
date: 2026-03-23
description: Week of 2026-03-23 - ledger sync internals write-up, EKS status review, ledger move date, Dana back.
tags: [weekly]
---
# Week 2026-W13

- Wrote [[Ledger sync internals]] so nobody has to learn `sync.rs` during an incident again.
- EKS status: compute down from $41k to $33k a month projected. Ledger moves 2026-04-07, after the
  close (Femi proposed the 31st; Luis said no).
- Priya: disagree and commit on the freeze, review in Q3.
- Dana back from her week off. Dunning at ~9% recovery so far.
""")

N("work/weekly/2026-W14.md", """
---
date: 2026-03-30
description: Week of 2026-03-30 - Webhooks v2 at 100%, skip-level with Jonas, all-hands, Q2 planning, first month-end freeze.
tags: [weekly]
---
# Week 2026-W14

First month-end close under the ledger freeze. Nothing deployed to the ledger from Friday the 27th to
Friday the 3rd. Nobody needed an exception.

- Webhooks v2 at 100% on Monday; v1 cron deleted Wednesday. 🎉
- Skip-level with Jonas: detection speed is his theme.
- All-hands Tuesday: Q1 numbers, three high-severity incidents, EKS savings.
- Q2 planning Thursday ([[2026-04-02 Q2 planning]]).
- Ravi 1:1: on-call prep.
""")

N("work/weekly/2026-W15.md", """
---
date: 2026-04-06
description: Week of 2026-04-06 - ledger moved to EKS, dunning results review, Q2 plan with Priya, Mei Lin's cutover prep.
tags: [weekly]
---
# Week 2026-W15

- Tue: ledger moved to EKS at 10:00. Rehearsed on staging with the payout batch job first. No
  drift.
- Wed: dunning results. Recovery 8.9% (was 11.2% with retries), disputes down 71%. We keep it.
- Thu: Q2 plan with Priya. I lead webhooks hardening and the search cutover with Mei Lin.
- Fri: Mei Lin 1:1: comparison tool found two mapping bugs. Cutover 04-22.
""")

N("work/weekly/2026-W16.md", """
---
date: 2026-04-13
description: Week of 2026-04-13 - dual writes to the new search cluster, backfill running, Portal Next beta prep.
tags: [weekly]
---
# Week 2026-W16

- Tuesday: indexer 1.18.3 out, dual writes on. Backfill running at 2000 docs/s.
- Comparison job nightly from Friday; first run 99.6% top-25 overlap, the rest explained by the
  analyzer change.
- Portal Next beta: 200 accounts selected by Aoife, rollout runbook written by Marco's team.
- Nothing on fire. Wrote half of the H1 incident summary for Priya.
""")

N("work/weekly/2026-W17.md", """
---
date: 2026-04-20
description: Week of 2026-04-20 - Portal Next beta starts, search cutover and the missing-invoices problem, retro.
tags: [weekly]
---
# Week 2026-W17

- Mon: Portal Next beta on for 200 accounts.
- **Wed**: search cutover at 08:00. New invoices not searchable until 12:34: refresh interval left
  at -1 after the backfill. I was IC and debugger at once, which was a mistake.
  [[2026-04-22 New invoices missing from search after cutover]].
- Thu: Priya 1:1, hand off IC next time.
- Fri: retro. Synthetic check for "indexed but not searchable" added.
""")

N("work/weekly/2026-W18.md", """
---
date: 2026-04-27
description: Week of 2026-04-27 - the webhook backlog caused by one slow merchant endpoint, Ravi's first incident.
tags: [weekly]
---
# Week 2026-W18

- **Wed**: webhook backlog. One merchant endpoint answering in 29 s took every worker; everyone's
  events delayed up to 2h10. Disabled the endpoint, timeout to 10 s, drained.
  [[2026-04-29 Webhook deliveries delayed by one slow endpoint]].
- Ravi was shadowing on-call and found the endpoint in seven minutes. He also almost replayed 400k
  events with no limit.
- Thu: Ravi 1:1. He's writing the postmortem.
- Fri: wrote [[Just lower the webhook timeout]] as a steelman for the review.
- Month-end freeze started Tuesday for the ledger.
""")

N("work/weekly/2026-W19.md", """
---
date: 2026-05-04
description: Week of 2026-05-04 - webhook incident review and per-endpoint limit decision, the Portal Next yen bug, promotion packet review.
tags: [weekly]
---
# Week 2026-W19

- Mon: webhook incident review. Per-endpoint semaphore, limit 8.
- Tue: decision record for it written.
- Wed: Portal Next list showed JPY amounts 100x too small for 41 beta accounts, ~3 hours. Marco was
  IC. A local money helper hard-coded two decimals.
- Wed: backlog runbook updated.
- Thu: promotion packet draft review with Priya. "Don't list incidents as achievements."
""")

N("work/weekly/2026-W20.md", """
---
date: 2026-05-11
description: Week of 2026-05-11 - Portal beta review, currency exponent decision, per-endpoint webhook limit at 100%, sandbox certificate.
tags: [weekly]
---
# Week 2026-W20

## Done
- Portal beta review Monday: widen to 2,000 accounts on 2026-05-25 if stable.
- Currency exponent decision record (the API returns the exponent on every amount).
- Per-endpoint webhook limit (`e81c0f2`) at 100% Wednesday.
- Sandbox TLS certificate expired Thursday morning; merchants' test integrations failed for 50
  minutes. Small, but embarrassing ([[2026-05-14 Sandbox TLS certificate expired]]).

## Next
- Portal moves to EKS Monday.
- Ledger v2.4.17 Tuesday (Luis), then v2.5 planning.
""")

N("work/weekly/2026-W21.md", """
---
date: 2026-05-18
description: Week of 2026-05-18 - portal on EKS, ledger v2.4.17, ledger v2.5 planning, H2 talk with Priya.
tags: [weekly]
---
# Week 2026-W21

- Mon: Portal Next moved to EKS; rollbacks now via `shipit` like everything else.
- Tue: ledger v2.4.17: reversal report by currency, new in-flight transaction metric. Quiet
  release, the way they should be.
- Wed: v2.5 planning. Partitions in June; CDC spike, decision in July.
- Thu: Priya 1:1. H2: second acquirer for me, webhooks ownership to Ravi.
- Fri: Luis found a replacement ledger reviewer (Ana). I'm finally off the ledger review rota.
""")


# ==============================================================================================
# Daily notes
# ==============================================================================================

N("journal/2026-01-12.md", """
---
date: 2026-01-12
description: Daily note - Ravi's first day, EKS decision accepted.
tags: [daily]
---
# 2026-01-12

- Ravi's first day. Lunch with him and Hannah.
- EKS decision accepted at the platform meeting.
- [ ] finish onboarding doc
- [x] book 1:1s with Ravi every two weeks
""")

N("journal/2026-01-26.md", """
---
date: 2026-01-26
description: Daily note - payments moved to EKS today.
tags: [daily]
---
# 2026-01-26

Payments on EKS as of 15:00. Dashboards look normal. Femi bought cake.

- [x] remove payments from the ECS autoscaling alarms
- [ ] check the charge latency graph tomorrow morning (I did. See [[2026-01-27 DNS timeouts after moving payments to EKS]].)
""")

N("journal/2026-02-10.md", """
---
date: 2026-02-10
description: Daily note - the retry storm afternoon.
tags: [daily]
---
# 2026-02-10

Didn't do anything I planned. Northbank went down at 14:05 and our retries made it our problem.
Home at 22:30.

- [ ] review Dana's classifier PR properly tomorrow (I skimmed it tonight)
- [ ] ask Tomasz who owns the decline-rate alert
""")

N("journal/2026-02-24.md", """
---
date: 2026-02-24
description: Daily note - the soft decline retries decision.
tags: [daily]
---
# 2026-02-24

Priya chose option 3. Soft declines won't be retried. I argued for the breaker and lost; reading
the acquirer letter again, I'd have decided the same.

- [x] add the Q4 numbers to the decision record's context
- [x] tell Ravi what changed, since webhooks emits `invoice.payment_failed` differently now
""")

N("journal/2026-03-12.md", """
---
date: 2026-03-12
description: Daily note - ledger rollback day.
tags: [daily]
---
# 2026-03-12

Ledger drift. Rolled back, rewound, replayed, clean by 15:10. The January margin note haunts me.

- [ ] write the timeline tomorrow morning
- [x] tell finance it's fixed (Mei Lin did)
""")

N("journal/2026-03-18.md", """
---
date: 2026-03-18
description: Daily note - the ledger fix release went out.
tags: [daily]
---
# 2026-03-18

Luis's cursor fix is out. Canary 10% for an hour, then everything. I watched the reconciliation
graph for most of the afternoon for no good reason.

- [x] review the freeze proposal draft (tomorrow)
""")

N("journal/2026-04-07.md", """
---
date: 2026-04-07
description: Daily note - the ledger moved to EKS.
tags: [daily]
---
# 2026-04-07

Ledger on EKS at 10:00. Zero drift. Luis made us rehearse twice on staging and I'm glad.

- [ ] dunning review prep for tomorrow
""")

N("journal/2026-04-22.md", """
---
date: 2026-04-22
description: Daily note - search cutover day.
tags: [daily]
---
# 2026-04-22

Cutover at 08:00, smooth. Then Keiko at 10:40. Found it at 12:30 (Mei Lin found it). One setting.

Lesson for me: the moment I start reading index settings I am not the incident commander anymore.
""")

N("journal/2026-04-29.md", """
---
date: 2026-04-29
description: Daily note - the webhook backlog.
tags: [daily]
---
# 2026-04-29

Webhook backlog in the afternoon; Larkspur's endpoint. Ravi did well. Stopped his replay just in
time.

- [x] ticket for bounded replay default
- [ ] remember Ravi's February failure-mode list, bring it up in his 1:1
""")

N("journal/2026-05-06.md", """
---
date: 2026-05-06
description: Daily note - the yen display bug in the portal beta.
tags: [daily]
---
# 2026-05-06

¥12,000 shown as ¥120. Marco handled it. I found the helper, which was satisfying.

- [ ] propose exponent-in-API at Monday's beta review
""")

N("journal/2026-05-14.md", """
---
date: 2026-05-14
description: Daily note - sandbox certificate expired this morning.
tags: [daily]
---
# 2026-05-14

Sandbox TLS cert expired at 06:00. Fifty minutes of merchants' test suites failing. Renewed by
Femi. Why isn't this automated? It is now.

- [ ] check which other certificates are still manual
""")

N("journal/2026-05-25.md", """
---
date: 2026-05-25
description: Daily note - old Elasticsearch cluster deleted, Portal Next beta widened.
tags: [daily]
---
# 2026-05-25

- Mei Lin deleted the old Elasticsearch 6.8 cluster. Search migration done.
- Portal Next beta widened to 2,000 accounts.
- Started the webhooks handover doc for Ravi.
""")

# ==============================================================================================
# Extra incident, general meetings, Slack, reference, archive, inbox, perf
# ==============================================================================================

N("work/incidents/2026-05-14 Sandbox TLS certificate expired.md", """
---
date: 2026-05-14
quarter: Q2-2026
description: Short incident note - the sandbox API's TLS certificate expired and merchants' test integrations failed for 50 minutes.
status: completed
ticket: PLAT-112
severity: low
role: observer
tags: [work-note, incident, platform]
---
# 2026-05-14 Sandbox TLS certificate expired

## Context
`sandbox.api.fernhill.io` used a certificate bought and installed by hand in 2025, outside
cert-manager.

## Root Cause
Manual renewal; the reminder went to a former employee's mailbox.

## Resolution
[[Femi Adebayo]] issued a cert-manager certificate and switched the ingress at 06:50 UTC.

## Impact
Merchants' sandbox integrations failed TLS for ~50 minutes. Production unaffected.

## Follow-ups
- [x] All certificates through cert-manager (PLAT-113)
- [ ] Alert at 21 days before expiry for anything outside cert-manager
""")

N("work/meetings/2026-01-07 Q1 planning.md", """
---
date: 2026-01-07
description: Payments Platform Q1 planning - goals, owners and what we said no to.
tags: [meeting, planning]
---
# 2026-01-07 Q1 planning

[[Priya Raman]] with the payments team; [[Luis Ferreira]] and [[Femi Adebayo]] for dependencies.

## Goals
1. Smart Retries recovery above 12% (Dana, me). *(Did not happen; we turned retries off in Feb.)*
2. Webhooks v2 for all merchants by end of March (me, Ravi).
3. Payments first service on EKS (Femi, me).
4. Ledger v2 only, v1 writes stopped (Luis).

## Said no to
- Second acquirer: Q3 at the earliest.
- Portal payouts API: wait for Portal Next.

## Risks
- One person knows the decline classifier (Dana).
- Search cluster might fall over before the migration.
""")

N("work/meetings/2026-04-02 Q2 planning.md", """
---
date: 2026-04-02
description: Payments Platform Q2 planning - webhooks hardening, search cutover, money formatting, and what carried over from Q1.
tags: [meeting, planning]
---
# 2026-04-02 Q2 planning

[[Priya Raman]], payments team, [[Mei Lin Zhou]], [[Marco Bellini]].

## Q1 review
- Webhooks v2 done. Payments on EKS done. Smart Retries goal abandoned by decision.
- Three high-severity incidents (retry storm, ledger drift, plus the DNS one was medium).

## Q2 goals
1. Search cutover (Mei Lin, me), April.
2. Webhooks hardening: auto-disable failing endpoints, dead-letter view (me, Ravi).
3. Portal Next beta with payments API support (Marco, me).
4. Card updater (Dana).

## Carried over
- Per-BIN circuit breaker (PAY-1045), lower priority now.
""")

N("work/meetings/2026-03-31 Engineering all-hands.md", """
---
date: 2026-03-31
description: Notes from the Q1 engineering all-hands - incident numbers, EKS savings, hiring, and Jonas on detection.
tags: [meeting, all-hands]
---
# 2026-03-31 Engineering all-hands

[[Jonas Eklund]] presenting.

- Q1: three high-severity incidents. Slide listed the retry storm, the ledger drift and the
  DNS latency (which we rated medium, but Jonas counted it).
- Theme for Q2: "detect before customers do". Support found two of the three first.
- EKS: three services moved, projected savings $8k/month.
- Hiring: two platform engineers, one security engineer.
- Month-end freeze for the ledger explained to everyone; questions about whether it spreads. Jonas:
  not unless there's a reason.
""")

N("work/meetings/2026-05-27 Architecture guild.md", """
---
date: 2026-05-27
description: Architecture guild session on money representation across services after the yen incident, and on idempotency.
tags: [meeting, architecture]
---
# 2026-05-27 Architecture guild

Topic 1: money. I presented the currency exponent change and the state of money formatting:
ledger and payments store minor units plus currency; the API now adds `exponent`; `@fernhill/money`
1.9 reads it. [[Marco Bellini]] showed the lint rule. [[Luis Ferreira]] asked for ISO 4217 updates
to be handled in one place; the API owns the table now.

Topic 2: idempotency keys. [[Dana Okafor]] walked through how payments dedupes charge requests,
and why the retry storm didn't double-capture: every attempt reused the invoice's idempotency key
at the acquirer.

Next guild: ledger partitions, Luis.
""")

N("work/slack/2026-01-09 eng-announcements EKS kickoff.md", """
---
date: 2026-01-09
description: Announcement in #eng-announcements that services will move from ECS to Kubernetes this year.
tags: [slack, platform]
---
# #eng-announcements: EKS (2026-01-09)

[[Femi Adebayo]]: "We're moving every service from ECS to EKS this year, one at a time. Payments
first, late January. Decision record Monday. Training on `kubectl` and `shipit` in February, sign up
in the thread."

- 23 people signed up for training.
- [[Marco Bellini]] asked if the portal can go last. Yes.
- Someone asked about cost. Femi: cheaper, numbers after three services.
""")

N("work/slack/2026-02-02 security secret rotation thread.md", """
---
date: 2026-02-02
description: #security thread about rotating merchant webhook secrets and where secrets are stored.
tags: [slack, security, webhooks]
---
# #security: webhook secret rotation (2026-02-02)

- [[Hannah Berg]]: after today's review, merchant webhook secrets move to the secret store under
  `webhooks/merchants/<id>/`. The dispatcher reads current and previous.
- [[Ravi Kulkarni]] asked if a rotation can be started by support. Hannah: no, only the merchant
  in the portal or security on request.
- Hannah: the old per-merchant secret column in Postgres gets dropped after the migration.
""")

N("work/slack/2026-05-26 eng on-call swap thread.md", """
---
date: 2026-05-26
description: #eng thread about swapping on-call shifts around the June holiday, and the rotation change.
tags: [slack, on-call]
---
# #eng: on-call swaps (2026-05-26)

- [[Tomasz Nowak]]: new rotation from June; six people on primary, secondary is the previous
  week's primary. Nobody on more than one week in four.
- I swapped my June 8 week with Femi's June 22 week.
- [[Ravi Kulkarni]] joins primary from July, as planned.
- Reminder from Tomasz: the [[On-call handbook]] has the new escalation list.
""")

N("work/slack/2026-04-16 search cutover go-no-go thread.md", """
---
date: 2026-04-16
description: #search go/no-go thread for the invoice search alias swap.
tags: [slack, search]
---
# #search: go/no-go (2026-04-16)

- [[Mei Lin Zhou]]: comparison nights 1 and 2 at 99.6% and 99.7% top-25 overlap, differences are the
  analyzer change. Backfill done Thursday morning.
- Me: go, pending two more nights.
- [[Femi Adebayo]]: domain healthy, snapshots configured.
- [[Keiko Tanaka]] wasn't in the channel. (She should have been. See the retro.)
- Go for Wednesday 2026-04-22, 08:00 UTC.
""")

N("reference/How we run postmortems.md", """
---
date: 2026-03-09
description: Our team's way of running a postmortem - who writes it, by when, what goes in it, the review meeting, and follow-up tracking.
tags: [reference, process, incident]
---
# How we run postmortems

Written after the February retry storm, when it turned out everyone had a different idea of what a
postmortem is. This is what payments and platform agreed at the [[2026-03-05 Payments team retro]].

## Who and when
- Any high or medium severity incident gets one. Low severity: a short note is enough.
- The incident commander names an owner before closing the incident. The owner is usually the
  person who did the most debugging, not the IC.
- First draft within **three business days**; review meeting within **five**.

## What goes in it
File it in `work/incidents/` as `YYYY-MM-DD short name`. The sections that matter most:
- what happened, in order, with times in UTC;
- the root cause, including the conditions that let it happen, not just the trigger;
- impact in customer terms (money, merchants, tickets), not only minutes;
- follow-ups as tasks with an owner and a ticket.

## The review
- Blameless. "Who" questions are asked only to find out what someone knew at the time.
- The IC runs it; the owner presents.
- End with owners and dates for every follow-up, or it didn't happen.

## Good examples
- [[2026-03-12 Stale balances after ledger sync skipped entries]] — clear root cause, honest about
  the design review miss.
- [[2026-04-29 Webhook deliveries delayed by one slow endpoint]] — Ravi's first; good timeline.
""")

N("reference/On-call handbook.md", """
---
date: 2026-02-27
description: On-call handbook for payments and platform - paging, severity levels, declaring incidents, handover.
tags: [reference, on-call, process]
---
# On-call handbook

Maintained by [[Tomasz Nowak]].

## Severity
| level | meaning | example |
|---|---|---|
| high | money wrong or customers blocked broadly | retry storm, ledger drift, webhook backlog |
| medium | degraded, workaround exists | DNS latency, search missing new invoices |
| low | internal or sandbox only | sandbox certificate |

## Declaring
Declare early; you can always downgrade. Open `#inc-<short-name>`, name an IC, post the status page
if merchants are affected. Invite support automatically for payments incidents (since March).

## Handover
Monday 10:00, written: open incidents, alerts that fired, anything flaky.

## After
The incident commander names a postmortem owner before closing. How we write them:
[[How we run postmortems]].
""")

N("reference/Service map.md", """
---
date: 2026-01-06
description: Map of Fernhill's services, what they do, their language, owner team and where they run.
tags: [reference, architecture]
---
# Service map

| service | what | language | owner | runs on |
|---|---|---|---|---|
| payments | charges, refunds, retry scheduler, dunning | Go | payments | EKS (since 2026-01-26) |
| ledger | double-entry postings, warehouse sync | Rust | ledger | EKS (since 2026-04-07) |
| webhooks | outgoing event delivery | Go | payments | EKS (since 2026-02-23) |
| invoice-indexer | feeds invoice search | Kotlin | data | EKS (since 2026-03-09) |
| search API | invoice search for the portal | Kotlin | data | ECS (June) |
| portal | merchant billing portal (old + Portal Next) | Angular / Next.js | web | EKS (since 2026-05-18) |
| auth | sessions, API keys | Go | security | EKS |

External: Corridor Payments (acquirer, EUR/GBP cards), the finance warehouse (BigQuery), OpenSearch
(managed, since April).

Projects: [[Smart Retries]], [[Ledger v2]], [[Webhooks v2]], [[Invoice Search Migration]],
[[EKS Migration]], [[Portal Next]].
""")

N("reference/Release process.md", """
---
date: 2026-02-10
description: How services are released at Fernhill - versioning, changelogs, canaries, blocked versions, support heads-up.
tags: [reference, process]
---
# Release process

- Semantic versions per service (`v3.12.0` payments, `v2.4.x` ledger, `1.18.x` indexer).
- Changelog in the repo, release note in `reference/releases/` for anything with a known problem.
- `shipit deploy --canary 10` for everything on EKS; 15 minutes, then the rest.
- A withdrawn version goes into `infra/shipit/blocked.yaml` the same day.
- Ledger: no deploys during the month-end close.
- **Migrations and anything merchants can notice: tell support (Keiko's team) a day before.**
  Added 2026-04-23.
""")

N("reference/Glossary.md", """
---
date: 2026-01-15
description: Glossary of payments and billing terms used at Fernhill, written for new engineers.
tags: [reference, onboarding]
---
# Glossary

- **Acquirer**: the bank that processes card payments for us (Corridor Payments).
- **Issuer**: the cardholder's bank. It approves or declines.
- **Soft decline**: a refusal that might succeed later (insufficient funds, issuer unavailable).
- **Hard decline**: a refusal that won't change (stolen card, closed account).
- **Dunning**: asking the customer to fix a failed payment, by email or in the portal.
- **Posting**: one line of a double-entry ledger movement; postings come in balanced pairs.
- **Reversal**: a posting that undoes an earlier one. The ledger never edits history.
- **Month-end close**: finance's process of finalising the month's numbers.
- **Minor units**: the integer form of an amount (cents, or yen themselves for JPY).
- **Idempotency key**: a client-chosen key that makes a repeated request safe.

Written for [[Ravi Kulkarni]]'s onboarding.
""")

N("reference/Postgres connection pooling notes.md", """
---
date: 2026-03-03
description: Notes on PgBouncer transaction pooling for the payments and ledger databases, and the settings that bit us.
tags: [reference, postgres]
---
# Postgres connection pooling notes

Both payments and ledger talk to Postgres through PgBouncer in transaction mode.

- `default_pool_size = 40` per database/user pair; payments peaks at ~35 active.
- Transaction pooling breaks session state: no `SET` outside a transaction, no advisory locks held
  across transactions, prepared statements only since PgBouncer 1.21 with
  `max_prepared_statements`.
- The ledger sync opens one long read transaction per batch. Under transaction pooling that holds a
  server connection for the whole batch; fine at 500 postings, not at 50,000.
- `server_idle_timeout = 600` so connections don't pile up after a deploy.

Related: [[Ledger sync internals]].
""")

N("work/archive/2025/Billing exports v1.md", """
---
date: 2025-11-03
description: Archived 2025 project - CSV billing exports for merchants, superseded by the warehouse-backed reports.
tags: [work-note, project, archive]
status: archived
---
# Billing exports v1

Merchants could download invoices and payments as CSV from the old portal. Built in 2023, slow for
large merchants (exports over 1M rows timed out after 30 minutes).

Replaced in November 2025 by warehouse-backed reports. The last reader is a finance export used by
support for refunds, which still reads the v1 ledger tables; see [[Ledger v2]].
""")

N("work/archive/2025/Payments idempotency keys.md", """
---
date: 2025-09-18
description: Archived 2025 project - idempotency keys for charge requests to the acquirer, preventing double captures on retries.
tags: [work-note, project, archive]
status: archived
---
# Payments idempotency keys

Shipped September 2025. Every charge request to the acquirer carries an idempotency key derived from
the invoice id and attempt purpose, so a network retry never captures twice.

This is why the February 2026 retry storm created many authorizations but no double captures
([[2026-02-10 Retry storm on issuer outage]]).

Design notes: one key per invoice and purpose (`charge`, `refund`), not per attempt, so the acquirer
dedupes. Keys kept 30 days at Corridor.
""")

N("inbox/Ideas for the team offsite.md", """
---
date: 2026-05-12
description: Loose ideas for the payments team offsite in June.
tags: [inbox]
---
# Ideas for the team offsite

- Game day: break something on staging on purpose (ledger sync? webhook endpoint that sleeps?)
  and let Ravi be IC.
- Review all five 2026 postmortems in one sitting; look for patterns (two were "a setting we forgot").
- Half a day on the second acquirer design.
- Not another escape room.

For [[Priya Raman]] to decide.
""")

N("inbox/Questions for Jonas skip-level.md", """
---
date: 2026-03-27
description: Questions I want to ask Jonas at the next skip-level.
tags: [inbox]
---
# Questions for Jonas skip-level

- What would make the freeze unnecessary in his eyes?
- Second acquirer: is it funded for H2?
- How does he see staff vs principal at Fernhill; is there a principal in payments at all?
- Review load: can we make "reviewer" a rotating role?

Asked most of them on 2026-03-30: [[Jonas Eklund 2026-03-30]].
""")

N("inbox/Laptop setup.md", """
---
date: 2026-01-05
description: Things to install on the new laptop, so I stop forgetting them.
tags: [inbox, personal]
---
# Laptop setup

- [x] Homebrew, mise, Docker (Colima), kubectl, helm
- [x] `shipit`, `payctl`, `ledgerctl`, `hookctl` from the internal tap
- [x] Obsidian + this vault, synced by git
- [ ] Rust toolchain with sccache (ledger builds are slow without it)
- [ ] VPN profile for the EU prod bastion

Linked from [[Home]].
""")

N("perf/Brag Doc.md", """
---
date: 2026-01-05
description: Running list of my wins and impact in 2026, for reviews and the promotion packet.
tags: [perf]
---
# Brag Doc

## 2026
- 2026-01-27 Reproduced the EKS DNS problem with `dig` inside a pod; helped Femi confirm it.
- 2026-02-21 Wrote the recovery analysis that framed the retries decision (lost, but useful).
- 2026-03-09 Wrote [[How we run postmortems]], adopted by payments and platform.
- 2026-03-16 Owned the dropped design question in the ledger incident review; wrote
  [[Ledger sync internals]].
- 2026-03-30 Webhooks v2 at 100% of merchants, v1 deleted.
- 2026-04-22 Comparison tooling for the search cutover caught two mapping bugs early.
- 2026-05-05 Per-endpoint webhook limit design, rolled out 2026-05-13.
- 2026-05-12 Currency exponent in the API, affects every client.
- Ongoing: mentoring [[Ravi Kulkarni]]; he owns webhooks from H2.

Quarter detail: [[Q1-2026]].
""")

N("perf/brag/Q1-2026.md", """
---
date: 2026-04-01
description: Q1 2026 brag detail - what I did, with evidence links, for the H2 promotion packet.
tags: [perf]
quarter: Q1-2026
---
# Q1-2026

## Delivery
- Webhooks v2 from 0 to 100% of merchants (2026-03-02 → 2026-03-30). Signing with rotation.

## Incidents and what changed because of them
- Retry storm: argued the minority position with data; decision was better for having it.
- Ledger drift: owned the dropped question; wrote sync internals; freeze disagreement handled with a
  review date rather than a fight.
- DNS: reproduced the UDP race; pushed ndots into the base chart.

## People
- Ravi onboarding, code review coaching.
- Dana and Femi mentoring 1:1s.

Back to [[Brag Doc]].
""")

N("thinking/Promotion case draft.md", """
---
date: 2026-05-05
description: First draft of my principal engineer promotion case for the H2 2026 cycle.
tags: [thinking, draft, perf]
status: draft
---
# Promotion case draft

## Summary
Staff engineer on Payments Platform. Case for principal: I change how several teams build and
operate money-moving systems, beyond the services I own.

## Impact beyond my team
- Postmortem practice now shared by payments and platform ([[How we run postmortems]]).
- Currency exponent in the API: every client now formats money from one source.
- Ledger: sync internals, review follow-through after the March incident.

## Technical direction
- Webhooks isolation design (per-endpoint limits).
- Search cutover tooling.

## People
- Ravi from new hire to webhooks owner in six months.

Feedback from Priya on 2026-05-07: rewrite impact around outcomes, not incidents.
See [[Priya Raman 2026-05-07]].
""")

N("thinking/Notes on on-call load.md", """
---
date: 2026-05-19
description: Thinking about why on-call load concentrates on a few people and what would spread it.
tags: [thinking]
---
# Notes on on-call load

Five of the last eight weeks I was primary or secondary. Why:

- swaps flow to whoever says yes;
- the rotation had four people for payments and webhooks combined;
- "secondary" meant "the person who knows the system", so it was always one of three people.

Ideas: secondary = last week's primary; runbooks good enough that secondary needn't be an expert;
Ravi on primary from July. Tomasz is changing the rotation ([[2026-05-26 eng on-call swap thread]]).
""")

N("reference/Reading - Idempotency keys in payment APIs.md", """
---
date: 2026-02-14
description: Reading notes on idempotency keys in payment APIs - scope, storage, expiry and how they relate to retries.
tags: [reading, payments]
---
# Reading - Idempotency keys in payment APIs

- The client picks the key; the server stores the first response for that key and replays it for
  repeats.
- Scope keys to the operation, not to the attempt: a retry must reuse the key, a genuinely new
  charge must not.
- Keep them long enough to outlive any retry schedule (our acquirer: 30 days).
- Idempotency prevents double *capture*; it doesn't stop you from annoying an issuer with repeated
  *authorization attempts*. Those are separate problems, as February showed.

Our implementation: [[Payments idempotency keys]].
""")

N("reference/Reading - DDIA chapter 11 notes.md", """
---
date: 2026-03-22
description: Reading notes on stream processing and change data capture from Designing Data-Intensive Applications, chapter 11.
tags: [reading, data]
---
# Reading - DDIA chapter 11 notes

Reread after the ledger incident.

- Log-based message brokers keep order per partition; consumers track an offset. A polling loop over
  an id column is a poor man's log, and ids from a sequence are not a log: they're assigned in
  insert order, visible in commit order.
- Change data capture reads the database's own replication log, which *is* in commit order. That's
  the real argument for CDC for the ledger sync.
- Exactly-once is really idempotent writes plus at-least-once delivery.

Relevant to [[Ledger v2]] and the v2.5 CDC spike.
""")


# ==============================================================================================
# obsidian-mind scaffolding: agent manuals, templates, hub notes (never correct answers)
# ==============================================================================================

N("CLAUDE.md", """
@AGENTS.md

# CLAUDE.md

The operating manual for this vault is AGENTS.md, imported above. Follow it as written; it applies
to Claude Code unchanged. Search the vault before answering questions about decisions, incidents,
people or projects.
""")

N("AGENTS.md", """
# AGENTS.md — how to work in this vault

This file is the operating manual for every coding agent that opens this folder. Codex reads it
directly, Claude Code through `CLAUDE.md`.

## 1. What this vault is

A personal engineering knowledge base in plain markdown: goals, projects, decisions, incidents,
people, 1:1s, performance evidence and lessons learned. The human reads it in Obsidian; agents read
and write it through `mindex`.

Two duties in every session:
1. **Look before you answer.** Search the vault before saying how something works, why it was
   decided, or whether it happened before. Cite the note paths you used.
2. **File before you leave.** Anything worth knowing next month goes into the right note.

## 2. How to search

- `mindex search "words"` for exact terms: ticket ids, config keys, versions, file paths, flags.
- `mindex query "question"` for questions in your own words; it combines keywords and meaning.
- `mindex get "Note name"` to read a note; `mindex expand "Note name"` for its links and backlinks.
- `mindex recall "topic"` for memories; memories are not returned by search.
- Search for the decision record before explaining why something is the way it is. Search the
  incidents folder before saying something never happened before.

## 3. Folder map

| folder | what lives there |
|---|---|
| `brain/` | North Star, Key Decisions, Patterns, Gotchas, Memories index, Skills |
| `work/active/` | project notes and decision records (`Decision - <title>.md`) |
| `work/incidents/` | one postmortem per incident: `YYYY-MM-DD <short name>.md` |
| `work/1-1/` | one note per 1:1: `<Person> YYYY-MM-DD.md` |
| `work/meetings/` | meeting notes, review meetings, planning |
| `work/weekly/` | one note per ISO week |
| `work/slack/` | summaries of important Slack threads |
| `org/people/` | one note per person |
| `reference/` | runbooks, architecture, release notes, reading notes |
| `thinking/` | drafts and scratch, including arguments that lost |
| `templates/` | note templates: copy them, never file notes here |
| `memories/` | memory captures written by `mindex remember` |

## 4. Where new information goes

| you learn… | file it in… |
|---|---|
| a decision that is hard to reverse or settles a trade-off | a decision record in `work/active/` from `templates/Decision Record.md`, a row in the Decisions Log of `work/Index.md`, one line in `brain/Key Decisions.md` |
| a decision was reversed | the original record gets `status: superseded` and a link to the new one |
| an incident | a postmortem in `work/incidents/` from `templates/Incident.md`, linked from the project note |
| 1:1 content | `work/1-1/<Person> YYYY-MM-DD.md` from `templates/1-1.md`, plus a dated line in the person's note |
| a reusable fix or trap | `brain/Patterns.md` or `brain/Gotchas.md` |
| a lesson learned in a code repository | `mindex remember` (section 6) |

## 5. Writing a decision record

Context first: what forced the decision. Then the options considered, each with its merit, the
decision in one sentence, and the consequences, including what gets worse. Status moves
proposed → accepted; a reversed decision becomes superseded. Never rewrite an accepted record's
reasoning after the fact; add an update section.

## 6. Writing an incident postmortem

Use the incident template. Root cause means the conditions, not only the trigger. Timeline in UTC.
Impact in customer terms. Every follow-up is a task with an owner. Severity is high, medium or low;
role is what the human did (incident commander, responder, observer). Ticket ids are plain text,
never wikilinks.

## 7. Memory

`mindex remember --title … --body … --confidence verified|inferred|unverified --scope project|platform|general`.
One lesson per memory, in your own words, never a transcript. Search memories with
`mindex recall`, not `search`.

## 8. Conventions

Frontmatter on every note (`date`, `description`, `tags`, plus `status`, `project`, `quarter`,
`ticket`, `severity`, `role` by kind). Dates are absolute (2026-03-14). Every note links to at least
one other note. File names are titles.
""")

N("brain/Skills.md", """
---
date: 2026-01-05
description: What an agent can do in this vault with mindex - find notes, read them, record decisions and incidents, keep the index healthy.
tags: [brain]
---
# Skills

What an agent can do here, by tool. The full manual is `AGENTS.md`; the goals are in
[[North Star]] and the memory index in [[Memories]].

## Find
| command | use it to |
|---|---|
| `mindex search "words"` | rank notes by keywords (BM25): exact ticket ids, versions, config keys |
| `mindex query "question"` | hybrid search, keywords plus meaning, for questions |
| `mindex get "Note name"` | print one note or a slice of it |
| `mindex expand "Note name"` | links and backlinks of a note |
| `mindex recall "topic"` | memories that reach this project |

## Write
| command | use it to |
|---|---|
| `mindex remember --title … --body …` | record one durable lesson as a memory |
| `mindex record-work --title … --summary …` | file a note about finished work, with decisions and open items |

To record a decision, copy the decision record template into `work/active/`; for an incident,
the incident template into `work/incidents/`; for a 1:1, the 1:1 template into `work/1-1/`.

## Keep the vault healthy
| command | use it to |
|---|---|
| `mindex update` | bring the index up to date after edits |
| `mindex audit` | orphan notes and broken wikilinks |
| `mindex health` | why search results look empty or wrong |
""")

N("templates/Decision Record.md", """
---
date: "{{date}}"
description:
status: proposed
project:
tags: [decision]
---
%% Write a decision record when the decision is hard to reverse, would surprise someone arriving
without the context, or settles a real trade-off. File it in work/active/ as "Decision - <title>.md"
and add a row to the Decisions Log in work/Index.md. Status moves proposed -> accepted; a reversed
decision becomes superseded, with a link to the record that replaced it. %%
# Decision: {{title}}

## Context
What forced the decision? What did we know at the time?

## Options Considered
1.
2.
3.

## Decision
The option chosen, in one sentence, and why.

## Consequences
What gets better, what gets worse, what we will revisit and when.

## Related
""")

N("templates/Incident.md", """
---
date: "{{date}}"
quarter:
description:
project:
status: active
ticket: TICKET-0000
severity: high
role:
tags: [work-note, incident]
---
%% Save in work/incidents/ as "YYYY-MM-DD <short name>.md". This is the postmortem: write it within
three business days. The ticket ID stays plain text. severity is high, medium or low; role is what
you did (incident commander, responder, observer). Set status to completed once the follow-ups are
done. %%
# {{title}}

## Context
What was happening before the incident?

## Root Cause
The conditions that made it possible, not only the trigger.

## Resolution
What stopped the impact, and when.

## Timeline
- HH:MM (UTC)

## Impact
Customers, merchants, money, support tickets, duration.

## Involved Personnel
Incident commander, responders.

## Follow-ups
- [ ] Owner:
""")

N("templates/1-1.md", """
---
date: "{{date}}"
description:
tags: [work-note, 1-1]
status: completed
quarter:
---
%% Save as work/1-1/<Person> YYYY-MM-DD.md and add a dated line to the person's note in
org/people/. Action items carry an owner. %%
# 1:1 — {{date}}

With

## Key Takeaways

## Decisions Made

## Action Items
- [ ] Owner:

## Quotes Worth Noting

## What Went Well

## What to Watch

## Related
""")

N("templates/Weekly Note.md", """
---
date: "{{date}}"
description: Week of {{date}}
tags: [weekly]
---
%% One note per ISO week in work/weekly/ as YYYY-Www.md. What happened, what shipped, what was
decided, what's next. Link the incidents, decisions and meetings of the week. %%
# Week {{title}}

## Happened

## Shipped

## Decided

## Next
""")

N("templates/Thinking Note.md", """
---
date: "{{date}}"
description:
tags: [thinking, draft]
status: draft
project:
---
%% Drafts live in thinking/. Argue one side on purpose if it helps a decision; link the decision
record once it exists and say how it turned out. %%
# {{title}}

## The argument

## What would change my mind

## Outcome
""")

N("Home.md", """
---
date: 2026-01-05
description: Entry point of the vault - links to the work index, people, brain notes and the brag doc.
tags: [home]
---
# Home

- Work: [[Index]] (projects, decisions log, incidents)
- People: [[People & Context]]
- Brain: [[North Star]] · [[Key Decisions]] · [[Patterns]] · [[Gotchas]] · [[Memories]] · [[Skills]]
- Perf: [[Brag Doc]]
- Setup: [[Laptop setup]]
""")

N("work/Index.md", """
---
date: 2026-01-05
description: Index of all my work in 2026 - active projects, the decisions log with every decision record, and the incident list.
tags: [index]
---
# Index

## Active projects
- [[Smart Retries]] — payments retry scheduler and dunning
- [[Ledger v2]] — double-entry ledger and warehouse sync
- [[Invoice Search Migration]] — Elasticsearch 6.8 to OpenSearch (done 2026-05-25)
- [[Webhooks v2]] — outgoing event delivery
- [[EKS Migration]] — ECS to Kubernetes
- [[Portal Next]] — merchant portal rewrite

## Decisions Log
| date | decision | status |
|---|---|---|
| 2026-01-12 | [[Decision - Migrate services from ECS to EKS]] | accepted |
| 2026-01-20 | [[Decision - Ledger is append-only with reversal entries]] | accepted |
| 2026-01-28 | [[Decision - Move invoice search to OpenSearch]] | accepted |
| 2026-02-03 | [[Decision - Sign webhooks with two active secrets]] | accepted |
| 2026-02-05 | [[Decision - Run NodeLocal DNSCache on every node]] | accepted |
| 2026-02-17 | [[Decision - Render invoice pages on the server]] | accepted |
| 2026-02-24 | [[Decision - Stop automatic retries for soft declines]] | accepted |
| 2026-03-04 | [[Decision - Cut over invoice search with dual writes]] | accepted |
| 2026-03-20 | [[Decision - No ledger deploys during month-end close]] | accepted |
| 2026-05-05 | [[Decision - Per-endpoint concurrency limit for webhook delivery]] | accepted |
| 2026-05-12 | [[Decision - Currency exponent comes from the API]] | accepted |

## Incidents
| date | incident | severity |
|---|---|---|
| 2026-01-27 | [[2026-01-27 DNS timeouts after moving payments to EKS]] | medium |
| 2026-02-10 | [[2026-02-10 Retry storm on issuer outage]] | high |
| 2026-03-12 | [[2026-03-12 Stale balances after ledger sync skipped entries]] | high |
| 2026-04-22 | [[2026-04-22 New invoices missing from search after cutover]] | medium |
| 2026-04-29 | [[2026-04-29 Webhook deliveries delayed by one slow endpoint]] | high |
| 2026-05-06 | [[2026-05-06 Portal Next showed JPY amounts divided by 100]] | medium |
| 2026-05-14 | [[2026-05-14 Sandbox TLS certificate expired]] | low |

## Archive
- [[Billing exports v1]], [[Payments idempotency keys]]
""")

N("brain/North Star.md", """
---
date: 2026-01-05
description: My goals for 2026 - what I'm optimising for at work and what I'm saying no to.
tags: [brain]
---
# North Star

## 2026
1. Make the payments platform boring: fewer incidents, faster detection.
2. Principal engineer promotion in the H2 cycle, on the strength of cross-team work.
3. Grow [[Ravi Kulkarni]] into an owner.
4. Write things down so that nothing depends on me being around.

## Saying no to
- Being the default reviewer for every team.
- New projects in Q2 beyond webhooks, search cutover and money formatting.

Updated 2026-05-21: H2 adds the second-acquirer project.
""")

N("brain/Key Decisions.md", """
---
date: 2026-01-12
description: One line per important decision in 2026 with the reason, linking to the full decision records.
tags: [brain, decisions]
---
# Key Decisions

- **2026-01-12 Move to EKS.** One deploy path, bin-packing. [[Decision - Migrate services from ECS to EKS]]
- **2026-01-20 Ledger is append-only.** Corrections are reversals; history never changes.
  [[Decision - Ledger is append-only with reversal entries]]
- **2026-01-28 OpenSearch for invoice search.** 6.8 is end of life; managed beats self-run.
  [[Decision - Move invoice search to OpenSearch]]
- **2026-02-03 Two active webhook secrets during rotation.** Merchants rotate without dropped events.
  [[Decision - Sign webhooks with two active secrets]]
- **2026-02-05 Node-local DNS cache.** After the payments DNS incident.
  [[Decision - Run NodeLocal DNSCache on every node]]
- **2026-02-17 Server-rendered invoice pages.** Speed and PDF parity.
  [[Decision - Render invoice pages on the server]]
- **2026-02-24 No automatic retries for soft declines.** The acquirer risk outweighed ~2 points of
  recovery. [[Decision - Stop automatic retries for soft declines]]
- **2026-03-04 Search cutover by dual writes and alias swap.** No maintenance window.
  [[Decision - Cut over invoice search with dual writes]]
- **2026-03-20 Ledger deploy freeze during month-end close.** Finance signs off on numbers that
  must be right. [[Decision - No ledger deploys during month-end close]]
- **2026-05-05 Per-endpoint webhook concurrency limit (8).** One slow endpoint can't starve
  everyone. [[Decision - Per-endpoint concurrency limit for webhook delivery]]
- **2026-05-12 API sends the currency exponent.** No client guesses decimals again.
  [[Decision - Currency exponent comes from the API]]
""")

N("brain/Gotchas.md", """
---
date: 2026-01-28
description: Traps that cost us time in 2026, each with the symptom and the fix, so we recognise them next time.
tags: [brain]
---
# Gotchas

## Five-second latency on Kubernetes
Symptom: a small share of requests slower by almost exactly 5 s. Cause: DNS, `ndots:5` plus the UDP
conntrack race. Fix: `ndots: 2`, node-local DNS cache. [[2026-01-27 DNS timeouts after moving payments to EKS]]

## Sequence order is not commit order
A cursor over an id column skips rows whose transaction commits late. Use the snapshot's xmin
horizon. [[Ledger sync internals]]

## The setting that makes a backfill fast
`index.refresh_interval: -1` must be undone on the concrete index, not the alias.
[[2026-04-22 New invoices missing from search after cutover]]

## Two max-attempts keys
`payments.retry.max_attempts` counts charges; `payments.dunning.max_attempts` counts emails.

## Zero-decimal currencies
JPY and KRW have no minor unit; BHD has three. Never divide by 100.
[[2026-05-06 Portal Next showed JPY amounts divided by 100]]
""")

N("brain/Patterns.md", """
---
date: 2026-02-20
description: Patterns that worked for us in 2026 - kill switches, dual writes with alias swaps, per-tenant limits, replay with bounds.
tags: [brain]
---
# Patterns

## Kill switch as an env var
A flag that stops new work without losing queued work. Saved us in February:
`PAYMENTS_RETRY_SCHEDULER_ENABLED`. Every scheduler should have one.

## Dual writes, compare, swap an alias
How we moved invoice search without downtime. Compare real queries, not only counts.

## Limit per tenant, not only globally
A global pool is shared fate. Per-endpoint limits for webhooks, per-issuer breakers for retries.

## Replays are deploys
Bound them (`--max-inflight`), dry-run them, announce them.

## Argue the losing side in writing
A draft for the option you expect to lose makes the decision better (retries, freeze, ECS).
""")

N("brain/Memories.md", """
---
date: 2026-01-20
description: Index of memory captures written by agents with mindex remember, by month.
tags: [brain, index]
---
# Memories

Captures live in `memories/YYYY/MM/` and are read with `mindex recall`, not search.

## 2026-01
- [[2026-01-27 ndots 5 makes external lookups slow in pods]]
- [[2026-01-30 Run shipit with --dry-run before a service's first EKS deploy]]

## 2026-02
- [[2026-02-11 Payments integration tests need the sandbox acquirer]]
- [[2026-02-25 Do not auto-retry do-not-honor declines]]

## 2026-03
- [[2026-03-13 Ledger v2.4.7 must not be redeployed]]
- [[2026-03-17 Dry-run ledgerctl sync rewind first]]
- [[2026-03-21 Month-end freeze dates are in the ops calendar]]

## 2026-04
- [[2026-04-15 OpenSearch alias swaps are atomic]]
- [[2026-04-23 Restore refresh_interval after a bulk reindex]]
- [[2026-04-30 hookctl replay needs an explicit inflight bound]]

## 2026-05
- [[2026-05-07 Zero-decimal currencies in money.ts]]
- [[2026-05-13 Webhook per-endpoint limit defaults to 8]]
- [[2026-05-19 Ledger builds need sccache]]
- [[2026-05-22 Ask Luis before touching posting.rs]]
""")


# ==============================================================================================
# Memories (source: mcp-capture). Served through recall only; never judged for search queries.
# ==============================================================================================


def M(date, slug, desc, scope, projects, confidence, body, how=None, related=()):
    y, m, _ = date.split("-")
    text = (
        "---\n"
        f"date: {date}\n"
        f"description: {json.dumps(desc)}\n"
        "tags: [memory]\n"
        "source: mcp-capture\n"
        'origin: "claude-code"\n'
        f'session: "{date}T10:00:00Z"\n'
        f"scope: {scope}\n"
        f"projects: {json.dumps(projects)}\n"
        f"confidence: {confidence}\n"
        "---\n\n"
        f"# {slug}\n\n{body.strip()}\n"
    )
    if how:
        text += f"\n## How this is known\n\n{how.strip()}\n"
    if related:
        text += "\n## Related\n\n" + "".join(f"- [[{r}]]\n" for r in related)
    N(f"memories/{y}/{m}/{date} {slug}.md", text)


M("2026-01-27", "ndots 5 makes external lookups slow in pods",
  "Kubernetes pods default to ndots 5, so external hostnames go through every search domain first.",
  "platform", ["payments", "webhooks"], "verified",
  "Pods default to `ndots:5`; an external hostname with fewer dots is tried against every search "
  "domain first. With the UDP conntrack race this shows up as 5 s stalls. Our base chart sets "
  "`ndots: 2`; don't override `dnsConfig` in service charts.",
  how="Reproduced with dig inside a payments pod on 2026-01-27.",
  related=["2026-01-27 DNS timeouts after moving payments to EKS"])

M("2026-01-30", "Run shipit with --dry-run before a service's first EKS deploy",
  "The first EKS deploy of a service should be rendered and diffed with shipit --dry-run.",
  "platform", ["payments", "ledger", "webhooks"], "inferred",
  "`shipit deploy <svc> --dry-run` renders the chart and diffs it against the cluster. For a "
  "service's first deploy on EKS it shows missing secrets and wrong resource limits before they "
  "break anything.",
  related=["Runbook - EKS deploys"])

M("2026-02-11", "Payments integration tests need the sandbox acquirer",
  "Payments integration tests run against the acquirer's sandbox and fail without the VPN route.",
  "project", ["payments"], "verified",
  "`make integration` in services/payments calls Corridor's sandbox. Without the VPN route the "
  "tests time out rather than fail fast; check the route before debugging the tests.",
  how="Hit it twice in February.")

M("2026-02-25", "Do not auto-retry do-not-honor declines",
  "Response code 05 is a hard decline for us; only 91 and 96 are retried, at most twice.",
  "project", ["payments"], "verified",
  "Since PAY-1042 only codes 91 and 96 are retried automatically (max 3 attempts in total). Code 05 "
  "(do not honor) is hard. Don't add codes to `payments.retry.retryable_codes` without Dana.",
  how="Read classify.go and the config after the 2026-02-24 decision.",
  related=["Decision - Stop automatic retries for soft declines"])

M("2026-03-13", "Ledger v2.4.7 must not be redeployed",
  "Ledger v2.4.7 skips late-committing postings in the warehouse sync; it is blocked in shipit.",
  "project", ["ledger"], "verified",
  "v2.4.7 batched cursor commits in `services/ledger/src/sync.rs` and skipped postings from "
  "long-running transactions. It is in `infra/shipit/blocked.yaml`. Roll back to v2.4.6 or forward "
  "to v2.4.8+.",
  how="Incident LED-231 on 2026-03-12.",
  related=["Runbook - Ledger sync"])

M("2026-03-17", "Dry-run ledgerctl sync rewind first",
  "ledgerctl sync rewind prints the replay size with --dry-run; always run it first.",
  "project", ["ledger"], "inferred",
  "`ledgerctl sync rewind --to <time> --dry-run` shows how many postings will be replayed. A big "
  "number means raise LEDGER_SYNC_BATCH_SIZE for the replay and tell finance.")

M("2026-03-21", "Month-end freeze dates are in the ops calendar",
  "The ledger month-end deploy freeze dates are published in the ops calendar, not in the repo.",
  "project", ["ledger"], "verified",
  "Look up the close window in the ops calendar before scheduling any ledger deploy or "
  "infrastructure move; exceptions need Luis and Priya.")

M("2026-04-15", "OpenSearch alias swaps are atomic",
  "A single _aliases call with remove and add actions swaps an alias atomically in OpenSearch.",
  "general", [], "verified",
  "Put the remove and the add in one `_aliases` request; readers never see zero or two indices. "
  "Swapping back is the same call reversed.",
  how="Tested on staging before the cutover.")

M("2026-04-23", "Restore refresh_interval after a bulk reindex",
  "After a backfill with refresh disabled, set refresh_interval back on the concrete index.",
  "project", ["search"], "verified",
  "A backfill sets `index.refresh_interval: -1`. Set it back to `1s` on the concrete index name "
  "(e.g. invoices-v8), not the alias, and check `_settings` before any alias swap.",
  how="SRCH-91, 2026-04-22.",
  related=["Runbook - Invoice search reindex"])

M("2026-04-30", "hookctl replay needs an explicit inflight bound",
  "Always pass --max-inflight to hookctl replay; older builds defaulted to unlimited.",
  "project", ["webhooks"], "inferred",
  "`hookctl replay` before the fix had no inflight default, so a replay could send hundreds of "
  "thousands of events at once to one merchant. Pass `--max-inflight 20` for a single endpoint.")

M("2026-05-07", "Zero-decimal currencies in money.ts",
  "Portal Next must format amounts with the shared money package; JPY and KRW have no decimals.",
  "project", ["portal"], "verified",
  "`apps/portal/src/lib/money.ts` used to hold a local helper that divided by 100. Use "
  "`@fernhill/money` and the API's `exponent` field.",
  related=["Decision - Currency exponent comes from the API"])

M("2026-05-13", "Webhook per-endpoint limit defaults to 8",
  "webhooks.delivery.per_endpoint_limit defaults to 8 concurrent deliveries per endpoint.",
  "project", ["webhooks"], "verified",
  "The dispatcher allows at most 8 in-flight deliveries per endpoint (`e81c0f2`). Overrides per "
  "endpoint are possible but none exist yet.")

M("2026-05-19", "Ledger builds need sccache",
  "Building the ledger service locally takes 14 minutes without sccache.",
  "project", ["ledger"], "unverified",
  "CI uses sccache since v2.4.17's build change; locally set `RUSTC_WRAPPER=sccache` or expect "
  "~14 minute builds.")

M("2026-05-22", "Ask Luis before touching posting.rs",
  "Changes to services/ledger/src/posting.rs need Luis or Ana as reviewer.",
  "project", ["ledger"], "unverified",
  "`posting.rs` enforces the append-only rule and reversal pairs. Luis asked that changes there "
  "go through him or Ana.")


# ==============================================================================================
# More notes: the long tail a real vault has
# ==============================================================================================

N("work/meetings/2026-03-10 Ledger release readiness.md", """
---
date: 2026-03-10
description: Release readiness check for the ledger sync batching change two days before it shipped.
tags: [meeting, ledger]
project: Ledger v2
---
# 2026-03-10 Ledger release readiness

[[Luis Ferreira]], [[Tomasz Nowak]], me. 25 minutes.

Candidate: v2.4.7, mainly the sync change that commits the cursor once per batch (`a3f9c21`).

- Benchmarks: warehouse round trips down 80%, sync lag p99 from 4 s to 1.2 s at current volume.
- Tests: unit tests for the cursor, a replay test on staging with one day of production postings.
  Nobody had a test with a transaction that stays open across batches. (We didn't think to ask.)
- Tomasz: canary 10%, but the sync runs as a single leader, so a canary doesn't exercise it. Noted,
  accepted.
- Ship Thursday 2026-03-12, 09:40, not in the close window.

Go.

Afterwards: [[2026-03-12 Stale balances after ledger sync skipped entries]].
""")

N("work/slack/2026-03-18 ledger fix release thread.md", """
---
date: 2026-03-18
description: #ledger thread on shipping the cursor fix release after the March drift.
tags: [slack, ledger]
project: Ledger v2
---
# #ledger: the fix is out (2026-03-18)

- [[Luis Ferreira]]: v2.4.8 at 14:00, canary until 15:00, then full. The cursor now stops at the
  oldest in-flight transaction.
- [[Mei Lin Zhou]] ran a manual recon at 15:30: clean.
- [[Tomasz Nowak]]: reconciliation moves to every 15 minutes next sprint (LED-236).
- Someone asked if we should also replay the whole of March to be sure. Luis: recon compares all
  balances, not a sample; a clean recon is the proof.
""")

N("work/slack/2026-02-24 payments soft decline rollout thread.md", """
---
date: 2026-02-24
description: #payments thread on rolling out the change that stops automatic retries for soft declines.
tags: [slack, payments]
project: Smart Retries
---
# #payments: rolling out PAY-1042 (2026-02-24)

- [[Dana Okafor]]: config change merged. Soft declines now go straight to dunning; only 91 and 96 are
  retried, one day and three days later.
- Rollout: 10% of merchants today, all by Thursday.
- [[Keiko Tanaka]] asked what merchants will see. Dana: fewer "payment failed, retrying" emails,
  and from 2026-03-09 the new reminder sequence.
- [[Ravi Kulkarni]] asked whether `invoice.payment_failed` webhooks change. They fire once now
  instead of once per attempt. He'll update the docs.
- Queue size after 24 h: down from ~12,000 pending attempts to ~300.
""")

N("work/slack/2026-05-12 api currency exponent thread.md", """
---
date: 2026-05-12
description: #api thread announcing that money objects in API responses now include the currency exponent.
tags: [slack, api, portal]
project: Portal Next
---
# #api: `exponent` on money objects (2026-05-12)

Me: every money object in API responses gets `exponent` from today:
`{"value": 12000, "currency": "JPY", "exponent": 0}`. Additive, no version bump. Clients should use
it instead of their own decimal tables.

- [[Marco Bellini]]: Portal Next switches this week; `@fernhill/money` 1.9 reads it.
- [[Luis Ferreira]]: ledger exports will add it too.
- Someone asked about currencies with three decimals. BHD, KWD, OMR: exponent 3, tested.
- Mobile team: they'll pick it up in their next release.

Decision record: [[Decision - Currency exponent comes from the API]].
""")

N("work/slack/2026-05-05 webhooks per-endpoint design thread.md", """
---
date: 2026-05-05
description: #webhooks thread discussing the implementation of per-endpoint concurrency limits in the dispatcher.
tags: [slack, webhooks]
project: Webhooks v2
---
# #webhooks: per-endpoint limits, implementation (2026-05-05)

- [[Ravi Kulkarni]]: proposal is a map of semaphores keyed by endpoint id inside the dispatcher, in
  `services/webhooks/dispatcher/pool.go`. When an endpoint is at its limit, the worker puts the event
  back and takes another.
- Me: "puts back" where? If it goes to the tail of the global queue, that endpoint's order breaks.
  Needs a per-endpoint holding list.
- [[Tomasz Nowak]]: metric per endpoint for time spent at the limit, please.
- Ravi: limit configurable per endpoint, default 8. PR tomorrow.
- His earlier attempt, `e81f0c2`, re-queued at the global tail; reverted the same day.
""")

N("work/slack/2026-03-09 payments dunning launch thread.md", """
---
date: 2026-03-09
description: #payments thread on the day reminder emails for failed renewals went live for every merchant.
tags: [slack, payments]
project: Smart Retries
---
# #payments: dunning live (2026-03-09)

- [[Dana Okafor]]: reminder emails on for all merchants at 09:00. Day 1 sends for about 2,100
  invoices.
- [[Aoife Brennan]]: open rate on day 1 emails 61% by noon, click-through to the update-card page
  22%.
- [[Keiko Tanaka]]: two merchants asked to customise the sender name. Not in scope; ticket for later.
- Dana: `payments.dunning.max_attempts` is 4 and the pause after 21 days is on.
""")

N("reference/Decline codes cheat sheet.md", """
---
date: 2026-02-18
description: Cheat sheet of card decline response codes we see most, whether they are hard or soft for us, and what we do with each.
tags: [reference, payments]
project: Smart Retries
---
# Decline codes cheat sheet

| code | meaning | our class | what happens (since 2026-02-24) |
|---|---|---|---|
| 05 | do not honor | hard (since `c41d9e2`) | dunning |
| 14 | invalid card number | hard | dunning, ask for new card |
| 41 / 43 | lost / stolen card | hard, never retry | dunning, ask for new card |
| 51 | insufficient funds | soft | dunning (no automatic retry) |
| 54 | expired card | hard | card updater, then dunning |
| 61 | exceeds withdrawal limit | soft | dunning |
| 91 | issuer unavailable | soft, retryable | retried after 1 and 3 days |
| 96 | system malfunction | soft, retryable | retried after 1 and 3 days |

Mastercard merchant advice codes `03` and `21` override everything: never retry.

Classifier: `services/payments/internal/retry/classify.go`. Owner [[Dana Okafor]]. Old ticket
PAY-1024 (2025) added 61; unrelated to the February changes.
""")

N("reference/Money formatting.md", """
---
date: 2026-05-13
description: How amounts are represented and formatted across Fernhill - minor units, currency exponents, the shared money package and its versions.
tags: [reference, portal, payments]
---
# Money formatting

- Storage: integer minor units plus ISO 4217 currency, everywhere (payments, ledger, invoices).
- API: every money object carries `exponent` since 2026-05-12.
- Clients: `@fernhill/money`.

| version | what |
|---|---|
| 1.8.3 | table of exponents built in; correct for JPY/KRW/BHD; the version Portal Next pinned in May |
| 1.8.4 | adds ISK and UYI fixes |
| 1.9.0 | reads `exponent` from the API object, table only as fallback |

Rules: never divide by 100; never keep a local helper; sorting and sums on minor units, formatting at
the edge.

See [[Decision - Currency exponent comes from the API]] and [[Portal Next]].
""")

N("reference/releases/invoice-indexer 1.18.4.md", """
---
date: 2026-04-23
description: Release notes for invoice-indexer 1.18.4, the fix for the refresh interval left disabled after backfill.
tags: [release, search]
project: Invoice Search Migration
version: 1.18.4
---
# invoice-indexer 1.18.4

## Changes
- Backfill restores `index.refresh_interval` on the concrete index name, not the alias (SRCH-91)
- `reindex` refuses to report success while the target's refresh interval is `-1`
- Logs the target index settings at start and end of a backfill

Previous: [[invoice-indexer 1.18.3]]. Incident: [[2026-04-22 New invoices missing from search after cutover]].
""")

N("reference/releases/payments v3.12.0.md", """
---
date: 2026-02-26
description: Release notes for payments v3.12.0 - retry config changes for soft declines, classifier updates and dunning hooks.
tags: [release, payments]
project: Smart Retries
version: v3.12.0
---
# payments v3.12.0

## Changes
- retry: `payments.retry.soft_declines.enabled` (default false) and `payments.retry.retryable_codes`
  (PAY-1042)
- retry: `payments.retry.network_cap_30d`, enforced in the scheduler
- classify: `05` moved to hard (hotfix `c41d9e2` from 2026-02-10 folded in)
- dunning: hooks for the reminder sequence, disabled until PAY-1057 ships
- refunds: fix rounding for three-decimal currencies (`a3f1c29`)

Deployed 2026-02-26 with `shipit deploy payments --version v3.12.0 --canary 10`.
""")

N("reference/OpenSearch cluster notes.md", """
---
date: 2026-04-28
description: Operating notes for the managed OpenSearch domain behind invoice search - sizing, snapshots, index naming, dashboards.
tags: [reference, search]
project: Invoice Search Migration
---
# OpenSearch cluster notes

Domain `invoices-prod`, OpenSearch 2.11, eu-west-1.

- 3 × r6g.xlarge data nodes, 3 dedicated masters, 2 replicas per shard for the live index.
- Indices are versioned: `invoices-v7`, `invoices-v8`. Aliases: `invoices-read`, `invoices-write`.
  Never point code at an index name directly.
- Automated snapshots hourly to S3, kept 14 days.
- `index.number_of_replicas` is 2 on the live index and 0 during a backfill.
- Slow log at 500 ms; the portal's fuzzy name search is the usual suspect (SRCH-19).
- Synthetic check since the cutover: a test invoice created every 5 minutes must be searchable
  within 30 s.

Owner [[Mei Lin Zhou]]; runbook [[Runbook - Invoice search reindex]].
""")

N("reference/Kubernetes base chart.md", """
---
date: 2026-02-09
description: What the shared Helm base chart gives every service on EKS - DNS settings, probes, disruption budgets, resource defaults.
tags: [reference, platform, kubernetes]
project: EKS Migration
---
# Kubernetes base chart

Every service chart depends on `infra/charts/base`. It sets:

- `dnsConfig.options`: `ndots: "2"`, `single-request-reopen`; pods use the node-local DNS cache.
- readiness and liveness probes on `/healthz` and `/readyz`, 10 s period.
- a PodDisruptionBudget with `maxUnavailable: 1`.
- `resources.requests` from the service values, no CPU limits (we throttled payments with them in
  staging).
- topology spread across three zones.

Overrides of `dnsConfig` are rejected by a policy since February.

Project [[EKS Migration]]; deploys [[Runbook - EKS deploys]].
""")

N("work/active/Second Acquirer.md", """
---
date: 2026-05-21
description: Early project note for routing card payments through a second acquirer in H2 2026, so one acquirer can't stop our revenue.
tags: [work-note, project, payments]
status: active
quarter: Q3-2026
project: Second Acquirer
---
# Second Acquirer

H2 project, I lead it. Sponsor [[Priya Raman]]; [[Dana Okafor]] builds the routing.

## Why
In February one letter from Corridor Payments made clear that a single acquirer is a single point of
failure for revenue. Today every EUR and GBP card goes through them.

## First thoughts
- Routing by BIN and currency, with failover when the primary declines with a technical code.
- Ledger needs to know which acquirer settled what (new posting accounts).
- Idempotency keys are per acquirer; a failover must not double charge.

- [ ] Shortlist acquirers with Aoife
- [ ] Decision record on routing approach

Background: [[2026-02-12 payments acquirer warning thread]].
""")

N("thinking/Second acquirer routing sketch.md", """
---
date: 2026-05-24
description: Rough sketch of how payments could route charges between two acquirers and fail over safely.
tags: [thinking, draft, payments]
status: draft
project: Second Acquirer
---
# Second acquirer routing sketch

Weekend scribbles.

```
charge(invoice) -> router.pick(bin, currency, merchant) -> acquirer A
   on technical failure (timeout, 96) -> acquirer B, same idempotency key namespace? NO:
   keys are per acquirer; we need our own dedupe before failover.
```

- Our side must record "attempt sent to A, outcome unknown" before trying B, or a timeout at A
  plus a success at B is a double charge.
- Network retry caps count per card and merchant, not per acquirer. The 15-in-30 cap in
  `payments.retry.network_cap_30d` must count both.
- Ledger: one clearing account per acquirer.

For [[Second Acquirer]].
""")

N("thinking/The case for CDC in the ledger sync.md", """
---
date: 2026-05-26
description: Draft arguing that the ledger warehouse sync should move to change data capture from the replication log, against the polling loop.
tags: [thinking, draft, ledger]
status: draft
project: Ledger v2
---
# The case for CDC in the ledger sync

Luis's position: the polling loop failed once and we understand why. Mine, for the July decision:

- The loop is correct now only because of the snapshot horizon trick. Every future change to it has
  to re-derive why it's safe. The replication log is in commit order by construction.
- Latency: the loop polls every second and holds back behind any long transaction. CDC streams.
- Load: the loop reads from the primary; CDC reads the WAL via a slot.

Against:
- Replication slots that fall behind fill the primary's disk. That's a new failure mode.
- Debezium is another system to run; [[Femi Adebayo]] is already stretched.
- Schema changes (partitions in v2.5!) interact with logical replication.

Honest view: do partitions first, CDC spike in June, decide in July, as agreed at
[[2026-05-20 Ledger v2.5 planning]].
""")

N("thinking/What makes a good incident commander.md", """
---
date: 2026-04-26
description: Reflection on incident command after being IC and debugger at once during the search cutover.
tags: [thinking]
---
# What makes a good incident commander

After 2026-04-22 I wrote down what the ICs I admire do.

- **Tomasz** never debugs during an incident he commands. He asks "what do we know, what are we
  trying next, who's doing it, when do we check back".
- He writes the timeline as it happens, in the channel.
- He decides on communication early: status page, support, merchants.
- He hands off after three hours, even when it's going well.

What I did instead: read index settings for an hour while nobody updated support. The fix came from
Mei Lin while I was busy.

Rule for myself: when I open a terminal, I hand over IC. Practise with [[Mei Lin Zhou]]'s IC
training.
""")

N("work/1-1/Tomasz Nowak 2026-05-08.md", """
---
date: 2026-05-08
description: 1:1 with Tomasz about the on-call rotation, incident commander training for Mei Lin and detection alerts.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Tomasz — 2026-05-08

With [[Tomasz Nowak]]

- IC training: he'll run a tabletop with Mei Lin and Ravi in June, using the search cutover as the
  scenario.
- Rotation: he agrees mine is too heavy; new rotation from June with secondary = last week's primary.
- Detection: 15-minute ledger reconciliation is live since 2026-04-02. Webhooks queue-age alert
  threshold down from 15 to 10 minutes.
- He wants every runbook to start with "how do I know it's this".
""")

N("work/1-1/Hannah Berg 2026-04-14.md", """
---
date: 2026-04-14
description: 1:1 with Hannah about the yearly PCI scope review, webhook secret storage and the portal's security headers.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Hannah — 2026-04-14

With [[Hannah Berg]]

- PCI scope review in May: payments and ledger in scope; webhooks out of scope because payloads never
  carry card data. She wants a test that fails if a card number pattern appears in a webhook body.
- Secret store migration for webhook secrets finished; the Postgres column is dropped.
- Portal Next CSP headers: done, one report-only violation from the help widget.
- She asked me to stop pasting request logs into Slack during incidents.
""")

N("work/1-1/Keiko Tanaka 2026-04-28.md", """
---
date: 2026-04-28
description: 1:1 with Keiko about how support hears about migrations and incidents, and the beta feedback form.
tags: [work-note, 1-1]
status: completed
quarter: Q2-2026
---
# 1:1 with Keiko — 2026-04-28

With [[Keiko Tanaka]]

- After the search cutover she wants: a day's notice for migrations, an invite to incident
  channels, and a single person to ask. All three agreed; the release process note has the first.
- Her team's top merchant complaints this month: search delays (fixed), dunning emails in the wrong
  language for Swiss merchants (locale bug), and Portal Next missing bulk actions.
- Beta feedback form goes into the help widget next week.
""")

N("work/1-1/Marco Bellini 2026-03-13.md", """
---
date: 2026-03-13
description: 1:1 with Marco about handing Portal Next code reviews to his team and the payments APIs the portal needs.
tags: [work-note, 1-1]
status: completed
quarter: Q1-2026
---
# 1:1 with Marco — 2026-03-13

With [[Marco Bellini]]

- I'm stepping back from reviewing portal PRs (Priya's request). He'll have Jun review money-related
  changes instead. I stay on call for API questions.
- APIs the portal needs by April: invoice list with server-side filters, payout summaries. The
  payout one slips to May.
- He asked about money formatting: use `@fernhill/money` everywhere. He said the lint rule covers
  it. (It didn't, quite.)
""")

N("work/meetings/2026-04-20 Portal Next beta kickoff.md", """
---
date: 2026-04-20
description: Kickoff of the Portal Next beta with 200 merchant accounts - cohort, support plan and success measures.
tags: [meeting, portal]
project: Portal Next
---
# 2026-04-20 Portal Next beta kickoff

[[Marco Bellini]], [[Aoife Brennan]], [[Keiko Tanaka]], me.

- Cohort: 200 accounts, 14 currencies, including JPY and KRW merchants on purpose. (Good call by
  Aoife; it's how we found the May bug quickly.)
- Success: weekly active use above 70%, invoice page p75 under 2 s, fewer than 10 beta tickets a week.
- Support: Keiko's team gets a beta tag in the ticket tool.
- Flag on at 12:00 today with the [[Runbook - Portal Next rollout]].
""")

N("work/meetings/2026-02-26 Webhooks rollout plan.md", """
---
date: 2026-02-26
description: Planning the staged rollout of the Webhooks v2 dispatcher from 10% of merchants to all of them.
tags: [meeting, webhooks]
project: Webhooks v2
---
# 2026-02-26 Webhooks rollout plan

[[Ravi Kulkarni]], [[Tomasz Nowak]], me.

| date | share of merchants | gate |
|---|---|---|
| 2026-03-02 | 10% | delivery success ≥ v1, no duplicate deliveries |
| 2026-03-16 | 50% | p99 delivery latency < 2 s |
| 2026-03-30 | 100% | then delete the v1 cron |

- Rollback: flip merchants back to v1 by flag; v1 cron keeps running until 100%.
- Tomasz wanted a queue-age alert before 50%. Added: oldest undelivered event > 15 minutes.
- Ravi raised his slow-endpoint failure mode again. We agreed it matters more at 100% and then, as
  usual, didn't do anything about it.
""")

N("work/archive/2025/Ledger v1 shutdown plan.md", """
---
date: 2025-12-08
description: Archived plan for shutting down the v1 ledger tables once Ledger v2 is the only writer.
tags: [work-note, project, archive]
status: archived
---
# Ledger v1 shutdown plan

- Dual-run v1 and v2 until end of February 2026.
- Stop v1 writes 2026-03-01; keep tables read-only.
- Delete after every reader has moved. Known readers: the finance refund export (support uses it),
  two old dashboards.

Status in May 2026: writes stopped on schedule, deletion waits for the refund export replacement.
See [[Ledger v2]].
""")

N("journal/2026-03-05.md", """
---
date: 2026-03-05
description: Daily note - payments retro.
tags: [daily]
---
# 2026-03-05

Payments retro. I volunteered to write the postmortem guide. Priya smiled; she'd asked me last week.

- [ ] postmortem guide: who writes it, by when, what's in it, review
- [x] send Keiko the incident channel invite rule
""")

N("journal/2026-05-13.md", """
---
date: 2026-05-13
description: Daily note - per-endpoint webhook limit fully rolled out.
tags: [daily]
---
# 2026-05-13

Per-endpoint limit at 100%. Ravi's load test numbers made the rollout call easy.

- [x] update the backlog runbook's "who is it" section
- [ ] H1 incident summary for Priya, still
""")

N("journal/2026-02-02.md", """
---
date: 2026-02-02
description: Daily note - webhook signing review.
tags: [daily]
---
# 2026-02-02

Signing review with Hannah and Ravi. Two active secrets during rotation. Ravi found the header
logging issue himself, good.

- [x] draft the signing decision record
""")

N("reference/H1 2026 incident summary.md", """
---
date: 2026-05-28
description: One-page summary of every incident in the first half of 2026, with severity, detection, duration and what changed afterwards.
tags: [reference, incident]
---
# H1 2026 incident summary

For [[Priya Raman]]'s H1 review with Jonas.

| date | what | severity | found by | duration | what changed |
|---|---|---|---|---|---|
| 2026-01-27 | DNS latency after payments moved to EKS | medium | alert | 2.5 h | ndots 2, node-local DNS cache |
| 2026-02-10 | retry storm on an issuer outage | high | support | 7 h | no auto-retry for soft declines, dunning |
| 2026-03-12 | ledger sync skipped postings | high | reconciliation | 5.5 h | cursor fix, 15-min recon, month-end freeze |
| 2026-04-22 | new invoices unsearchable after cutover | medium | support | 4.5 h | indexer fix, synthetic search check |
| 2026-04-29 | webhook backlog from one slow endpoint | high | alert | 3 h | per-endpoint limit, 10 s timeout |
| 2026-05-06 | yen amounts /100 in the portal beta | medium | support | 3 h | exponent in the API |
| 2026-05-14 | sandbox certificate expired | low | merchants | 50 min | all certs via cert-manager |

Patterns: support found three of seven first. Two were "a setting or value we forgot to undo or
assumed" (refresh interval, two decimals).

Postmortems: [[2026-01-27 DNS timeouts after moving payments to EKS]],
[[2026-02-10 Retry storm on issuer outage]],
[[2026-03-12 Stale balances after ledger sync skipped entries]],
[[2026-04-22 New invoices missing from search after cutover]],
[[2026-04-29 Webhook deliveries delayed by one slow endpoint]],
[[2026-05-06 Portal Next showed JPY amounts divided by 100]],
[[2026-05-14 Sandbox TLS certificate expired]].
""")

N("work/slack/2026-01-21 ledger design review follow-up thread.md", """
---
date: 2026-01-21
description: #ledger thread after the Ledger v2 design review about the reconciliation job and sync batch sizes.
tags: [slack, ledger]
project: Ledger v2
---
# #ledger: after the design review (2026-01-21)

- [[Luis Ferreira]]: reconciliation job will compare per-account balances between the ledger and the
  warehouse every hour and fire `ledger_recon_drift` on any difference.
- [[Mei Lin Zhou]]: warehouse side can take 500 postings per batch comfortably; 2,000 for replays.
- Me: is there a case where a posting with a lower id commits after the cursor passed it? Luis:
  "rows are only visible when committed, and we read in id order". Thread moved on.
""")

N("reference/Reading - Head-of-line blocking in worker pools.md", """
---
date: 2026-05-02
description: Reading notes on head-of-line blocking in shared worker pools and the usual fixes - bulkheads, per-key limits, fair queues.
tags: [reading, webhooks]
---
# Reading - Head-of-line blocking in worker pools

- A shared pool where one key's work is slow lets that key occupy the whole pool: the other keys wait
  behind it even though their own work is fast.
- **Bulkheads**: partition the pool so one partition's failure can't drain the others.
- **Per-key concurrency limits**: cheap, keeps one pool; needs care to preserve per-key order.
- **Fair queuing** (a queue per key, round-robin or weighted): best isolation, more moving parts.
- Timeouts reduce the damage but don't remove it: N workers / timeout still bounds how much of the
  pool one key can burn.

Applied in [[Decision - Per-endpoint concurrency limit for webhook delivery]].
""")


# ==============================================================================================
# Queries and judgments
#
# Judgments name notes by file stem (unique in this vault). 2 = answers the query; 1 = clearly
# useful related note. Memories, templates and agent manuals are never judged. For identifier
# queries `ident` must occur verbatim (as a whole token) in every judged note, and `like` lists
# lookalike identifiers that must exist elsewhere in the corpus.
# ==============================================================================================

QUERIES = []


def Q(category, text, rel, ident=None, like=()):
    QUERIES.append({"category": category, "text": text, "rel": rel, "ident": ident, "like": list(like)})


# Short names for notes judged often
ADR_SD = "Decision - Stop automatic retries for soft declines"
ADR_AO = "Decision - Ledger is append-only with reversal entries"
ADR_FRZ = "Decision - No ledger deploys during month-end close"
ADR_OS = "Decision - Move invoice search to OpenSearch"
ADR_DW = "Decision - Cut over invoice search with dual writes"
ADR_PE = "Decision - Per-endpoint concurrency limit for webhook delivery"
ADR_SIG = "Decision - Sign webhooks with two active secrets"
ADR_EKS = "Decision - Migrate services from ECS to EKS"
ADR_DNS = "Decision - Run NodeLocal DNSCache on every node"
ADR_SSR = "Decision - Render invoice pages on the server"
ADR_EXP = "Decision - Currency exponent comes from the API"
INC_RS = "2026-02-10 Retry storm on issuer outage"
INC_L = "2026-03-12 Stale balances after ledger sync skipped entries"
INC_S = "2026-04-22 New invoices missing from search after cutover"
INC_W = "2026-04-29 Webhook deliveries delayed by one slow endpoint"
INC_D = "2026-01-27 DNS timeouts after moving payments to EKS"
INC_P = "2026-05-06 Portal Next showed JPY amounts divided by 100"
INC_TLS = "2026-05-14 Sandbox TLS certificate expired"
TH_KR = "The case for keeping smart retries"
TH_FRZ = "Deploy freezes make us worse at deploying"
TH_PG = "Postgres full-text search is probably enough"
TH_TO = "Just lower the webhook timeout"
TH_ECS = "Maybe we should stay on ECS"
TH_OLD = "Why not just fix the old portal"
TH_CDC = "The case for CDC in the ledger sync"
MTG_SRR = "2026-02-19 Smart Retries review"
MTG_DRR = "2026-04-08 Dunning results review"
MTG_LDR = "2026-01-21 Ledger v2 design review"
MTG_LIR = "2026-03-16 Ledger incident review"
MTG_LRR = "2026-03-10 Ledger release readiness"
MTG_L25 = "2026-05-20 Ledger v2.5 planning"
MTG_SK = "2026-02-11 Invoice search migration kickoff"
MTG_SCR = "2026-04-24 Search cutover retro"
MTG_WIR = "2026-05-04 Webhook incident review"
MTG_SIG = "2026-02-02 Webhook signing review"
MTG_WRC = "2026-05-13 Webhook per-endpoint rollout check"
MTG_WRP = "2026-02-26 Webhooks rollout plan"
MTG_ES = "2026-01-29 EKS migration sync"
MTG_EST = "2026-03-25 EKS migration status"
MTG_PAR = "2026-02-16 Portal Next architecture review"
MTG_PBR = "2026-05-11 Portal beta review"
MTG_PBK = "2026-04-20 Portal Next beta kickoff"
RB_PR = "Runbook - Payment retries"
RB_LS = "Runbook - Ledger sync"
RB_SR = "Runbook - Invoice search reindex"
RB_WB = "Runbook - Webhook backlog"
RB_EKS = "Runbook - EKS deploys"
RB_PN = "Runbook - Portal Next rollout"
CFG = "Payments retry config reference"
INT = "Ledger sync internals"
SIGREF = "Webhook signing reference"
DCS = "Decline codes cheat sheet"
OSN = "OpenSearch cluster notes"
BASE = "Kubernetes base chart"
MONEY = "Money formatting"
PM = "How we run postmortems"
ONCALL = "On-call handbook"
H1 = "H1 2026 incident summary"
R247, R248, R2417 = "Ledger v2.4.7", "Ledger v2.4.8", "Ledger v2.4.17"
R1183, R1184, RP312 = "invoice-indexer 1.18.3", "invoice-indexer 1.18.4", "payments v3.12.0"
SL_RS = "2026-02-10 inc-retry-storm summary"
SL_ACQ = "2026-02-12 payments acquirer warning thread"
SL_SDR = "2026-02-24 payments soft decline rollout thread"
SL_DUN = "2026-03-03 payments dunning email copy thread"
SL_DL = "2026-03-09 payments dunning launch thread"
SL_LR = "2026-03-12 ledger rollback thread"
SL_LFR = "2026-03-18 ledger fix release thread"
SL_LDF = "2026-01-21 ledger design review follow-up thread"
SL_LRel = "2026-05-19 ledger release thread"
SL_PLM = "2026-03-26 platform ledger move thread"
SL_DW = "2026-04-14 search dual-write launch thread"
SL_SUP = "2026-04-22 support missing invoices thread"
SL_WB = "2026-04-29 inc-webhook-backlog summary"
SL_WPE = "2026-05-05 webhooks per-endpoint design thread"
SL_DNS = "2026-01-27 inc-dns-timeouts summary"
SL_YEN = "2026-05-06 portal-beta yen thread"
SL_API = "2026-05-12 api currency exponent thread"
SL_SEC = "2026-02-02 security secret rotation thread"
ALLHANDS = "2026-03-31 Engineering all-hands"
GUILD = "2026-05-27 Architecture guild"
IDEM = "Payments idempotency keys"

# ---------------------------------------------------------------------------------------------
# question: natural questions, mostly without the notes' words
# ---------------------------------------------------------------------------------------------

Q("question", "why did we stop retrying card declines automatically?",
  {ADR_SD: 2, MTG_SRR: 1, INC_RS: 1, "Key Decisions": 1, SL_ACQ: 1, TH_KR: 1, "2026-02-24": 1,
   "Aoife Brennan": 1, "Dana Okafor 2026-02-13": 1, "Smart Retries": 1,
    "Reading - Card network retry rules": 1})
Q("question", "what went wrong with card charges the afternoon an issuing bank fell over in February?",
  {INC_RS: 2, SL_RS: 2, "2026-W07": 1, "2026-02-10": 1, H1: 1, "2026-03-05 Payments team retro": 1})
Q("question", "how do I halt all charge re-attempts right now without losing what's queued?",
  {RB_PR: 2, INC_RS: 1, SL_RS: 1, CFG: 1, "Patterns": 1})
Q("question", "how much recovered revenue did we give up by moving to reminder emails?",
  {MTG_DRR: 2, "2026-W15": 2, "Priya Raman 2026-04-09": 2, "Dana Okafor 2026-03-27": 1, ADR_SD: 1,
   TH_KR: 1})
Q("question", "which bank response codes do we still try again on our own?",
  {ADR_SD: 2, DCS: 2, CFG: 2, SL_SDR: 2, RB_PR: 1, RP312: 1})
Q("question", "what was the card processor unhappy about in their formal letter, and what did they want from us?",
  {SL_ACQ: 2, MTG_SRR: 1, INC_RS: 1, ADR_SD: 1, "2026-W07": 1, "Reading - Card network retry rules": 1})
Q("question", "how many reminder emails does a customer get after a failed renewal, and when?",
  {SL_DUN: 2, CFG: 2, SL_DL: 1, "Smart Retries": 1})
Q("question", "why didn't the February re-attempt flood capture anyone's money twice?",
  {IDEM: 2, GUILD: 2, INC_RS: 1, SL_RS: 1, "Reading - Idempotency keys in payment APIs": 1})
Q("question", "how many times are we allowed to re-attempt the same card in a month under network rules?",
  {"Reading - Card network retry rules": 2, ADR_SD: 2, CFG: 2, TH_KR: 1,
   "2026-03-05 Payments team retro": 1, "Second acquirer routing sketch": 1})
Q("question", "why does a do-not-honor response count as final for us now?",
  {INC_RS: 2, "Reading - Card network retry rules": 2, DCS: 1, SL_RS: 1, RP312: 1})
Q("question", "why were finance's balances wrong for an afternoon in March?",
  {INC_L: 2, SL_LR: 2, "2026-W11": 2, MTG_LIR: 1, "2026-03-12": 1, H1: 1, "Ledger v2": 1})
Q("question", "how do I push postings into the warehouse again after the sync missed some?",
  {RB_LS: 2, INC_L: 1, INT: 1})
Q("question", "how does the warehouse copy avoid skipping rows from long-running transactions now?",
  {INT: 2, R248: 2, MTG_LIR: 2, SL_LFR: 1, "Luis Ferreira 2026-03-19": 1, "Gotchas": 1, INC_L: 1})
Q("question", "why can't I just correct a wrong amount in a posting row?",
  {ADR_AO: 2, "Glossary": 1, "Ledger v2": 1})
Q("question", "what's coming in the next major ledger release?",
  {MTG_L25: 2, "Ledger v2": 2, R2417: 1, "2026-W21": 1, "Luis Ferreira 2026-05-22": 1, TH_CDC: 1,
    SL_LRel: 1})
Q("question", "why did it take hours to notice the ledger and warehouse disagreed?",
  {MTG_LIR: 2, INC_L: 1, "Jonas Eklund 2026-03-30": 1, H1: 1, SL_LDF: 1, TH_FRZ: 1})
Q("question", "did anyone see the ledger cursor problem coming before it shipped?",
  {MTG_LDR: 2, SL_LDF: 2, MTG_LIR: 2, "Luis Ferreira 2026-03-19": 1, "2026-W04": 1, MTG_LRR: 1,
    "2026-W12": 1})
Q("question", "what's the argument for reading the ledger changes from the database's replication log instead of polling?",
  {TH_CDC: 2, "Reading - DDIA chapter 11 notes": 2, MTG_L25: 1, INT: 1, "Luis Ferreira 2026-05-22": 1})
Q("question", "is it safe to page through a table by increasing id while other transactions are still writing?",
  {"Gotchas": 2, INT: 2, "Reading - DDIA chapter 11 notes": 2, INC_L: 2, MTG_LDR: 1, SL_LDF: 1})
Q("question", "why couldn't merchants find invoices they had just created after we switched search clusters?",
  {INC_S: 2, "2026-W17": 2, R1183: 2, SL_SUP: 1, MTG_SCR: 1, "2026-04-22": 1, R1184: 1, "Gotchas": 1,
    "Invoice Search Migration": 1, ADR_DW: 1})
Q("question", "why did we go with a hosted search service instead of upgrading our own cluster?",
  {ADR_OS: 2, "Invoice Search Migration": 1, TH_PG: 1})
Q("question", "couldn't we have used the main database's text search instead of a separate search engine?",
  {TH_PG: 2, ADR_OS: 2})
Q("question", "before pointing reads at a freshly loaded search index, what should I double-check?",
  {RB_SR: 2, "Gotchas": 2, INC_S: 1, MTG_SCR: 1, OSN: 1, R1184: 1, ADR_DW: 1})
Q("question", "how did we move invoice search to the new cluster without any downtime?",
  {ADR_DW: 2, "Invoice Search Migration": 2, MTG_SK: 1, SL_DW: 1, "Patterns": 1, RB_SR: 1})
Q("question", "how big is the new invoice search cluster?",
  {OSN: 2, SL_DW: 2, ADR_OS: 1})
Q("question", "why were everyone's event notifications hours late at the end of April?",
  {INC_W: 2, SL_WB: 2, "2026-W18": 2, MTG_WIR: 1, "2026-04-29": 1, H1: 1, ADR_PE: 1})
Q("question", "how can a merchant change the key we sign their payloads with without missing any events?",
  {ADR_SIG: 2, SIGREF: 2, MTG_SIG: 1, SL_SEC: 1, "Key Decisions": 1})
Q("question", "how does a merchant check that a notification really came from us?",
  {SIGREF: 2, ADR_SIG: 1, MTG_SIG: 1})
Q("question", "why isn't a shorter timeout enough to protect the delivery workers?",
  {TH_TO: 2, MTG_WIR: 2, ADR_PE: 1, "Reading - Head-of-line blocking in worker pools": 1})
Q("question", "how do I resend a merchant's events once their receiving server is healthy again?",
  {RB_WB: 2, INC_W: 1, SL_WB: 1})
Q("question", "did anyone warn that one slow receiver could hog the whole pool before it actually happened?",
  {"Ravi Kulkarni 2026-02-06": 2, "2026-W06": 2, MTG_WRP: 2, "Ravi Kulkarni 2026-04-30": 1, INC_W: 1})
Q("question", "how was the per-merchant delivery cap tested before it went to everyone?",
  {MTG_WRC: 2, "Ravi Kulkarni 2026-05-15": 1, "2026-05-13": 1})
Q("question", "will capping concurrent deliveries per endpoint mess up the order events arrive in?",
  {ADR_PE: 2, SL_WPE: 2, MTG_WRC: 2, TH_TO: 1})
Q("question", "why were some payment requests almost exactly five seconds slower after the move to kubernetes?",
  {INC_D: 2, SL_DNS: 2, "Reading - Kubernetes DNS and ndots": 2, "Gotchas": 2, "2026-W05": 1,
    ADR_DNS: 1})
Q("question", "how much cheaper is compute since leaving ECS?",
  {MTG_EST: 2, "2026-W13": 2, ALLHANDS: 2, "EKS Migration": 1, ADR_EKS: 1})
Q("question", "how do I put a service back to its previous version on the new cluster?",
  {RB_EKS: 2, RB_PN: 1, INC_L: 1})
Q("question", "in what order are the services being moved onto kubernetes?",
  {"EKS Migration": 2, "Service map": 2, MTG_ES: 1, MTG_EST: 1,
    "2026-01-09 eng-announcements EKS kickoff": 1})
Q("question", "why was the ledger's move to the new cluster pushed into April?",
  {SL_PLM: 2, "2026-W13": 2, MTG_EST: 1, MTG_ES: 1, "EKS Migration": 1, "2026-04-07": 1})
Q("question", "what are the arguments against running our own kubernetes?",
  {TH_ECS: 2, ADR_EKS: 1})
Q("question", "why did japanese invoices show tiny amounts in the new portal?",
  {INC_P: 2, SL_YEN: 2, "2026-W19": 2, "2026-05-06": 1, "Gotchas": 1, MONEY: 1, ADR_EXP: 1, MTG_PAR: 1})
Q("question", "how do I take one merchant out of the new portal beta?",
  {RB_PN: 2, "Portal Next": 1, INC_P: 1})
Q("question", "why don't we render the invoice page in the browser any more?",
  {ADR_SSR: 2, MTG_PAR: 1, "Portal Next": 1})
Q("question", "how should a client know how many decimal places a currency has?",
  {ADR_EXP: 2, MONEY: 2, SL_API: 2, "Gotchas": 1, GUILD: 1, INC_P: 1})
Q("question", "why didn't the lint check catch the currency display bug?",
  {INC_P: 2, SL_YEN: 2, MTG_PAR: 1, "Marco Bellini 2026-03-13": 1})
Q("question", "how much faster is the new merchant portal than the old one?",
  {MTG_PBR: 2, ADR_SSR: 2, MTG_PBK: 1})
Q("question", "what are the reasons not to rewrite the merchant portal from scratch?",
  {TH_OLD: 2})
Q("question", "what should I tell support before a migration?",
  {"Release process": 2, "Keiko Tanaka 2026-04-28": 2, "Priya Raman 2026-04-23": 1, MTG_SCR: 1,
    SL_SUP: 1, "Keiko Tanaka": 1})
Q("question", "how serious is an outage that only affects the test environment?",
  {ONCALL: 2, INC_TLS: 1})
Q("question", "how soon after an outage is the write-up due?",
  {PM: 2})
Q("question", "who should own writing up an outage?",
  {PM: 2, ONCALL: 1})
Q("question", "which outages this year did customers spot before our alerts did?",
  {H1: 2, ALLHANDS: 1, MTG_SCR: 1, "2026-03-05 Payments team retro": 1, "Keiko Tanaka": 2, INC_RS: 1})
Q("question", "what traps have we fallen into more than once?",
  {"Gotchas": 2, H1: 1, "Ideas for the team offsite": 1})
Q("question", "what pooling mode do the payments and ledger databases use?",
  {"Postgres connection pooling notes": 2})
Q("question", "what does dunning mean?",
  {"Glossary": 2, "Smart Retries": 1})
Q("question", "how do we make sure the same charge request never goes through twice?",
  {IDEM: 2, "Reading - Idempotency keys in payment APIs": 2, GUILD: 1, "Glossary": 1,
    "Second acquirer routing sketch": 1})
Q("question", "what's the plan so a single card processor can't cut off our revenue?",
  {"Second Acquirer": 2, "Second acquirer routing sketch": 1, "Priya Raman 2026-05-21": 1,
    "Priya Raman 2026-02-11": 1, "2026-01-07 Q1 planning": 1})
Q("question", "if a charge times out at one processor and we retry it at another, how do we avoid charging twice?",
  {"Second acquirer routing sketch": 2, "Second Acquirer": 1, IDEM: 1})
Q("question", "what does every service get from the shared helm chart?",
  {BASE: 2, RB_EKS: 1, ADR_DNS: 1})
Q("question", "why don't our pods have CPU limits?",
  {BASE: 2})
Q("question", "what happens at the weekly on-call handover?",
  {ONCALL: 2})
Q("question", "how do I build the ledger service without waiting a quarter of an hour?",
  {"Laptop setup": 2, R2417: 1})
Q("question", "what did finance want from the reversal report in May?",
  {R2417: 2, SL_LRel: 2, "Ledger v2": 1, "2026-W21": 1})
Q("question", "what should an incident commander avoid doing?",
  {"What makes a good incident commander": 2, "Priya Raman 2026-04-23": 2, MTG_SCR: 1, "2026-04-22": 1})
Q("question", "which services are still running on ECS?",
  {"Service map": 2, "EKS Migration": 2, MTG_EST: 1})
Q("question", "for how long do we keep retrying a failed webhook delivery?",
  {"Webhooks v2": 2})
Q("question", "what does the signature header on our outgoing events look like?",
  {SIGREF: 2, ADR_SIG: 1, MTG_SIG: 1})
Q("question", "are outgoing webhooks in PCI scope?",
  {"Hannah Berg 2026-04-14": 2, "Hannah Berg": 1})

# ---------------------------------------------------------------------------------------------
# identifier: versions, keys, paths, flags, hashes, tickets, env vars
# ---------------------------------------------------------------------------------------------

Q("identifier", "v2.4.7",
  {R247: 2, INC_L: 2, RB_LS: 1, "Ledger v2": 1, MTG_LIR: 1, R248: 1, SL_LR: 1, MTG_LRR: 1,
   "2026-W11": 1, "Luis Ferreira 2026-03-19": 1, "Luis Ferreira": 1, "Memories": 1},
  ident="v2.4.7", like=["v2.4.17", "v2.4.6", "v2.4.8"])
Q("identifier", "is it safe to deploy ledger v2.4.7 again?",
  {RB_LS: 2, R247: 2, MTG_LIR: 2, INC_L: 1, "Ledger v2": 1, R248: 1, "2026-W11": 1, "Memories": 1},
  ident="v2.4.7", like=["v2.4.17"])
Q("identifier", "what changed in v2.4.17",
  {R2417: 2, SL_LRel: 2, "2026-W21": 1, "Ledger v2": 1, "Luis Ferreira 2026-03-19": 1},
  ident="v2.4.17", like=["v2.4.7"])
Q("identifier", "payments.retry.max_attempts",
  {CFG: 2, ADR_SD: 2, "Smart Retries": 2, INC_RS: 1, "Gotchas": 1, "Ravi Kulkarni": 1},
  ident="payments.retry.max_attempts", like=["payments.dunning.max_attempts"])
Q("identifier", "what was payments.retry.max_attempts set to before the retry storm",
  {"Smart Retries": 2, CFG: 2, INC_RS: 2, ADR_SD: 1},
  ident="payments.retry.max_attempts", like=["payments.dunning.max_attempts"])
Q("identifier", "payments.dunning.max_attempts",
  {CFG: 2, "Smart Retries": 2, SL_DL: 2, "Gotchas": 1, "Ravi Kulkarni": 1},
  ident="payments.dunning.max_attempts", like=["payments.retry.max_attempts"])
Q("identifier", "payments.retry.soft_declines.enabled",
  {ADR_SD: 2, CFG: 2, "Smart Retries": 2, RP312: 1},
  ident="payments.retry.soft_declines.enabled", like=["payments.retry.retryable_codes"])
Q("identifier", "PAYMENTS_RETRY_SCHEDULER_ENABLED",
  {RB_PR: 2, INC_RS: 2, SL_RS: 1, CFG: 1, "Patterns": 1},
  ident="PAYMENTS_RETRY_SCHEDULER_ENABLED", like=["PAYMENTS_RETRY_MAX_ATTEMPTS"])
Q("identifier", "PAY-1042",
  {ADR_SD: 2, SL_SDR: 2, "Smart Retries": 1, CFG: 1, RP312: 1, MTG_DRR: 1, RB_PR: 1, "2026-W09": 1},
  ident="PAY-1042", like=["PAY-1024", "PAY-1045"])
Q("identifier", "is PAY-1045 still planned?",
  {"2026-04-02 Q2 planning": 2, "Smart Retries": 2, ADR_SD: 1, INC_RS: 1, TH_KR: 1},
  ident="PAY-1045", like=["PAY-1042"])
Q("identifier", "services/ledger/src/sync.rs",
  {INC_L: 2, INT: 2, RB_LS: 1, "Ledger v2": 1},
  ident="services/ledger/src/sync.rs", like=["services/ledger/src/posting.rs"])
Q("identifier", "a3f9c21",
  {INC_L: 2, R247: 2, MTG_LRR: 1},
  ident="a3f9c21", like=["a3f1c29"])
Q("identifier", "7be0d44",
  {R248: 2, INC_L: 1, MTG_LIR: 1},
  ident="7be0d44", like=["7bd0e44"])
Q("identifier", "e81c0f2",
  {ADR_PE: 2, MTG_WRC: 2, "Webhooks v2": 1, "2026-W20": 1},
  ident="e81c0f2", like=["e81f0c2"])
Q("identifier", "webhooks.delivery.max_inflight",
  {"Webhooks v2": 2, INC_W: 2, ADR_PE: 2, RB_WB: 1},
  ident="webhooks.delivery.max_inflight", like=["webhooks.replay.max_inflight"])
Q("identifier", "--max-inflight default for replays",
  {RB_WB: 2, INC_W: 1, SL_WB: 1, "Patterns": 1},
  ident="--max-inflight", like=["--max-per-minute", "--max-surge"])
Q("identifier", "WEBHOOK_SIGNING_SECRET_PREVIOUS",
  {SIGREF: 2, ADR_SIG: 2, MTG_SIG: 1},
  ident="WEBHOOK_SIGNING_SECRET_PREVIOUS", like=["WEBHOOK_SIGNING_SECRET"])
Q("identifier", "WEBHOOK_SIGNING_SECRET",
  {SIGREF: 2, ADR_SIG: 2},
  ident="WEBHOOK_SIGNING_SECRET", like=["WEBHOOK_SIGNING_SECRET_PREVIOUS"])
Q("identifier", "HOOK-311",
  {ADR_PE: 2, INC_W: 2, "Webhooks v2": 1, RB_WB: 1},
  ident="HOOK-311", like=["HOOK-318", "HOOK-302"])
Q("identifier", "HOOK-325",
  {"Webhooks v2": 2, INC_W: 1, RB_WB: 1},
  ident="HOOK-325", like=["HOOK-330", "HOOK-318"])
Q("identifier", "infra/k8s/base/coredns-nodelocal.yaml",
  {INC_D: 2, ADR_DNS: 2},
  ident="infra/k8s/base/coredns-nodelocal.yaml", like=["infra/shipit/blocked.yaml"])
Q("identifier", "index.refresh_interval",
  {INC_S: 2, RB_SR: 2, R1184: 2, "Invoice Search Migration": 1, ADR_DW: 1, "Gotchas": 1},
  ident="index.refresh_interval", like=["index.number_of_replicas"])
Q("identifier", "1.18.3",
  {R1183: 2, INC_S: 2, "Invoice Search Migration": 2, ADR_DW: 1, MTG_SK: 1, SL_DW: 1, "2026-W16": 1,
    R1184: 1},
  ident="1.18.3", like=["1.18.4", "1.8.3"])
Q("identifier", "SRCH-91",
  {INC_S: 2, R1184: 2},
  ident="SRCH-91", like=["SRCH-19", "SRCH-80"])
Q("identifier", "search.indexer.bulk_size",
  {"Invoice Search Migration": 2, RB_SR: 2, R1183: 2},
  ident="search.indexer.bulk_size", like=["search.indexer.bulk_timeout_ms"])
Q("identifier", "LED-231",
  {INC_L: 2},
  ident="LED-231", like=["LED-236", "LED-234"])
Q("identifier", "LED-236 status",
  {"Ledger v2": 2, SL_LFR: 2, MTG_LIR: 1, INC_L: 1, TH_FRZ: 1, "Tomasz Nowak": 1},
  ident="LED-236", like=["LED-231", "LED-234"])
Q("identifier", "LEDGER_SYNC_BATCH_SIZE",
  {RB_LS: 2},
  ident="LEDGER_SYNC_BATCH_SIZE", like=["ledger.sync.batch_size"])
Q("identifier", "ledger.sync.batch_size",
  {INT: 2, RB_LS: 2, MTG_LDR: 1},
  ident="ledger.sync.batch_size", like=["LEDGER_SYNC_BATCH_SIZE", "ledger.sync.poll_interval_ms"])
Q("identifier", "portal.next.enabled",
  {RB_PN: 2, "Portal Next": 2, INC_P: 1, MTG_PAR: 1},
  ident="portal.next.enabled", like=["portal.next.bulk_actions"])
Q("identifier", "PORT-512",
  {INC_P: 2, "Portal Next": 1},
  ident="PORT-512", like=["PORT-515", "PORT-530"])
Q("identifier", "apps/portal/src/lib/money.ts",
  {INC_P: 2},
  ident="apps/portal/src/lib/money.ts", like=["apps/portal/src/app/invoices/"])
Q("identifier", "@fernhill/money 1.8.3",
  {MONEY: 2, INC_P: 2, "Portal Next": 1},
  ident="1.8.3", like=["1.18.3", "1.8.4"])
Q("identifier", "shipit --dry-run",
  {RB_EKS: 2, MTG_EST: 1, SL_PLM: 1},
  ident="--dry-run", like=["--skip-canary"])
Q("identifier", "pg_snapshot_xmin",
  {INT: 2, R248: 2},
  ident="pg_snapshot_xmin", like=["pg_current_snapshot"])
Q("identifier", "ledger_recon_drift",
  {RB_LS: 2, INC_L: 2, SL_LR: 1, MTG_LDR: 1, SL_LDF: 1, TH_FRZ: 1},
  ident="ledger_recon_drift", like=["ledger_sync_oldest_inflight_seconds", "ledger_sync_batch_seconds"])

# ---------------------------------------------------------------------------------------------
# decision: what did we decide about X, and why
# ---------------------------------------------------------------------------------------------

Q("decision", "what did we settle on for failed renewals where the bank said to try later?",
  {ADR_SD: 2, "Key Decisions": 1, SL_SDR: 1, MTG_DRR: 1, "Smart Retries": 1})
Q("decision", "did we keep the email-based recovery after looking at the numbers?",
  {MTG_DRR: 2, "Priya Raman 2026-04-09": 1, "2026-W15": 1})
Q("decision", "what did we decide about shipping ledger changes around the close of the books?",
  {ADR_FRZ: 2, "Key Decisions": 1, MTG_LIR: 1, "2026-W12": 1, "Priya Raman 2026-03-25": 1, SL_PLM: 1})
Q("decision", "why is the ledger append only?",
  {ADR_AO: 2, MTG_LDR: 1, "Key Decisions": 1, "Ledger v2": 1})
Q("decision", "why did we choose kubernetes over staying where we were?",
  {ADR_EKS: 2, TH_ECS: 1, "Key Decisions": 1, "EKS Migration": 1})
Q("decision", "what did we decide to do about name resolution on the cluster?",
  {ADR_DNS: 2, INC_D: 1, BASE: 1, MTG_ES: 1, "Key Decisions": 1})
Q("decision", "what was decided about isolating slow webhook receivers?",
  {ADR_PE: 2, MTG_WIR: 2, "Key Decisions": 1, "2026-W19": 1, INC_W: 1})
Q("decision", "what was the decision on how to switch search clusters?",
  {ADR_DW: 2, "Invoice Search Migration": 1, MTG_SK: 1})
Q("decision", "which search backend did we go with, and why?",
  {ADR_OS: 2, "Key Decisions": 1, "Invoice Search Migration": 1})
Q("decision", "what did we decide about having two signing keys live during a rotation?",
  {ADR_SIG: 2, MTG_SIG: 1, SIGREF: 1, "Key Decisions": 1, "2026-02-02": 1})
Q("decision", "what did we change after the yen display bug?",
  {ADR_EXP: 2, MTG_PBR: 2, SL_API: 1, INC_P: 1, "2026-W20": 1, GUILD: 1, "2026-05-06": 1, SL_YEN: 1})
Q("decision", "what did the portal architecture review conclude?",
  {MTG_PAR: 2, ADR_SSR: 2, "2026-W08": 1})
Q("decision", "what came out of the review meeting after the retry storm?",
  {MTG_SRR: 2, ADR_SD: 1, "2026-W08": 1})
Q("decision", "did we settle on a webhook timeout value?",
  {ADR_PE: 2, INC_W: 2, SL_WB: 1, TH_TO: 1, "Webhooks v2": 2, "2026-W18": 1, RB_WB: 1})
Q("decision", "where did we land on change data capture for the ledger?",
  {MTG_L25: 2, TH_CDC: 1, "Luis Ferreira 2026-05-22": 1, "2026-W21": 1, INT: 1})
Q("decision", "is the month-end freeze going to be revisited?",
  {ADR_FRZ: 2, "Priya Raman 2026-03-25": 2, TH_FRZ: 1, "2026-W13": 1})
Q("decision", "what did we decide about the second reminder email?",
  {MTG_DRR: 2})
Q("decision", "who takes over webhooks in the second half of the year?",
  {"Priya Raman 2026-05-21": 2, "Ravi Kulkarni 2026-05-15": 2, "2026-W21": 1})
Q("decision", "why didn't we freeze every team's deploys at month end?",
  {ADR_FRZ: 2, ALLHANDS: 1})
Q("decision", "why did we pass on the vendor that predicts the best retry timing?",
  {MTG_SRR: 2, ADR_SD: 1})
Q("decision", "who can approve a ledger deploy during the close window?",
  {ADR_FRZ: 2, "2026-W12": 2, "Luis Ferreira": 1})
Q("decision", "what did we agree to do about warning support before changes merchants can notice?",
  {"Release process": 2, "Keiko Tanaka 2026-04-28": 2, "Priya Raman 2026-04-23": 1,
    "Keiko Tanaka": 1, SL_SUP: 1})

# ---------------------------------------------------------------------------------------------
# person
# ---------------------------------------------------------------------------------------------

Q("person", "who ran the incident when the ledger balances drifted?",
  {INC_L: 2, SL_LR: 2, "Tomasz Nowak": 2})
Q("person", "who should I ask about the opensearch cluster?",
  {"Mei Lin Zhou": 2, OSN: 2, RB_SR: 1, "Invoice Search Migration": 1, "Mei Lin Zhou 2026-04-10": 1})
Q("person", "what is Ravi working on to grow?",
  {"Ravi Kulkarni": 2, "Ravi Kulkarni 2026-05-15": 2, "Ravi Kulkarni 2026-03-06": 1,
   "Ravi Kulkarni 2026-04-03": 1, "Ravi Kulkarni 2026-02-06": 1})
Q("person", "who owns the code that sorts declines into retryable and not?",
  {"Dana Okafor": 2, DCS: 2, "People & Context": 2, "Dana Okafor 2026-02-13": 1, "Smart Retries": 1})
Q("person", "what did Priya say about my promotion packet?",
  {"Priya Raman 2026-05-07": 2, "Priya Raman 2026-01-14": 1, "Priya Raman 2026-03-25": 1,
   "Promotion case draft": 1, "Priya Raman": 1, "2026-W19": 1})
Q("person", "how was Dana holding up after the February incident?",
  {"Dana Okafor 2026-02-13": 2, "Priya Raman 2026-02-11": 2, "Dana Okafor": 1,
    "Dana Okafor 2026-03-27": 1, "2026-W13": 1, "2026-W07": 1})
Q("person", "who spotted the disabled refresh setting during the search outage?",
  {INC_S: 2, "Mei Lin Zhou": 2, "2026-04-22": 1, "What makes a good incident commander": 1})
Q("person", "what does Keiko want from engineering?",
  {"Keiko Tanaka": 2, "Keiko Tanaka 2026-04-28": 2, SL_SUP: 1})
Q("person", "what does Jonas care about this year?",
  {"Jonas Eklund": 2, "Jonas Eklund 2026-03-30": 1, ALLHANDS: 1})
Q("person", "who is Hannah and what does she review?",
  {"Hannah Berg": 2, "People & Context": 1, "Hannah Berg 2026-04-14": 1, MTG_SIG: 1})
Q("person", "who leads the portal rewrite?",
  {"Marco Bellini": 2, "Portal Next": 2, "People & Context": 2})
Q("person", "what does Luis think about streaming the ledger from the replication log?",
  {"Luis Ferreira 2026-05-22": 2, "Luis Ferreira": 1, TH_CDC: 1})
Q("person", "who wrote the postmortem for the webhook backlog?",
  {SL_WB: 2, MTG_WIR: 2, "Ravi Kulkarni": 2, "Ravi Kulkarni 2026-04-30": 2, PM: 1, "2026-W18": 2})

# ---------------------------------------------------------------------------------------------
# temporal
# ---------------------------------------------------------------------------------------------

Q("temporal", "what happened during the week of 2026-03-09?",
  {"2026-W11": 2, INC_L: 1, "2026-03-12": 1, SL_DL: 1, SL_LR: 1, "Priya Raman 2026-03-11": 1,
    MTG_LRR: 1})
Q("temporal", "what changed in how we retry charges in the two weeks after the acquirer's letter?",
  {ADR_SD: 2, SL_SDR: 2, "2026-W09": 2, RP312: 1, "2026-02-24": 1, SL_ACQ: 1, "Smart Retries": 1,
    CFG: 1})
Q("temporal", "before the March ledger incident, how did the sync decide where to resume?",
  {INC_L: 2, R247: 2, MTG_LDR: 1, INT: 1, SL_LDF: 1, MTG_LRR: 1})
Q("temporal", "what did I work on the week after the webhook backlog?",
  {"2026-W19": 2, MTG_WIR: 1, ADR_PE: 1, SL_WPE: 1, INC_P: 1, "Priya Raman 2026-05-07": 1})
Q("temporal", "what shipped in mid-May?",
  {"2026-W20": 2, "2026-W21": 2, MTG_WRC: 1, R2417: 1, SL_LRel: 1, "2026-05-13": 1, SL_API: 1})
Q("temporal", "which incidents happened in April?",
  {H1: 2, "Index": 2, INC_S: 2, INC_W: 2, "2026-W17": 1, "2026-W18": 1})
Q("temporal", "what did we decide in February?",
  {"Key Decisions": 2, "Index": 2, ADR_SIG: 1, ADR_DNS: 1, ADR_SSR: 1, ADR_SD: 1, "2026-W06": 1,
    "2026-W09": 1, "2026-02-24": 1})
Q("temporal", "what were my goals at the start of the year and what became of them?",
  {"2026-01-07 Q1 planning": 2, "2026-04-02 Q2 planning": 2, "Priya Raman 2026-01-14": 1,
    "North Star": 1})
Q("temporal", "what happened the day after payments went onto the new cluster?",
  {INC_D: 2, "2026-W05": 2, SL_DNS: 2, "2026-01-26": 1, "EKS Migration": 1})
Q("temporal", "what was our recovery rate before we turned off automatic retries?",
  {TH_KR: 2, MTG_DRR: 2, ADR_SD: 2, "2026-W15": 1, "Priya Raman 2026-04-09": 1})
Q("temporal", "what happened with the portal beta between its launch and late May?",
  {MTG_PBR: 2, MTG_PBK: 2, "2026-05-25": 2, "Portal Next": 1, INC_P: 1, "2026-W17": 1, "2026-W20": 1})
Q("temporal", "what did I do in the first week of January?",
  {"2026-W02": 2, "2026-01-07 Q1 planning": 1, "2026-01-09 eng-announcements EKS kickoff": 1})
Q("temporal", "when was the old elasticsearch cluster finally shut down?",
  {"2026-05-25": 2, "Invoice Search Migration": 2})

# ---------------------------------------------------------------------------------------------
# scaffold: words the templates and agent manuals are full of; the answers are real notes
# ---------------------------------------------------------------------------------------------

Q("scaffold", "decision record",
  {ADR_SD: 2, ADR_AO: 2, ADR_FRZ: 2, ADR_OS: 2, ADR_DW: 2, ADR_PE: 2, ADR_SIG: 2, ADR_EKS: 2,
   ADR_DNS: 2, ADR_SSR: 2, ADR_EXP: 2, "Index": 2, "Key Decisions": 1})
Q("scaffold", "incident postmortem",
  {INC_RS: 2, INC_L: 2, INC_S: 2, INC_W: 2, INC_D: 2, INC_P: 2, INC_TLS: 1, H1: 1, PM: 1, "Index": 1})
Q("scaffold", "how do I write a postmortem",
  {PM: 2, ONCALL: 1, INC_L: 1, INC_W: 1})
Q("scaffold", "root cause and resolution of the ledger incident",
  {INC_L: 2, MTG_LIR: 1, SL_LR: 1, "2026-W11": 1})
Q("scaffold", "options considered for the search migration",
  {ADR_OS: 2, ADR_DW: 2, TH_PG: 1, "Invoice Search Migration": 1, "2026-W04": 1})
Q("scaffold", "action items from my last 1:1 with Priya",
  {"Priya Raman 2026-05-21": 2, "Priya Raman": 1})
Q("scaffold", "key takeaways from my 1:1s with Ravi",
  {"Ravi Kulkarni": 2, "Ravi Kulkarni 2026-03-06": 2, "Ravi Kulkarni 2026-04-30": 2,
   "Ravi Kulkarni 2026-01-16": 1, "Ravi Kulkarni 2026-02-06": 1, "Ravi Kulkarni 2026-03-20": 1,
   "Ravi Kulkarni 2026-04-03": 1, "Ravi Kulkarni 2026-05-15": 1})
Q("scaffold", "open follow-ups from incidents",
  {INC_RS: 2, INC_W: 2, INC_TLS: 2, H1: 1})
Q("scaffold", "consequences of the deploy freeze decision",
  {ADR_FRZ: 2, TH_FRZ: 1})
Q("scaffold", "what went well in the search cutover",
  {MTG_SCR: 2, "Priya Raman 2026-04-23": 1})
Q("scaffold", "weekly note for the week of the webhook incident",
  {"2026-W18": 2, "2026-W19": 1})
Q("scaffold", "drafts where I argued the side that lost",
  {TH_KR: 2, TH_FRZ: 2, TH_ECS: 2, TH_PG: 2, TH_TO: 2, TH_OLD: 2, "Patterns": 1})
Q("scaffold", "decisions log",
  {"Index": 2, "Key Decisions": 2})
Q("scaffold", "incident severity levels",
  {ONCALL: 2, H1: 1})
Q("scaffold", "who runs the postmortem review meeting and how does it end?",
  {PM: 2, ONCALL: 1})

# ---------------------------------------------------------------------------------------------
# offtopic: the vault cannot answer these. mindex eval skips queries without judgments, so they
# are written to offtopic.jsonl (for relevance/abstention checks), not to queries.jsonl.
# ---------------------------------------------------------------------------------------------

OFFTOPIC = [
    "what is the running coupling constant in quantum chromodynamics?",
    "best hydration percentage for a beginner sourdough loaf",
    "how do I change the oil on a 2015 Honda Civic?",
    "who won the 1998 FIFA World Cup final?",
    "explain the light-dependent reactions of photosynthesis",
    "what is the capital of Mongolia?",
    "how do I configure a trunk port on a Cisco switch?",
    "what are the symptoms of vitamin D deficiency?",
    "when should I prune tomato plants?",
    "what is the time complexity of Dijkstra's algorithm with a Fibonacci heap?",
    # Near the vault's domain (engineering at the same company), about things it never mentions:
    # they share words like release, token, policy or services with its notes.
    "how do we configure the Kafka consumer group for the billing events topic?",
    "what did we decide about GraphQL federation for the mobile app?",
    "why did we choose Snowflake over BigQuery for the data warehouse?",
    "how do I get access to the Tableau finance dashboards?",
    "what's the Android release train schedule?",
    "how do we handle GDPR data deletion requests?",
    "steps to rotate the Okta SCIM provisioning token",
    "did we benchmark gRPC against REST for internal service calls?",
    "how do we clean up stale LaunchDarkly feature flags?",
    "who is on the hiring panel for the iOS engineer role?",
    "what's our S3 lifecycle policy for old database backups?",
    "how do I set up Istio mutual TLS between services?",
    "what came out of the Datadog cost review?",
    "how do we run schema migrations in the Django monolith?",
    "which Celery queues does the email worker consume?",
    "what is the parental leave policy?",
]

# ==============================================================================================
# Checks and output
# ==============================================================================================

NEVER_JUDGED = re.compile(r"^(templates/|memories/|CLAUDE\.md$|AGENTS\.md$|brain/Skills\.md$|Home\.md$)")
LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]+)?(?:\|[^\]]+)?\]\]")
STOP = set("""a an the and or of to in on for at by with from as is are was were be been it its this that
these those what which who whom why how when where do does did done we our us i my me you your they
them their he she his her not no any all can could should would will just than then so if into about
after before again still ever much many more most one some there here have has had get got make
made right now only own same very too also each""".split())

MIN_PER_CATEGORY = {"question": 60, "identifier": 30, "decision": 20, "person": 10, "temporal": 10,
                    "scaffold": 10}


def occurs(ident, text):
    """Whether `ident` occurs in `text` as a whole token (not inside a longer identifier)."""
    pat = r"(?<![A-Za-z0-9_\-./@])" + re.escape(ident) + r"(?![A-Za-z0-9_\-/@]|\.[A-Za-z0-9])"
    return re.search(pat, text) is not None


def words(s):
    return [w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 2 and w not in STOP]


def check():
    errors = []
    by_stem = {}
    for p in NOTES:
        by_stem.setdefault(stem(p).lower(), []).append(p)
    for s, ps in by_stem.items():
        if len(ps) > 1:
            errors.append(f"two notes share the name {s!r}: {ps}")

    # notes: safe ids, frontmatter, a title, dates in 2026
    for p, t in NOTES.items():
        if not p.isascii() or p.startswith("/") or any(seg in ("", "..") or seg.startswith(".") for seg in p.split("/")):
            errors.append(f"unsafe id {p!r}")
        if p not in ("AGENTS.md",) and not t.startswith("---\n") and not p == "CLAUDE.md":
            errors.append(f"{p}: no frontmatter")
        if not re.search(r"^# \S", t, re.M):
            errors.append(f"{p}: no # title")
        for d in re.findall(r"^date: \"?([^\"\n]*)", t, re.M):
            if not (d.startswith("2026-") or (p.startswith("work/archive/2025/") and d.startswith("2025-")) or d == "{{date}}"):
                errors.append(f"{p}: date {d!r} is not in 2026")

    # every wikilink resolves to a note (by name, as Obsidian does, or by vault path)
    for p, t in NOTES.items():
        for m in LINK.finditer(t):
            target = m.group(1).strip()
            ok = (target + ".md" in NOTES) if "/" in target else (target.lower() in by_stem)
            if not ok:
                errors.append(f"{p}: unresolved link [[{target}]]")

    # judgments
    cats = {}
    for i, q in enumerate(QUERIES, 1):
        qid = f"q{i:03d}"
        cats[q["category"]] = cats.get(q["category"], 0) + 1
        if q["category"] not in MIN_PER_CATEGORY:
            errors.append(f"{qid}: unknown category {q['category']}")
        resolved = {}
        for s, g in q["rel"].items():
            ps = by_stem.get(s.lower())
            if not ps:
                errors.append(f"{qid}: judged note {s!r} does not exist")
                continue
            p = ps[0]
            if NEVER_JUDGED.match(p):
                errors.append(f"{qid}: {p} is scaffolding or a memory and must not be judged")
            if g not in (1, 2):
                errors.append(f"{qid}: grade {g} for {p}")
            resolved[p] = g
        q["paths"] = resolved
        if not any(g == 2 for g in resolved.values()):
            errors.append(f"{qid}: no grade-2 note")
        if q["category"] == "identifier":
            ident = q["ident"]
            if not ident or ident not in q["text"]:
                errors.append(f"{qid}: identifier {ident!r} not in the query text")
                continue
            for p in resolved:
                if not occurs(ident, NOTES[p]):
                    errors.append(f"{qid}: {ident!r} does not occur in judged note {p}")
            if not q["like"]:
                errors.append(f"{qid}: no lookalike identifiers listed")
            for lk in q["like"]:
                if lk == ident or not any(occurs(lk, t) for t in NOTES.values()):
                    errors.append(f"{qid}: lookalike {lk!r} missing from the corpus")
            holders = [p for p, t in NOTES.items() if occurs(ident, t)]
            if not holders:
                errors.append(f"{qid}: {ident!r} occurs nowhere")
        elif q["ident"] or q["like"]:
            errors.append(f"{qid}: ident/like only for identifier queries")
    for c, n in MIN_PER_CATEGORY.items():
        if cats.get(c, 0) < n:
            errors.append(f"category {c}: {cats.get(c, 0)} queries, need {n}")
    if len(QUERIES) < 150:
        errors.append(f"{len(QUERIES)} judged queries, need 150")
    if len(OFFTOPIC) < 8:
        errors.append(f"{len(OFFTOPIC)} off-topic queries, need 8")
    texts = [q["text"].lower() for q in QUERIES] + [t.lower() for t in OFFTOPIC]
    if len(set(texts)) != len(texts):
        errors.append("duplicate query text")
    if not 200 <= len(NOTES) <= 260:
        errors.append(f"{len(NOTES)} notes, want 200-260")
    for name in ("templates/Decision Record.md", "templates/Incident.md", "templates/1-1.md",
                 "CLAUDE.md", "AGENTS.md", "brain/Skills.md"):
        if name not in NOTES:
            errors.append(f"missing scaffolding {name}")
    for p, t in NOTES.items():
        if p.startswith("memories/"):
            for key in ("source: mcp-capture", "\nscope: ", "\nconfidence: "):
                if key not in t:
                    errors.append(f"{p}: memory without {key.strip()!r}")
            if not re.match(r"memories/2026/\d\d/2026-\d\d-\d\d ", p):
                errors.append(f"{p}: memory path is not memories/YYYY/MM/YYYY-MM-DD <title>.md")
    if errors:
        for e in errors[:80]:
            print("error:", e, file=sys.stderr)
        sys.exit(f"{len(errors)} check(s) failed")


def main():
    check()
    corpus = "".join(
        json.dumps({"_id": p, "title": title_of(p), "text": NOTES[p]}, ensure_ascii=False) + "\n"
        for p in sorted(NOTES)
    ).encode("utf-8")
    if len(corpus) >= 1_500_000:
        sys.exit(f"corpus.jsonl is {len(corpus)} bytes, over 1.5 MB")
    queries, qrels, judgments = "", "query-id\tcorpus-id\tscore\n", 0
    for i, q in enumerate(QUERIES, 1):
        qid = f"q{i:03d}"
        queries += json.dumps({"_id": qid, "text": q["text"], "category": q["category"]}, ensure_ascii=False) + "\n"
        for p, g in sorted(q["paths"].items(), key=lambda x: (-x[1], x[0])):
            qrels += f"{qid}\t{p}\t{g}\n"
            judgments += 1
    offtopic = "".join(
        json.dumps({"_id": f"o{i:02d}", "text": t, "category": "offtopic"}, ensure_ascii=False) + "\n"
        for i, t in enumerate(OFFTOPIC, 1)
    )
    files = {
        "corpus.jsonl": corpus,
        "queries.jsonl": queries.encode("utf-8"),
        "qrels.tsv": qrels.encode("utf-8"),
        "offtopic.jsonl": offtopic.encode("utf-8"),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)

    # summary
    folders = {}
    for p in NOTES:
        top = p.split("/")[0] if "/" in p else "(root)"
        if p.startswith("work/"):
            top = "/".join(p.split("/")[:2])
        folders[top] = folders.get(top, 0) + 1
    cats = {}
    for q in QUERIES:
        cats[q["category"]] = cats.get(q["category"], 0) + 1
    g2 = sum(1 for q in QUERIES for g in q["paths"].values() if g == 2)
    multi = sum(1 for q in QUERIES if sum(1 for g in q["paths"].values() if g == 2) >= 2)
    # lexical overlap: share of a query's content words found in its grade-2 notes
    overlap = {}
    for q in QUERIES:
        ws = set(words(q["text"]))
        if not ws:
            continue
        g2text = " ".join(NOTES[p] for p, g in q["paths"].items() if g == 2).lower()
        have = set(words(g2text))
        overlap.setdefault(q["category"], []).append(len(ws & have) / len(ws))
    print(f"notes: {len(NOTES)}; " + ", ".join(f"{k} {v}" for k, v in sorted(folders.items())))
    print(f"corpus.jsonl: {len(corpus):,} bytes")
    print(f"queries: {len(QUERIES)} judged (" + ", ".join(f"{k} {v}" for k, v in cats.items())
          + f"), plus {len(OFFTOPIC)} off-topic in offtopic.jsonl")
    print(f"judgments: {judgments} ({g2} grade 2, {judgments - g2} grade 1); "
          f"{multi} queries have two or more grade-2 notes")
    print("query words found in the grade-2 notes (mean share): " + ", ".join(
        f"{k} {sum(v) / len(v):.2f}" for k, v in overlap.items()))
    for name, data in files.items():
        print(f"  {name}: sha256 {hashlib.sha256(data).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
