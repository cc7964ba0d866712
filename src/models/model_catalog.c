/* model_catalog.c: the built-in models' --param keys, defaults and units,
 * the source of `run --help`'s model list (model_catalog.h). */
#include "models/model_catalog.h"

#define KEYS(a) a, (int)(sizeof(a) / sizeof((a)[0]))

static const fs_model_key hockney[] = {
    {"alpha", "time (1260ns): latency of every message"},
    {"beta", "time per byte or bandwidth (10.2GB/s)"},
};
static const fs_model_key pipelined[] = {
    {"table", "archer|none|FILE (archer): rows SIZE ALPHA_P ALPHA_R"},
    {"alpha_p", "time (880ns, may be negative): per-message cost, instead of a table"},
    {"alpha_r", "time (380ns): remote-completion latency, instead of a table"},
    {"beta", "time per byte or bandwidth (0)"},
};
static const fs_model_key loggops[] = {
    {"L", "time (2500ns): latency"},
    {"o", "time (1500ns): CPU overhead per message"},
    {"g", "time (1000ns): gap between messages"},
    {"G", "time per byte or bandwidth (6ns): gap per byte"},
    {"O", "time per byte or bandwidth (0): overhead per byte"},
    {"S", "size (65535B): eager/rendezvous threshold"},
};
static const fs_model_key taulop[] = {
    {"shm_table", "FILE (required): rows SIZE L(m,1) ... L(m,T), intra-node channel"},
    {"net_table", "FILE (required): the same for the network channel"},
    {"shm_o", "time (0): sender overhead on a node"},
    {"net_o", "time (0): sender overhead across nodes"},
    {"net_o_protocol", "time (0): extra overhead from net_H on"},
    {"net_H", "size (128KiB): rendezvous threshold across nodes"},
    {"segment", "size (8KiB): segment of intra-node copies"},
};
static const fs_model_key hetero_hockney[] = {
    {"file", "FILE (required): per-pair alpha, beta (a time, a time per byte or a\n"
             "                      bandwidth, each with its unit)"},
    {"average", "0|1 (0): 1 replaces every value by its mean (homogeneous Hockney)"},
};
static const fs_model_key lmo[] = {
    {"file", "FILE (required): per-rank C, t and per-pair L, invbeta (times, times\n"
             "                      per byte or bandwidths, each with its unit)"},
    {"average", "0|1 (0): 1 replaces every value by its mean (homogeneous LMO)"},
};
static const fs_model_key lognp[] = {
    {"mw_table", "FILE (required): rows SIZE O_MW [L_MW(d1) ... L_MW(dk)]"},
    {"net_table", "FILE (required): rows SIZE O_NET"},
    {"strides", "d1,...,dk (none): increasing sizes, the strides of the L_MW columns"},
};
static const fs_model_key flow[] = {
    {"latency_factor", "number (flow 1, flow-lv08 13.01): route latency multiplier"},
    {"bandwidth_factor", "number (1, 0.97): the max-min share times this"},
    {"weight_S", "number (0, 20537): penalty L + weight_S * sum 1/bw"},
    {"o_send", "time (0): sender CPU overhead per message"},
    {"o_recv", "time (0): receiver CPU overhead per message"},
    {"eager_threshold", "size (65536B): eager up to it, rendezvous above"},
};
static const fs_model_key nccl[] = {
    {"gpu", "volta|ampere|hopper|blackwell (hopper): NCCL's per-GPU tables"},
    {"cpu", "intel|amd (intel): host CPU, multi-node LL cap and net overhead"},
    {"intra", "nvlink|pci (nvlink): link class inside a node"},
    {"protocol", "LL|LL128|Simple (Simple): for transfers without proto="},
    {"hops", "ring|tree (ring): the per-hop latency row"},
    {"bw_intra", "GB/s per channel (by gpu: 20, 20, 30, 45) inside a node"},
    {"bw_inter", "GB/s per channel (by gpu: 12, 24, 48, 48) between nodes"},
    {"launch", "time (the base latency of hops and the protocol): first start"},
    {"nvswitch", "0|1 (1): the node's GPUs share an NVSwitch (a machine fact)"},
    {"nvls", "0|1 (1 from hopper): NVLink SHARP multicast (a machine fact)"},
    {"collnet", "0|1 (0): a CollNet (SHARP) plugin, NCCL_COLLNET_ENABLE (a machine fact)"},
};
static const fs_model_key fixed[] = {
    {"compute_time", "time (0): a compute task without time= takes it"},
};
static const fs_model_key rate[] = {
    {"gamma", "time per byte or bandwidth (0): a compute of size=m takes m*gamma"},
};
static const fs_model_key gamma[] = {
    {"gamma_table", "FILE (required): rows SIZE gamma(m,1) ... gamma(m,T), shared per node"},
};

static const fs_model_info catalog[] = {
    {"hockney", 0, "alpha + beta*M; the sender busy until arrival", KEYS(hockney)},
    {"pipelined", 0, "Fennel's model (the default): alpha_p, alpha_r by size", KEYS(pipelined)},
    {"loggops", 0, "LogGOPS (LogGOPSim's semantics)", KEYS(loggops)},
    {"taulop", 0, "tau-Lop: channels shared by concurrent transfers; reads the platform",
     KEYS(taulop)},
    {"hetero-hockney", 0, "Hockney with per-pair alpha, beta from a file", KEYS(hetero_hockney)},
    {"lmo", 0, "extended LMO: per-rank C, t and per-pair L, invbeta from a file", KEYS(lmo)},
    {"lognp, log3p", 0, "log_3 P: middleware, network, middleware stages by size and stride",
     KEYS(lognp)},
    {"flow, flow-lv08", 0, "max-min bandwidth sharing on a routed SimGrid platform", KEYS(flow)},
    {"nccl", 0, "NCCL 2.30.7's tuning tables per channel: link class, protocol, hops", KEYS(nccl)},
    {"fixed", 1, "compute tasks take their time= (the default)", KEYS(fixed)},
    {"rate", 1, "compute tasks of size=m take m*gamma", KEYS(rate)},
    {"gamma", 1, "size-dependent gamma(m, tau), shared by the node's cores", KEYS(gamma)},
};

const fs_model_info *fs_model_catalog(int *count) {
  *count = (int)(sizeof catalog / sizeof catalog[0]);
  return catalog;
}

void fs_model_catalog_print(FILE *out) {
  int count;
  const fs_model_info *m = fs_model_catalog(&count);
  for (int i = 0; i < count; i++) {
    if (i == 0 || m[i].compute != m[i - 1].compute)
      fputs(m[i].compute ? "compute models (--compute NAME):\n"
                         : "network models (--model NAME) and their --param keys (defaults):\n",
            out);
    fprintf(out, "  %s: %s\n", m[i].names, m[i].summary);
    for (int k = 0; k < m[i].key_count; k++)
      fprintf(out, "      %-15s %s\n", m[i].keys[k].key, m[i].keys[k].help);
  }
}
