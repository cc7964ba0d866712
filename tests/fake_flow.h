/* fake_flow.h: a fake flow model for the views' tests: two puts whose
 * link loads and rates are scripted (fake_flow.c says which), reported
 * through fs_flow_observer as a flow model would. */
#ifndef FS_FAKE_FLOW_H
#define FS_FAKE_FLOW_H

#include "core/engine.h"
#include "core/model.h"

typedef struct fs_fake_flow_run {
  fs_program *program;
  fs_network_model network;
  fs_compute_model compute;
  fs_engine *engine;
  void *state;
} fs_fake_flow_run;

/* The program, the fake model ("fake-flow", with a reports table that
 * takes a flow observer), the fixed compute model and an engine. */
void fs_fake_flow_run_new(fs_fake_flow_run *run);
/* Runs the program once; ck_asserts that it completed. */
void fs_fake_flow_run_program(fs_fake_flow_run *run);
void fs_fake_flow_run_free(fs_fake_flow_run *run);

#endif
