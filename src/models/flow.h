/* flow.h: the flow-level network model (--model flow, flow-lv08): each
 * transfer follows its route through a routed network, a latency phase then
 * a data phase at its max-min share of the links (models/maxmin.h), as
 * SimGrid's CM02 and LV08 network models with network/optim:Full,
 * TCP-gamma 0 and no cross-traffic (docs/MODELS.md, "flow and flow-lv08"). */
#ifndef FS_FLOW_H
#define FS_FLOW_H

#include "core/model.h"
#include "platform/network.h"

typedef struct fs_flow_settings {
  double latency_factor, bandwidth_factor, weight_s;
  fs_time o_send, o_recv;  /* CPU overheads per message */
  int64_t eager_threshold; /* two-sided: eager up to it, rendezvous above */
  fs_mapping mapping;      /* ranks onto hosts: sequential or round-robin */
} fs_flow_settings;

/* CM02 (lv08 == 0: factors 1, 1, weight_S 0) or LV08 (13.01, 0.97, 20537);
 * no overheads, threshold 65536 B, sequential mapping. */
void fs_flow_settings_default(fs_flow_settings *s, int lv08);

/* The model on network (owned by the model from now on, even on failure):
 * the entry point of tests. 0, or -1 with err set. */
int fs_flow_create_on(fs_network *network, const fs_flow_settings *settings, const char *name,
                      fs_network_model *out, fs_error *err);

#endif
