/* run_replay.c: recorded MPI executions in the CLI (see run_replay.h). */
#include "cli/run_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "instruments/report.h"
#include "cli/options.h"

void fs_replay_options_default(fs_replay_options *o) {
  *o = (fs_replay_options){.compute_scale = 1, .flop_rate = FS_REPLAY_DEFAULT_FLOP_RATE};
}

static int parse_positive(const char *name, const char *value, int allow_zero, double *out,
                          fs_error *err) {
  char *end;
  double x = strtod(value, &end);
  if (end == value || *end || !(x >= 0) || x > 1e18 || (!allow_zero && x == 0))
    return fs_error_set(err, "%s %s: expected a number %s", name, value,
                        allow_zero ? ">= 0" : "> 0");
  *out = x;
  return 0;
}

int fs_replay_option(int argc, char **argv, int *i, fs_replay_options *o, fs_error *err) {
  const char *v;
  int m;
  if ((m = fs_option(argc, argv, i, "--algo", &v, err))) {
    if (m > 0 && o->algorithms) /* repeatable for validate, one list here */
      return fs_error_set(err,
                          "--algo given twice (%s, then %s): list every collective in one "
                          "--algo C=A,C=A",
                          o->algorithms, v);
    if (m > 0) o->algorithms = v;
    return m;
  }
  if ((m = fs_option(argc, argv, i, "--compute-scale", &v, err)))
    return m < 0 || parse_positive("--compute-scale", v, 1, &o->compute_scale, err) ? -1 : 1;
  if ((m = fs_option(argc, argv, i, "--flop-rate", &v, err)))
    return m < 0 || parse_positive("--flop-rate", v, 0, &o->flop_rate, err) ? -1 : 1;
  return 0;
}

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

int fs_inputs_are_trace(const char *const *inputs, int count) {
  const char *in = inputs[0];
  if (strcmp(in, "-") == 0 || ends_with(in, ".dag") || ends_with(in, ".dag.gz") ||
      ends_with(in, ".goal") || ends_with(in, ".goal.gz") || ends_with(in, ".bin"))
    return 0;
  return count > 1 || fs_trace_is_trace(in);
}

fs_replay *fs_replay_read(const char *const *inputs, int count, const fs_replay_options *o,
                          fs_error *err) {
  fs_trace *trace = fs_trace_read(inputs, count, err);
  if (!trace) return NULL;
  fs_replay *replay = fs_replay_build_releasing(trace, o, err); /* frees the calls as it goes */
  fs_trace_free(trace);
  return replay;
}

int64_t fs_replay_prepare_goal(fs_program *p) {
  int64_t priced = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->kind[t] == FS_START || p->kind[t] == FS_PROXY) {
      p->kind[t] = FS_COMPUTE;
      fs_task_set_time(p, t, 0);
    } else if (p->kind[t] == FS_COMPUTE) {
      if (p->flags[t] & FS_HAS_SIZE) priced++;
      fs_task_set_time(p, t,
                       p->flags[t] & FS_HAS_SIZE ? 0 : (p->value[t] + FS_NS / 2) / FS_NS * FS_NS);
    }
  }
  return priced;
}

/* (simulated - recorded) / recorded, or NaN when nothing was recorded. */
static double difference(fs_time recorded, fs_time simulated) {
  return recorded > 0 ? ((double)simulated - (double)recorded) / (double)recorded : NAN;
}

void fs_replay_report_text(FILE *out, const fs_replay *replay, const fs_engine *engine) {
  char computation[48];
  fprintf(out,
          "replay: %lld calls simulated (%lld messages, %lld collectives), computation %s ns\n",
          (long long)replay->calls, (long long)replay->messages, (long long)replay->collectives,
          fs_format_ns(computation, replay->computation));
  if (replay->algorithms[0]) fprintf(out, "  collectives as: %s\n", replay->algorithms);
  double worst = 0;
  int compared = 0;
  fprintf(out, "  %6s %20s %20s %9s\n", "rank", "recorded ns", "simulated ns", "diff");
  for (int32_t r = 0; r < replay->ranks; r++) {
    char recorded[48], simulated[48];
    double d = difference(replay->recorded[r], fs_engine_finish(engine, r));
    if (replay->recorded[r] >= 0)
      fs_format_ns(recorded, replay->recorded[r]);
    else
      strcpy(recorded, "-");
    if (r < 64 || r == replay->ranks - 1) {
      if (d == d)
        fprintf(out, "  %6d %20s %20s %+8.2f%%\n", r, recorded,
                fs_format_ns(simulated, fs_engine_finish(engine, r)), 100 * d);
      else
        fprintf(out, "  %6d %20s %20s %9s\n", r, recorded,
                fs_format_ns(simulated, fs_engine_finish(engine, r)), "-");
    } else if (r == 64) {
      fprintf(out, "  ... (%d ranks more)\n", replay->ranks - 65);
    }
    if (d == d) compared++, worst = fabs(d) > fabs(worst) ? d : worst;
  }
  if (compared) fprintf(out, "  largest difference %+.2f%% over %d ranks\n", 100 * worst, compared);
}

/* "allreduce=ring bcast=binomial" as the JSON array ["allreduce=ring", "bcast=binomial"]
 * (the words hold no quotes: collective and generator names). */
static void json_words(FILE *out, const char *words) {
  fputc('[', out);
  for (int first = 1; *words;) {
    size_t n = strcspn(words, " ");
    if (n) fprintf(out, "%s\"%.*s\"", first ? "" : ", ", (int)n, words), first = 0;
    words += n;
    while (*words == ' ') words++;
  }
  fputc(']', out);
}

void fs_replay_report_json(FILE *out, const fs_replay *replay, const fs_engine *engine) {
  char computation[48];
  fprintf(out,
          ", \"replay\": {\"calls\": %lld, \"messages\": %lld, \"collectives\": %lld, "
          "\"computation_ns\": %s, "
          "\"algorithms\": ",
          (long long)replay->calls, (long long)replay->messages, (long long)replay->collectives,
          fs_format_ns(computation, replay->computation));
  json_words(out, replay->algorithms);
  fputs(", \"ranks\": [", out);
  double worst = 0;
  for (int32_t r = 0; r < replay->ranks; r++) {
    char recorded[48], simulated[48];
    double d = difference(replay->recorded[r], fs_engine_finish(engine, r));
    fprintf(out, "%s{\"rank\": %d, \"recorded_ns\": %s, \"simulated_ns\": %s, \"difference\": ",
            r ? ", " : "", r,
            replay->recorded[r] >= 0 ? fs_format_ns(recorded, replay->recorded[r]) : "null",
            fs_format_ns(simulated, fs_engine_finish(engine, r)));
    if (d == d)
      fprintf(out, "%.6f}", d), worst = fabs(d) > fabs(worst) ? d : worst;
    else
      fputs("null}", out);
  }
  fprintf(out, "], \"largest_difference\": %.6f}", worst);
}
