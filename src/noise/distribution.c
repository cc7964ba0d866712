/* distribution.c: see distribution.h. Samplers (one draw = the uniforms
 * u_j = fs_random_uniform(seed, stream, fs_random_counter(index, j))):
 *   normal      Box-Muller on (u_2t, u_2t+1) gives two candidates per try t;
 *               the first >= 0 is the draw (truncation by rejection; parse
 *               demands mu >= -3 sigma, so each candidate passes with
 *               probability >= 0.00135 and all 65536 fail with probability
 *               < 1e-38; should they, the draw is 0).
 *   lognormal   exp(mu + sigma z), z by Box-Muller's cosine on (u_0, u_1).
 *   gamma       Marsaglia and Tsang (2000), three uniforms per try (normal
 *               from two, the test from one); shape < 1 draws gamma(shape+1)
 *               and multiplies by u^(1/shape) (u first). Computed as a
 *               logarithm so that beta-prime's G1/G2 never divides 0 by 0.
 *   beta-prime  G1 with j in [0, 32768), G2 with j in [32768, 65536).
 *   exponential -mean log(u_0) (inversion); uniform min + (max-min) u_0;
 *   empirical   samples[floor(u_0 n)].
 * Zero-variance cases return their value exactly (sigma = 0: mu or exp(mu)). */
#include "noise/distribution.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "io/text_input.h"
#include "noise/random.h"

#define TWO_PI 6.283185307179586476925286766559
#define HALF_DRAW (FS_RANDOM_DRAW_UNIFORMS / 2)
#define NUMBER_MAX 64 /* characters in a number */

/* ---- numbers as text ----------------------------------------------------- */

/* A decimal number [+-]digits[.digits][(e|E)[+-]digits], finite; no "inf",
 * "nan" or hex, which strtod would also take. */
static int parse_number(const char *text, size_t length, double *out) {
  char copy[NUMBER_MAX + 1];
  size_t i = 0, digits = 0;
  if (length == 0 || length > NUMBER_MAX) return -1;
  if (text[i] == '+' || text[i] == '-') i++;
  while (i < length && isdigit((unsigned char)text[i])) i++, digits++;
  if (i < length && text[i] == '.') {
    i++;
    while (i < length && isdigit((unsigned char)text[i])) i++, digits++;
  }
  if (digits == 0) return -1;
  if (i < length && (text[i] == 'e' || text[i] == 'E')) {
    size_t exponent_digits = 0;
    i++;
    if (i < length && (text[i] == '+' || text[i] == '-')) i++;
    while (i < length && isdigit((unsigned char)text[i])) i++, exponent_digits++;
    if (exponent_digits == 0) return -1;
  }
  if (i != length) return -1;
  memcpy(copy, text, length);
  copy[length] = 0;
  double value = strtod(copy, NULL);
  if (!isfinite(value)) return -1;
  *out = value;
  return 0;
}

/* The shortest of %.15g, %.16g, %.17g that reads back exactly. */
static const char *show_number(double value, char buffer[32]) {
  for (int precision = 15; precision <= 17; precision++) {
    snprintf(buffer, 32, "%.*g", precision, value == 0 ? 0.0 : value);
    if (strtod(buffer, NULL) == value) break;
  }
  return buffer;
}

/* ---- the kinds ----------------------------------------------------------- */

typedef struct kind_info {
  const char *name;
  const char *parameter[2]; /* NULL: unused */
  double fallback[2];       /* value when left out; NAN: required */
} kind_info;

static const kind_info kinds[] = {
    [FS_DISTRIBUTION_CONSTANT] = {"constant", {"value", NULL}, {NAN, NAN}},
    [FS_DISTRIBUTION_NORMAL] = {"normal", {"mu", "sigma"}, {NAN, NAN}},
    [FS_DISTRIBUTION_LOGNORMAL] = {"lognormal", {"mu", "sigma"}, {0, NAN}},
    [FS_DISTRIBUTION_GAMMA] = {"gamma", {"shape", "scale"}, {NAN, NAN}},
    /* mean or rate: checked by hand */
    [FS_DISTRIBUTION_EXPONENTIAL] = {"exponential", {"mean", "rate"}, {0, 0}},
    [FS_DISTRIBUTION_UNIFORM] = {"uniform", {"min", "max"}, {NAN, NAN}},
    [FS_DISTRIBUTION_BETA_PRIME] = {"beta-prime", {"alpha", "beta"}, {NAN, NAN}},
    [FS_DISTRIBUTION_EMPIRICAL] = {"empirical", {"file", NULL}, {NAN, NAN}},
};
#define KIND_COUNT ((int)(sizeof kinds / sizeof kinds[0]))

static int unknown_kind(const char *text, size_t length, fs_error *err) {
  char known[256] = "";
  for (int k = 0; k < KIND_COUNT; k++) {
    if (k) strcat(known, ", ");
    strcat(known, kinds[k].name);
  }
  if (length == 0) return fs_error_set(err, "missing distribution kind (known: %s)", known);
  char typed[64], mean[200];
  snprintf(typed, sizeof typed, "%.*s", (int)(length > 40 ? 40 : length), text);
  fs_suggest_text_list(mean, sizeof mean, typed, known);
  return fs_error_set(err, "unknown distribution '%s' (known: %s)%s%s", typed, known,
                      mean[0] ? "; " : "", mean);
}

static int parameter_list(const kind_info *k, char buffer[64]) {
  return snprintf(buffer, 64, "%s%s%s", k->parameter[0], k->parameter[1] ? ", " : "",
                  k->parameter[1] ? k->parameter[1] : "");
}

/* ---- checks after parsing ----------------------------------------------- */

static int must(const char *kind, const char *name, const char *constraint, double value,
                fs_error *err) {
  char shown[32];
  return fs_error_set(err, "%s: %s must be %s, not %s", kind, name, constraint,
                      show_number(value, shown));
}

static int check(fs_distribution *d, const int given[2], fs_error *err) {
  const char *name = kinds[d->kind].name;
  double a = d->parameter[0], b = d->parameter[1];
  char shown[32], constraint[64];
  switch (d->kind) {
    case FS_DISTRIBUTION_NORMAL:
      if (b < 0) return must(name, "sigma", ">= 0", b, err);
      if (a < -3 * b) {
        char shown_mu[32];
        return fs_error_set(err,
                            "normal: mu must be >= -3*sigma = %s, not %s (truncated at 0, too "
                            "little "
                            "mass would be left to sample)",
                            show_number(-3 * b + 0.0, shown), show_number(a, shown_mu));
      }
      return 0;
    case FS_DISTRIBUTION_LOGNORMAL: return b < 0 ? must(name, "sigma", ">= 0", b, err) : 0;
    case FS_DISTRIBUTION_GAMMA:
      if (!(a > 0)) return must(name, "shape", "> 0", a, err);
      return b < 0 ? must(name, "scale", ">= 0", b, err) : 0;
    case FS_DISTRIBUTION_EXPONENTIAL:
      if (given[0] && given[1])
        return fs_error_set(err, "exponential: give mean or rate, not both");
      if (!given[0] && !given[1])
        return fs_error_set(err, "exponential: missing parameter mean (or rate)");
      if (given[0]) return a < 0 ? must(name, "mean", ">= 0", a, err) : 0;
      if (!(b > 0)) return must(name, "rate", "> 0", b, err);
      d->parameter[0] = 1 / b, d->parameter[1] = 0;
      return 0;
    case FS_DISTRIBUTION_UNIFORM:
      snprintf(constraint, sizeof constraint, ">= min = %s", show_number(a, shown));
      return b < a ? must(name, "max", constraint, b, err) : 0;
    case FS_DISTRIBUTION_BETA_PRIME:
      if (!(a > 0)) return must(name, "alpha", "> 0", a, err);
      return !(b > 0) ? must(name, "beta", "> 0", b, err) : 0;
    default: return 0;
  }
}

/* ---- empirical files ----------------------------------------------------- */

static int empirical_fail(fs_text_input *in, size_t column, const char *what, const char *text,
                          size_t length, fs_error *err) {
  char shown[FS_TEXT_QUOTED_SIZE];
  return fs_text_input_error(in, (int64_t)column, err, "empirical: %s%s", what,
                             fs_text_quoted(text, length, NULL, shown));
}

/* One line: blank, a comment, or one number with optional blanks and comment. */
static int empirical_line(fs_text_input *in, const char *line, size_t length, double *value,
                          fs_error *err) {
  const char *comment = memchr(line, '#', length);
  if (comment) length = (size_t)(comment - line);
  size_t start = 0, end;
  while (start < length && (line[start] == ' ' || line[start] == '\t')) start++;
  if (start == length) return 0;
  end = start;
  while (end < length && line[end] != ' ' && line[end] != '\t') end++;
  if (parse_number(line + start, end - start, value) < 0)
    return empirical_fail(in, start + 1, "expected a finite number, not ", line + start,
                          end - start, err);
  size_t rest = end;
  while (rest < length && (line[rest] == ' ' || line[rest] == '\t')) rest++;
  if (rest < length)
    return empirical_fail(in, rest + 1, "one sample per line; unexpected ", line + rest,
                          length - rest, err);
  return 1;
}

static int empirical_read(fs_distribution *d, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(d->file, err);
  if (!in) return -1;
  int64_t capacity = 0;
  const char *line;
  size_t length;
  int status;
  while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
    double value;
    int got = empirical_line(in, line, length, &value, err);
    if (got < 0) break;
    if (got == 0) continue;
    if (d->sample_count == FS_DISTRIBUTION_SAMPLES_MAX) {
      status = fs_text_input_error(in, 1, err, "empirical: more than %lld samples",
                                   (long long)FS_DISTRIBUTION_SAMPLES_MAX);
      break;
    }
    if (d->sample_count == capacity) {
      int64_t grown = capacity ? capacity * 2 : 1024;
      if (grown > FS_DISTRIBUTION_SAMPLES_MAX) grown = FS_DISTRIBUTION_SAMPLES_MAX;
      double *samples = realloc(d->samples, (size_t)grown * sizeof *samples);
      if (!samples) {
        status = fs_error_set(err, "%s: empirical: out of memory", fs_text_input_name(in));
        break;
      }
      d->samples = samples, capacity = grown;
    }
    d->samples[d->sample_count++] = value;
  }
  if (status == 0 && d->sample_count == 0)
    status = fs_error_set(err, "%s: empirical: no samples", fs_text_input_name(in));
  fs_text_input_close(in);
  return status == 0 ? 0 : -1;
}

/* ---- parsing ------------------------------------------------------------- */

static int parse_parameters(fs_distribution *d, const char *text, int given[2], fs_error *err) {
  const kind_info *k = &kinds[d->kind];
  char names[64];
  while (*text) {
    size_t length = strcspn(text, ","), name_length = strcspn(text, "=,");
    if (name_length == length)
      return fs_error_set(err, "%s: expected NAME=VALUE, not '%.*s'", k->name,
                          (int)(length > 40 ? 40 : length), text);
    int p = 0;
    while (p < 2 && !(k->parameter[p] && strlen(k->parameter[p]) == name_length &&
                      memcmp(k->parameter[p], text, name_length) == 0))
      p++;
    if (p == 2) {
      parameter_list(k, names);
      return fs_error_set(err, "%s: unknown parameter '%.*s' (%s takes %s)", k->name,
                          (int)(name_length > 40 ? 40 : name_length), text, k->name, names);
    }
    if (given[p]) return fs_error_set(err, "%s: %s given twice", k->name, k->parameter[p]);
    const char *value = text + name_length + 1;
    size_t value_length = length - name_length - 1;
    if (parse_number(value, value_length, &d->parameter[p]) < 0)
      return fs_error_set(err, "%s: %s must be a finite number, not '%.*s'", k->name,
                          k->parameter[p], (int)(value_length > 40 ? 40 : value_length), value);
    given[p] = 1;
    text += length;
    if (*text == ',') {
      text++;
      if (!*text) return fs_error_set(err, "%s: expected NAME=VALUE after the last ','", k->name);
    }
  }
  for (int p = 0; p < 2; p++) {
    if (given[p] || !k->parameter[p]) continue;
    if (isnan(k->fallback[p]))
      return fs_error_set(err, "%s: missing parameter %s", k->name, k->parameter[p]);
    d->parameter[p] = k->fallback[p];
  }
  return 0;
}

static int parse_empirical(fs_distribution *d, const char *text, fs_error *err) {
  if (strncmp(text, "file=", 5) != 0) {
    size_t name_length = strcspn(text, "=,");
    if (name_length == 0 || text[name_length] != '=')
      return fs_error_set(err, "empirical: missing parameter file");
    return fs_error_set(err, "empirical: unknown parameter '%.*s' (empirical takes file)",
                        (int)(name_length > 40 ? 40 : name_length), text);
  }
  if (!text[5]) return fs_error_set(err, "empirical: file must be a path, not ''");
  d->file = strdup(text + 5);
  if (!d->file) return fs_error_set(err, "empirical: out of memory");
  return empirical_read(d, err);
}

int fs_distribution_parse(const char *text, fs_distribution *out, fs_error *err) {
  fs_distribution d = {0};
  size_t kind_length = strcspn(text, ":");
  int kind = 0;
  while (kind < KIND_COUNT && !(strlen(kinds[kind].name) == kind_length &&
                                memcmp(kinds[kind].name, text, kind_length) == 0))
    kind++;
  if (kind == KIND_COUNT) return unknown_kind(text, kind_length, err);
  d.kind = (fs_distribution_kind)kind;
  const char *rest = text[kind_length] ? text + kind_length + 1 : text + kind_length;
  int given[2] = {0, 0};
  int status = d.kind == FS_DISTRIBUTION_EMPIRICAL          ? parse_empirical(&d, rest, err)
               : parse_parameters(&d, rest, given, err) < 0 ? -1
                                                            : check(&d, given, err);
  if (status < 0) {
    fs_distribution_free(&d);
    return -1;
  }
  *out = d;
  return 0;
}

void fs_distribution_free(fs_distribution *d) {
  if (!d) return;
  free(d->samples);
  free(d->file);
  d->samples = NULL, d->file = NULL, d->sample_count = 0;
}

/* ---- drawing ------------------------------------------------------------- */

typedef struct draw_key {
  uint64_t seed, stream, index;
} draw_key;

static double uniform(const draw_key *k, uint32_t j) {
  return fs_random_uniform(k->seed, k->stream, fs_random_counter(k->index, j));
}

/* Box-Muller: two independent standard normals from u_j, u_j+1. */
static void normal_pair(const draw_key *k, uint32_t j, double *z0, double *z1) {
  double radius = sqrt(-2 * log(uniform(k, j))), angle = TWO_PI * uniform(k, j + 1);
  *z0 = radius * cos(angle);
  *z1 = radius * sin(angle);
}

static double standard_normal(const draw_key *k, uint32_t j) {
  double radius = sqrt(-2 * log(uniform(k, j)));
  return radius * cos(TWO_PI * uniform(k, j + 1));
}

static double truncated_normal(const draw_key *k, double mu, double sigma) {
  if (sigma == 0) return mu;
  for (uint32_t j = 0; j < FS_RANDOM_DRAW_UNIFORMS; j += 2) {
    double z0, z1;
    normal_pair(k, j, &z0, &z1);
    double x = mu + sigma * z0;
    if (x >= 0) return x;
    x = mu + sigma * z1;
    if (x >= 0) return x;
  }
  return 0;
}

/* log of a gamma(shape, 1) draw from u_j, j in [j, end). */
static double log_gamma_draw(const draw_key *k, double shape, uint32_t j, uint32_t end) {
  double log_boost = 0;
  if (shape < 1) log_boost = log(uniform(k, j++)) / shape, shape += 1;
  double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
  for (; j + 3 <= end; j += 3) {
    double z = standard_normal(k, j), u = uniform(k, j + 2);
    double v = 1 + c * z;
    if (v <= 0) continue;
    v = v * v * v;
    if (u < 1 - 0.0331 * (z * z) * (z * z) || log(u) < 0.5 * z * z + d * (1 - v + log(v)))
      return log(d * v) + log_boost;
  }
  return log(d) + log_boost; /* each try passes with probability > 0.95: never reached */
}

double fs_distribution_draw(const fs_distribution *d, uint64_t seed, uint64_t stream,
                            uint64_t index) {
  draw_key k = {seed, stream, index};
  double a = d->parameter[0], b = d->parameter[1];
  switch (d->kind) {
    case FS_DISTRIBUTION_CONSTANT: return a;
    case FS_DISTRIBUTION_NORMAL: return truncated_normal(&k, a, b);
    case FS_DISTRIBUTION_LOGNORMAL: return b == 0 ? exp(a) : exp(a + b * standard_normal(&k, 0));
    case FS_DISTRIBUTION_GAMMA:
      return b == 0 ? 0 : b * exp(log_gamma_draw(&k, a, 0, FS_RANDOM_DRAW_UNIFORMS));
    case FS_DISTRIBUTION_EXPONENTIAL: return a == 0 ? 0 : a * -log(uniform(&k, 0));
    case FS_DISTRIBUTION_UNIFORM: return a == b ? a : a + (b - a) * uniform(&k, 0);
    case FS_DISTRIBUTION_BETA_PRIME:
      return exp(log_gamma_draw(&k, a, 0, HALF_DRAW) -
                 log_gamma_draw(&k, b, HALF_DRAW, FS_RANDOM_DRAW_UNIFORMS));
    case FS_DISTRIBUTION_EMPIRICAL: {
      int64_t i = (int64_t)(uniform(&k, 0) * (double)d->sample_count);
      return d->samples[i < d->sample_count ? i : d->sample_count - 1];
    }
  }
  return 0;
}

/* ---- moments ------------------------------------------------------------- */

/* Normal truncated below at 0: with alpha = -mu/sigma and
 * lambda = phi(alpha) / (1 - Phi(alpha)), the mean is mu + sigma lambda and
 * the variance sigma^2 (1 + alpha lambda - lambda^2). */
static double truncated_lambda(double alpha) {
  return 2 * exp(-alpha * alpha / 2) / (sqrt(TWO_PI) * erfc(alpha / sqrt(2.0)));
}

static double empirical_moment(const fs_distribution *d, int second) {
  double sum = 0;
  for (int64_t i = 0; i < d->sample_count; i++) sum += d->samples[i];
  double mean = sum / (double)d->sample_count;
  if (!second) return mean;
  double squares = 0;
  for (int64_t i = 0; i < d->sample_count; i++)
    squares += (d->samples[i] - mean) * (d->samples[i] - mean);
  return squares / (double)d->sample_count;
}

double fs_distribution_mean(const fs_distribution *d) {
  double a = d->parameter[0], b = d->parameter[1];
  switch (d->kind) {
    case FS_DISTRIBUTION_CONSTANT: return a;
    case FS_DISTRIBUTION_NORMAL: return b == 0 ? a : a + b * truncated_lambda(-a / b);
    case FS_DISTRIBUTION_LOGNORMAL: return exp(a + b * b / 2);
    case FS_DISTRIBUTION_GAMMA: return a * b;
    case FS_DISTRIBUTION_EXPONENTIAL: return a;
    case FS_DISTRIBUTION_UNIFORM: return a + (b - a) / 2;
    case FS_DISTRIBUTION_BETA_PRIME: return b > 1 ? a / (b - 1) : INFINITY;
    case FS_DISTRIBUTION_EMPIRICAL: return empirical_moment(d, 0);
  }
  return 0;
}

double fs_distribution_variance(const fs_distribution *d) {
  double a = d->parameter[0], b = d->parameter[1];
  switch (d->kind) {
    case FS_DISTRIBUTION_CONSTANT: return 0;
    case FS_DISTRIBUTION_NORMAL: {
      if (b == 0) return 0;
      double alpha = -a / b, lambda = truncated_lambda(alpha);
      return b * b * (1 + alpha * lambda - lambda * lambda);
    }
    case FS_DISTRIBUTION_LOGNORMAL: return expm1(b * b) * exp(2 * a + b * b);
    case FS_DISTRIBUTION_GAMMA: return a * b * b;
    case FS_DISTRIBUTION_EXPONENTIAL: return a * a;
    case FS_DISTRIBUTION_UNIFORM: return (b - a) * (b - a) / 12;
    case FS_DISTRIBUTION_BETA_PRIME:
      return b > 2 ? a * (a + b - 1) / ((b - 2) * (b - 1) * (b - 1)) : INFINITY;
    case FS_DISTRIBUTION_EMPIRICAL: return empirical_moment(d, 1);
  }
  return 0;
}

char *fs_distribution_describe(const fs_distribution *d, char *buffer, size_t size) {
  const kind_info *k = &kinds[d->kind];
  char first[32], second[32];
  if (size == 0) return buffer;
  if (d->kind == FS_DISTRIBUTION_EMPIRICAL)
    snprintf(buffer, size, "empirical:file=%s", d->file);
  else if (!k->parameter[1] || d->kind == FS_DISTRIBUTION_EXPONENTIAL)
    snprintf(buffer, size, "%s:%s=%s", k->name, k->parameter[0],
             show_number(d->parameter[0], first));
  else
    snprintf(buffer, size, "%s:%s=%s,%s=%s", k->name, k->parameter[0],
             show_number(d->parameter[0], first), k->parameter[1],
             show_number(d->parameter[1], second));
  return buffer;
}
