/* platform_xml.c: see platform_xml.h. io/xml_input.h builds a small
 * tree safely (first error, element count, DOCTYPE refusal); it is walked
 * and every value checked through the platform.h API, whose messages get a "FILE:LINE: " prefix here. */
#include "platform/platform_xml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "core/units.h"
#include "io/xml_input.h"
#include "platform/simgrid_platform.h"

typedef struct reader {
  const char *name;
  fs_error *err;
  int64_t ranks;
} reader;

/* The document, or NULL with err set. */
static xmlDocPtr parse(const char *data, size_t length, const char *name, fs_error *err) {
  return fs_xml_parse(data, length, name, "platform", FS_PLATFORM_XML_MAX_BYTES,
                      FS_PLATFORM_XML_MAX_ELEMENTS, err);
}

/* ---- the tree -------------------------------------------------------- */

/* "FILE:LINE: ..." at node */
#define at(r, node, ...) fs_xml_error_at((r)->err, (r)->name, (node), __VA_ARGS__)

/* Rejects any attribute not in allowed (a NULL-terminated list). */
static int check_attributes(const reader *r, const xmlNode *node, const char *const *allowed) {
  for (const xmlAttr *a = node->properties; a; a = a->next) {
    int known = 0;
    for (const char *const *n = allowed; *n && !a->ns; n++)
      known |= strcmp(*n, (const char *)a->name) == 0;
    if (!known)
      return at(r, node, "expected only %s%s%s on <%s> (got %.64s)", allowed[0],
                allowed[1] ? " and " : "", allowed[1] ? allowed[1] : "", node->name, a->name);
  }
  return 0;
}

/* Comments and blank text only. */
static int check_empty(const reader *r, const xmlNode *node) {
  for (const xmlNode *c = node->children; c; c = c->next) {
    if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) continue;
    if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
        fs_xml_is_blank(c->content))
      continue;
    return at(r, c, "expected nothing inside <%s> (got %s)", node->name,
              c->type == XML_ELEMENT_NODE ? "an element" : "text");
  }
  return 0;
}

/* The attribute's value (caller frees with xmlFree), or NULL with err. */
static xmlChar *attribute(const reader *r, const xmlNode *node, const char *name) {
  xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)name);
  if (!value) at(r, node, "expected attribute %s on <%s>", name, node->name);
  return value;
}

static int count_attribute(const reader *r, const xmlNode *node, const char *name, int64_t min,
                           int64_t max, int64_t *out) {
  xmlChar *value = attribute(r, node, name);
  if (!value) return -1;
  const char *text = (const char *)value;
  int status = 0;
  if (fs_parse_count(text, strlen(text), min, max, out))
    status = at(r, node, "expected %s=\"N\" with N a whole number in [%lld, %lld] (got \"%.64s\")",
                name, (long long)min, (long long)max, text);
  xmlFree(value);
  return status;
}

/* Runs a platform.h call's error through the element's line. */
static int relay(const reader *r, const xmlNode *node, int status, const fs_error *why) {
  return status ? at(r, node, "%s", why->message) : 0;
}

static int read_level(const reader *r, fs_platform *p, const xmlNode *node) {
  static const char *const allowed[] = {"name", "fanout", NULL};
  int64_t fanout;
  if (check_attributes(r, node, allowed) || check_empty(r, node) ||
      count_attribute(r, node, "fanout", 0, INT32_MAX, &fanout))
    return -1;
  xmlChar *name = attribute(r, node, "name");
  if (!name) return -1;
  fs_error why;
  int status =
      fs_platform_add_level(p, (const char *)name, strlen((const char *)name), fanout, &why);
  xmlFree(name);
  return relay(r, node, status, &why);
}

static int read_channel(const reader *r, fs_platform *p, const xmlNode *node) {
  static const char *const allowed[] = {"name", "level", NULL};
  int64_t level;
  if (check_attributes(r, node, allowed) || check_empty(r, node) ||
      count_attribute(r, node, "level", 0, INT32_MAX, &level))
    return -1;
  xmlChar *name = attribute(r, node, "name");
  if (!name) return -1;
  fs_error why;
  int status =
      fs_platform_add_channel(p, (const char *)name, strlen((const char *)name), level, &why);
  xmlFree(name);
  return relay(r, node, status, &why);
}

static size_t count_words(const char *text) {
  size_t words = 0;
  for (size_t i = 0; text[i]; i++)
    if (!strchr(" \t\r\n", text[i]) && (i == 0 || strchr(" \t\r\n", text[i - 1]))) words++;
  return words;
}

/* Fills nodes[0..count) from the blank-separated words of text. */
static int parse_nodes(const reader *r, const xmlNode *node, const char *text, int32_t *nodes) {
  size_t k = 0;
  for (const char *s = text; *s;) {
    s += strspn(s, " \t\r\n");
    size_t length = strcspn(s, " \t\r\n");
    if (length == 0) break;
    int64_t v;
    if (fs_parse_count(s, length, 0, INT32_MAX, &v))
      return at(r, node, "expected rank %zu's node as a whole number (got \"%.*s\")", k,
                length > 64 ? 64 : (int)length, s);
    nodes[k++] = (int32_t)v;
    s += length;
  }
  return 0;
}

static int map_explicit(const reader *r, fs_platform *p, const xmlNode *node) {
  for (const xmlNode *c = node->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) return at(r, c, "expected only node numbers inside <mapping>");
  xmlChar *content = xmlNodeGetContent(node);
  if (!content) return at(r, node, "out of memory");
  const char *text = (const char *)content;
  size_t words = count_words(text);
  int status = 0;
  if (words == 0 || (r->ranks > 0 && (int64_t)words != r->ranks)) {
    status = r->ranks > 0
                 ? at(r, node,
                      "expected %lld node numbers in the explicit mapping, one per rank (got %zu)",
                      (long long)r->ranks, words)
                 : at(r, node, "expected node numbers in the explicit mapping, one per rank");
  } else {
    int32_t *nodes = malloc(words * sizeof *nodes);
    fs_error why;
    if (!nodes)
      status = at(r, node, "out of memory for %zu ranks", words);
    else if (!(status = parse_nodes(r, node, text, nodes)))
      status = relay(r, node, fs_platform_map_explicit(p, (int64_t)words, nodes, &why), &why);
    free(nodes);
  }
  xmlFree(content);
  return status;
}

static int read_mapping(const reader *r, fs_platform *p, const xmlNode *node) {
  static const char *const allowed[] = {"kind", NULL};
  if (check_attributes(r, node, allowed)) return -1;
  xmlChar *value = attribute(r, node, "kind");
  if (!value) return -1;
  fs_mapping kind = fs_mapping_from_name((const char *)value, strlen((const char *)value));
  int status = 0;
  if (kind == FS_MAPPING_NONE)
    status = at(r, node,
                "expected kind=\"sequential\", \"round-robin\" or \"explicit\" (got \"%.64s\")",
                (const char *)value);
  xmlFree(value);
  if (status) return -1;
  if (kind == FS_MAPPING_EXPLICIT) return map_explicit(r, p, node);
  if (check_empty(r, node)) return -1;
  int64_t ranks = r->ranks > 0 ? r->ranks : (int64_t)p->nodes * p->cores;
  fs_error why;
  status = kind == FS_MAPPING_SEQUENTIAL ? fs_platform_map_sequential(p, ranks, &why)
                                         : fs_platform_map_round_robin(p, ranks, &why);
  return relay(r, node, status, &why);
}

/* Unknown elements and stray text among <platform>'s children. */
static int check_children(const reader *r, const xmlNode *root) {
  int mappings = 0;
  for (const xmlNode *c = root->children; c; c = c->next) {
    if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) continue;
    if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
        fs_xml_is_blank(c->content))
      continue;
    if (c->type != XML_ELEMENT_NODE) return at(r, c, "expected only elements inside <platform>");
    if (fs_xml_is_element(c, "mapping") && ++mappings > 1)
      return at(r, c, "expected at most one <mapping>");
    if (!fs_xml_is_element(c, "level") && !fs_xml_is_element(c, "channel") &&
        !fs_xml_is_element(c, "mapping"))
      return at(r, c, "expected <level>, <channel> or <mapping> (got <%.64s>%s)", c->name,
                c->ns ? " in a namespace" : "");
  }
  return 0;
}

/* Levels first, then channels (their levels depend on the tree), then the
 * mapping, whatever the order in the file. */
static int read_children(const reader *r, fs_platform *p, const xmlNode *root) {
  const xmlNode *mapping = NULL;
  for (const xmlNode *c = root->children; c; c = c->next)
    if (fs_xml_is_element(c, "level") && read_level(r, p, c)) return -1;
  for (const xmlNode *c = root->children; c; c = c->next) {
    if (fs_xml_is_element(c, "channel") && read_channel(r, p, c)) return -1;
    if (fs_xml_is_element(c, "mapping")) mapping = c;
  }
  fs_error why;
  if (relay(r, root, fs_platform_default_channels(p, &why), &why)) return -1;
  if (mapping) return read_mapping(r, p, mapping);
  int64_t ranks = r->ranks > 0 ? r->ranks : (int64_t)p->nodes * p->cores;
  return relay(r, root, fs_platform_map_sequential(p, ranks, &why), &why);
}

static fs_platform *read_platform(const reader *r, const xmlNode *root) {
  static const char *const allowed[] = {"nodes", "cores", NULL};
  if (!fs_xml_is_element(root, "platform"))
    return at(r, root,
              "expected <platform> without a namespace as the root element (got <%.64s>%s)",
              root->name, root->ns ? " in a namespace" : ""),
           NULL;
  int64_t nodes, cores;
  if (check_attributes(r, root, allowed) || check_children(r, root) ||
      count_attribute(r, root, "nodes", 1, INT32_MAX, &nodes) ||
      count_attribute(r, root, "cores", 1, INT32_MAX, &cores))
    return NULL;
  fs_error why;
  fs_platform *p = fs_platform_new(nodes, cores, &why);
  if (!p) return relay(r, root, -1, &why), NULL;
  if (read_children(r, p, root)) {
    fs_platform_free(p);
    return NULL;
  }
  return p;
}

/* A SimGrid platform for the models without routes: one node per host, in
 * host order, each with the hosts' core count (which must be the same on
 * every host), no levels, ranks mapped sequentially. */
static fs_platform *from_simgrid(const char *data, size_t length, const char *name, int64_t ranks,
                                 fs_error *err) {
  fs_network *n = fs_simgrid_platform_read_memory(data, length, name, err);
  if (!n) return NULL;
  int32_t hosts = fs_network_hosts(n), cores = fs_network_host_cores(n, 0);
  for (int32_t h = 1; h < hosts; h++)
    if (fs_network_host_cores(n, h) != cores) {
      fs_error_set(err,
                   "%s: hosts %s and %s have %d and %d cores: this model needs the same core "
                   "count on every host (the flow models take any)",
                   name, fs_network_host_name(n, 0), fs_network_host_name(n, h), cores,
                   fs_network_host_cores(n, h));
      fs_network_free(n);
      return NULL;
    }
  fs_network_free(n);
  fs_platform *p = fs_platform_new(hosts, cores, err);
  if (p && (fs_platform_default_channels(p, err) ||
            fs_platform_map_sequential(p, ranks ? ranks : (int64_t)hosts * cores, err))) {
    fs_platform_free(p);
    return NULL;
  }
  return p;
}

fs_platform *fs_platform_read_xml_memory(const char *data, size_t length, const char *name,
                                         int64_t ranks, fs_error *err) {
  if (ranks < 0 || ranks > INT32_MAX)
    return fs_error_set(err, "%s: expected ranks in [0, %d] (got %lld)", name, INT32_MAX,
                        (long long)ranks),
           NULL;
  if (fs_simgrid_platform_sniff(data, length)) return from_simgrid(data, length, name, ranks, err);
  xmlDocPtr doc = parse(data, length, name, err);
  if (!doc) return NULL;
  reader r = {name, err, ranks};
  const xmlNode *root = xmlDocGetRootElement(doc);
  fs_platform *p = root ? read_platform(&r, root)
                        : (fs_error_set(err, "%s:1: expected a <platform> element", name), NULL);
  xmlFreeDoc(doc);
  return p;
}

fs_platform *fs_platform_read_xml(const char *path, int64_t ranks, fs_error *err) {
  size_t length = 0;
  char *data = fs_xml_read_file(path, FS_PLATFORM_XML_MAX_BYTES, &length, err);
  if (!data) return NULL;
  fs_platform *p = fs_platform_read_xml_memory(data, length, path, ranks, err);
  free(data);
  return p;
}
