/* report.c: human and JSON summaries of a run. Times are exact decimal
 * nanoseconds (the engine counts picoseconds). */
#include "instruments/report.h"

#include <string.h>

#include "noise/noise.h"

#define RANKS_SHOWN 16

void fs_json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(out, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(out, "\\u%04x", *c);
    else
      fputc(*c, out);
  }
  fputc('"', out);
}

static double per_second(int64_t count, double seconds) {
  return seconds > 0 ? (double)count / seconds : 0;
}

/* Picks a readable unit for a human: "5.04 us". */
static void human_time(char *buffer, size_t size, fs_time t) {
  if (t >= FS_S)
    snprintf(buffer, size, "%.6g s", (double)t / FS_S);
  else if (t >= FS_MS)
    snprintf(buffer, size, "%.6g ms", (double)t / FS_MS);
  else if (t >= FS_US)
    snprintf(buffer, size, "%.6g us", (double)t / FS_US);
  else
    snprintf(buffer, size, "%.6g ns", (double)t / FS_NS);
}

void fs_report_inputs_text(FILE *out, const fs_run_summary *s) {
  const fs_program *p = s->program;
  char describe[1024];
  fs_network_model_describe(s->network, describe, sizeof describe);
  fprintf(out, "input      %s (%d ranks, %d tasks, %lld dependencies)\n", s->input, p->ranks,
          p->tasks, (long long)p->dependencies);
  fprintf(out, "model      %s%s {%s}\n", s->network->name,
          s->model_default ? " (the default; choose with --model)" : "", describe);
  fs_compute_model_describe(s->compute, describe, sizeof describe);
  fprintf(out, "compute    %s {%s}\n", s->compute->name, describe);
  if (s->noise) {
    fs_noise_describe(s->noise, describe, sizeof describe);
    fprintf(out, "noise      {%s} seed %llu\n", describe, (unsigned long long)s->seed);
  }
}

void fs_report_inputs_json(FILE *out, const fs_run_summary *s) {
  const fs_program *p = s->program;
  char describe[1024];
  fprintf(out, "\"input\": ");
  fs_json_string(out, s->input);
  fs_network_model_describe(s->network, describe, sizeof describe);
  fprintf(out, ", \"model\": \"%s\", \"model_parameters\": {%s}", s->network->name, describe);
  fs_compute_model_describe(s->compute, describe, sizeof describe);
  fprintf(out, ", \"compute_model\": \"%s\", \"compute_parameters\": {%s}", s->compute->name,
          describe);
  if (s->noise) {
    fs_noise_describe(s->noise, describe, sizeof describe);
    fprintf(out, ", \"noise\": {%s}, \"seed\": %llu", describe, (unsigned long long)s->seed);
  }
  fprintf(out, ", \"ranks\": %d, \"tasks\": %d, \"dependencies\": %lld", p->ranks, p->tasks,
          (long long)p->dependencies);
}

void fs_report_text(FILE *out, const fs_run_summary *s) {
  const fs_program *p = s->program;
  char exact[32], readable[32];
  fs_time makespan = fs_engine_makespan(s->engine);
  fs_report_inputs_text(out, s);
  human_time(readable, sizeof readable, makespan);
  fprintf(out, "makespan   %s (%s ns)\n", readable, fs_format_ns(exact, makespan));
  fprintf(out, "finish ns ");
  for (int32_t r = 0; r < p->ranks && r < RANKS_SHOWN; r++)
    fprintf(out, " %d:%s", r, fs_format_ns(exact, fs_engine_finish(s->engine, r)));
  if (p->ranks > RANKS_SHOWN) /* the others are a flag away */
    fprintf(out, " ... %d more ranks: --format json or --timeline", p->ranks - RANKS_SHOWN);
  fprintf(out, "\n");
  int64_t events = fs_engine_events(s->engine);
  fprintf(out, "events     %lld in %.3f s (%.3g events/s); program loaded in %.3f s\n",
          (long long)events, s->wall_seconds, per_second(events, s->wall_seconds), s->load_seconds);
  if (s->text_sections) s->text_sections(out, s->sections_arg);
}

void fs_report_json(FILE *out, const fs_run_summary *s) {
  const fs_program *p = s->program;
  char exact[32];
  fprintf(out, "{");
  fs_report_inputs_json(out, s);
  fprintf(out, ", \"makespan_ns\": %s, \"finish_ns\": [",
          fs_format_ns(exact, fs_engine_makespan(s->engine)));
  /* by rank, streamed: ranks no task uses (program.h: slots) finish at 0 */
  const fs_time *by_slot = fs_engine_finish_times(s->engine);
  for (int32_t r = 0, slot = 0; r < p->ranks; r++) {
    int used = !p->slot_rank || (slot < p->slots && p->slot_rank[slot] == r);
    fs_time finish = !used ? 0 : p->slot_rank ? by_slot[slot++] : by_slot[r];
    if (finish == 0)
      fputs(r ? ", 0" : "0", out);
    else
      fprintf(out, "%s%s", r ? ", " : "", fs_format_ns(exact, finish));
  }
  int64_t events = fs_engine_events(s->engine);
  fprintf(out, "], \"events\": %lld, \"wall_s\": %.6f, \"load_s\": %.6f, \"events_per_s\": %.0f",
          (long long)events, s->wall_seconds, s->load_seconds, per_second(events, s->wall_seconds));
  if (s->json_members) s->json_members(out, s->sections_arg);
  fprintf(out, "}\n");
}

void fs_csv_field(FILE *out, const char *text) {
  if (!text[strcspn(text, ",\"\r\n")]) {
    fputs(text, out);
    return;
  }
  fputc('"', out);
  for (const char *c = text; *c; c++) {
    if (*c == '"') fputc('"', out);
    fputc(*c, out);
  }
  fputc('"', out);
}

/* {describe} as one CSV field: the JSON object text, quoted. */
static void csv_object(FILE *out, const char *members) {
  char text[1040];
  snprintf(text, sizeof text, "{%s}", members);
  fs_csv_field(out, text);
}

void fs_report_csv(FILE *out, const fs_run_summary *s) {
  const fs_program *p = s->program;
  char describe[1024], exact[32];
  fputs(FS_REPORT_CSV_HEADER "\n", out);
  fs_csv_field(out, s->input);
  fprintf(out, ",%s,", s->network->name);
  fs_network_model_describe(s->network, describe, sizeof describe);
  csv_object(out, describe);
  fprintf(out, ",%s,", s->compute->name);
  fs_compute_model_describe(s->compute, describe, sizeof describe);
  csv_object(out, describe);
  fputc(',', out);
  if (s->noise) {
    fs_noise_spec(s->noise, describe, sizeof describe);
    fs_csv_field(out, describe);
    fprintf(out, ",%llu", (unsigned long long)s->seed);
  } else {
    fputc(',', out);
  }
  int64_t events = fs_engine_events(s->engine);
  fprintf(out, ",%d,%d,%lld,%s,%lld,%.6f,%.6f\n", p->ranks, p->tasks, (long long)p->dependencies,
          fs_format_ns(exact, fs_engine_makespan(s->engine)), (long long)events, s->wall_seconds,
          s->load_seconds);
}
