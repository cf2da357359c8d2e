/*
 * The C ABI end to end: create a vault, update, search, get, remember, recall, expand,
 * record work, health, audit, status, and the error paths (bad path, invalid UTF-8, NULL).
 *
 *   smoke VAULT_DIR [MODEL_DIR]
 *
 * VAULT_DIR must not exist yet. With MODEL_DIR, also embeds and runs a hybrid query.
 * Exits 0 when every check passed; prints the failing check otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mindex.h"

static int failures = 0;

#define CHECK(cond, what)                                                   \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what);        \
      failures++;                                                           \
    }                                                                       \
  } while (0)

/* Expects success: prints and frees the error otherwise. */
static int ok(mindex_error *err, const char *what) {
  if (err == NULL) return 1;
  fprintf(stderr, "FAIL %s: code %u: %s\n", what, (unsigned)mindex_error_code(err),
          mindex_error_message(err));
  mindex_error_free(err);
  failures++;
  return 0;
}

/* Expects an error with `code`; frees it. */
static void fails_with(mindex_error *err, mindex_code code, const char *what) {
  if (err == NULL) {
    fprintf(stderr, "FAIL %s: expected code %u, got success\n", what, (unsigned)code);
    failures++;
    return;
  }
  if (mindex_error_code(err) != code) {
    fprintf(stderr, "FAIL %s: expected code %u, got %u: %s\n", what, (unsigned)code,
            (unsigned)mindex_error_code(err), mindex_error_message(err));
    failures++;
  }
  CHECK(strlen(mindex_error_message(err)) > 0, "error message is not empty");
  mindex_error_free(err);
}

static const uint8_t *s(const char *str) { return (const uint8_t *)str; }

static int contains(const mindex_string *str, const char *needle) {
  return strstr(mindex_string_data(str), needle) != NULL;
}

/* Whether the n bytes at p contain needle. */
static int bytes_contain(const uint8_t *p, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; i++) {
    if (memcmp(p + i, needle, k) == 0) return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: smoke VAULT_DIR [MODEL_DIR]\n");
    return 2;
  }
  const char *dir = argv[1];
  CHECK(strlen(mindex_version()) > 0, "version");

  /* Create and index. */
  mindex_vault *vault = NULL;
  if (!ok(mindex_vault_create(s(dir), strlen(dir), true, &vault), "create")) return 1;
  mindex_string *report = NULL;
  if (ok(mindex_vault_update(vault, &report), "update")) {
    CHECK(contains(report, "\"rebuilt\":true"), "first update rebuilds");
    mindex_string_free(report);
  }
  CHECK(ok(mindex_vault_update(vault, NULL), "update without a report"), "update");

  /* An identifier (the ticket in a note's frontmatter) ranks its note first, flagged exact. */
  const char *ticket = "OPS-1432";
  mindex_results *tr = NULL;
  if (ok(mindex_vault_search(vault, s(ticket), strlen(ticket), 3, &tr), "ticket search")) {
    mindex_hit th;
    CHECK(mindex_results_get(tr, 0, &th), "ticket hit");
    CHECK(th.exact && th.path_len == strlen("work/incidents/2026-03-14 Checkout outage.md") &&
              memcmp(th.path, "work/incidents/2026-03-14 Checkout outage.md", th.path_len) == 0,
          "the ticket's note is first and exact");
    mindex_results_free(tr);
  }

  /* Search. */
  const char *q = "idempotency key";
  mindex_results *results = NULL;
  if (ok(mindex_vault_search(vault, s(q), strlen(q), 5, &results), "search")) {
    CHECK(mindex_results_len(results) >= 1, "search finds the note");
    mindex_hit hit;
    CHECK(mindex_results_get(results, 0, &hit), "first hit");
    CHECK(hit.path_len == strlen("brain/Patterns.md") &&
              memcmp(hit.path, "brain/Patterns.md", hit.path_len) == 0,
          "first hit is brain/Patterns.md");
    CHECK(hit.score > 0.0f && hit.line_start >= 1, "hit fields");
    CHECK(!hit.exact, "no identifier in the query, no exact flag");
    CHECK(hit.snippet_len > 0 && !bytes_contain(hit.snippet, hit.snippet_len, "[[") &&
              bytes_contain(hit.snippet, hit.snippet_len, "**"),
          "a clean snippet with highlights");
    CHECK(!mindex_results_get(results, 999, &hit), "out of range");
    CHECK(!mindex_results_get(results, 0, NULL), "NULL out");
    mindex_string *json = NULL;
    if (ok(mindex_results_json(results, &json), "results json")) {
      CHECK(contains(json, "\"results\""), "results json");
      mindex_string_free(json);
    }
    mindex_results_free(results);
  }

  /* Lexical-only query (no model). */
  results = NULL;
  if (ok(mindex_vault_query(vault, NULL, s(q), strlen(q), 3, &results), "query")) {
    CHECK(mindex_results_len(results) >= 1, "query finds the note");
    mindex_results_free(results);
  }

  /* Get a note. */
  mindex_string *note = NULL;
  if (ok(mindex_vault_get(vault, s("Patterns"), 8, &note), "get")) {
    CHECK(contains(note, "Idempotency keys"), "note text");
    mindex_string_free(note);
  }

  /* Attacks: paths that leave the vault, invalid UTF-8, a hostile memory title. */
  {
    const char *escapes[] = {"../../etc/passwd", "/etc/passwd", "brain/../../../etc/passwd"};
    for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
      mindex_string *leak = NULL;
      fails_with(mindex_vault_get(vault, s(escapes[i]), strlen(escapes[i]), &leak),
                 MINDEX_CODE_INVALID_ARGUMENT, "get refuses a path out of the vault");
      CHECK(leak == NULL, "no text for an escaping path");
    }
    const uint8_t bad_utf8[] = {0x62, 0x72, 0xff, 0xfe};
    mindex_string *none = NULL;
    fails_with(mindex_vault_get(vault, bad_utf8, sizeof bad_utf8, &none), MINDEX_CODE_INVALID_UTF8,
               "invalid UTF-8 is refused");
    const char *hostile =
        "{\"title\": \"../../../../tmp/evil\", \"body\": \"A hostile title from a C host must "
        "stay inside the memory root of the vault.\", \"confidence\": \"inferred\", \"force\": true}";
    mindex_string *written = NULL;
    if (ok(mindex_vault_remember(vault, s("atlas"), 5, s(hostile), strlen(hostile), NULL, &written),
           "remember with a hostile title")) {
      CHECK(contains(written, "\"path\":\"memories/"), "the hostile title stays in memories/");
      CHECK(!contains(written, "\"path\":\"memories/../"), "no traversal in the path");
      mindex_string_free(written);
    }
  }

  /* Remember, then recall. */
  const char *mem =
      "{\"title\": \"C hosts free every handle\", \"body\": \"Every handle the C ABI returns "
      "has a free function, and the leak checker proves the smoke test frees them all.\", "
      "\"confidence\": \"verified\", \"verification\": \"valgrind\"}";
  mindex_string *out = NULL;
  if (ok(mindex_vault_remember(vault, s("atlas"), 5, s(mem), strlen(mem), NULL, &out), "remember")) {
    CHECK(contains(out, "\"recorded\":true"), "remember records");
    CHECK(contains(out, "memories/"), "remember path");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_remember(vault, s("atlas"), 5, s(mem), strlen(mem), NULL, &out), "remember again")) {
    CHECK(contains(out, "\"kind\":\"duplicate\""), "duplicate refused as an outcome");
    mindex_string_free(out);
  }
  const char *bad = "{\"title\": \"x\"}";
  out = NULL;
  if (ok(mindex_vault_remember(vault, s("atlas"), 5, s(bad), strlen(bad), NULL, &out), "remember invalid")) {
    CHECK(contains(out, "\"kind\":\"validation\""), "validation refusal");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_recall(vault, s("atlas"), 5, s("leak"), 4, 10, true, NULL, &out), "recall")) {
    CHECK(contains(out, "C hosts free every handle"), "recall finds the memory");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_recall(vault, NULL, 0, NULL, 0, 10, false, NULL, &out), "recall anonymous")) {
    CHECK(contains(out, "\"memories\":[]"), "anonymous sees no project memory");
    mindex_string_free(out);
  }

  /* Expand, record work, health, audit, status. */
  out = NULL;
  if (ok(mindex_vault_expand(vault, s("Key Decisions"), 13, &out), "expand")) {
    CHECK(contains(out, "Payments Migration"), "expand links");
    mindex_string_free(out);
  }
  const char *work = "{\"title\": \"Wire the C ABI\", \"summary\": \"Added handles.\", \"folder\": \"brain\"}";
  out = NULL;
  if (ok(mindex_vault_record_work(vault, s("atlas"), 5, s(work), strlen(work), &out), "record work")) {
    CHECK(contains(out, "\"recorded\":true"), "work recorded");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_health(vault, s("atlas"), 5, &out), "health")) {
    CHECK(contains(out, "\"memories\":2"), "health counts both memories");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_audit(vault, &out), "audit")) {
    CHECK(contains(out, "\"orphans\""), "audit");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_status(vault, &out), "status")) {
    CHECK(contains(out, "\"indexed\":true"), "status");
    CHECK(contains(out, "\"verified\":false"), "status reads no index file by default");
    mindex_string_free(out);
  }
  out = NULL;
  if (ok(mindex_vault_status_verify(vault, &out), "status --verify")) {
    CHECK(contains(out, "\"verified\":true") && contains(out, "\"damaged\":[]"), "status --verify");
    mindex_string_free(out);
  }

  /* Optional: a real model. */
  if (argc > 2) {
    mindex_embedder *model = NULL;
    if (ok(mindex_embedder_load(s(argv[2]), strlen(argv[2]), &model), "load model")) {
      CHECK(ok(mindex_vault_embed(vault, model, NULL), "embed"), "embed");
      const char *hq = "why did customers see errors";
      results = NULL;
      if (ok(mindex_vault_query(vault, model, s(hq), strlen(hq), 3, &results), "hybrid query")) {
        mindex_hit hit;
        CHECK(mindex_results_get(results, 0, &hit), "hybrid hit");
        mindex_results_free(results);
      }
      mindex_embedder_free(model);
    }
    /* An explicit precision: f32 loads; an unknown one is an argument error naming it. */
    model = NULL;
    CHECK(ok(mindex_embedder_load_with(s(argv[2]), strlen(argv[2]), s("f32"), 3, &model),
             "load f32 model"), "load f32");
    mindex_embedder_free(model);
    model = NULL;
    mindex_error *bad = mindex_embedder_load_with(s(argv[2]), strlen(argv[2]), s("int4"), 4, &model);
    CHECK(bad != NULL && mindex_error_code(bad) == MINDEX_CODE_INVALID_ARGUMENT && model == NULL,
          "unknown precision refused");
    mindex_error_free(bad);
  }

  /* Error paths. */
  mindex_vault *none = (mindex_vault *)1;
  const char *missing = "/nonexistent/mindex/vault";
  fails_with(mindex_vault_open(s(missing), strlen(missing), NULL, 0, &none),
             MINDEX_CODE_VAULT_NOT_FOUND, "open a missing vault");
  CHECK(none == NULL, "out is NULL after an error");
  const uint8_t invalid[] = {'b', 'a', 0xff, 'd'};
  results = NULL;
  fails_with(mindex_vault_search(vault, invalid, sizeof invalid, 5, &results),
             MINDEX_CODE_INVALID_UTF8, "invalid UTF-8");
  CHECK(results == NULL, "no results on error");
  fails_with(mindex_vault_search(NULL, s(q), strlen(q), 5, &results), MINDEX_CODE_NULL_ARG,
             "NULL vault");
  fails_with(mindex_vault_search(vault, s(q), strlen(q), 5, NULL), MINDEX_CODE_NULL_ARG,
             "NULL out");
  fails_with(mindex_vault_search(vault, NULL, 0, 5, &results), MINDEX_CODE_NULL_ARG,
             "NULL query");
  fails_with(mindex_vault_get(vault, s("No Such Note"), 12, &out), MINDEX_CODE_NOTE_NOT_FOUND,
             "missing note");
  fails_with(mindex_vault_get(vault, s("../etc/passwd"), 13, &out), MINDEX_CODE_INVALID_ARGUMENT,
             "traversal");
  fails_with(mindex_vault_remember(vault, s("../x"), 4, s(mem), strlen(mem), NULL, &out),
             MINDEX_CODE_INVALID_ARGUMENT, "bad caller name");
  fails_with(mindex_vault_remember(vault, s("atlas"), 5, s("{not json"), 9, NULL, &out),
             MINDEX_CODE_INVALID_ARGUMENT, "bad JSON");
  CHECK(mindex_error_code(NULL) == MINDEX_CODE_PANIC, "NULL error code");
  CHECK(strcmp(mindex_error_message(NULL), "") == 0, "NULL error message");
  CHECK(mindex_results_len(NULL) == 0 && mindex_string_len(NULL) == 0, "NULL lengths");
  mindex_results_free(NULL);
  mindex_string_free(NULL);
  mindex_error_free(NULL);
  mindex_embedder_free(NULL);
  mindex_vault_free(NULL);

  mindex_vault_free(vault);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
