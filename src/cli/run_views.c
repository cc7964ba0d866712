/* run_views.c: the instruments of one `fennelsim run`: the timeline CSV,
 * the drawn timeline (--svg), the Perfetto trace (--chrome), bandwidth,
 * the critical path, channel load and link load (whose flow observer also
 * gives --svg and --chrome the transfers' rates under a flow model).
 * Output files are opened before the run (a bad path fails before any
 * work) and committed after it; the recorder is attached only when some
 * view needs it, so a run without views pays nothing. */
#include "cli/run_views.h"

#include <stdlib.h>
#include <string.h>

#include "instruments/bandwidth.h"
#include "instruments/channel_load.h"
#include "instruments/chrome_trace.h"
#include "instruments/critical_path.h"
#include "instruments/link_load.h"
#include "instruments/svg_timeline.h"
#include "instruments/timeline.h"
#include "cli/options.h"
#include "platform/platform.h"
#include "platform/platform_xml.h"

struct fs_views {
  const fs_views_options *o;
  const fs_program *program;
  const fs_network_model *network;
  fs_timeline *timeline;
  fs_channel_load *channel_load;
  fs_link_load *link_load;
  fs_output *csv, *svg, *chrome, *channel_csv, *link_csv;
  fs_bandwidth *bandwidth;
  fs_critical_path *critical_path;
  fs_svg_options svg_options;
};

static int needs_timeline(const fs_views_options *o) {
  return o->timeline_csv || o->svg || o->chrome || o->bandwidth || o->critical_path;
}

/* "A-B" into the SVG's rank range. */
static int parse_ranks(const char *text, fs_svg_options *s, fs_error *err) {
  const char *dash = strchr(text, '-');
  int64_t first, last;
  if (!dash || fs_parse_count(text, (size_t)(dash - text), 0, FS_MAX_TASKS, &first) ||
      fs_parse_count(dash + 1, strlen(dash + 1), 0, FS_MAX_TASKS, &last) || last < first)
    return fs_error_set(err, "--svg-ranks %s: expected FIRST-LAST, such as 0-63", text);
  s->first_rank = (int32_t)first, s->last_rank = (int32_t)last;
  return 0;
}

static int open_output(const char *path, fs_output **out, fs_error *err) {
  if (!path) return 0;
  *out = fs_output_open(path, err);
  return *out ? 0 : -1;
}

/* --link-load and --link-csv need a flow model; --svg and --chrome take
 * its rates when there is one, and stay as they were without. */
static int attach_link_load(fs_views *v, fs_network_model *network, fs_error *err) {
  const fs_views_options *o = v->o;
  int asked = o->link_csv || o->link_report;
  if (!asked && !o->svg && !o->chrome) return 0;
  v->link_load = fs_link_load_new(o->link_csv || o->chrome, o->svg || o->chrome);
  if (!v->link_load) return fs_error_set(err, "out of memory");
  if (!fs_link_load_attach(v->link_load, network, err)) return 0;
  if (asked) return -1;
  fs_link_load_free(v->link_load);
  v->link_load = NULL;
  err->message[0] = 0;
  return 0;
}

fs_views *fs_views_open(const fs_views_options *o, const fs_program *program,
                        fs_network_model *network, fs_compute_model *compute, fs_engine *engine,
                        fs_error *err) {
  fs_views *v = calloc(1, sizeof *v);
  if (!v) {
    fs_error_set(err, "out of memory");
    return NULL;
  }
  v->o = o, v->program = program, v->network = network;
  v->svg_options = (fs_svg_options){.first_rank = -1, .last_rank = -1, .title = o->input};
  if ((o->svg_ranks && parse_ranks(o->svg_ranks, &v->svg_options, err)) ||
      (o->svg && fs_svg_timeline_check(program, &v->svg_options, err)) ||
      open_output(o->timeline_csv, &v->csv, err) || open_output(o->svg, &v->svg, err) ||
      open_output(o->chrome, &v->chrome, err) ||
      open_output(o->channel_load, &v->channel_csv, err) ||
      open_output(o->link_csv, &v->link_csv, err)) {
    v->o = NULL; /* a usage error: nothing ran */
    fs_views_free(v);
    return NULL;
  }
  if (needs_timeline(o)) {
    v->timeline = fs_timeline_new(program);
    fs_observer observer = v->timeline ? fs_timeline_observer(v->timeline) : (fs_observer){0};
    if (!v->timeline || fs_engine_add_observer(engine, &observer)) {
      fs_error_set(err, "out of memory for the timeline");
      fs_views_free(v);
      return NULL;
    }
  }
  if (o->channel_load || o->channel_report) {
    v->channel_load = fs_channel_load_new();
    if (!v->channel_load) fs_error_set(err, "out of memory");
    if (!v->channel_load || fs_channel_load_attach(v->channel_load, network, compute, err)) {
      fs_views_free(v);
      return NULL;
    }
  }
  if (attach_link_load(v, network, err)) {
    fs_views_free(v);
    return NULL;
  }
  return v;
}

/* The node of each rank for --chrome, from the platform options; NULL
 * when none was given (each rank its own node). */
static int32_t *nodes_of(const fs_views_options *o, int32_t ranks, fs_error *err, int *failed) {
  *failed = 0;
  fs_platform *platform = NULL;
  if (o->platform_file)
    platform = fs_platform_read_xml(o->platform_file, ranks, err);
  else if (o->nodes > 0 && o->cores > 0)
    platform = fs_platform_from_options(o->nodes, o->cores, o->mapping, ranks, err);
  else
    return NULL;
  int32_t *node = platform ? malloc((size_t)ranks * sizeof *node) : NULL;
  for (int32_t r = 0; node && r < ranks; r++) node[r] = fs_platform_node_of(platform, r);
  *failed = node == NULL;
  if (platform && !node) fs_error_set(err, "out of memory");
  fs_platform_free(platform);
  return node;
}

int fs_views_write(fs_views *v, const fs_engine *engine, fs_error *err) {
  const fs_views_options *o = v->o;
  int failed = 0;
  if (v->channel_load)
    failed = fs_channel_load_finish(v->channel_load, fs_engine_makespan(engine), err);
  if (!failed && v->link_load)
    failed = fs_link_load_finish(v->link_load, fs_engine_makespan(engine), err);
  /* the reports first: a failure leaves no file written */
  if (!failed && o->bandwidth && !(v->bandwidth = fs_bandwidth_compute(v->timeline, err)))
    failed = 1;
  if (!failed && o->critical_path &&
      !(v->critical_path = fs_critical_path_compute(v->timeline, v->network, err)))
    failed = 1;
  if (!failed && v->csv) {
    failed = fs_timeline_write_csv(v->timeline, v->csv, err);
    v->csv = NULL; /* committed or aborted */
  }
  if (!failed && v->svg) {
    failed = fs_svg_timeline_write_flows(v->timeline, &v->svg_options, v->link_load, v->svg, err);
    v->svg = NULL;
  }
  if (!failed && v->chrome) {
    int32_t *node = nodes_of(o, v->program->ranks, err, &failed);
    if (!failed)
      failed = fs_chrome_trace_write_flows(v->timeline, node, v->link_load, v->chrome, err);
    v->chrome = NULL;
    free(node);
  }
  if (!failed && v->channel_csv) {
    failed = fs_channel_load_write_csv(v->channel_load, v->channel_csv, err);
    v->channel_csv = NULL;
  }
  if (!failed && v->link_csv) {
    failed = fs_link_load_write_csv(v->link_load, v->link_csv, err);
    v->link_csv = NULL;
  }
  return failed ? -1 : 0;
}

void fs_views_text(FILE *out, void *views) {
  fs_views *v = views;
  if (v->bandwidth) fs_bandwidth_report_text(out, v->bandwidth, 16);
  if (v->critical_path) fs_critical_path_report_text(out, v->critical_path, 40);
  if (v->channel_load && v->o->channel_report)
    fs_channel_load_report_text(out, v->channel_load, 16);
  if (v->link_load && v->o->link_report) fs_link_load_report_text(out, v->link_load, 16);
}

void fs_views_json(FILE *out, void *views) {
  fs_views *v = views;
  if (v->bandwidth) fputs(", ", out), fs_bandwidth_report_json(out, v->bandwidth);
  if (v->critical_path) fputs(", ", out), fs_critical_path_report_json(out, v->critical_path);
  if (v->channel_load && v->o->channel_report)
    fputs(", ", out), fs_channel_load_report_json(out, v->channel_load);
  if (v->link_load && v->o->link_report)
    fputs(", ", out), fs_link_load_report_json(out, v->link_load);
}

int fs_views_any(const fs_views *v) {
  return v->bandwidth || v->critical_path || (v->channel_load && v->o->channel_report) ||
         (v->link_load && v->o->link_report);
}

void fs_views_free(fs_views *v) {
  if (!v) return;
  fs_output *outputs[5] = {v->csv, v->svg, v->chrome, v->channel_csv, v->link_csv};
  for (int i = 0; i < 5; i++)
    if (outputs[i]) fs_output_abort(outputs[i]);
  fs_timeline_free(v->timeline);
  fs_channel_load_free(v->channel_load);
  fs_link_load_free(v->link_load);
  fs_bandwidth_free(v->bandwidth);
  fs_critical_path_free(v->critical_path);
  free(v);
}
