/* run_views.h: the instruments of one run (run_views.c). */
#ifndef FS_RUN_VIEWS_H
#define FS_RUN_VIEWS_H

#include <stdio.h>

#include "core/engine.h"

typedef struct fs_views_options {
  const char *input;        /* the schedule's name, for titles */
  const char *timeline_csv; /* --timeline FILE.csv */
  const char *svg;          /* --svg FILE.svg */
  const char *svg_ranks;    /* --svg-ranks A-B */
  const char *chrome;       /* --chrome FILE.json */
  const char *channel_load; /* --channel-csv FILE.csv */
  int channel_report;       /* --channel-load */
  const char *link_csv;     /* --link-csv FILE.csv */
  int link_report;          /* --link-load */
  int bandwidth;            /* --bandwidth */
  int critical_path;        /* --critical-path */
  /* the platform of --nodes/--cores/--mapping or --platform, for --chrome */
  int64_t nodes, cores;
  const char *mapping, *platform_file;
} fs_views_options;

typedef struct fs_views fs_views;

/* Opens the output files and attaches the recorders to the engine: NULL
 * with err set when a file cannot be opened or memory runs out. */
fs_views *fs_views_open(const fs_views_options *o, const fs_program *program,
                        fs_network_model *network, fs_compute_model *compute, fs_engine *engine,
                        fs_error *err);
/* After the run: writes (and commits) the files, computes the sections. */
int fs_views_write(fs_views *v, const fs_engine *engine, fs_error *err);
/* The report sections (fs_run_summary's text_sections / json_members). */
void fs_views_text(FILE *out, void *views);
void fs_views_json(FILE *out, void *views);
int fs_views_any(const fs_views *v);
/* Aborts the files not written. */
void fs_views_free(fs_views *v);

#endif
