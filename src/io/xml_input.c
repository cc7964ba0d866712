/* xml_input.c: see xml_input.h. libxml2 builds a small tree from memory
 * under per-context SAX hooks (first error, element count, DOCTYPE
 * refusal). */
#include "io/xml_input.h"

#include <stdarg.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

/* Per-parse state reached from the hooks through ctxt->_private. */
typedef struct parse_state {
  const char *name;
  fs_error *err;
  int failed;
  int64_t elements;
  int max_elements;
  const char *doctype; /* the one DOCTYPE name accepted (no internal subset), or NULL */
} parse_state;

static void stop(xmlParserCtxtPtr ctxt, const char *what) {
  parse_state *s = ctxt->_private;
  if (!s->failed) {
    s->failed = 1;
    int line = ctxt->input ? ctxt->input->line : 0;
    fs_error_set(s->err, "%s:%d: %s", s->name, line, what);
  }
  xmlStopParser(ctxt);
}

/* Keeps libxml2's first error (later ones are mostly consequences) and
 * keeps it off stderr. */
static void on_error(void *user, xmlErrorPtr e) {
  xmlParserCtxtPtr ctxt = user;
  parse_state *s = ctxt->_private;
  if (s->failed || e->level < XML_ERR_ERROR) return;
  s->failed = 1;
  const char *message = e->message ? e->message : "error";
  size_t length = strlen(message);
  while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == ' ')) length--;
  if (length > 300) length = 300;
  fs_error_set(s->err, "%s:%d:%d: expected well-formed XML (libxml2: %.*s)", s->name, e->line,
               e->int2, (int)length, message);
}

/* Called before the internal subset is read: stopping here means no
 * entity declaration is ever parsed, let alone expanded. */
static void on_doctype(void *user, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id) {
  (void)external_id, (void)system_id;
  xmlParserCtxtPtr ctxt = user;
  parse_state *s = ctxt->_private;
  /* libxml2 calls this with the input at '[' (an internal subset follows)
   * or at '>'; the external DTD is never loaded (no DTDLOAD, NONET). */
  const xmlChar *next = ctxt->input ? ctxt->input->cur : NULL;
  if (s->doctype && name && strcmp((const char *)name, s->doctype) == 0 && next && *next == '>')
    return;
  stop(user, s->doctype ? "expected no DOCTYPE but <!DOCTYPE platform SYSTEM \"...\"> without an "
                          "internal subset (DTDs and entities are not read)"
                        : "expected no DOCTYPE (DTDs and entities are not read)");
}

static void on_element(void *user, const xmlChar *localname, const xmlChar *prefix,
                       const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                       int nb_attributes, int nb_defaulted, const xmlChar **attributes) {
  xmlParserCtxtPtr ctxt = user;
  parse_state *s = ctxt->_private;
  if (++s->elements > s->max_elements) {
    char what[64];
    snprintf(what, sizeof what, "expected at most %d elements", s->max_elements);
    stop(ctxt, what);
    return;
  }
  xmlSAX2StartElementNs(user, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                        nb_defaulted, attributes);
}

/* libxml2's encoding layer reports through the generic handler, not the
 * context; this swallows it while we parse (the parser then fails with its
 * own error through on_error). */
static void FS_PRINTF(2, 3) quiet(void *user, const char *format, ...) { (void)user, (void)format; }

/* Runs the parser with the hooks installed; the document or NULL. */
static xmlDocPtr run_parser(xmlParserCtxtPtr ctxt, parse_state *s) {
  ctxt->_private = s;
  ctxt->sax->serror = on_error;
  ctxt->sax->internalSubset = on_doctype;
  ctxt->sax->startElementNs = on_element;
  /* per-thread in libxml2; restored right after */
  xmlGenericErrorFunc saved_handler = xmlGenericError;
  void *saved_context = xmlGenericErrorContext;
  xmlSetGenericErrorFunc(NULL, quiet);
  xmlParseDocument(ctxt);
  xmlSetGenericErrorFunc(saved_context, saved_handler);
  xmlDocPtr doc = ctxt->myDoc;
  ctxt->myDoc = NULL;
  if (!s->failed && !ctxt->wellFormed) {
    s->failed = 1;
    fs_error_set(s->err, "%s:%d: expected well-formed XML", s->name,
                 ctxt->input ? ctxt->input->line : 0);
  }
  return doc;
}

xmlDocPtr fs_xml_parse(const char *data, size_t length, const char *name, const char *root,
                       size_t max_bytes, int max_elements, fs_error *err) {
  return fs_xml_parse_doctype(data, length, name, root, NULL, max_bytes, max_elements, err);
}

xmlDocPtr fs_xml_parse_doctype(const char *data, size_t length, const char *name, const char *root,
                               const char *doctype, size_t max_bytes, int max_elements,
                               fs_error *err) {
  if (length == 0)
    return fs_error_set(err, "%s:1: expected a <%s> element (got an empty file)", name, root), NULL;
  if (length > max_bytes || length > INT32_MAX)
    return fs_error_set(err, "%s: expected at most %zu bytes of XML", name, max_bytes), NULL;
  xmlInitParser();
  xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(data, (int)length);
  if (!ctxt) return fs_error_set(err, "%s: out of memory", name), NULL;
  /* no XML_PARSE_NOENT, DTDLOAD, XINCLUDE or HUGE: libxml2's limits stay on */
  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOERROR |
                              XML_PARSE_NOWARNING);
  parse_state s = {name, err, 0, 0, max_elements, doctype};
  xmlDocPtr doc = run_parser(ctxt, &s);
  xmlFreeParserCtxt(ctxt);
  if (s.failed || !doc) {
    xmlFreeDoc(doc);
    if (!s.failed) fs_error_set(err, "%s: out of memory", name);
    return NULL;
  }
  return doc;
}

char *fs_xml_read_file(const char *path, size_t max_bytes, size_t *length, fs_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return fs_error_set(err, "%s: cannot open", path), NULL;
  size_t used = 0, capacity = 1 << 16;
  char *data = malloc(capacity);
  while (data) {
    used += fread(data + used, 1, capacity - used, f);
    if (used < capacity || used > max_bytes) break;
    size_t next = capacity * 2 > max_bytes ? max_bytes + 1 : capacity * 2;
    char *bigger = realloc(data, next);
    if (!bigger) free(data);
    data = bigger;
    capacity = next;
  }
  const char *why = !data ? "out of memory" : ferror(f) ? "read error" : NULL;
  fclose(f);
  if (why) {
    free(data);
    return fs_error_set(err, "%s: %s", path, why), NULL;
  }
  *length = used;
  return data;
}

int fs_xml_error_at(fs_error *err, const char *file, const xmlNode *node, const char *format, ...) {
  char what[900];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return fs_error_set(err, "%s:%ld: %s", file, xmlGetLineNo(node), what);
}

int fs_xml_is_element(const xmlNode *node, const char *name) {
  return node->type == XML_ELEMENT_NODE && !node->ns && strcmp((const char *)node->name, name) == 0;
}

int fs_xml_is_blank(const xmlChar *text) {
  for (; text && *text; text++)
    if (!strchr(" \t\r\n", *text)) return 0;
  return 1;
}
