/* test_noise_random.c: counter-based random numbers (src/noise/random.c)
 * and the noise distributions (src/noise/distribution.c).
 *
 * Philox4x32-10 against Random123's known answers; how seed, stream and
 * counter map onto Philox's key and counter; uniforms in (0, 1) from 53
 * bits; exact values of a few draws of every kind (each also computed
 * independently at 128-bit precision with mpmath from the same uniforms,
 * quoted in the comments: they agree to a few ulps, the asserted values are
 * glibc's); sample moments against the definitions; zero-variance cases;
 * that a draw depends only on (seed, stream, index); every parse error;
 * empirical files and their file:line:column errors; canonical text. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise/distribution.h"
#include "noise/random.h"
#include "test_support.h"

/* ---- helpers ------------------------------------------------------------- */

static fs_distribution parse_ok(const char *text) {
  fs_distribution d;
  fs_error err;
  ck_assert_msg(fs_distribution_parse(text, &d, &err) == 0, "%s: %s", text, err.message);
  return d;
}

static void parse_bad(const char *text, const char *message) {
  fs_distribution d = {.kind = FS_DISTRIBUTION_UNIFORM, .parameter = {-7, -7}};
  fs_error err = {""};
  ck_assert_msg(fs_distribution_parse(text, &d, &err) == -1, "%s accepted", text);
  ck_assert_str_eq(err.message, message);
  /* nothing written on failure */
  ck_assert(d.kind == FS_DISTRIBUTION_UNIFORM && d.parameter[0] == -7 && d.parameter[1] == -7);
  ck_assert_ptr_null(d.samples);
}

static double draw(const char *text, uint64_t seed, uint64_t stream, uint64_t index) {
  fs_distribution d = parse_ok(text);
  double x = fs_distribution_draw(&d, seed, stream, index);
  fs_distribution_free(&d);
  return x;
}

static char *write_temp(const char *text, size_t length) {
  char *path = fs_test_temp_path(".txt");
  ck_assert_int_eq(fs_test_write_file(path, text, length), 0);
  return path;
}

/* ---- Philox and uniforms ------------------------------------------------- */

/* Random123's kat_vectors: philox4x32 10 CTR[4] KEY[2] -> OUT[4]. */
START_TEST(philox_known_answers) {
  static const uint32_t vectors[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
       0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int v = 0; v < 3; v++) {
    uint32_t out[4];
    fs_philox4x32_10(vectors[v], vectors[v] + 4, out);
    for (int i = 0; i < 4; i++) ck_assert_uint_eq(out[i], vectors[v][6 + i]);
  }
}
END_TEST

/* seed = key (low word first); counter words = (counter low, counter high,
 * stream low, stream high); bits = out[0] | out[1] << 32. */
START_TEST(bits_layout) {
  ck_assert_uint_eq(fs_random_bits(0, 0, 0), UINT64_C(0xe169c58d6627e8d5));
  ck_assert_uint_eq(fs_random_bits(UINT64_MAX, UINT64_MAX, UINT64_MAX),
                    UINT64_C(0x41c83b0e408f276d));
  ck_assert_uint_eq(fs_random_bits(UINT64_C(0x299f31d0a4093822), UINT64_C(0x0370734413198a2e),
                                   UINT64_C(0x85a308d3243f6a88)),
                    UINT64_C(0x94fdccebd16cfe09));
  ck_assert_uint_eq(fs_random_bits(1, 2, 3), UINT64_C(0x663eff4fde08bf52));
  /* each input matters */
  ck_assert_uint_ne(fs_random_bits(1, 2, 3), fs_random_bits(2, 2, 3));
  ck_assert_uint_ne(fs_random_bits(1, 2, 3), fs_random_bits(1, 3, 3));
  ck_assert_uint_ne(fs_random_bits(1, 2, 3), fs_random_bits(1, 2, 4));
  ck_assert_uint_ne(fs_random_bits(1, 2, 3), fs_random_bits(UINT64_C(1) << 32 | 1, 2, 3));
  ck_assert_uint_ne(fs_random_bits(1, 2, 3), fs_random_bits(1, UINT64_C(1) << 32 | 2, 3));
  ck_assert_uint_ne(fs_random_bits(1, 2, 3), fs_random_bits(1, 2, UINT64_C(1) << 32 | 3));
  /* counters of a draw */
  ck_assert_uint_eq(fs_random_counter(5, 3), 5 * 65536 + 3);
  ck_assert_uint_eq(fs_random_counter(UINT64_C(1) << 48 | 7, 65535), 7 * 65536 + 65535);
  ck_assert_uint_eq(fs_random_stream(2, 17), (UINT64_C(2) << 32) + 17);
}
END_TEST

START_TEST(uniform_open_53_bits) {
  ck_assert(fs_random_uniform(1, 0, 1) == 0x1.bf8b997d58102p-1);
  ck_assert(fs_random_uniform(1, 0, 0) == 0.89468471633509239);
  double sum = 0, low = 1, high = 0;
  const int64_t n = 1000000;
  for (int64_t c = 0; c < n; c++) {
    uint64_t k = fs_random_bits(9, 4, (uint64_t)c) >> 11;
    double u = fs_random_uniform(9, 4, (uint64_t)c);
    ck_assert(u == (k ? ldexp((double)k, -53) : 0x1p-54));
    ck_assert(u > 0 && u < 1);
    sum += u;
    low = u < low ? u : low, high = u > high ? u : high;
  }
  /* mean 1/2, standard error sqrt(1/12/n) = 2.9e-4 */
  ck_assert_msg(fabs(sum / (double)n - 0.5) < 5 * 2.9e-4, "mean %.6f", sum / (double)n);
  ck_assert(low < 1e-5 && high > 1 - 1e-5);
}
END_TEST

/* ---- exact draws ----------------------------------------------------------- */

/* seed 1, stream 0, indices 0, 1, 2. In brackets: mpmath at 128 bits. */
START_TEST(exact_draws) {
  static const struct {
    const char *text;
    double value[3];
  } cases[] = {
      {"constant:value=2.5", {2.5, 2.5, 2.5}},
      /* [1.16586291039336126, 1.22154196166779840, 1.18724802596169220] */
      {"normal:mu=1,sigma=0.5", {1.1658629103933613, 1.2215419616677985, 1.1872480259616922}},
      /* [1.06859549438135391, 1.09266185131012783, 1.07777551683038522] */
      {"lognormal:mu=0,sigma=0.2", {1.0685954943813538, 1.0926618513101278, 1.0777755168303853}},
      /* [6.39795234470032424, 6.91986673059209221, 6.59518464420263243] */
      {"gamma:shape=2,scale=3", {6.3979523447003217, 6.9198667305920942, 6.5951846442026323}},
      /* [0.573300346434334774, 0.00527541602507722608, 2.78642237439928398] */
      {"gamma:shape=0.5,scale=1", {0.5733003464343347, 0.0052754160250772317, 2.7864223743992844}},
      /* [0.222567790042040592, 6.03622932731650008, 0.146751685263397513] */
      {"exponential:mean=2", {0.22256779004204058, 6.0362293273164997, 0.14675168526339752}},
      /* [2.78936943267018478, 1.09778662371768387, 2.85850302410362356] */
      {"uniform:min=1,max=3", {2.7893694326701848, 1.0977866237176839, 2.8585030241036238}},
      /* [0.809569173933963096, 0.805206935788379962, 1.92348287026860304] */
      {"beta-prime:alpha=2,beta=3", {0.80956917393396288, 0.80520693578838021, 1.9234828702686042}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (uint64_t i = 0; i < 3; i++) {
      double x = draw(cases[c].text, 1, 0, i);
      ck_assert_msg(x == cases[c].value[i], "%s [%d]: %.17g", cases[c].text, (int)i, x);
    }
  /* the uniform kind is plain arithmetic on the uniform: exact anywhere */
  ck_assert(draw("uniform:min=1,max=3", 1, 0, 1) ==
            1 + 2 * fs_random_uniform(1, 0, fs_random_counter(1, 0)));
  ck_assert(draw("exponential:rate=0.5", 1, 0, 1) == 6.0362293273164997);
}
END_TEST

/* ---- a draw depends only on (seed, stream, index) ------------------------ */

START_TEST(draws_depend_only_on_their_names) {
  static const char *const texts[] = {"normal:mu=0.1,sigma=1", "gamma:shape=0.7,scale=2",
                                      "beta-prime:alpha=1.5,beta=2.5", "lognormal:sigma=1"};
  enum { N = 500 };
  for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
    fs_distribution d = parse_ok(texts[t]);
    double forward[N], backward[N], scattered[N];
    for (int i = 0; i < N; i++) forward[i] = fs_distribution_draw(&d, 42, 3, (uint64_t)i);
    for (int i = N - 1; i >= 0; i--) {
      backward[i] = fs_distribution_draw(&d, 42, 3, (uint64_t)i);
      (void)fs_distribution_draw(&d, 42, 4, (uint64_t)i); /* other streams in between */
      (void)fs_distribution_draw(&d, 43, 3, (uint64_t)(N - i));
    }
    for (int k = 0; k < N; k++) { /* 7 is prime to N: a permutation */
      int i = (k * 7) % N;
      scattered[i] = fs_distribution_draw(&d, 42, 3, (uint64_t)i);
    }
    int differs_by_seed = 0, differs_by_stream = 0;
    for (int i = 0; i < N; i++) {
      ck_assert(forward[i] == backward[i] && forward[i] == scattered[i]);
      differs_by_seed += forward[i] != fs_distribution_draw(&d, 43, 3, (uint64_t)i);
      differs_by_stream += forward[i] != fs_distribution_draw(&d, 42, 5, (uint64_t)i);
    }
    ck_assert_int_eq(differs_by_seed, N);
    ck_assert_int_eq(differs_by_stream, N);
    fs_distribution_free(&d);
  }
}
END_TEST

/* ---- moments --------------------------------------------------------------- */

/* Over n draws: the sample mean within 5 standard errors sqrt(var/n) of the
 * definition, and the sample variance within 5 standard errors of its own,
 * sqrt((m4 - v^2)/n) with m4 the sample's fourth central moment (a false
 * failure has probability below 1e-6 each). */
static void check_moments(const char *text, double mean, double variance, int64_t n) {
  fs_distribution d = parse_ok(text);
  ck_assert_msg(fabs(fs_distribution_mean(&d) - mean) <= 1e-12 * fabs(mean), "%s: mean %.17g", text,
                fs_distribution_mean(&d));
  ck_assert_msg(fabs(fs_distribution_variance(&d) - variance) <= 1e-12 * variance,
                "%s: variance %.17g", text, fs_distribution_variance(&d));
  double *x = malloc((size_t)n * sizeof *x), sum = 0, squares = 0, fourth = 0;
  ck_assert_ptr_nonnull(x);
  for (int64_t i = 0; i < n; i++) sum += x[i] = fs_distribution_draw(&d, 7, 3, (uint64_t)i);
  double m = sum / (double)n;
  for (int64_t i = 0; i < n; i++) {
    double e = (x[i] - m) * (x[i] - m);
    squares += e, fourth += e * e;
  }
  double v = squares / (double)n, m4 = fourth / (double)n;
  double mean_error = sqrt(variance / (double)n), variance_error = sqrt((m4 - v * v) / (double)n);
  ck_assert_msg(fabs(m - mean) < 5 * mean_error, "%s: sample mean %.6g, want %.6g +- %.2g", text, m,
                mean, mean_error);
  ck_assert_msg(fabs(v - variance) < 5 * variance_error,
                "%s: sample variance %.6g, want %.6g +- %.2g", text, v, variance, variance_error);
  /* and the tolerances are tight enough to mean something */
  ck_assert_msg(variance_error < 0.05 * variance, "%s: %.2g", text, variance_error);
  free(x);
  fs_distribution_free(&d);
}

START_TEST(moments) {
  const double pi = 3.14159265358979323846;
  const int64_t n = 200000;
  /* half-normal: mean sqrt(2/pi), variance 1 - 2/pi */
  check_moments("normal:mu=0,sigma=1", sqrt(2 / pi), 1 - 2 / pi, n);
  /* truncated at 0, alpha = -mu/sigma = -2: lambda = phi(2) / Phi(2) */
  {
    double phi = exp(-2.0) / sqrt(2 * pi), tail = 0.5 * erfc(2 / sqrt(2.0));
    double lambda = phi / (1 - tail);
    check_moments("normal:sigma=0.5,mu=1", 1 + 0.5 * lambda,
                  0.25 * (1 - 2 * lambda - lambda * lambda), n);
  }
  /* at the limit mu = -3 sigma, most candidates are rejected */
  {
    double lambda = exp(-4.5) / sqrt(2 * pi) / (0.5 * erfc(3 / sqrt(2.0)));
    check_moments("normal:mu=-3,sigma=1", -3 + lambda, 1 + 3 * lambda - lambda * lambda, 20000);
  }
  check_moments("lognormal:mu=0.5,sigma=0.5", exp(0.5 + 0.125), expm1(0.25) * exp(1.25), n);
  check_moments("lognormal:sigma=0.2", exp(0.02), expm1(0.04) * exp(0.04), n);
  check_moments("gamma:shape=2.5,scale=2", 5, 10, n);
  check_moments("gamma:shape=0.3,scale=4", 1.2, 4.8, n);
  check_moments("gamma:shape=1,scale=1", 1, 1, n);
  check_moments("exponential:rate=4", 0.25, 0.0625, n);
  check_moments("exponential:mean=3", 3, 9, n);
  check_moments("uniform:min=-1,max=3", 1, 16.0 / 12, n);
  /* beta-prime: alpha/(beta-1), alpha(alpha+beta-1)/((beta-2)(beta-1)^2) */
  check_moments("beta-prime:alpha=2,beta=6", 0.4, 2.0 * 7 / (4 * 25), n);
  check_moments("beta-prime:beta=8,alpha=0.5", 0.5 / 7, 0.5 * 7.5 / (6 * 49), n);
}
END_TEST

START_TEST(moments_without_definition) {
  fs_distribution d = parse_ok("beta-prime:alpha=2,beta=1");
  ck_assert(isinf(fs_distribution_mean(&d)) && isinf(fs_distribution_variance(&d)));
  d = parse_ok("beta-prime:alpha=2,beta=1.5");
  ck_assert(fs_distribution_mean(&d) == 4 && isinf(fs_distribution_variance(&d)));
  /* draws stay finite and positive for heavy tails and tiny shapes */
  d = parse_ok("beta-prime:alpha=0.01,beta=0.01");
  for (uint64_t i = 0; i < 10000; i++) {
    double x = fs_distribution_draw(&d, 1, 1, i);
    ck_assert_msg(x >= 0 && !isnan(x), "%g", x);
  }
}
END_TEST

/* ---- zero variance ----------------------------------------------------------- */

START_TEST(zero_variance_is_exact) {
  const struct {
    const char *text;
    double value;
  } cases[] = {
      {"normal:mu=1.25,sigma=0", 1.25},
      {"normal:mu=0,sigma=0", 0},
      {"lognormal:mu=0.3,sigma=0", exp(0.3)},
      {"lognormal:sigma=0", 1},
      {"gamma:shape=3,scale=0", 0},
      {"exponential:mean=0", 0},
      {"uniform:min=2.5,max=2.5", 2.5},
      {"constant:value=-4e-3", -4e-3},
      {"constant:value=0", 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    fs_distribution d = parse_ok(cases[c].text);
    double want = cases[c].value;
    ck_assert(fs_distribution_mean(&d) == want);
    ck_assert(fs_distribution_variance(&d) == 0);
    for (uint64_t i = 0; i < 1000; i++) {
      double x = fs_distribution_draw(&d, i * 31 + 1, i % 5, i);
      ck_assert_msg(x == want && !signbit(x) == !signbit(want), "%s: %.17g", cases[c].text, x);
    }
    fs_distribution_free(&d);
  }
}
END_TEST

/* ---- parse errors ------------------------------------------------------------ */

#define KNOWN \
  "(known: constant, normal, lognormal, gamma, exponential, uniform, beta-prime, empirical)"

START_TEST(parse_errors) {
  parse_bad("", "missing distribution kind " KNOWN);
  parse_bad(":mu=1", "missing distribution kind " KNOWN);
  parse_bad("foo:x=1", "unknown distribution 'foo' " KNOWN);
  parse_bad("Lognormal:sigma=1",
            "unknown distribution 'Lognormal' " KNOWN "; did you mean lognormal?");
  parse_bad("poisson", "unknown distribution 'poisson' " KNOWN);

  parse_bad("lognormal", "lognormal: missing parameter sigma");
  parse_bad("lognormal:", "lognormal: missing parameter sigma");
  parse_bad("lognormal:mu=0", "lognormal: missing parameter sigma");
  parse_bad("lognormal:sigma=-1", "lognormal: sigma must be >= 0, not -1");
  parse_bad("lognormal:mu=2,sigma=-0.25", "lognormal: sigma must be >= 0, not -0.25");
  parse_bad("lognormal:sigma=0.2,k=1",
            "lognormal: unknown parameter 'k' (lognormal takes mu, sigma)");
  parse_bad("lognormal:=1", "lognormal: unknown parameter '' (lognormal takes mu, sigma)");
  parse_bad("lognormal:sigma=0.2,sigma=0.3", "lognormal: sigma given twice");
  parse_bad("lognormal:sigma=abc", "lognormal: sigma must be a finite number, not 'abc'");
  parse_bad("lognormal:sigma=", "lognormal: sigma must be a finite number, not ''");
  parse_bad("lognormal:sigma=inf", "lognormal: sigma must be a finite number, not 'inf'");
  parse_bad("lognormal:sigma=nan", "lognormal: sigma must be a finite number, not 'nan'");
  parse_bad("lognormal:sigma=1e999", "lognormal: sigma must be a finite number, not '1e999'");
  parse_bad("lognormal:sigma=0x10", "lognormal: sigma must be a finite number, not '0x10'");
  parse_bad("lognormal:sigma=1e", "lognormal: sigma must be a finite number, not '1e'");
  parse_bad("lognormal:sigma=.", "lognormal: sigma must be a finite number, not '.'");
  parse_bad("lognormal:sigma= 1", "lognormal: sigma must be a finite number, not ' 1'");
  parse_bad("lognormal:mu=0.5ns,sigma=1", "lognormal: mu must be a finite number, not '0.5ns'");
  parse_bad("lognormal:sigma", "lognormal: expected NAME=VALUE, not 'sigma'");
  parse_bad("lognormal:mu=0,,sigma=1", "lognormal: expected NAME=VALUE, not ''");
  parse_bad("lognormal:sigma=0.2,", "lognormal: expected NAME=VALUE after the last ','");

  parse_bad("normal", "normal: missing parameter mu");
  parse_bad("normal:mu=1", "normal: missing parameter sigma");
  parse_bad("normal:sigma=1", "normal: missing parameter mu");
  parse_bad("normal:mu=1,sigma=-0.5", "normal: sigma must be >= 0, not -0.5");
  parse_bad("normal:mu=-4,sigma=1",
            "normal: mu must be >= -3*sigma = -3, not -4 (truncated at 0, too little mass would be "
            "left to sample)");
  parse_bad("normal:mu=-1,sigma=0",
            "normal: mu must be >= -3*sigma = 0, not -1 (truncated at 0, too little mass would be "
            "left to sample)");

  parse_bad("gamma:shape=2", "gamma: missing parameter scale");
  parse_bad("gamma:scale=2", "gamma: missing parameter shape");
  parse_bad("gamma:shape=0,scale=1", "gamma: shape must be > 0, not 0");
  parse_bad("gamma:shape=-1,scale=1", "gamma: shape must be > 0, not -1");
  parse_bad("gamma:shape=1,scale=-2", "gamma: scale must be >= 0, not -2");
  parse_bad("gamma:shape=1,scale=1,rate=2",
            "gamma: unknown parameter 'rate' (gamma takes shape, scale)");

  parse_bad("exponential", "exponential: missing parameter mean (or rate)");
  parse_bad("exponential:mean=1,rate=2", "exponential: give mean or rate, not both");
  parse_bad("exponential:rate=0", "exponential: rate must be > 0, not 0");
  parse_bad("exponential:mean=-1", "exponential: mean must be >= 0, not -1");
  parse_bad("exponential:scale=1",
            "exponential: unknown parameter 'scale' (exponential takes mean, rate)");

  parse_bad("uniform:min=2,max=1", "uniform: max must be >= min = 2, not 1");
  parse_bad("uniform:max=1", "uniform: missing parameter min");
  parse_bad("uniform:min=1", "uniform: missing parameter max");

  parse_bad("beta-prime:alpha=0,beta=1", "beta-prime: alpha must be > 0, not 0");
  parse_bad("beta-prime:alpha=1,beta=-1", "beta-prime: beta must be > 0, not -1");
  parse_bad("beta-prime:alpha=1", "beta-prime: missing parameter beta");

  parse_bad("constant", "constant: missing parameter value");
  parse_bad("constant:value=1,x=2", "constant: unknown parameter 'x' (constant takes value)");
  parse_bad("constant:value=1,value=1", "constant: value given twice");

  parse_bad("empirical", "empirical: missing parameter file");
  parse_bad("empirical:", "empirical: missing parameter file");
  parse_bad("empirical:path=x", "empirical: unknown parameter 'path' (empirical takes file)");
  parse_bad("empirical:file=", "empirical: file must be a path, not ''");

  /* err may be NULL */
  fs_distribution d;
  ck_assert_int_eq(fs_distribution_parse("normal:mu=-4,sigma=1", &d, NULL), -1);
  ck_assert_int_eq(fs_distribution_parse("empirical:file=/nonexistent/x", &d, NULL), -1);
  ck_assert_int_eq(fs_distribution_parse("foo", &d, NULL), -1);
}
END_TEST

/* parameters in any order, defaults, canonical text that reads back */
START_TEST(canonical_text) {
  static const char *const cases[][2] = {
      {"lognormal:sigma=0.2", "lognormal:mu=0,sigma=0.2"},
      {"lognormal:sigma=0.2,mu=-1.5", "lognormal:mu=-1.5,sigma=0.2"},
      {"gamma:scale=2,shape=3", "gamma:shape=3,scale=2"},
      {"exponential:rate=4", "exponential:mean=0.25"},
      {"exponential:rate=3", "exponential:mean=0.3333333333333333"},
      {"exponential:mean=1e-9", "exponential:mean=1e-09"},
      {"uniform:max=+3,min=-1", "uniform:min=-1,max=3"},
      {"normal:mu=1.,sigma=.5", "normal:mu=1,sigma=0.5"},
      {"beta-prime:beta=3,alpha=2", "beta-prime:alpha=2,beta=3"},
      {"constant:value=-0", "constant:value=0"},
      {"constant:value=0.1", "constant:value=0.1"},
      {"constant:value=123456789012345678", "constant:value=1.2345678901234568e+17"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    fs_distribution d = parse_ok(cases[c][0]), back;
    char text[256], again[256];
    ck_assert_str_eq(fs_distribution_describe(&d, text, sizeof text), cases[c][1]);
    back = parse_ok(text);
    ck_assert(back.kind == d.kind && back.parameter[0] == d.parameter[0] &&
              back.parameter[1] == d.parameter[1]);
    ck_assert_str_eq(fs_distribution_describe(&back, again, sizeof again), text);
  }
  /* truncation keeps a terminated string */
  fs_distribution d = parse_ok("lognormal:sigma=0.2");
  char small[10];
  ck_assert_str_eq(fs_distribution_describe(&d, small, sizeof small), "lognormal");
}
END_TEST

/* ---- empirical files ------------------------------------------------------- */

START_TEST(empirical_samples) {
  char *path = write_temp("# latencies, ns\n\n1\n  2.5  # a comment\n\t3e1\r\n10 \n#\n", 0);
  char text[512], described[512];
  snprintf(text, sizeof text, "empirical:file=%s", path);
  fs_distribution d = parse_ok(text);
  ck_assert_int_eq(d.sample_count, 4);
  ck_assert(d.samples[0] == 1 && d.samples[1] == 2.5 && d.samples[2] == 30 && d.samples[3] == 10);
  ck_assert(fs_distribution_mean(&d) == 43.5 / 4);
  ck_assert(fabs(fs_distribution_variance(&d) - (1 + 6.25 + 900 + 100) / 4.0 +
                 (43.5 / 4) * (43.5 / 4)) < 1e-12);
  ck_assert_str_eq(fs_distribution_describe(&d, described, sizeof described), text);
  /* each sample equally likely: u_0 picks floor(4 u_0) */
  int64_t counts[4] = {0, 0, 0, 0};
  const int64_t n = 200000;
  for (uint64_t i = 0; i < (uint64_t)n; i++) {
    double x = fs_distribution_draw(&d, 5, 1, i);
    int64_t k = (int64_t)(fs_random_uniform(5, 1, fs_random_counter(i, 0)) * 4);
    ck_assert(x == d.samples[k]);
    counts[k]++;
  }
  for (int k = 0; k < 4; k++) /* n/4 = 50000, standard deviation 194 */
    ck_assert_msg(llabs(counts[k] - n / 4) < 1000, "%lld", (long long)counts[k]);
  fs_distribution_free(&d);
  fs_distribution_free(&d); /* twice is harmless */
  fs_distribution_free(NULL);

  /* one sample: exactly that value */
  char *one = write_temp("0.75\n", 0);
  snprintf(text, sizeof text, "empirical:file=%s", one);
  d = parse_ok(text);
  for (uint64_t i = 0; i < 100; i++) ck_assert(fs_distribution_draw(&d, i, i, i) == 0.75);
  ck_assert(fs_distribution_variance(&d) == 0);
  fs_distribution_free(&d);
  free(path);
  free(one);
}
END_TEST

static void empirical_bad(const char *contents, size_t length, const char *message_after_path) {
  char *path = write_temp(contents, length);
  char text[512], message[1024];
  snprintf(text, sizeof text, "empirical:file=%s", path);
  snprintf(message, sizeof message, "%s%s", path, message_after_path);
  parse_bad(text, message);
  free(path);
}

START_TEST(empirical_errors) {
  empirical_bad("1\n2\nabc\n", 0, ":3:1: empirical: expected a finite number, not 'abc'");
  empirical_bad("1\n  nan # x\n", 0, ":2:3: empirical: expected a finite number, not 'nan'");
  empirical_bad("\t1e999\n", 0, ":1:2: empirical: expected a finite number, not '1e999'");
  empirical_bad("5ns\n", 0, ":1:1: empirical: expected a finite number, not '5ns'");
  empirical_bad("  1.5  2\n", 0, ":1:8: empirical: one sample per line; unexpected '2'");
  empirical_bad("1,2\n", 0, ":1:1: empirical: expected a finite number, not '1,2'");
  empirical_bad("# nothing\n\n   \n", 0, ": empirical: no samples");
  empirical_bad("", 0, ": empirical: no samples");
  empirical_bad("1\n2\0003\n", 6, ":2:2: NUL byte in text (is this a binary file?)");
  parse_bad("empirical:file=/nonexistent/fennel-samples.txt",
            "/nonexistent/fennel-samples.txt: cannot open: No such file or directory");
}
END_TEST

static Suite *noise_random_suite(void) {
  Suite *s = suite_create("noise_random");
  TCase *c = tcase_create("core");
  tcase_set_timeout(c, 120);
  tcase_add_test(c, philox_known_answers);
  tcase_add_test(c, bits_layout);
  tcase_add_test(c, uniform_open_53_bits);
  tcase_add_test(c, exact_draws);
  tcase_add_test(c, draws_depend_only_on_their_names);
  tcase_add_test(c, moments);
  tcase_add_test(c, moments_without_definition);
  tcase_add_test(c, zero_variance_is_exact);
  tcase_add_test(c, parse_errors);
  tcase_add_test(c, canonical_text);
  tcase_add_test(c, empirical_samples);
  tcase_add_test(c, empirical_errors);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(noise_random_suite()); }
