/* progress.c: the progress bar (see progress.h). */
#include "io/progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_EVERY 4096          /* updates between two looks at the clock */
#define FIRST_DRAW_NS 500000000LL /* short runs stay silent */
#define REDRAW_NS 100000000LL     /* at most 10 redraws a second */
#define BAR_WIDTH 20
#define RATED_WIDTH 30

struct fs_progress {
  FILE *out;
  char what[64];
  int64_t total;
  int64_t next_draw_ns; /* monotonic time of the next allowed redraw */
  int countdown;        /* updates left before the next look at the clock */
  int check_every;      /* CHECK_EVERY, or fewer for rare updates */
  int drawn;
  int rated; /* fs_progress_new_rated: count, rate and time left */
  int64_t start_ns;
};

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

fs_progress *fs_progress_new(const char *what, int64_t total, int enabled, FILE *out) {
  if (!enabled || !out) return NULL;
  fs_progress *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->out = out;
  snprintf(p->what, sizeof p->what, "%s", what ? what : "");
  p->total = total;
  p->next_draw_ns = now_ns() + FIRST_DRAW_NS;
  p->countdown = 1;
  p->check_every = CHECK_EVERY;
  return p;
}

fs_progress *fs_progress_new_rated(const char *unit, int64_t total, int enabled, FILE *out) {
  fs_progress *p = fs_progress_new(unit, total, enabled, out);
  if (!p) return NULL;
  p->rated = 1;
  p->start_ns = now_ns();
  p->next_draw_ns = p->start_ns + REDRAW_NS;
  p->check_every = 1;
  return p;
}

static void format_duration(char *buffer, size_t size, double seconds) {
  long s = seconds < 0 ? 0 : seconds > 359999 ? 359999 : (long)(seconds + 0.5);
  if (s >= 3600)
    snprintf(buffer, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf(buffer, size, "%ld:%02ld", s / 60, s % 60);
}

/* "412/1000 seeds [=========>      ]  41%  183 seeds/s  ETA 0:03" */
static void draw_rated(fs_progress *p, int64_t done, int64_t now) {
  int64_t total = p->total;
  char bar[RATED_WIDTH + 1], eta[32] = "?";
  int filled = total ? (int)(RATED_WIDTH * done / total) : RATED_WIDTH;
  for (int i = 0; i < RATED_WIDTH; i++) bar[i] = i < filled ? '=' : i == filled ? '>' : ' ';
  bar[RATED_WIDTH] = 0;
  double elapsed = 1e-9 * (double)(now - p->start_ns);
  double rate = elapsed > 0 ? (double)done / elapsed : 0;
  if (rate > 0) format_duration(eta, sizeof eta, (double)(total - done) / rate);
  fprintf(p->out, "\r%lld/%lld %s [%s] %3d%%  %.4g %s/s  ETA %s\033[K", (long long)done,
          (long long)total, p->what, bar, total ? (int)(100 * done / total) : 100, rate, p->what,
          eta);
}

static void draw(fs_progress *p, int64_t done, int64_t now) {
  if (p->rated) {
    draw_rated(p, done, now);
  } else if (p->total > 0) {
    double fraction = done <= 0 ? 0 : done >= p->total ? 1 : (double)done / (double)p->total;
    int filled = (int)(fraction * BAR_WIDTH), percent = (int)(fraction * 100);
    fprintf(p->out, "\r%s [%.*s%*s] %3d%% %lld/%lld\033[K", p->what, filled,
            "========================================", BAR_WIDTH - filled, "", percent,
            (long long)done, (long long)p->total);
  } else {
    fprintf(p->out, "\r%s %lld\033[K", p->what, (long long)done);
  }
  fflush(p->out);
  p->drawn = 1;
}

void fs_progress_update(fs_progress *p, int64_t done) {
  if (!p || --p->countdown > 0) return;
  p->countdown = p->check_every;
  int64_t now = now_ns();
  if (now < p->next_draw_ns) return;
  p->next_draw_ns = now + REDRAW_NS;
  draw(p, done, now);
}

void fs_progress_check_every(fs_progress *p, int updates) {
  if (p) p->check_every = updates > 0 ? updates : 1;
}

void fs_progress_done(fs_progress *p) {
  if (!p) return;
  if (p->drawn) {
    fputs("\r\033[K", p->out);
    fflush(p->out);
  }
  free(p);
}
