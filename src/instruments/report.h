/* report.h: the result of a run as a short human summary or as one JSON
 * object (README, Outputs). */
#ifndef FS_REPORT_H
#define FS_REPORT_H

#include <stdio.h>

#include "core/engine.h"
#include "noise/noise.h"

typedef struct fs_run_summary {
  const char *input;
  const fs_program *program;
  const fs_engine *engine;
  const fs_network_model *network;
  const fs_compute_model *compute;
  double wall_seconds;   /* the simulation alone */
  double load_seconds;   /* reading or generating the program */
  const fs_noise *noise; /* NULL: none */
  uint64_t seed;         /* the noise's seed (the base seed of a study) */
  int model_default;     /* --model was omitted: the text says the default was used */
  /* Optional sections after the results (the instruments': bandwidth,
   * critical path, channel load): text lines, and JSON members each
   * starting with ", ". */
  void (*text_sections)(FILE *out, void *arg);
  void (*json_members)(FILE *out, void *arg);
  void *sections_arg;
} fs_run_summary;

void fs_report_text(FILE *out, const fs_run_summary *summary);
void fs_report_json(FILE *out, const fs_run_summary *summary);
/* What was simulated (input, models, noise), without results: the first
 * lines of the text report; the first members of the JSON object (after
 * its "{"), without a trailing comma. A study (engine NULL) prints its
 * statistics after them. */
void fs_report_inputs_text(FILE *out, const fs_run_summary *summary);
void fs_report_inputs_json(FILE *out, const fs_run_summary *summary);
/* Writes text as a JSON string literal, quotes included. */
void fs_json_string(FILE *out, const char *text);

#endif
