/* model_xml.c: see model_xml.h. io/xml_input.h builds the tree
 * safely; this walks it into a kind and a list of parameters. */
#include "models/model_xml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/tree.h>

#include "io/xml_input.h"

typedef struct reader {
  const char *name;
  fs_error *err;
  fs_model_file *file;
} reader;

/* "FILE:LINE: ..." at node */
#define at(r, node, ...) fs_xml_error_at((r)->err, (r)->name, (node), __VA_ARGS__)

static int is_text(const xmlNode *node) {
  return node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE;
}

/* Rejects any attribute but the one or two allowed (second may be NULL). */
static int check_attributes(const reader *r, const xmlNode *node, const char *first,
                            const char *second) {
  for (const xmlAttr *a = node->properties; a; a = a->next) {
    const char *n = (const char *)a->name;
    if (!a->ns && (strcmp(n, first) == 0 || (second && strcmp(n, second) == 0))) continue;
    return at(r, node, "expected only %s%s%s on <%s> (got %.64s)", first, second ? " and " : "",
              second ? second : "", node->name, n);
  }
  return 0;
}

/* The attribute's value as a malloc'd string, or NULL with err set. */
static char *attribute(const reader *r, const xmlNode *node, const char *name) {
  xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)name);
  if (!value) return at(r, node, "expected attribute %s on <%s>", name, node->name), NULL;
  char *copy = strdup((const char *)value);
  xmlFree(value);
  if (!copy) at(r, node, "out of memory");
  return copy;
}

static int valid_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 63 || !strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", s[0]))
    return 0;
  return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* name= checked for form and uniqueness; malloc'd, or NULL with err. */
static char *parameter_name(const reader *r, const xmlNode *node) {
  char *name = attribute(r, node, "name");
  if (!name) return NULL;
  const fs_parameters *p = &r->file->params;
  int status = 0;
  if (!valid_name(name))
    status = at(r, node,
                "expected name=\"[A-Za-z][A-Za-z0-9_.-]*\" of at most 63 bytes on <%s> "
                "(got \"%.64s\")",
                node->name, name);
  for (int i = 0; !status && i < p->count; i++)
    if (strcmp(p->items[i].key, name) == 0)
      status = at(r, node, "expected each parameter once (got %s again, first at line %d)", name,
                  r->file->lines[i]);
  if (status) free(name);
  return status ? NULL : name;
}

static void add(const reader *r, const xmlNode *node, fs_parameter p) {
  fs_model_file *f = r->file;
  f->lines[f->params.count] = (int)xmlGetLineNo(node);
  f->params.items[f->params.count++] = p;
}

static int read_param(const reader *r, const xmlNode *node) {
  if (check_attributes(r, node, "name", "value")) return -1;
  for (const xmlNode *c = node->children; c; c = c->next)
    if (c->type != XML_COMMENT_NODE && !(is_text(c) && fs_xml_is_blank(c->content)))
      return at(r, c, "expected nothing inside <param>");
  char *name = parameter_name(r, node);
  char *value = name ? attribute(r, node, "value") : NULL;
  if (!value) return free(name), -1;
  add(r, node, (fs_parameter){.key = name, .value = value});
  return 0;
}

/* The rows with line - 1 newlines in front, so that text lines are file
 * lines; malloc'd, or NULL with err. */
static char *table_text(const reader *r, const xmlNode *node, size_t *length) {
  for (const xmlNode *c = node->children; c; c = c->next)
    if (!is_text(c))
      return at(r, c, "expected only rows of text inside <table> ('#' comments)"), NULL;
  xmlChar *content = xmlNodeGetContent(node);
  if (!content) return at(r, node, "out of memory"), NULL;
  long line = xmlGetLineNo(node);
  size_t pad = line > 1 ? (size_t)line - 1 : 0, n = strlen((const char *)content);
  char *text = malloc(pad + n + 1);
  if (text) {
    memset(text, '\n', pad);
    memcpy(text + pad, content, n + 1);
    *length = pad + n;
  } else {
    at(r, node, "out of memory");
  }
  xmlFree(content);
  return text;
}

static int read_table(const reader *r, const xmlNode *node) {
  if (check_attributes(r, node, "name", NULL)) return -1;
  size_t length = 0;
  char *name = parameter_name(r, node);
  char *text = name ? table_text(r, node, &length) : NULL;
  char *value = text ? strdup(r->name) : NULL;
  if (!value) {
    if (text) at(r, node, "out of memory");
    return free(name), free(text), -1;
  }
  add(r, node, (fs_parameter){.key = name, .value = value, .text = text, .text_length = length});
  return 0;
}

static int read_children(const reader *r, const xmlNode *root) {
  for (const xmlNode *c = root->children; c; c = c->next) {
    if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) continue;
    if (is_text(c) && fs_xml_is_blank(c->content)) continue;
    if (c->type != XML_ELEMENT_NODE) return at(r, c, "expected only elements inside <model>");
    int status = fs_xml_is_element(c, "param") ? read_param(r, c)
                 : fs_xml_is_element(c, "table")
                     ? read_table(r, c)
                     : at(r, c, "expected <param> or <table> (got <%.64s>%s)", c->name,
                          c->ns ? " in a namespace" : "");
    if (status) return -1;
  }
  return 0;
}

static int read_model(const reader *r, const xmlNode *root) {
  if (!fs_xml_is_element(root, "model"))
    return at(r, root, "expected <model> without a namespace as the root element (got <%.64s>%s)",
              root->name, root->ns ? " in a namespace" : "");
  if (check_attributes(r, root, "kind", NULL)) return -1;
  fs_model_file *f = r->file;
  if (!(f->kind = attribute(r, root, "kind"))) return -1;
  f->kind_line = (int)xmlGetLineNo(root);
  size_t children = xmlChildElementCount((xmlNodePtr)root) + 1;
  f->params.items = calloc(children, sizeof *f->params.items);
  f->lines = calloc(children, sizeof *f->lines);
  if (!f->params.items || !f->lines) return at(r, root, "out of memory");
  return read_children(r, root);
}

fs_model_file *fs_model_file_read_memory(const char *data, size_t length, const char *name,
                                         fs_error *err) {
  fs_model_file *f = calloc(1, sizeof *f);
  if (!f || !(f->name = strdup(name))) return free(f), fs_error_set(err, "out of memory"), NULL;
  xmlDocPtr doc = fs_xml_parse(data, length, name, "model", FS_MODEL_XML_MAX_BYTES,
                               FS_MODEL_XML_MAX_ELEMENTS, err);
  reader r = {name, err, f};
  const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
  int status = !doc   ? -1
               : root ? read_model(&r, root)
                      : fs_error_set(err, "%s:1: expected a <model> element", name);
  xmlFreeDoc(doc);
  if (status) fs_model_file_free(f);
  return status ? NULL : f;
}

/* A file a parameter names by a relative path is looked for first in
 * the model file's own directory: its value becomes that path when the
 * file exists there (else it stays, relative to the working directory). */
static int files_beside(fs_model_file *f, const char *path, fs_error *err) {
  const char *slash = strrchr(path, '/');
  for (int i = 0; slash && i < f->params.count; i++) {
    fs_parameter *p = &f->params.items[i];
    if (p->text || p->value[0] == '/' || !fs_parameter_names_file(p->key, p->value)) continue;
    size_t n = (size_t)(slash - path) + 1 + strlen(p->value) + 1;
    char *beside = malloc(n);
    if (!beside) return fs_error_set(err, "out of memory");
    snprintf(beside, n, "%.*s%s", (int)(slash - path) + 1, path, p->value);
    struct stat status;
    if (stat(beside, &status) != 0) {
      free(beside);
      continue;
    }
    free((char *)p->value);
    p->value = beside;
  }
  return 0;
}

fs_model_file *fs_model_file_read(const char *path, fs_error *err) {
  size_t length = 0;
  char *data = fs_xml_read_file(path, FS_MODEL_XML_MAX_BYTES, &length, err);
  if (!data) return NULL;
  fs_model_file *f = fs_model_file_read_memory(data, length, path, err);
  free(data);
  if (f && files_beside(f, path, err)) return fs_model_file_free(f), NULL;
  return f;
}

void fs_model_file_free(fs_model_file *file) {
  if (!file) return;
  for (int i = 0; i < file->params.count; i++) {
    fs_parameter *p = &file->params.items[i];
    free((char *)p->key), free((char *)p->value), free((char *)p->text);
  }
  free(file->params.items);
  free(file->lines);
  free(file->kind);
  free(file->name);
  free(file);
}
