/* test_data_path.c: the search path for data files (io/data_path.h,
 * cli/data_roots.h): its order (working directory, FENNELSIM_PATH, the data
 * directory), the subdirectories tried in each root, names that bypass
 * it, the exact not-found message, model files' tables found beside the
 * model file, and the binary run from outside the tree. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/data_path.h"
#include "models/model_xml.h"
#include "test_support.h"

/* A fresh empty directory (caller frees). */
static char *temp_dir(void) {
  char *d = strdup("/tmp/fennel-data-path-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(d));
  return d;
}

static void remove_dir(char *dir) {
  char command[4200];
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(command), 0);
  free(dir);
}

/* Writes DIR/NAME, creating the directories NAME passes through. */
static void put(const char *dir, const char *name, const char *text) {
  char path[4096];
  for (const char *slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)(slash - name), name);
    mkdir(path, 0700);
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
}

/* The path found for name, or the error message. */
static const char *find(const fs_data_roots *roots, const char *name) {
  static char found[FS_DATA_PATH_MAX];
  fs_error err = {{0}};
  if (fs_data_find(roots, name, found, sizeof found, &err))
    snprintf(found, sizeof found, "%s", err.message);
  return found;
}

START_TEST(working_directory_first) {
  char *here = temp_dir(), *listed = temp_dir(), *data = temp_dir(), want[4096];
  put(here, "a.dag", "x"), put(listed, "a.dag", "x"), put(data, "a.dag", "x");
  put(listed, "models/b.xml", "x"), put(data, "models/b.xml", "x");
  put(data, "schedules/c.goal", "x");
  put(here, "traces/d/rank-0", "x"); /* directories are found too */
  ck_assert_int_eq(chdir(here), 0);
  fs_data_roots roots;
  fs_error err;
  ck_assert_int_eq(fs_data_roots_init(&roots, listed, data, NULL, &err), 0);
  ck_assert_str_eq(find(&roots, "a.dag"), "a.dag");       /* the working directory wins */
  snprintf(want, sizeof want, "%s/models/b.xml", listed); /* FENNELSIM_PATH before data */
  ck_assert_str_eq(find(&roots, "b.xml"), want);
  snprintf(want, sizeof want, "%s/schedules/c.goal", data);
  ck_assert_str_eq(find(&roots, "c.goal"), want);
  ck_assert_str_eq(find(&roots, "d"), "traces/d"); /* "." is a root: no "./" */
  fs_data_roots_free(&roots);
  remove_dir(here), remove_dir(listed), remove_dir(data);
}
END_TEST

/* In one root: R/NAME, then R/models/, R/schedules/, R/traces/. */
START_TEST(subdirectories_in_order) {
  char *root = temp_dir(), want[4096];
  put(root, "models/e.xml", "x"), put(root, "schedules/e.xml", "x"), put(root, "traces/e.xml", "x");
  put(root, "schedules/f", "x"), put(root, "traces/f", "x");
  ck_assert_int_eq(chdir("/"), 0);
  fs_data_roots roots;
  fs_error err;
  ck_assert_int_eq(fs_data_roots_init(&roots, NULL, root, NULL, &err), 0);
  snprintf(want, sizeof want, "%s/models/e.xml", root);
  ck_assert_str_eq(find(&roots, "e.xml"), want);
  snprintf(want, sizeof want, "%s/schedules/f", root);
  ck_assert_str_eq(find(&roots, "f"), want);
  put(root, "e.xml", "x");
  snprintf(want, sizeof want, "%s/e.xml", root);
  ck_assert_str_eq(find(&roots, "e.xml"), want);
  /* a name with a directory part is tried under each subdirectory too */
  snprintf(want, sizeof want, "%s/models/e.xml", root);
  ck_assert_str_eq(find(&roots, "models/e.xml"), want);
  fs_data_roots_free(&roots);
  remove_dir(root);
}
END_TEST

/* Empty entries of FENNELSIM_PATH are skipped; a trailing '/' is not doubled. */
START_TEST(empty_entries_skipped) {
  char *listed = temp_dir(), list[4200], want[4096];
  put(listed, "g.dag", "x");
  ck_assert_int_eq(chdir("/"), 0);
  snprintf(list, sizeof list, "::%s/:", listed);
  fs_data_roots roots;
  fs_error err;
  ck_assert_int_eq(fs_data_roots_init(&roots, list, "", NULL, &err), 0);
  ck_assert_int_eq(roots.count, 2); /* "." and the one directory */
  ck_assert_str_eq(roots.dirs[0], ".");
  snprintf(want, sizeof want, "%s/g.dag", listed);
  ck_assert_str_eq(find(&roots, "g.dag"), want);
  fs_data_roots_free(&roots);
  ck_assert_int_eq(fs_data_roots_init(&roots, "", NULL, NULL, &err), 0);
  ck_assert_int_eq(roots.count, 1);
  fs_data_roots_free(&roots);
  remove_dir(listed);
}
END_TEST

/* Absolute names and "-" are returned as given, found or not. */
START_TEST(absolute_names_bypass) {
  char *root = temp_dir();
  put(root, "nonexistent/x.dag", "x"); /* would match ROOT/NAME if searched */
  fs_data_roots roots;
  fs_error err;
  ck_assert_int_eq(fs_data_roots_init(&roots, root, NULL, NULL, &err), 0);
  ck_assert_str_eq(find(&roots, "/nonexistent/x.dag"), "/nonexistent/x.dag");
  ck_assert_str_eq(find(&roots, "-"), "-");
  ck_assert_str_eq(find(&roots, ""), ""); /* not ROOT/ itself */
  fs_data_roots_free(&roots);
  remove_dir(root);
}
END_TEST

/* A name with a ".." component: only relative to the working directory,
 * so that a search never leaves its roots. */
START_TEST(dot_dot_not_searched) {
  char *root = temp_dir(), *here = temp_dir(), name[4200];
  put(root, "models/h.xml", "x");
  ck_assert_int_eq(chdir(here), 0);
  fs_data_roots roots;
  fs_error err;
  ck_assert_int_eq(fs_data_roots_init(&roots, root, NULL, NULL, &err), 0);
  ck_assert_str_eq(find(&roots, "../models/h.xml"),
                   "cannot find '../models/h.xml' (a name with '..' is looked for only in the "
                   "working directory)");
  /* found where it is, relative to the working directory */
  snprintf(name, sizeof name, "../%s/models/h.xml", strrchr(root, '/') + 1);
  ck_assert_str_eq(find(&roots, name), name);
  /* ".." inside a longer component is an ordinary name */
  put(root, "models/a..b", "x");
  snprintf(name, sizeof name, "%s/models/a..b", root);
  ck_assert_str_eq(find(&roots, "a..b"), name);
  fs_data_roots_free(&roots);
  remove_dir(root), remove_dir(here);
}
END_TEST

START_TEST(missing_name_message) {
  char *here = temp_dir();
  ck_assert_int_eq(chdir(here), 0);
  fs_data_roots roots;
  fs_error err;
  ck_assert_int_eq(fs_data_roots_init(&roots, "/no/a::/no/b", "/usr/local/share/fennelsim",
                                      "/src/fennelsim", &err),
                   0);
  ck_assert_str_eq(find(&roots, "x.xml"),
                   "cannot find 'x.xml' (looked in ., /no/a, /no/b, /usr/local/share/fennelsim, "
                   "/src/fennelsim and their models/, schedules/, traces/)");
  fs_data_roots_free(&roots);
  ck_assert_str_eq(find(NULL, "x.xml"),
                   "cannot find 'x.xml' (looked in . and their models/, schedules/, traces/)");
  remove_dir(here);
}
END_TEST

/* FENNELSIM_PATH of more directories than fit: an error, not a silent cut.
 * 64 roots = ".", 61 listed, the data directory and the source tree. */
START_TEST(too_many_directories) {
  char list[64 * 4 + 1] = "";
  for (int i = 0; i < 62; i++) strcat(list, i ? ":/d" : "/d");
  fs_data_roots roots;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_data_roots_init(&roots, list, "/data", "/src", &err), -1);
  ck_assert_str_eq(err.message, "FENNELSIM_PATH: more than 61 directories");
  list[strlen(list) - 3] = 0; /* 61 */
  ck_assert_int_eq(fs_data_roots_init(&roots, list, "/data", "/src", &err), 0);
  ck_assert_int_eq(roots.count, 64);
  fs_data_roots_free(&roots);
  /* the limit holds without a data directory or source tree too */
  strcat(list, ":/d");
  ck_assert_int_eq(fs_data_roots_init(&roots, list, NULL, NULL, &err), -1);
  ck_assert_str_eq(err.message, "FENNELSIM_PATH: more than 61 directories");
}
END_TEST

/* A model file's table named by a relative path is the one beside the model
 * file when it exists there; else it stays as written; table=archer is a
 * name, not a file. */
START_TEST(model_tables_beside_the_model) {
  char *dir = temp_dir(), want[4096], path[4096];
  put(dir, "m.xml",
      "<model kind=\"taulop\">\n"
      "  <param name=\"shm_table\" value=\"shm.table\"/>\n"
      "  <param name=\"net_table\" value=\"elsewhere.table\"/>\n"
      "  <param name=\"table\" value=\"archer\"/>\n"
      "  <param name=\"shm_o\" value=\"shm.table\"/>\n"
      "</model>\n");
  put(dir, "shm.table", "0B 1ns\n");
  put(dir, "archer", "x");
  ck_assert_int_eq(chdir("/"), 0);
  snprintf(path, sizeof path, "%s/m.xml", dir);
  fs_error err = {{0}};
  fs_model_file *f = fs_model_file_read(path, &err);
  ck_assert_msg(f != NULL, "%s", err.message);
  snprintf(want, sizeof want, "%s/shm.table", dir);
  ck_assert_str_eq(f->params.items[0].value, want);
  ck_assert_str_eq(f->params.items[1].value, "elsewhere.table");
  ck_assert_str_eq(f->params.items[2].value, "archer");
  ck_assert_str_eq(f->params.items[3].value, "shm.table"); /* not a file parameter */
  fs_model_file_free(f);
  remove_dir(dir);
}
END_TEST

/* `cd DIR && FENNELSIM_PATH=LIST fennelsim ARGS`; the exit status, output
 * and errors (caller frees). */
static int run_in(const char *dir, const char *path_list, const char *arguments, char **out,
                  char **err) {
  char command[8192];
  char *out_path = fs_test_temp_path(".out"), *err_path = fs_test_temp_path(".err");
  snprintf(command, sizeof command, "cd '%s' && %s%s%s'%s' %s </dev/null >'%s' 2>'%s'", dir,
           path_list ? "FENNELSIM_PATH='" : "env -u FENNELSIM_PATH ", path_list ? path_list : "",
           path_list ? "' " : "", FENNELSIM_BINARY, arguments, out_path, err_path);
  int status = system(command);
  *out = fs_test_read_file(out_path, NULL);
  *err = fs_test_read_file(err_path, NULL);
  remove(out_path), remove(err_path), free(out_path), free(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* From an empty directory, the binary in its build directory finds the
 * shipped files in the source tree; the report shows the path found. */
START_TEST(binary_from_any_directory) {
  char *here = temp_dir(), *out, *err, want[8192];
  ck_assert_int_eq(run_in(here, NULL,
                          "run allreduce-rd-8.dag --model metropolis-taulop --nodes 2 "
                          "--cores 4",
                          &out, &err),
                   0);
  snprintf(want, sizeof want,
           "input      %s/schedules/allreduce-rd-8.dag (8 ranks, 56 tasks, "
           "72 dependencies)\n",
           FENNELSIM_SOURCE_ROOT);
  ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
  ck_assert_str_eq(err, "");
  free(out), free(err);
  /* the recorded sweep3d trace, a directory under traces/ */
  ck_assert_int_eq(run_in(here, NULL, "run sweep3d-2x2 --model loggops", &out, &err), 0);
  snprintf(want, sizeof want, "input      %s/traces/sweep3d-2x2 (4 ranks,", FENNELSIM_SOURCE_ROOT);
  ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
  free(out), free(err);
  remove_dir(here);
}
END_TEST

/* FENNELSIM_PATH wins over the data directory and the source tree: a
 * schedule of the source tree's name is shadowed. Missing names exit 2
 * with where the search looked. */
START_TEST(binary_path_and_missing) {
  char *here = temp_dir(), *listed = temp_dir(), *out, *err, want[8192];
  put(listed, "schedules/allreduce-rd-8.dag", "fennel-dag 1\nranks 1\na compute 0 time=7ns\n");
  put(listed, "tiny.xml", "<platform nodes=\"1\" cores=\"1\"/>\n");
  ck_assert_int_eq(run_in(here, listed, "run allreduce-rd-8.dag --platform tiny.xml", &out, &err),
                   0);
  snprintf(want, sizeof want,
           "input      %s/schedules/allreduce-rd-8.dag (1 ranks, 1 tasks, "
           "0 dependencies)\n",
           listed);
  ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
  ck_assert_msg(strstr(out, "makespan   7 ns") != NULL, "%s", out);
  free(out), free(err);
  ck_assert_int_eq(run_in(here, listed, "run nope.dag", &out, &err), 2);
  snprintf(want, sizeof want, "fennelsim: cannot find 'nope.dag' (looked in ., %s, ", listed);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
  snprintf(want, sizeof want, ", %s and their models/, schedules/, traces/)\n",
           FENNELSIM_SOURCE_ROOT);
  ck_assert_msg(strlen(err) > strlen(want) && strcmp(err + strlen(err) - strlen(want), want) == 0,
                "%s", err);
  ck_assert_str_eq(out, "");
  free(out), free(err);
  ck_assert_int_eq(run_in(here, NULL, "run allreduce-rd-8.dag --model nosuch.xml", &out, &err), 2);
  ck_assert_msg(strncmp(err, "fennelsim: cannot find 'nosuch.xml' (looked in ., ", 50) == 0, "%s",
                err);
  free(out), free(err);
  remove_dir(here), remove_dir(listed);
}
END_TEST

static Suite *data_path_suite(void) {
  Suite *s = suite_create("data_path");
  TCase *c = tcase_create("search");
  tcase_add_test(c, working_directory_first);
  tcase_add_test(c, subdirectories_in_order);
  tcase_add_test(c, empty_entries_skipped);
  tcase_add_test(c, absolute_names_bypass);
  tcase_add_test(c, dot_dot_not_searched);
  tcase_add_test(c, missing_name_message);
  tcase_add_test(c, too_many_directories);
  tcase_add_test(c, model_tables_beside_the_model);
  tcase_add_test(c, binary_from_any_directory);
  tcase_add_test(c, binary_path_and_missing);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(data_path_suite()); }
