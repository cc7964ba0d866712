/* report.h: the result of a run as a short human summary, as one JSON
 * object or as a CSV row (docs/FORMATS.md, "Outputs"). */
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
/* `run --format csv`: the header FS_REPORT_CSV_HEADER and one row. The
 * parameters are the JSON objects of the JSON report, as quoted fields;
 * noise is the spec as the options spell it (fs_noise_spec) and seed its
 * seed, both empty without noise; makespan_ns is exact (at most 3
 * decimals). */
#define FS_REPORT_CSV_HEADER                                                              \
  "input,model,model_parameters,compute_model,compute_parameters,noise,seed,ranks,tasks," \
  "dependencies,makespan_ns,events,wall_s,load_s"
void fs_report_csv(FILE *out, const fs_run_summary *summary);
/* Writes text as one CSV field: as it is, or quoted ("" for a quote) when
 * it holds a comma, a quote or a line break (RFC 4180). */
void fs_csv_field(FILE *out, const char *text);
/* Writes text as a JSON string literal, quotes included. */
void fs_json_string(FILE *out, const char *text);

#endif
