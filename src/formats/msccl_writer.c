/* msccl_writer.c: see msccl_writer.h. The text grows in a buffer that
 * doubles; the first failed growth makes the result NULL. */
#include "formats/msccl_writer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"

typedef struct text {
  char *data;
  size_t used, capacity;
  int failed;
} text;

static void FS_PRINTF(2, 3) add(text *t, const char *format, ...) {
  for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(t->data ? t->data + t->used : NULL, t->data ? t->capacity - t->used : 0,
                      format, args);
    va_end(args);
    if (n < 0) t->failed = 1;
    if (t->failed || (t->data && t->used + (size_t)n < t->capacity)) {
      if (!t->failed) t->used += (size_t)n;
      return;
    }
    size_t capacity = t->capacity ? t->capacity : 4096;
    while (capacity <= t->used + (size_t)n) capacity *= 2;
    char *grown = realloc(t->data, capacity);
    if (!grown)
      t->failed = 1;
    else
      t->data = grown, t->capacity = capacity;
  }
}

/* The name with &, <, >, " and ' escaped. */
static void add_name(text *t, const char *name) {
  for (const char *c = name; *c; c++) switch (*c) {
      case '&': add(t, "&amp;"); break;
      case '<': add(t, "&lt;"); break;
      case '>': add(t, "&gt;"); break;
      case '"': add(t, "&quot;"); break;
      case '\'': add(t, "&apos;"); break;
      default: add(t, "%c", *c);
    }
}

static void add_step(text *t, const fs_msccl_step *s, int32_t index) {
  add(t,
      "      <step s=\"%d\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%d\" dstbuf=\"%c\" dstoff=\"%d\" "
      "cnt=\"%d\" depid=\"%d\" deps=\"%d\" hasdep=\"%d\"/>\n",
      index, fs_msccl_type_name((fs_msccl_type)s->type), "ios"[s->srcbuf % 3], s -> srcoff,
      "ios"[s->dstbuf % 3], s -> dstoff, s -> cnt, s -> depid, s -> deps, s -> hasdep);
}

char *fs_msccl_xml(const fs_msccl *m, size_t *length) {
  text t = {NULL, 0, 0, 0};
  add(&t, "<algo name=\"");
  add_name(&t, m->name);
  add(&t,
      "\" proto=\"%s\" nchannels=\"%d\" nchunksperloop=\"%d\" ngpus=\"%d\" coll=\"%s\" "
      "inplace=\"%d\" outofplace=\"%d\" minBytes=\"%lld\" maxBytes=\"%lld\"",
      fs_protocol_name(m->proto), m->nchannels, m->nchunksperloop, m->ngpus,
      fs_msccl_coll_name(m->coll), m->inplace, m->outofplace, (long long)m->min_bytes,
      (long long)m->max_bytes);
  if (m->nthreads) add(&t, " nthreads=\"%d\"", m->nthreads);
  add(&t, ">\n");
  for (int32_t g = 0; g < m->ngpus; g++) {
    const fs_msccl_gpu *gpu = &m->gpu[g];
    add(&t, "  <gpu id=\"%d\" i_chunks=\"%d\" o_chunks=\"%d\" s_chunks=\"%d\">\n", g,
        gpu->chunks[FS_MSCCL_INPUT], gpu->chunks[FS_MSCCL_OUTPUT], gpu->chunks[FS_MSCCL_SCRATCH]);
    for (int32_t b = 0; b < gpu->count; b++) {
      const fs_msccl_tb *tb = &m->tb[gpu->first + b];
      add(&t, "    <tb id=\"%d\" send=\"%d\" recv=\"%d\" chan=\"%d\">\n", b, tb->send, tb->recv,
          tb->chan);
      for (int32_t i = 0; i < tb->count; i++) add_step(&t, &m->step[tb->first + i], i);
      add(&t, "    </tb>\n");
    }
    add(&t, "  </gpu>\n");
  }
  add(&t, "</algo>\n");
  if (t.failed) {
    free(t.data);
    return NULL;
  }
  *length = t.used;
  return t.data;
}
