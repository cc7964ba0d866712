/* main.c: the fennelsim command: dispatches to a subcommand. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

static const char usage[] =
    "usage: fennelsim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  gen NAME --ranks N --size S [-o FILE]   generate a schedule (.dag, .dag.gz)\n"
    "  gen --list                              list the generators\n"
    "  run FILE --model NAME [--param k=v]...  simulate a schedule\n"
    "  best allreduce --ranks N [options]      rank allreduce schedules by simulating them\n"
    "  convert IN OUT                          rewrite a schedule (e.g. .dag -> .dag.gz)\n"
    "  merge A.csv B.csv... [--format json]    the statistics of a study's shards, combined\n"
    "  probe --model M [-o DATA.csv]           fennelprobe's experiments, simulated under a model\n"
    "  fit DATA.csv --model M [-o model.xml]   a model's parameters from measurements\n"
    "  validate MEASURED.csv --model M         predicted against measured collective times\n"
    "  help, --help                            this text; `fennelsim COMMAND --help` for more\n"
    "  version, --version\n";

/* Every command writes its report to stdout; output that could not be
 * written (a full disk, /dev/full, a closed pipe) fails the command with
 * status 1 unless it already failed for another reason. */
static int finish_stdout(int status) {
  /* a write that failed earlier left its errno, most likely still there */
  int failed = ferror(stdout), error = errno;
  if (!failed) errno = 0, failed = fflush(stdout) != 0, error = errno;
  /* not fclose: a closed stdout is fine for a command that printed nothing */
  if (!failed || status != FS_EXIT_OK) return status; /* a failed command said why */
  fprintf(stderr, "fennelsim: cannot write the output: %s\n",
          error ? strerror(error) : "write error");
  return FS_EXIT_SIMULATION;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return FS_EXIT_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "run") == 0) return fs_command_run(argc, argv);
  if (strcmp(command, "gen") == 0) return fs_command_gen(argc, argv);
  if (strcmp(command, "convert") == 0) return fs_command_convert(argc, argv);
  if (strcmp(command, "best") == 0) return fs_command_best(argc, argv);
  if (strcmp(command, "merge") == 0) return fs_command_merge(argc, argv);
  if (strcmp(command, "probe") == 0) return fs_command_probe(argc, argv);
  if (strcmp(command, "fit") == 0) return fs_command_fit(argc, argv);
  if (strcmp(command, "validate") == 0) return fs_command_validate(argc, argv);
  if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
    fputs(usage, stdout);
    return FS_EXIT_OK;
  }
  if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0) {
    printf("fennelsim %s\n", FENNELSIM_VERSION);
    return FS_EXIT_OK;
  }
  fprintf(stderr, "fennelsim: unknown command '%s'\n\n%s", command, usage);
  return FS_EXIT_USAGE;
}

int main(int argc, char **argv) { return finish_stdout(dispatch(argc, argv)); }
