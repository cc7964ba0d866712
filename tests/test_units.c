/* test_units.c: exact parsing and formatting of simulated quantities
 * (src/core/units.c).
 *
 * Covers fs_parse_time (every unit, bare numbers, fractions, rounding to the
 * nearest picosecond with halves away from zero, signs, malformed text, the
 * 19-digit limit and int64 overflow), fs_parse_size (decimal and binary
 * units, fractions that must give whole bytes, overflow), fs_parse_per_byte
 * (times per byte and bandwidths, rounding, rejected bandwidths),
 * fs_parse_count (bounds, digits only), fs_time_for_bytes (rounding and
 * saturation without overflow), the five formatters, and round trips
 * parse(format(v)) == v over edge values and pseudo-random values.
 * Every parser is also checked to read exactly text[0..length) and to leave
 * *out untouched on failure. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "test_support.h"

/* A value no parser produces for the inputs below, to see that a failing
 * parse writes nothing. */
#define SENTINEL ((int64_t)0x5a5a5a5a5a5a5a5a)

/* ---- helpers ------------------------------------------------------------ */

static int64_t time_ok(const char *text, int allow_negative) {
  fs_time t = SENTINEL;
  int status = fs_parse_time(text, strlen(text), allow_negative, &t);
  ck_assert_msg(status == 0, "fs_parse_time(\"%s\", %d) failed", text, allow_negative);
  return t;
}

static void time_bad(const char *text, int allow_negative) {
  fs_time t = SENTINEL;
  int status = fs_parse_time(text, strlen(text), allow_negative, &t);
  ck_assert_msg(status == -1, "fs_parse_time(\"%s\", %d) accepted: %lld", text, allow_negative,
                (long long)t);
  ck_assert_int_eq(t, SENTINEL);
}

/* Well formed but past the limit (units.h: 2^62 ps, 2^62 B, 2^62 as/B). */
static void time_past(const char *text, int allow_negative) {
  fs_time t = SENTINEL;
  int status = fs_parse_time(text, strlen(text), allow_negative, &t);
  ck_assert_msg(status == FS_PAST_LIMIT, "fs_parse_time(\"%s\", %d) gave %d", text, allow_negative,
                status);
  ck_assert_int_eq(t, SENTINEL);
}

static void size_past(const char *text) {
  int64_t v = SENTINEL;
  int status = fs_parse_size(text, strlen(text), &v);
  ck_assert_msg(status == FS_PAST_LIMIT, "fs_parse_size(\"%s\") gave %d", text, status);
  ck_assert_int_eq(v, SENTINEL);
}

static void per_byte_past(const char *text) {
  fs_per_byte v = SENTINEL;
  int status = fs_parse_per_byte(text, strlen(text), &v);
  ck_assert_msg(status == FS_PAST_LIMIT, "fs_parse_per_byte(\"%s\") gave %d", text, status);
  ck_assert_int_eq(v, SENTINEL);
}

static int64_t size_ok(const char *text) {
  int64_t v = SENTINEL;
  ck_assert_msg(fs_parse_size(text, strlen(text), &v) == 0, "fs_parse_size(\"%s\") failed", text);
  return v;
}

static void size_bad(const char *text) {
  int64_t v = SENTINEL;
  int status = fs_parse_size(text, strlen(text), &v);
  ck_assert_msg(status == -1, "fs_parse_size(\"%s\") accepted: %lld", text, (long long)v);
  ck_assert_int_eq(v, SENTINEL);
}

static int64_t per_byte_ok(const char *text) {
  fs_per_byte v = SENTINEL;
  ck_assert_msg(fs_parse_per_byte(text, strlen(text), &v) == 0, "fs_parse_per_byte(\"%s\") failed",
                text);
  return v;
}

static void per_byte_bad(const char *text) {
  fs_per_byte v = SENTINEL;
  int status = fs_parse_per_byte(text, strlen(text), &v);
  ck_assert_msg(status == -1, "fs_parse_per_byte(\"%s\") accepted: %lld", text, (long long)v);
  ck_assert_int_eq(v, SENTINEL);
}

static int64_t count_ok(const char *text, int64_t min, int64_t max) {
  int64_t v = SENTINEL;
  ck_assert_msg(fs_parse_count(text, strlen(text), min, max, &v) == 0,
                "fs_parse_count(\"%s\") failed", text);
  return v;
}

static void count_bad(const char *text, int64_t min, int64_t max) {
  int64_t v = SENTINEL;
  int status = fs_parse_count(text, strlen(text), min, max, &v);
  ck_assert_msg(status == -1, "fs_parse_count(\"%s\") accepted: %lld", text, (long long)v);
  ck_assert_int_eq(v, SENTINEL);
}

/* xorshift64: a fixed, portable pseudo-random sequence for the round trips. */
static uint64_t rng_state;
static uint64_t next_random(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}

/* ---- fs_parse_time ------------------------------------------------------ */

START_TEST(parse_time_units) {
  ck_assert_int_eq(time_ok("7ps", 0), 7);
  ck_assert_int_eq(time_ok("7ns", 0), 7000);
  ck_assert_int_eq(time_ok("7us", 0), 7000000);
  ck_assert_int_eq(time_ok("7ms", 0), INT64_C(7000000000));
  ck_assert_int_eq(time_ok("7s", 0), INT64_C(7000000000000));
  /* a bare number means nanoseconds */
  ck_assert_int_eq(time_ok("7", 0), 7000);
  ck_assert_int_eq(time_ok("0", 0), 0);
  ck_assert_int_eq(time_ok("0ps", 0), 0);
  ck_assert_int_eq(time_ok("0s", 0), 0);
  /* leading zeros are just digits */
  ck_assert_int_eq(time_ok("007us", 0), 7000000);
}
END_TEST

START_TEST(parse_time_fractions) {
  /* 0.4 ns = 4/10 * 1000 ps = 400 ps exactly (never 399.99...) */
  ck_assert_int_eq(time_ok("0.4ns", 0), 400);
  /* 1.5 us = 15/10 * 10^6 ps */
  ck_assert_int_eq(time_ok("1.5us", 0), 1500000);
  ck_assert_int_eq(time_ok("2.25ms", 0), INT64_C(2250000000));
  ck_assert_int_eq(time_ok("0.000000000001s", 0), 1);
  ck_assert_int_eq(time_ok("1.000000000001s", 0), INT64_C(1000000000001));
  ck_assert_int_eq(time_ok("0.1", 0), 100);
  /* a point with digits on one side only */
  ck_assert_int_eq(time_ok("1.ns", 0), 1000);
  ck_assert_int_eq(time_ok(".5ns", 0), 500);
  ck_assert_int_eq(time_ok("3.000ps", 0), 3);
}
END_TEST

START_TEST(parse_time_rounding) {
  /* 0.0005 ns = 0.5 ps: the half goes away from zero, to 1 */
  ck_assert_int_eq(time_ok("0.0005ns", 0), 1);
  /* 0.0004 ns = 0.4 ps -> 0 */
  ck_assert_int_eq(time_ok("0.0004ns", 0), 0);
  /* 0.0015 ns = 1.5 ps -> 2; 0.0025 ns = 2.5 ps -> 3 (not to even) */
  ck_assert_int_eq(time_ok("0.0015ns", 0), 2);
  ck_assert_int_eq(time_ok("0.0025ns", 0), 3);
  /* 1.0005 ns = 1000.5 ps -> 1001; 1.00049 ns = 1000.49 ps -> 1000 */
  ck_assert_int_eq(time_ok("1.0005ns", 0), 1001);
  ck_assert_int_eq(time_ok("1.00049ns", 0), 1000);
  ck_assert_int_eq(time_ok("0.5ps", 0), 1);
  ck_assert_int_eq(time_ok("0.4999999999ps", 0), 0);
  ck_assert_int_eq(time_ok("2.5ps", 0), 3);
  /* negative halves also go away from zero: -1.5 ps -> -2, -0.5 ps -> -1 */
  ck_assert_int_eq(time_ok("-0.0015ns", 1), -2);
  ck_assert_int_eq(time_ok("-0.5ps", 1), -1);
  /* -0.4 ps rounds to zero (not to a negative zero or -1) */
  ck_assert_int_eq(time_ok("-0.0004ns", 1), 0);
}
END_TEST

START_TEST(parse_time_signs) {
  time_bad("-5ns", 0);
  time_bad("-0ns", 0);
  time_bad("-0.0004ns", 0);
  ck_assert_int_eq(time_ok("-5ns", 1), -5000);
  ck_assert_int_eq(time_ok("-1.5us", 1), -1500000);
  ck_assert_int_eq(time_ok("-0", 1), 0);
  /* an explicit plus sign is accepted */
  ck_assert_int_eq(time_ok("+5ns", 0), 5000);
  ck_assert_int_eq(time_ok("+5ns", 1), 5000);
  time_bad("--1", 1);
  time_bad("+-1", 1);
  time_bad("-+1", 1);
  time_bad("-", 1);
  time_bad("+", 0);
  time_bad("-ns", 1);
}
END_TEST

START_TEST(parse_time_malformed) {
  const char *bad[] = {"",     "ns",   "1.2.3ns", "1 ns",  "1nss",  "abc", "--1",
                       " 1ns", "1ns ", "1NS",     "1Ns",   "1sec",  "1n",  "1p",
                       "1m",   "1u",   "1e3ns",   "1,5ns", ".",     ".ns", "1..2",
                       "1ns1", "ns1",  "0x10ns",  "1/s",   "1GB/s", "1B",  "1us\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    time_bad(bad[i], 0);
    time_bad(bad[i], 1);
  }
}
END_TEST

START_TEST(parse_time_reads_exactly_length) {
  fs_time t = SENTINEL;
  /* only "15ns" of "15nsXYZ" is read */
  ck_assert_int_eq(fs_parse_time("15nsXYZ", 4, 0, &t), 0);
  ck_assert_int_eq(t, 15000);
  /* "15n" is not a unit: the rest of the string is not looked at */
  t = SENTINEL;
  ck_assert_int_eq(fs_parse_time("15ns", 3, 0, &t), -1);
  ck_assert_int_eq(t, SENTINEL);
  /* "15" of "15ps" is a bare number: 15 ns */
  ck_assert_int_eq(fs_parse_time("15ps", 2, 0, &t), 0);
  ck_assert_int_eq(t, 15000);
  /* zero length is empty text */
  t = SENTINEL;
  ck_assert_int_eq(fs_parse_time("15ns", 0, 0, &t), -1);
  ck_assert_int_eq(t, SENTINEL);
  /* text without a terminating NUL inside the given length */
  char buffer[4] = {'2', 'u', 's', '!'};
  ck_assert_int_eq(fs_parse_time(buffer, 3, 0, &t), 0);
  ck_assert_int_eq(t, 2000000);
}
END_TEST

START_TEST(parse_time_digit_limit_and_overflow) {
  /* at most 19 significant digits; leading zeros do not count, fraction
   * zeros do; a longer whole part is past every limit */
  ck_assert_int_eq(time_ok("1234567890123456789ps", 0), INT64_C(1234567890123456789));
  time_past("12345678901234567890ps", 0);
  ck_assert_int_eq(time_ok("00000000000000000001ps", 0), 1);
  time_bad("0.00000000000000000001s", 0);                   /* 20 fraction digits */
  ck_assert_int_eq(time_ok("0.000000000000000001s", 0), 0); /* 19 digits: 10^-6 ps -> 0 */
  /* the limit: FS_TIME_LIMIT = 2^62 ps = 4611686018427387904 ps, either sign */
  ck_assert_int_eq(time_ok("4611686018427387904ps", 0), FS_TIME_LIMIT);
  time_past("4611686018427387905ps", 0);
  time_past("9223372036854775807ps", 0);
  time_past("9223372036854775808ps", 0);
  ck_assert_int_eq(time_ok("-4611686018427387904ps", 1), -FS_TIME_LIMIT);
  time_past("-4611686018427387905ps", 1);
  time_bad("-1ps", 0); /* a sign where none is allowed: malformed, not past */
  /* 10^7 s = 10^19 ps */
  time_past("10000000s", 0);
  /* 4611686 s = 4.611686e18 ps is within; 4611687 s is not */
  ck_assert_int_eq(time_ok("4611686s", 0), INT64_C(4611686000000000000));
  time_past("4611687s", 0);
  time_past("-4611687s", 1);
  /* 19 digits with a fraction, just at and just past the limit */
  ck_assert_int_eq(time_ok("4611686.018427387904s", 0), FS_TIME_LIMIT);
  time_past("4611686.018427387905s", 0);
  /* 4611686018427387.904 ns is the limit; one ps more is past it */
  ck_assert_int_eq(time_ok("4611686018427387.904", 0), FS_TIME_LIMIT);
  time_past("4611686018427387.905", 0);
  /* the largest mantissa with the largest unit does not overflow the
   * 128-bit arithmetic, it is simply past the limit */
  time_past("9999999999999999999s", 0);
  time_past("-9999999999999999999s", 1);
  time_past("99999999999999999999999999999999s", 0);
}
END_TEST

/* ---- fs_parse_size ------------------------------------------------------ */

START_TEST(parse_size_units) {
  ck_assert_int_eq(size_ok("8"), 8);
  ck_assert_int_eq(size_ok("0"), 0);
  ck_assert_int_eq(size_ok("0B"), 0);
  ck_assert_int_eq(size_ok("8B"), 8);
  ck_assert_int_eq(size_ok("8KB"), 8000);
  ck_assert_int_eq(size_ok("8MB"), 8000000);
  ck_assert_int_eq(size_ok("8GB"), INT64_C(8000000000));
  ck_assert_int_eq(size_ok("8TB"), INT64_C(8000000000000));
  ck_assert_int_eq(size_ok("8KiB"), 8192);
  ck_assert_int_eq(size_ok("8MiB"), 8388608);
  ck_assert_int_eq(size_ok("8GiB"), INT64_C(8589934592));
  ck_assert_int_eq(size_ok("8TiB"), INT64_C(8796093022208));
  ck_assert_int_eq(size_ok("+8B"), 8);
}
END_TEST

START_TEST(parse_size_fractions) {
  /* 1.5 KiB = 15/10 * 1024 = 1536 */
  ck_assert_int_eq(size_ok("1.5KiB"), 1536);
  ck_assert_int_eq(size_ok("0.5KB"), 500);
  ck_assert_int_eq(size_ok("0.001KB"), 1);
  /* 1.0009765625 KiB = 1024 + 1024/1024 = 1025 */
  ck_assert_int_eq(size_ok("1.0009765625KiB"), 1025);
  ck_assert_int_eq(size_ok("2.000B"), 2);
  ck_assert_int_eq(size_ok("0.25MiB"), 262144);
  /* fractions that are not whole bytes */
  size_bad("0.5B");
  size_bad("1.5");
  size_bad("0.0001KB");
  size_bad("1.00097KiB");
  size_bad("0.3KiB"); /* 307.2 */
}
END_TEST

START_TEST(parse_size_malformed) {
  const char *bad[] = {"",    "B",     "KiB",  "-1B",   "-0",   "-1",  "1 B",    "1b",
                       "1kB", "1KIB",  "1Kib", "1KiBs", "1EiB", "1PB", "1.2.3B", "abc",
                       "1ns", "1GB/s", "--1",  ".",     "1B ",  " 1B", "0x10"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) size_bad(bad[i]);
  /* reads exactly length */
  int64_t v = SENTINEL;
  ck_assert_int_eq(fs_parse_size("4KiBxyz", 4, &v), 0);
  ck_assert_int_eq(v, 4096);
  v = SENTINEL;
  ck_assert_int_eq(fs_parse_size("4KiB", 3, &v), -1); /* "4Ki" */
  ck_assert_int_eq(v, SENTINEL);
}
END_TEST

START_TEST(parse_size_overflow) {
  /* FS_SIZE_LIMIT = 2^62 B = 4611686018427387904 B */
  ck_assert_int_eq(size_ok("4611686018427387904"), FS_SIZE_LIMIT);
  size_past("4611686018427387905");
  size_past("9223372036854775807");
  size_past("9223372036854775808");
  size_past("12345678901234567890");
  /* 4194304 TiB = 2^22 * 2^40 = 2^62 is within; one TiB more is not */
  ck_assert_int_eq(size_ok("4194304TiB"), FS_SIZE_LIMIT);
  size_past("4194305TiB");
  size_past("8388608TiB");
  size_bad("0.5B"); /* malformed (not whole bytes), not past */
  /* 4611686 TB = 4.611686e18 is within; 4611687 TB is not */
  ck_assert_int_eq(size_ok("4611686TB"), INT64_C(4611686000000000000));
  size_past("4611687TB");
  size_past("9223373TB");
  size_past("9999999999999999999TiB");
}
END_TEST

/* ---- fs_parse_per_byte -------------------------------------------------- */

START_TEST(parse_per_byte_times) {
  /* 1 ps = 10^6 as; 0.4 ns = 400 ps = 4 * 10^8 as */
  ck_assert_int_eq(per_byte_ok("0.4ns"), INT64_C(400000000));
  ck_assert_int_eq(per_byte_ok("400ps"), INT64_C(400000000));
  ck_assert_int_eq(per_byte_ok("0.4"), INT64_C(400000000)); /* bare: ns */
  ck_assert_int_eq(per_byte_ok("1ps"), 1000000);
  ck_assert_int_eq(per_byte_ok("1us"), INT64_C(1000000000000));
  ck_assert_int_eq(per_byte_ok("1ms"), INT64_C(1000000000000000));
  ck_assert_int_eq(per_byte_ok("1s"), INT64_C(1000000000000000000));
  ck_assert_int_eq(per_byte_ok("0ns"), 0);
  ck_assert_int_eq(per_byte_ok("0.000001ps"), 1);
  /* 0.0000005 ps = 0.5 as -> 1 (half away from zero); 0.4 as -> 0 */
  ck_assert_int_eq(per_byte_ok("0.0000005ps"), 1);
  ck_assert_int_eq(per_byte_ok("0.0000004ps"), 0);
  /* FS_PER_BYTE_LIMIT = 2^62 as/B: 4.611686 s/B = 4.611686e18 as is
   * within, 4.611687 s is not */
  ck_assert_int_eq(per_byte_ok("4.611686s"), INT64_C(4611686000000000000));
  per_byte_past("4.611687s");
  per_byte_past("9.223373s");
  ck_assert_int_eq(per_byte_ok("4611686018427.387904ps"), FS_PER_BYTE_LIMIT);
  per_byte_past("4611686018427.387905ps");
  per_byte_past("9999999999999999999s");
  per_byte_past("99999999999999999999s");
}
END_TEST

START_TEST(parse_per_byte_bandwidths) {
  /* 10^18 as per second / (10 * 10^9 B) = 10^8 as/B (0.1 ns) */
  ck_assert_int_eq(per_byte_ok("10GB/s"), INT64_C(100000000));
  /* 10^18 / 2^30 = 931322574.6154... -> 931322575 */
  ck_assert_int_eq(per_byte_ok("1GiB/s"), INT64_C(931322575));
  /* 10^18 / (1.5 * 2^30) = 620881716.41... -> 620881716 */
  ck_assert_int_eq(per_byte_ok("1.5GiB/s"), INT64_C(620881716));
  /* 10^18 / 10.2e9 = 98039215.686... -> 98039216 */
  ck_assert_int_eq(per_byte_ok("10.2GB/s"), INT64_C(98039216));
  /* 10^18 / 8e8 = 1.25e9 */
  ck_assert_int_eq(per_byte_ok("800MB/s"), INT64_C(1250000000));
  /* 10^18 / 2^40 = 909494.70... -> 909495 */
  ck_assert_int_eq(per_byte_ok("1TiB/s"), 909495);
  ck_assert_int_eq(per_byte_ok("1TB/s"), 1000000);
  ck_assert_int_eq(per_byte_ok("1KB/s"), INT64_C(1000000000000000));
  ck_assert_int_eq(per_byte_ok("1KiB/s"), INT64_C(976562500000000)); /* 10^18/1024 exact */
  /* 10^19 / (15 * 2^20) = 635782877604.1666... -> 635782877604 */
  ck_assert_int_eq(per_byte_ok("1.5MiB/s"), INT64_C(635782877604));
  ck_assert_int_eq(per_byte_ok("1B/s"), INT64_C(1000000000000000000));
  /* 10^18 / 3 = 333333333333333333.33 -> rounds down */
  ck_assert_int_eq(per_byte_ok("3B/s"), INT64_C(333333333333333333));
  /* 10^18 / 2.4e18 B = 0.4166 -> 0, not representable: refused;
   * 10^18 / 1.6e18 = 0.625 -> 1 */
  per_byte_bad("2400000TB/s");
  ck_assert_int_eq(per_byte_ok("1600000TB/s"), 1);
  /* 10^18 / 0.25 = 4e18 is within the limit of 2^62 as; 10^18 / 0.2 = 5e18
   * is not */
  ck_assert_int_eq(per_byte_ok("0.25B/s"), INT64_C(4000000000000000000));
  per_byte_past("0.2B/s");
  per_byte_past("0.1B/s");
}
END_TEST

START_TEST(parse_per_byte_malformed) {
  const char *bad[] = {"0B/s",    "0GB/s",  "0.0GiB/s", "/s",      "B/s",  "10/s",    "10GB/",
                       "10GB/ms", "10Gb/s", "10 GB/s",  "10GB/s ", "-1ns", "-10GB/s", "-0ns",
                       "",        "ns",     "1.2.3ns",  "abc",     "1nss", "10GBs",   "10GB//s",
                       "10s/s",   "1xB/s",  "1B/S",     "1GB/sec"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) per_byte_bad(bad[i]);
  /* reads exactly length: "1GB/s" of "1GB/sX"; "1GB/" of "1GB/s" */
  fs_per_byte v = SENTINEL;
  ck_assert_int_eq(fs_parse_per_byte("1GB/sX", 5, &v), 0);
  ck_assert_int_eq(v, INT64_C(1000000000));
  v = SENTINEL;
  ck_assert_int_eq(fs_parse_per_byte("1GB/s", 4, &v), -1);
  ck_assert_int_eq(v, SENTINEL);
  ck_assert_int_eq(fs_parse_per_byte("2nsXX", 3, &v), 0);
  ck_assert_int_eq(v, INT64_C(2000000000));
}
END_TEST

/* ---- fs_parse_count ----------------------------------------------------- */

START_TEST(parse_count_bounds) {
  ck_assert_int_eq(count_ok("0", 0, 10), 0);
  ck_assert_int_eq(count_ok("10", 0, 10), 10);
  ck_assert_int_eq(count_ok("1", 1, 1), 1);
  ck_assert_int_eq(count_ok("007", 0, 10), 7);
  count_bad("11", 0, 10);
  count_bad("0", 1, 10);
  count_bad("2", 3, 1); /* empty range */
  /* 18 digits is the longest accepted text */
  ck_assert_int_eq(count_ok("999999999999999999", 0, INT64_MAX), INT64_C(999999999999999999));
  count_bad("1000000000000000000", 0, INT64_MAX);
  count_bad("0000000000000000001", 0, INT64_MAX);
  const char *bad[] = {"", "-1", "+1", "1a", " 1", "1 ", "1.0", "1e3", "0x1", "a", "-"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) count_bad(bad[i], INT64_MIN, INT64_MAX);
  /* reads exactly length */
  int64_t v = SENTINEL;
  ck_assert_int_eq(fs_parse_count("123", 2, 0, 100, &v), 0);
  ck_assert_int_eq(v, 12);
}
END_TEST

/* fs_parse_ns: fs_format_ns's text back, exactly; 1 to 3 decimals; the
 * largest value is FS_TIME_LIMIT = 4611686018427387.904 ns. */
START_TEST(parse_ns_exact) {
  fs_time t = SENTINEL;
  const struct {
    const char *text;
    fs_time ps;
  } good[] = {{"0", 0},
              {"1", 1000},
              {"0.001", 1},
              {"2510.5", 2510500},
              {"2510.50", 2510500},
              {"1234.567", 1234567},
              {"007", 7000},
              {"4611686018427387.904", FS_TIME_LIMIT}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    ck_assert_msg(fs_parse_ns(good[i].text, strlen(good[i].text), &t) == 0, "%s", good[i].text);
    ck_assert_int_eq(t, good[i].ps);
  }
  const char *bad[] = {"", ".5", "1.", "1.2345", "-1", "+1", "1ns", "1e3", " 1", "1 ", "1,5"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t = SENTINEL;
    ck_assert_msg(fs_parse_ns(bad[i], strlen(bad[i]), &t) == -1, "'%s' accepted", bad[i]);
    ck_assert_int_eq(t, SENTINEL);
  }
  const char *past[] = {"4611686018427387.905", "9223372036854775.807", "9223372036854775.808",
                        "9223372036854776", "99999999999999999999"};
  for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
    t = SENTINEL;
    ck_assert_msg(fs_parse_ns(past[i], strlen(past[i]), &t) == FS_PAST_LIMIT, "'%s'", past[i]);
    ck_assert_int_eq(t, SENTINEL);
  }
  ck_assert_int_eq(fs_parse_ns("12.3456", 4, &t), 0); /* reads exactly length: "12.3" */
  ck_assert_int_eq(t, 12300);
  char buffer[32];
  for (fs_time v = 0; v < 3000000; v += 12347) { /* fs_format_ns round trip */
    fs_format_ns(buffer, v);
    ck_assert_int_eq(fs_parse_ns(buffer, strlen(buffer), &t), 0);
    ck_assert_int_eq(t, v);
  }
}
END_TEST

/* ---- fs_time_for_bytes -------------------------------------------------- */

START_TEST(time_for_bytes_values) {
  /* 1000 B * 4e8 as = 4e11 as = 400000 ps */
  ck_assert_int_eq(fs_time_for_bytes(1000, INT64_C(400000000)), 400000);
  ck_assert_int_eq(fs_time_for_bytes(0, INT64_C(400000000)), 0);
  ck_assert_int_eq(fs_time_for_bytes(123, 0), 0);
  /* 1 as -> 10^-6 ps -> 0; 500000 as = 0.5 ps -> 1; 499999 as -> 0 */
  ck_assert_int_eq(fs_time_for_bytes(1, 1), 0);
  ck_assert_int_eq(fs_time_for_bytes(500000, 1), 1);
  ck_assert_int_eq(fs_time_for_bytes(1, 500000), 1);
  ck_assert_int_eq(fs_time_for_bytes(499999, 1), 0);
  /* 1.5 ps -> 2, 2.5 ps -> 3, negative halves away from zero */
  ck_assert_int_eq(fs_time_for_bytes(3, 500000), 2);
  ck_assert_int_eq(fs_time_for_bytes(5, 500000), 3);
  ck_assert_int_eq(fs_time_for_bytes(-500000, 1), -1);
  ck_assert_int_eq(fs_time_for_bytes(-3, 500000), -2);
  ck_assert_int_eq(fs_time_for_bytes(3, -500000), -2);
  ck_assert_int_eq(fs_time_for_bytes(-3, -500000), 2);
  /* 2^40 B at 0.4 ns/B = 2^40 * 400 ps = 439804651110400 ps; the product
   * 2^40 * 4e8 as = 4.4e20 does not fit in int64 but is exact here */
  ck_assert_int_eq(fs_time_for_bytes(INT64_C(1) << 40, INT64_C(400000000)),
                   INT64_C(439804651110400));
  /* 2^40 B at 1 GiB/s (931322575 as/B): 1024000000422785843200 as
   * = 1024000000422785.8432 ps -> 1024000000422786 */
  ck_assert_int_eq(fs_time_for_bytes(INT64_C(1) << 40, INT64_C(931322575)),
                   INT64_C(1024000000422786));
  /* 2^62 B at exactly 1 ps/B: the limit itself */
  ck_assert_int_eq(fs_time_for_bytes(FS_SIZE_LIMIT, 1000000), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(FS_SIZE_LIMIT - 1, 1000000), FS_TIME_LIMIT - 1);
  /* results past the time limit (2^62 ps) saturate at it, either sign */
  ck_assert_int_eq(fs_time_for_bytes(FS_SIZE_LIMIT + 1, 1000000), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MAX, 1000000), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MAX, 1000001), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MAX, INT64_MAX), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MIN, 1000001), -FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MIN, INT64_MAX), -FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MIN, INT64_MIN), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_time_for_bytes(INT64_MIN, 1000000), -FS_TIME_LIMIT);
}
END_TEST

/* ---- formatters --------------------------------------------------------- */

START_TEST(format_time_values) {
  char b[32];
  ck_assert_str_eq(fs_format_time(b, 1500000), "1500ns");
  ck_assert_str_eq(fs_format_time(b, 3000000), "3us");
  ck_assert_str_eq(fs_format_time(b, 7), "7ps");
  ck_assert_str_eq(fs_format_time(b, 0), "0ns");
  ck_assert_str_eq(fs_format_time(b, -2000000), "-2us");
  ck_assert_str_eq(fs_format_time(b, -7), "-7ps");
  ck_assert_str_eq(fs_format_time(b, 1000), "1ns");
  ck_assert_str_eq(fs_format_time(b, 1001), "1001ps");
  ck_assert_str_eq(fs_format_time(b, INT64_C(1000000000)), "1ms");
  ck_assert_str_eq(fs_format_time(b, INT64_C(1000000000000)), "1s");
  ck_assert_str_eq(fs_format_time(b, INT64_C(1500000000000000)), "1500s");
  ck_assert_str_eq(fs_format_time(b, INT64_C(1500000000000)), "1500ms");
  ck_assert_str_eq(fs_format_time(b, INT64_C(-9000000000000000000)), "-9000000s");
  ck_assert_str_eq(fs_format_time(b, INT64_MAX), "9223372036854775807ps");
  ck_assert_str_eq(fs_format_time(b, INT64_MIN), "-9223372036854775808ps");
  /* the buffer is also the return value */
  ck_assert_ptr_eq(fs_format_time(b, 5), b);
}
END_TEST

START_TEST(format_ns_values) {
  char b[32];
  ck_assert_str_eq(fs_format_ns(b, 1234567), "1234.567");
  ck_assert_str_eq(fs_format_ns(b, 5500000), "5500");
  ck_assert_str_eq(fs_format_ns(b, 1), "0.001");
  ck_assert_str_eq(fs_format_ns(b, 10), "0.01");
  ck_assert_str_eq(fs_format_ns(b, 100), "0.1");
  ck_assert_str_eq(fs_format_ns(b, 1230), "1.23");
  ck_assert_str_eq(fs_format_ns(b, -1500), "-1.5");
  ck_assert_str_eq(fs_format_ns(b, -1), "-0.001");
  ck_assert_str_eq(fs_format_ns(b, -1000), "-1");
  ck_assert_str_eq(fs_format_ns(b, 0), "0");
  ck_assert_str_eq(fs_format_ns(b, INT64_MAX), "9223372036854775.807");
  ck_assert_str_eq(fs_format_ns(b, INT64_MIN), "-9223372036854775.808");
  ck_assert_ptr_eq(fs_format_ns(b, 5), b);
}
END_TEST

START_TEST(format_size_values) {
  char b[32];
  ck_assert_str_eq(fs_format_size(b, 8), "8B");
  ck_assert_str_eq(fs_format_size(b, 0), "0B");
  ck_assert_str_eq(fs_format_size(b, 4096), "4KiB");
  ck_assert_str_eq(fs_format_size(b, 3000000), "3MB");
  ck_assert_str_eq(fs_format_size(b, 1000), "1KB");
  ck_assert_str_eq(fs_format_size(b, 1024), "1KiB");
  ck_assert_str_eq(fs_format_size(b, 1536), "1536B");
  ck_assert_str_eq(fs_format_size(b, 999), "999B");
  ck_assert_str_eq(fs_format_size(b, 1048576), "1MiB");
  ck_assert_str_eq(fs_format_size(b, INT64_C(1000000000)), "1GB");
  ck_assert_str_eq(fs_format_size(b, INT64_C(1073741824)), "1GiB");
  ck_assert_str_eq(fs_format_size(b, INT64_C(1000000000000)), "1TB");
  ck_assert_str_eq(fs_format_size(b, INT64_C(1099511627776)), "1TiB");
  /* 1024000 = 1000 KiB, not a whole MiB or MB */
  ck_assert_str_eq(fs_format_size(b, 1024000), "1000KiB");
  /* 8192000 = 8000 KiB = 8.192 MB: KiB is the largest whole unit */
  ck_assert_str_eq(fs_format_size(b, 8192000), "8000KiB");
  /* 2^20 * 10^6 = 2^26 * 5^6: whole in MiB, not in TiB, TB, GiB or GB */
  ck_assert_str_eq(fs_format_size(b, INT64_C(1048576000000)), "1000000MiB");
  /* 2^40 * 5^9 is whole in TiB and in GB (2^9 * 5^9): TiB is larger */
  ck_assert_str_eq(fs_format_size(b, INT64_C(2147483648000000000)), "1953125TiB");
  /* 2^30 * 5^12 is whole in TB (2^12 * 5^12) and in GiB: TB is larger,
   * 2^30 * 5^12 / 10^12 = 2^18 */
  ck_assert_str_eq(fs_format_size(b, INT64_C(262144000000000000)), "262144TB");
  /* 1024 * 10^12 = 2^22 * 5^12: whole in TB but not in TiB */
  ck_assert_str_eq(fs_format_size(b, INT64_C(1024000000000000)), "1024TB");
  ck_assert_str_eq(fs_format_size(b, INT64_C(1) << 62), "4194304TiB");
  ck_assert_str_eq(fs_format_size(b, INT64_MAX), "9223372036854775807B");
  ck_assert_ptr_eq(fs_format_size(b, 5), b);
}
END_TEST

START_TEST(format_per_byte_values) {
  char b[48];
  ck_assert_str_eq(fs_format_per_byte(b, INT64_C(400000000)), "400ps");
  ck_assert_str_eq(fs_format_per_byte(b, INT64_C(931322575)), "931.322575ps");
  ck_assert_str_eq(fs_format_per_byte(b, INT64_C(100000000)), "100ps");
  ck_assert_str_eq(fs_format_per_byte(b, 1500000), "1.5ps");
  ck_assert_str_eq(fs_format_per_byte(b, 1), "0.000001ps");
  ck_assert_str_eq(fs_format_per_byte(b, 10), "0.00001ps");
  ck_assert_str_eq(fs_format_per_byte(b, 0), "0ps");
  ck_assert_str_eq(fs_format_per_byte(b, INT64_MAX), "9223372036854.775807ps");
  ck_assert_ptr_eq(fs_format_per_byte(b, 5), b);

  ck_assert_str_eq(fs_format_ns_per_byte(b, INT64_C(400000000)), "0.4");
  ck_assert_str_eq(fs_format_ns_per_byte(b, INT64_C(98039216)), "0.098039216");
  ck_assert_str_eq(fs_format_ns_per_byte(b, INT64_C(1250000000)), "1.25");
  ck_assert_str_eq(fs_format_ns_per_byte(b, INT64_C(1000000000)), "1");
  ck_assert_str_eq(fs_format_ns_per_byte(b, 1), "0.000000001");
  ck_assert_str_eq(fs_format_ns_per_byte(b, 0), "0");
  ck_assert_str_eq(fs_format_ns_per_byte(b, INT64_MAX), "9223372036.854775807");
  ck_assert_ptr_eq(fs_format_ns_per_byte(b, 5), b);
}
END_TEST

/* fs_time_add and fs_time_mul: exact within the limits, saturated at
 * +-2^62 ps past them, and no signed overflow for any int64 operands (the
 * sanitizer build checks that). */
START_TEST(saturating_time_arithmetic) {
  const fs_time L = FS_TIME_LIMIT; /* 4611686018427387904 */
  ck_assert_int_eq(fs_time_add(1500, 2500), 4000);
  ck_assert_int_eq(fs_time_add(-1500, 1000), -500);
  ck_assert_int_eq(fs_time_add(L - 1, 1), L);
  ck_assert_int_eq(fs_time_add(L, 1), L);
  ck_assert_int_eq(fs_time_add(L, L), L); /* 2^63: past int64 too */
  ck_assert_int_eq(fs_time_add(INT64_MAX, INT64_MAX), L);
  ck_assert_int_eq(fs_time_add(INT64_MAX, INT64_MIN), -1); /* in range: exact */
  ck_assert_int_eq(fs_time_add(-L, -1), -L);
  ck_assert_int_eq(fs_time_add(INT64_MIN, INT64_MIN), -L);
  ck_assert_int_eq(fs_time_add(L, -L), 0);
  ck_assert_int_eq(fs_time_mul(1000, 3), 3000);
  ck_assert_int_eq(fs_time_mul(-1000, 3), -3000);
  ck_assert_int_eq(fs_time_mul(L / 2, 2), L);
  ck_assert_int_eq(fs_time_mul(L / 2 + 1, 2), L);
  ck_assert_int_eq(fs_time_mul(L, 2), L);
  ck_assert_int_eq(fs_time_mul(INT64_MAX, INT64_MAX), L);
  ck_assert_int_eq(fs_time_mul(INT64_MIN, -1), L);
  ck_assert_int_eq(fs_time_mul(INT64_MIN, 2), -L);
  ck_assert_int_eq(fs_time_mul(L, -2), -L);
  ck_assert_int_eq(fs_time_mul(0, INT64_MAX), 0);
  ck_assert_int_eq(fs_time_clamp(INT64_MAX), L);
  ck_assert_int_eq(fs_time_clamp(INT64_MIN), -L);
  ck_assert_int_eq(fs_time_clamp(-5), -5);
}
END_TEST

/* ---- round trips -------------------------------------------------------- */

static const int64_t edge_values[] = {0,
                                      1,
                                      2,
                                      7,
                                      9,
                                      10,
                                      999,
                                      1000,
                                      1001,
                                      1023,
                                      1024,
                                      1025,
                                      1500,
                                      999999,
                                      1000000,
                                      1000001,
                                      1048576,
                                      INT64_C(999999999),
                                      INT64_C(1000000000),
                                      INT64_C(1073741824),
                                      INT64_C(999999999999),
                                      INT64_C(1000000000000),
                                      INT64_C(1099511627776),
                                      INT64_C(1000000000000000),
                                      INT64_C(1000000000000000000),
                                      INT64_C(4611686018427387904),
                                      INT64_C(9223372036854775000),
                                      INT64_C(9223372000000000000),
                                      INT64_C(9223370937343148032),
                                      INT64_MAX - 1,
                                      INT64_MAX};

/* The round-trip checks run hundreds of thousands of times: Check records
 * every passing assertion (a write to its pipe), so they only call into
 * Check on a mismatch. */
/* A value past the limit is formatted but read back as past it. */
static int past_limit(int64_t v, int64_t limit) { return v > limit || v < -limit; }

static void check_time_round_trip(fs_time v) {
  char b[32], n[32];
  fs_time back = SENTINEL;
  fs_format_time(b, v);
  if (past_limit(v, FS_TIME_LIMIT)) {
    fs_format_ns(n, v);
    if (fs_parse_time(b, strlen(b), 1, &back) != FS_PAST_LIMIT ||
        fs_parse_time(n, strlen(n), 1, &back) != FS_PAST_LIMIT || back != SENTINEL)
      ck_abort_msg("time %lld -> \"%s\" not past the limit", (long long)v, b);
    return;
  }
  if (fs_parse_time(b, strlen(b), 1, &back) != 0 || back != v)
    ck_abort_msg("time %lld -> \"%s\" -> %lld", (long long)v, b, (long long)back);
  /* non-negative values read back without allow_negative */
  back = SENTINEL;
  if (v >= 0 && (fs_parse_time(b, strlen(b), 0, &back) != 0 || back != v))
    ck_abort_msg("time %lld -> \"%s\" -> %lld without sign", (long long)v, b, (long long)back);
  /* fs_format_ns is read back as a bare number of nanoseconds */
  back = SENTINEL;
  fs_format_ns(n, v);
  if (fs_parse_time(n, strlen(n), 1, &back) != 0 || back != v)
    ck_abort_msg("ns %lld -> \"%s\" -> %lld", (long long)v, n, (long long)back);
}

static void check_size_round_trip(int64_t v) {
  char b[32];
  int64_t back = SENTINEL;
  fs_format_size(b, v);
  if (past_limit(v, FS_SIZE_LIMIT)) {
    if (fs_parse_size(b, strlen(b), &back) != FS_PAST_LIMIT || back != SENTINEL)
      ck_abort_msg("size %lld -> \"%s\" not past the limit", (long long)v, b);
    return;
  }
  if (fs_parse_size(b, strlen(b), &back) != 0 || back != v)
    ck_abort_msg("size %lld -> \"%s\" -> %lld", (long long)v, b, (long long)back);
}

static void check_per_byte_round_trip(fs_per_byte v) {
  char b[48], n[48];
  fs_per_byte back = SENTINEL;
  fs_format_per_byte(b, v);
  if (past_limit(v, FS_PER_BYTE_LIMIT)) {
    fs_format_ns_per_byte(n, v);
    if (fs_parse_per_byte(b, strlen(b), &back) != FS_PAST_LIMIT ||
        fs_parse_per_byte(n, strlen(n), &back) != FS_PAST_LIMIT || back != SENTINEL)
      ck_abort_msg("per byte %lld -> \"%s\" not past the limit", (long long)v, b);
    return;
  }
  if (fs_parse_per_byte(b, strlen(b), &back) != 0 || back != v)
    ck_abort_msg("per byte %lld -> \"%s\" -> %lld", (long long)v, b, (long long)back);
  /* fs_format_ns_per_byte is read back as a bare number of ns per byte */
  back = SENTINEL;
  fs_format_ns_per_byte(n, v);
  if (fs_parse_per_byte(n, strlen(n), &back) != 0 || back != v)
    ck_abort_msg("ns per byte %lld -> \"%s\" -> %lld", (long long)v, n, (long long)back);
}

START_TEST(round_trip_edges) {
  for (size_t i = 0; i < sizeof edge_values / sizeof edge_values[0]; i++) {
    int64_t v = edge_values[i];
    check_time_round_trip(v);
    check_time_round_trip(-v);
    check_size_round_trip(v);
    check_per_byte_round_trip(v);
  }
  check_time_round_trip(INT64_MIN);
  check_time_round_trip(INT64_MIN + 1);
}
END_TEST

START_TEST(round_trip_random) {
  static const int64_t scales[] = {1,
                                   1000,
                                   1000000,
                                   INT64_C(1000000000),
                                   INT64_C(1000000000000),
                                   1024,
                                   1048576,
                                   INT64_C(1073741824),
                                   INT64_C(1099511627776)};
  rng_state = UINT64_C(0x9e3779b97f4a7c15);
  for (int i = 0; i < 200000; i++) {
    uint64_t r = next_random();
    int64_t v;
    switch (i % 4) {
      case 0: /* anywhere in the non-negative range */ v = (int64_t)(r >> 1); break;
      case 1: /* a small number of bits */ v = (int64_t)(r >> (1 + r % 63)); break;
      case 2: { /* a multiple of a unit, so that larger units are used */
        int64_t scale = scales[r % (sizeof scales / sizeof scales[0])];
        v = (int64_t)((next_random() >> 1) % (uint64_t)(INT64_MAX / scale)) * scale;
        break;
      }
      default: /* a small value */ v = (int64_t)(r % 100000); break;
    }
    check_time_round_trip(v);
    check_time_round_trip(-v);
    check_size_round_trip(v);
    check_per_byte_round_trip(v);
  }
}
END_TEST

/* A parsed value formatted and parsed again is the same value (canonical
 * text is a fixed point). */
START_TEST(round_trip_from_text) {
  const char *times[] = {"0.4ns", "1.5us", "2.25ms", "3s", "0.0005ns", "7ps", "1234.5678ns"};
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
    check_time_round_trip(time_ok(times[i], 0));
  const char *sizes[] = {"1.5KiB", "3MB", "8TiB", "0.25MiB", "17"};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    check_size_round_trip(size_ok(sizes[i]));
  const char *rates[] = {"10GB/s", "1GiB/s", "1.5GiB/s", "10.2GB/s", "3B/s", "0.4ns", "1TiB/s"};
  for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
    check_per_byte_round_trip(per_byte_ok(rates[i]));
}
END_TEST

static Suite *units_suite(void) {
  Suite *s = suite_create("units");
  TCase *parse = tcase_create("parse");
  tcase_add_test(parse, parse_time_units);
  tcase_add_test(parse, parse_time_fractions);
  tcase_add_test(parse, parse_time_rounding);
  tcase_add_test(parse, parse_time_signs);
  tcase_add_test(parse, parse_time_malformed);
  tcase_add_test(parse, parse_time_reads_exactly_length);
  tcase_add_test(parse, parse_time_digit_limit_and_overflow);
  tcase_add_test(parse, saturating_time_arithmetic);
  tcase_add_test(parse, parse_size_units);
  tcase_add_test(parse, parse_size_fractions);
  tcase_add_test(parse, parse_size_malformed);
  tcase_add_test(parse, parse_size_overflow);
  tcase_add_test(parse, parse_per_byte_times);
  tcase_add_test(parse, parse_per_byte_bandwidths);
  tcase_add_test(parse, parse_per_byte_malformed);
  tcase_add_test(parse, parse_count_bounds);
  tcase_add_test(parse, parse_ns_exact);
  suite_add_tcase(s, parse);
  TCase *arithmetic = tcase_create("arithmetic");
  tcase_add_test(arithmetic, time_for_bytes_values);
  suite_add_tcase(s, arithmetic);
  TCase *format = tcase_create("format");
  tcase_add_test(format, format_time_values);
  tcase_add_test(format, format_ns_values);
  tcase_add_test(format, format_size_values);
  tcase_add_test(format, format_per_byte_values);
  suite_add_tcase(s, format);
  TCase *round = tcase_create("round_trip");
  tcase_add_test(round, round_trip_edges);
  tcase_add_test(round, round_trip_random);
  tcase_add_test(round, round_trip_from_text);
  suite_add_tcase(s, round);
  return s;
}

int main(void) { return fs_test_run(units_suite()); }
