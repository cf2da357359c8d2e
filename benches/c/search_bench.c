/*
 * Per-call cost of a search through the C ABI: mindex_vault_search, reading every hit with
 * mindex_results_get, mindex_results_free. Prints the median over blocks of the mean time per
 * call, in microseconds.
 *
 *   search_bench VAULT QUERY LIMIT BLOCKS CALLS_PER_BLOCK
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mindex.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: search_bench VAULT QUERY LIMIT BLOCKS CALLS\n");
    return 2;
  }
  const char *dir = argv[1], *q = argv[2];
  size_t limit = (size_t)atoi(argv[3]);
  int blocks = atoi(argv[4]), calls = atoi(argv[5]);
  mindex_vault *v = NULL;
  mindex_error *e = mindex_vault_open((const uint8_t *)dir, strlen(dir), NULL, 0, &v);
  if (e) {
    fprintf(stderr, "open: %s\n", mindex_error_message(e));
    mindex_error_free(e);
    return 1;
  }
  double *per = malloc(sizeof(double) * (size_t)blocks);
  size_t seen = 0;
  for (int b = -1; b < blocks; b++) { /* block -1 warms up */
    double t0 = now_us();
    for (int i = 0; i < calls; i++) {
      mindex_results *r = NULL;
      e = mindex_vault_search(v, (const uint8_t *)q, strlen(q), limit, &r);
      if (e) {
        fprintf(stderr, "search: %s\n", mindex_error_message(e));
        mindex_error_free(e);
        return 1;
      }
      size_t n = mindex_results_len(r);
      mindex_hit h;
      for (size_t k = 0; k < n; k++) {
        if (mindex_results_get(r, k, &h)) seen += h.path_len;
      }
      mindex_results_free(r);
    }
    if (b >= 0) per[b] = (now_us() - t0) / calls;
  }
  qsort(per, (size_t)blocks, sizeof(double), cmp);
  double whole = per[blocks / 2];

  /* The layer's own cost, in-process: a call that does no engine work (limit 0 returns at
   * once) plus reading 10 hits from kept results. */
  mindex_results *kept = NULL;
  e = mindex_vault_search(v, (const uint8_t *)q, strlen(q), limit, &kept);
  if (e) return 1;
  size_t n = mindex_results_len(kept);
  for (int b = -1; b < blocks; b++) {
    double t0 = now_us();
    for (int i = 0; i < calls * 10; i++) {
      mindex_results *r = NULL;
      e = mindex_vault_search(v, (const uint8_t *)q, strlen(q), 0, &r);
      if (e) return 1;
      mindex_results_free(r);
      mindex_hit h;
      for (size_t k = 0; k < n; k++) {
        if (mindex_results_get(kept, k, &h)) seen += h.path_len;
      }
    }
    if (b >= 0) per[b] = (now_us() - t0) / (calls * 10);
  }
  mindex_results_free(kept);
  qsort(per, (size_t)blocks, sizeof(double), cmp);
  printf("%.3f %.3f %zu\n", whole, per[blocks / 2], seen > 0);
  free(per);
  mindex_vault_free(v);
  return 0;
}
