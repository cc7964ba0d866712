/* simgrid_platform.c: see simgrid_platform.h. io/xml_input.h builds the
 * tree safely; this walks it once, in document order, adding zones, hosts,
 * links, routers, clusters and routes to a network (network_build.h), and
 * seals it.
 *
 * Map: units, attributes, elements (link, host, router, route, cluster,
 * zone), the document. */
#include "platform/simgrid_platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "io/xml_input.h"
#include "platform/network_build.h"

typedef struct reader {
  const char *name;
  fs_error *err;
  fs_network *net;
} reader;

#define at(r, node, ...) fs_xml_error_at((r)->err, (r)->name, (node), __VA_ARGS__)

/* ---- units --------------------------------------------------------------- */

typedef struct unit {
  const char *suffix;
  double factor;
} unit;

static const char *const decimal[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
static const char *const binary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};

/* SimGrid's bandwidth units: the factor of suffix, or 0 when unknown. */
static double bandwidth_factor(const char *suffix) {
  char text[16];
  double scale = 1;
  for (int i = 0; i < 9; i++, scale *= 1000)
    for (int bits = 0; bits < 2; bits++) {
      snprintf(text, sizeof text, "%s%s", decimal[i], bits ? "bps" : "Bps");
      if (strcmp(suffix, text) == 0) return scale * (bits ? 0.125 : 1);
    }
  scale = 1024;
  for (int i = 0; i < 8; i++, scale *= 1024)
    for (int bits = 0; bits < 2; bits++) {
      snprintf(text, sizeof text, "%s%s", binary[i], bits ? "bps" : "Bps");
      if (strcmp(suffix, text) == 0) return scale * (bits ? 0.125 : 1);
    }
  return 0;
}

static double time_factor(const char *suffix) {
  static const unit units[] = {{"w", 604800}, {"d", 86400}, {"h", 3600},  {"m", 60},    {"s", 1},
                               {"ms", 1e-3},  {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(suffix, units[i].suffix) == 0) return units[i].factor;
  return 0;
}

static double speed_factor(const char *suffix) {
  static const char *const words[] = {"flops",     "kiloflops", "megaflops",
                                      "gigaflops", "teraflops", "petaflops",
                                      "exaflops",  "zetaflops", "yottaflops"};
  char text[16];
  double scale = 1;
  for (int i = 0; i < 9; i++, scale *= 1000) {
    snprintf(text, sizeof text, "%sf", decimal[i]);
    if (strcmp(suffix, text) == 0 || strcmp(suffix, words[i]) == 0) return scale;
  }
  return 0;
}

/* value [unit] with unit known to factor (a bare number: factor 1). */
static int parse_unit(const char *text, double (*factor)(const char *), double *out) {
  char *end;
  double value = strtod(text, &end);
  if (end == text || !isfinite(value) || value < 0) return -1;
  double f = *end ? factor(end) : 1;
  if (f == 0) return -1;
  *out = value * f;
  return isfinite(*out) ? 0 : -1;
}

/* ---- attributes ---------------------------------------------------------- */

static int check_attributes(const reader *r, const xmlNode *node, const char *const *allowed) {
  for (const xmlAttr *a = node->properties; a; a = a->next) {
    int known = 0;
    for (const char *const *k = allowed; *k && !a->ns; k++)
      known |= strcmp(*k, (const char *)a->name) == 0;
    if (!known) {
      char list[400] = "";
      for (const char *const *k = allowed; *k; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k == allowed ? "" : " ",
                 *k);
      return at(r, node, "expected only the attributes %s on <%s> (got %.64s)", list, node->name,
                a->name);
    }
  }
  return 0;
}

/* The attribute's text into buffer, or def (NULL: required). */
static int text_attribute(const reader *r, const xmlNode *node, const char *name, const char *def,
                          char *buffer, size_t size) {
  xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)name);
  if (!value && !def) return at(r, node, "expected attribute %s on <%s>", name, node->name);
  const char *text = value ? (const char *)value : def;
  int status = 0;
  if (strlen(text) >= size)
    status = at(r, node, "expected %s of at most %zu bytes", name, size - 1);
  else
    snprintf(buffer, size, "%s", text);
  xmlFree(value);
  return status;
}

static int unit_attribute(const reader *r, const xmlNode *node, const char *name, const char *def,
                          double (*factor)(const char *), const char *what, double *out) {
  char text[128];
  if (text_attribute(r, node, name, def, text, sizeof text)) return -1;
  char *comma = strchr(text, ','); /* speeds may list power states: the first is used */
  if (comma && factor == speed_factor) *comma = 0;
  if (parse_unit(text, factor, out))
    return at(r, node, "expected %s=\"%s\" (got \"%.64s\")", name, what, text);
  return 0;
}

static int bandwidth_attribute(const reader *r, const xmlNode *node, const char *name,
                               const char *def, double *out) {
  return unit_attribute(r, node, name, def, bandwidth_factor,
                        "a bandwidth: a number and Bps or bps with k M G ... or Ki Mi Gi ...", out);
}
static int time_attribute(const reader *r, const xmlNode *node, const char *name, const char *def,
                          double *out) {
  return unit_attribute(r, node, name, def, time_factor,
                        "a time: a number and w d h m s ms us ns or ps", out);
}
static int speed_attribute(const reader *r, const xmlNode *node, double *out) {
  if (unit_attribute(r, node, "speed", NULL, speed_factor,
                     "a speed: a number and f with k M G ... or flops, kiloflops ...", out))
    return -1;
  if (!(*out > 0)) return at(r, node, "expected speed > 0");
  return 0;
}

static int count_attribute(const reader *r, const xmlNode *node, const char *name, const char *def,
                           int32_t *out) {
  char text[32];
  if (text_attribute(r, node, name, def, text, sizeof text)) return -1;
  char *end;
  long value = strtol(text, &end, 10);
  if (end == text || *end || value < 1 || value > (1 << 24))
    return at(r, node, "expected %s=\"N\" with N a whole number from 1 to %d (got \"%s\")", name,
              1 << 24, text);
  *out = (int32_t)value;
  return 0;
}

/* One of words (index), or -1 with err set. */
static int choice_attribute(const reader *r, const xmlNode *node, const char *name, const char *def,
                            const char *const *words, int *out) {
  char text[64];
  if (text_attribute(r, node, name, def, text, sizeof text)) return -1;
  char list[300] = "";
  for (int i = 0; words[i]; i++) {
    if (strcmp(text, words[i]) == 0) return *out = i, 0;
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", words[i]);
  }
  return at(r, node, "expected %s= one of %s (got \"%.64s\")", name, list, text);
}

/* Only <prop> children (skipped) and blanks. */
static int check_no_children(const reader *r, const xmlNode *node) {
  for (const xmlNode *c = node->children; c; c = c->next) {
    if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE || fs_xml_is_element(c, "prop"))
      continue;
    if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
        fs_xml_is_blank(c->content))
      continue;
    return at(r, c, "expected nothing but <prop> inside <%s>", node->name);
  }
  return 0;
}

static int relay(const reader *r, const xmlNode *node, int status) {
  if (status >= 0) return status;
  char why[sizeof r->err->message];
  snprintf(why, sizeof why, "%s", r->err->message);
  return at(r, node, "%s", why);
}

/* ---- elements ------------------------------------------------------------ */

enum { POLICY_SHARED, POLICY_FATPIPE, POLICY_SPLITDUPLEX, POLICY_FULLDUPLEX };
static const char *const policies[] = {"SHARED", "FATPIPE", "SPLITDUPLEX", "FULLDUPLEX", NULL};

static int read_link(reader *r, const xmlNode *node) {
  static const char *const allowed[] = {"id", "bandwidth", "latency", "sharing_policy", NULL};
  char id[256];
  double bandwidth = 0, latency = 0;
  int policy = 0;
  if (check_attributes(r, node, allowed) || check_no_children(r, node) ||
      text_attribute(r, node, "id", NULL, id, sizeof id - 8) ||
      bandwidth_attribute(r, node, "bandwidth", NULL, &bandwidth) ||
      time_attribute(r, node, "latency", "0", &latency) ||
      choice_attribute(r, node, "sharing_policy", "SHARED", policies, &policy))
    return -1;
  if (strcmp(id, "__loopback__") == 0)
    return at(r, node, "expected a link id other than __loopback__ (reserved)");
  if (policy >= POLICY_SPLITDUPLEX) {
    char half[264];
    snprintf(half, sizeof half, "%s_UP", id);
    if (relay(r, node,
              fs_network_add_link(r->net, half, bandwidth, latency, FS_LINK_SHARED, r->err)) < 0)
      return -1;
    snprintf(half, sizeof half, "%s_DOWN", id);
    return relay(r, node,
                 fs_network_add_link(r->net, half, bandwidth, latency, FS_LINK_SHARED, r->err)) < 0
               ? -1
               : 0;
  }
  return relay(r, node,
               fs_network_add_link(r->net, id, bandwidth, latency,
                                   policy == POLICY_FATPIPE ? FS_LINK_FATPIPE : FS_LINK_SHARED,
                                   r->err)) < 0
             ? -1
             : 0;
}

static int read_host(reader *r, const xmlNode *node, int32_t zone) {
  static const char *const allowed[] = {"id", "speed", "core", NULL};
  char id[256];
  double speed = 0;
  int32_t cores = 1;
  if (check_attributes(r, node, allowed) || check_no_children(r, node) ||
      text_attribute(r, node, "id", NULL, id, sizeof id) || speed_attribute(r, node, &speed) ||
      count_attribute(r, node, "core", "1", &cores))
    return -1;
  return relay(r, node, fs_network_add_host_in(r->net, zone, id, speed, cores, r->err)) < 0 ? -1
                                                                                            : 0;
}

static int read_router(reader *r, const xmlNode *node, int32_t zone) {
  static const char *const allowed[] = {"id", "coordinates", NULL};
  char id[256];
  if (check_attributes(r, node, allowed) || check_no_children(r, node) ||
      text_attribute(r, node, "id", NULL, id, sizeof id))
    return -1;
  return relay(r, node, fs_network_add_router(r->net, zone, id, r->err)) < 0 ? -1 : 0;
}

/* A <link_ctn>'s link id (the _UP or _DOWN half of a split link), reversed
 * for the symmetrical route when reverse. */
static int link_ctn(reader *r, const xmlNode *node, int reverse, int32_t *link) {
  static const char *const allowed[] = {"id", "direction", NULL};
  static const char *const directions[] = {"NONE", "UP", "DOWN", NULL};
  char id[256], name[264];
  int direction;
  if (check_attributes(r, node, allowed) || check_no_children(r, node) ||
      text_attribute(r, node, "id", NULL, id, sizeof id) ||
      choice_attribute(r, node, "direction", "NONE", directions, &direction))
    return -1;
  if (reverse && direction) direction = 3 - direction;
  if (direction)
    snprintf(name, sizeof name, "%s_%s", id, direction == 1 ? "UP" : "DOWN");
  else
    snprintf(name, sizeof name, "%s", id);
  *link = fs_network_link_by_name(r->net, name);
  if (*link >= 0) return 0;
  char up[264];
  snprintf(up, sizeof up, "%s_UP", id);
  int split = !direction && fs_network_link_by_name(r->net, up) >= 0;
  return at(r, node, "expected a link declared before (got %s%s)", name,
            split ? ": a SPLITDUPLEX link needs direction=\"UP\" or \"DOWN\"" : "");
}

static int32_t point_attribute(reader *r, const xmlNode *node, const char *name) {
  char id[256];
  if (text_attribute(r, node, name, NULL, id, sizeof id)) return -1;
  int32_t p = fs_network_point_by_name(r->net, id);
  if (p < 0)
    return at(r, node, "expected %s= a host, router or zone declared before (got %s)", name, id);
  return p;
}

static int read_route(reader *r, const xmlNode *node, int32_t zone, int between_zones) {
  static const char *const plain[] = {"src", "dst", "symmetrical", NULL};
  static const char *const zoned[] = {"src", "dst", "gw_src", "gw_dst", "symmetrical", NULL};
  static const char *const yes_no[] = {"YES", "NO", "yes", "no", NULL};
  int symmetrical;
  if (check_attributes(r, node, between_zones ? zoned : plain) ||
      choice_attribute(r, node, "symmetrical", "YES", yes_no, &symmetrical))
    return -1;
  symmetrical = symmetrical % 2 == 0;
  int32_t src = point_attribute(r, node, "src"),
          dst = src < 0 ? -1 : point_attribute(r, node, "dst");
  int32_t gs = -1, gd = -1;
  if (dst < 0) return -1;
  if (between_zones && ((gs = point_attribute(r, node, "gw_src")) < 0 ||
                        (gd = point_attribute(r, node, "gw_dst")) < 0))
    return -1;
  int32_t *links = malloc(FS_NETWORK_MAX_ROUTE * 2 * sizeof *links);
  if (!links) return fs_error_out_of_memory(r->err, "a route", FS_NETWORK_MAX_ROUTE * 8);
  int32_t count = 0, status = 0;
  for (const xmlNode *c = node->children; c && !status; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (fs_xml_is_element(c, "prop")) continue;
    if (!fs_xml_is_element(c, "link_ctn")) {
      status = at(r, c, "expected only <link_ctn> inside <%s>", node->name);
      break;
    }
    if (count == FS_NETWORK_MAX_ROUTE) {
      status = at(r, c, "expected at most %d links in a route", FS_NETWORK_MAX_ROUTE);
      break;
    }
    status = link_ctn(r, c, 0, &links[count]);
    if (!status && symmetrical)
      status = link_ctn(r, c, 1, &links[2 * FS_NETWORK_MAX_ROUTE - 1 - count]);
    count++;
  }
  if (!status)
    status = relay(r, node,
                   fs_network_add_zone_route(r->net, zone, src, dst, gs, gd, links, count, r->err));
  if (!status && symmetrical && src != dst)
    status =
        relay(r, node,
              fs_network_add_zone_route(r->net, zone, dst, src, gd, gs,
                                        links + 2 * FS_NETWORK_MAX_ROUTE - count, count, r->err));
  free(links);
  return status ? -1 : 0;
}

/* "0-3,5" into radicals (malloc'd). */
static int read_radicals(reader *r, const xmlNode *node, int64_t **out, int32_t *count) {
  xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)"radical");
  if (!value) return at(r, node, "expected attribute radical on <cluster>");
  const char *s = (const char *)value;
  int64_t total = 0, cap = 0;
  int64_t *list = NULL;
  int status = 0;
  while (*s && !status) {
    char *end;
    long long a = strtoll(s, &end, 10), b = a;
    if (end == s || a < 0)
      status = -1;
    else if (*end == '-') {
      const char *t = end + 1;
      b = strtoll(t, &end, 10);
      if (end == t || b < a) status = -1;
    }
    if (!status && (b > INT32_MAX || (*end && *end != ','))) status = -1;
    if (!status && total + (b - a + 1) > (1 << 24)) status = -2;
    for (long long v = a; !status && v <= b; v++) {
      if (total == cap) {
        int64_t *bigger = realloc(list, (size_t)(cap = cap ? cap * 2 : 64) * sizeof *list);
        if (!bigger)
          status = -3;
        else
          list = bigger;
      }
      if (!status) list[total++] = v;
    }
    s = *end ? end + 1 : end;
  }
  if (!status && total == 0) status = -1;
  if (status == -1)
    at(r, node,
       "expected radical=\"R\" with R numbers and ranges a-b joined by commas (got \"%.64s\")",
       (const char *)value);
  if (status == -2) at(r, node, "expected at most %d hosts in a cluster", 1 << 24);
  if (status == -3) fs_error_out_of_memory(r->err, "a cluster", total * 8);
  xmlFree(value);
  if (status) return free(list), -1;
  *out = list;
  *count = (int32_t)total;
  return 0;
}

/* topo_parameters into spec->params (see network_build.h). */
static int read_topology(reader *r, const xmlNode *node, fs_cluster_spec *spec) {
  char text[512];
  if (spec->topology == FS_ZONE_FLAT) return 0;
  if (text_attribute(r, node, "topo_parameters", NULL, text, sizeof text)) return -1;
  int32_t values[3 * FS_CLUSTER_MAX_DIMS + 1], count = 0, groups[8], group_count = 1;
  groups[0] = 0;
  for (char *s = text; *s;) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > (1 << 24) || count == 3 * FS_CLUSTER_MAX_DIMS + 1) goto bad;
    values[count++] = (int32_t)v;
    if (*end == ';') {
      if (group_count == 8) goto bad;
      groups[group_count++] = count;
    } else if (*end && *end != ',')
      goto bad;
    s = *end ? end + 1 : end;
  }
  if (spec->topology == FS_ZONE_TORUS) {
    if (group_count != 1 || count > FS_CLUSTER_MAX_DIMS || count < 1) goto bad;
  } else if (spec->topology == FS_ZONE_FAT_TREE) {
    int32_t L = values[0];
    if (group_count != 4 || L > FS_CLUSTER_MAX_DIMS || count != 1 + 3 * L || groups[1] != 1 ||
        groups[2] != 1 + L || groups[3] != 1 + 2 * L)
      goto bad;
  } else if (group_count != 4 || count != 7 || groups[1] != 2 || groups[2] != 4 || groups[3] != 6) {
    goto bad;
  }
  memcpy(spec->params, values, (size_t)count * sizeof *values);
  spec->param_count = count;
  return 0;
bad:
  return at(r, node, "expected topo_parameters=\"%s\" (got \"%.64s\")",
            spec->topology == FS_ZONE_TORUS ? "d0,d1,...: up to 16 dimensions, each >= 1"
            : spec->topology == FS_ZONE_FAT_TREE
                ? "L;down_0,..;up_0,..;count_0,.. with L numbers in each list"
                : "G,nb;C,nk;B,ng;N",
            text);
}

static int read_cluster(reader *r, const xmlNode *node, int32_t zone) {
  static const char *const allowed[] = {"id",
                                        "prefix",
                                        "suffix",
                                        "radical",
                                        "speed",
                                        "core",
                                        "bw",
                                        "lat",
                                        "sharing_policy",
                                        "topology",
                                        "topo_parameters",
                                        "bb_bw",
                                        "bb_lat",
                                        "bb_sharing_policy",
                                        "limiter_link",
                                        "loopback_bw",
                                        "loopback_lat",
                                        "router_id",
                                        NULL};
  static const char *const topologies[] = {"FLAT", "TORUS", "FAT_TREE", "DRAGONFLY", NULL};
  static const char *const bb_policies[] = {"SHARED", "FATPIPE", NULL};
  char id[256], prefix[256], suffix[256], router[256];
  fs_cluster_spec s = {0};
  int policy, topology, bb_policy, has_router;
  if (check_attributes(r, node, allowed) || check_no_children(r, node) ||
      text_attribute(r, node, "id", NULL, id, sizeof id) ||
      text_attribute(r, node, "prefix", NULL, prefix, sizeof prefix) ||
      text_attribute(r, node, "suffix", NULL, suffix, sizeof suffix) ||
      text_attribute(r, node, "router_id", "", router, sizeof router) ||
      speed_attribute(r, node, &s.speed) || count_attribute(r, node, "core", "1", &s.cores) ||
      bandwidth_attribute(r, node, "bw", NULL, &s.bandwidth) ||
      time_attribute(r, node, "lat", NULL, &s.latency) ||
      choice_attribute(r, node, "sharing_policy", "SPLITDUPLEX", policies, &policy) ||
      choice_attribute(r, node, "topology", "FLAT", topologies, &topology) ||
      bandwidth_attribute(r, node, "bb_bw", "0", &s.backbone_bandwidth) ||
      time_attribute(r, node, "bb_lat", "0", &s.backbone_latency) ||
      choice_attribute(r, node, "bb_sharing_policy", "SHARED", bb_policies, &bb_policy) ||
      bandwidth_attribute(r, node, "limiter_link", "0", &s.limiter) ||
      bandwidth_attribute(r, node, "loopback_bw", "0", &s.loopback_bandwidth) ||
      time_attribute(r, node, "loopback_lat", "0", &s.loopback_latency))
    return -1;
  has_router = router[0] != 0;
  s.id = id, s.prefix = prefix, s.suffix = suffix, s.router_id = has_router ? router : NULL;
  s.split = policy >= POLICY_SPLITDUPLEX;
  s.backbone_fatpipe = bb_policy == 1;
  s.topology = (fs_zone_kind)(FS_ZONE_FLAT + topology);
  if (topology && (s.backbone_bandwidth > 0 || s.backbone_latency > 0))
    return at(r, node, "expected no bb_bw or bb_lat on a %s cluster (only FLAT has a backbone)",
              topologies[topology]);
  int64_t *radicals = NULL;
  if (read_topology(r, node, &s) || read_radicals(r, node, &radicals, &s.count)) return -1;
  s.radicals = radicals;
  int status = relay(r, node, fs_network_add_cluster(r->net, zone, &s, r->err));
  free(radicals);
  return status < 0 ? -1 : 0;
}

static int read_zone(reader *r, const xmlNode *node, int32_t parent);

/* The children of a zone (or of <platform>, zone 0) in document order. */
static int read_children(reader *r, const xmlNode *node, int32_t zone) {
  for (const xmlNode *c = node->children; c; c = c->next) {
    if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) continue;
    if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
        fs_xml_is_blank(c->content))
      continue;
    int status;
    if (c->type != XML_ELEMENT_NODE || c->ns)
      status = at(r, c, "expected an element inside <%s>", node->name);
    else if (fs_xml_is_element(c, "prop"))
      status = 0;
    else if (fs_xml_is_element(c, "zone"))
      status = read_zone(r, c, zone);
    else if (fs_xml_is_element(c, "cluster"))
      status = read_cluster(r, c, zone);
    else if (fs_xml_is_element(c, "host") && zone > 0)
      status = read_host(r, c, zone);
    else if (fs_xml_is_element(c, "link") && zone > 0)
      status = read_link(r, c);
    else if (fs_xml_is_element(c, "router") && zone > 0)
      status = read_router(r, c, zone);
    else if (fs_xml_is_element(c, "route") && zone > 0)
      status = read_route(r, c, zone, 0);
    else if (fs_xml_is_element(c, "zoneRoute") && zone > 0)
      status = read_route(r, c, zone, 1);
    else
      status =
          at(r, c, "expected %s (got <%.64s>)",
             zone > 0
                 ? "<zone>, <cluster>, <host>, <link>, <router>, <route>, <zoneRoute> or <prop>"
                 : "<zone>, <cluster> or <prop> inside <platform>",
             c->name);
    if (status) return -1;
  }
  return 0;
}

static int read_zone(reader *r, const xmlNode *node, int32_t parent) {
  static const char *const allowed[] = {"id", "routing", NULL};
  static const char *const routings[] = {"Full", "Floyd", "Dijkstra", "DijkstraCache", NULL};
  char id[256];
  int routing;
  if (check_attributes(r, node, allowed) || text_attribute(r, node, "id", NULL, id, sizeof id) ||
      choice_attribute(r, node, "routing", NULL, routings, &routing))
    return -1;
  fs_zone_kind kind = routing == 0 ? FS_ZONE_FULL : routing == 1 ? FS_ZONE_FLOYD : FS_ZONE_DIJKSTRA;
  int32_t zone = relay(r, node, fs_network_add_zone(r->net, parent, id, kind, r->err));
  return zone < 0 ? -1 : read_children(r, node, zone);
}

/* ---- the document ---------------------------------------------------------- */

static int read_platform(reader *r, const xmlNode *root) {
  static const char *const allowed[] = {"version", NULL};
  char version[32];
  if (!fs_xml_is_element(root, "platform"))
    return at(r, root, "expected a <platform> root element (got <%.64s>)", root->name);
  if (check_attributes(r, root, allowed) ||
      text_attribute(r, root, "version", NULL, version, sizeof version))
    return -1;
  char *end;
  double v = strtod(version, &end);
  if (end == version || *end || v < 4 || v > 4.1)
    return at(r, root,
              "expected version=\"4.1\" (or 4, 4.0: SimGrid's platform format 4; got \"%s\")",
              version);
  if (read_children(r, root, 0)) return -1;
  if (fs_network_hosts(r->net) == 0) return at(r, root, "expected at least one host");
  return relay(r, root, fs_network_seal(r->net, r->err));
}

fs_network *fs_simgrid_platform_read_memory(const char *data, size_t length, const char *name,
                                            fs_error *err) {
  xmlDocPtr doc = fs_xml_parse_doctype(data, length, name, "platform", "platform",
                                       FS_SIMGRID_MAX_BYTES, FS_SIMGRID_MAX_ELEMENTS, err);
  if (!doc) return NULL;
  reader r = {name, err, fs_network_new(err)};
  if (r.net && read_platform(&r, xmlDocGetRootElement(doc))) {
    fs_network_free(r.net);
    r.net = NULL;
  }
  xmlFreeDoc(doc);
  return r.net;
}

fs_network *fs_simgrid_platform_read(const char *path, fs_error *err) {
  size_t length;
  char *data = fs_xml_read_file(path, FS_SIMGRID_MAX_BYTES, &length, err);
  if (!data) return NULL;
  fs_network *n = fs_simgrid_platform_read_memory(data, length, path, err);
  free(data);
  return n;
}

int fs_simgrid_platform_sniff(const char *data, size_t length) {
  const char *end = data + length;
  for (const char *p = data; p + 9 < end; p++) {
    if (memcmp(p, "<platform", 9) != 0) continue;
    for (const char *q = p + 9; q + 8 < end && *q != '>'; q++)
      if (memcmp(q, "version", 7) == 0) return 1;
    return 0;
  }
  return 0;
}

int fs_simgrid_platform_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char head[4096];
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return fs_simgrid_platform_sniff(head, n);
}
