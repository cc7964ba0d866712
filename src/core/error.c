/* error.c: formatting of fs_error messages. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int fs_error_set(fs_error *err, const char *format, ...) {
  if (err) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(err->message, sizeof err->message, format, ap);
    va_end(ap);
  }
  return -1;
}
