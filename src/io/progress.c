/* progress.c: the progress bar (see progress.h). */
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_EVERY 4096              /* updates between two looks at the clock */
#define FIRST_DRAW_NS 500000000LL     /* short runs stay silent */
#define REDRAW_NS 100000000LL         /* at most 10 redraws a second */
#define BAR_WIDTH 20

struct fs_progress {
  FILE *out;
  char what[64];
  int64_t total;
  int64_t next_draw_ns; /* monotonic time of the next allowed redraw */
  int countdown;        /* updates left before the next look at the clock */
  int check_every;      /* CHECK_EVERY, or fewer for rare updates */
  int drawn;
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

static void draw(fs_progress *p, int64_t done) {
  if (p->total > 0) {
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
  draw(p, done);
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
