/* main.c: the fennelsim command: dispatches to a subcommand. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"
#include "cli/options.h"

static const char usage[] =
    "usage: fennelsim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  gen NAME --ranks N --size S [-o FILE]   generate a schedule (.dag, .dag.gz)\n"
    "  gen --list                              list the generators\n"
    "  run FILE --model NAME [--param k=v]...  simulate a schedule\n"
    "  best allreduce --ranks N [options]      rank allreduce schedules by simulating them\n"
    "  sweep ALGO... --ranks LIST [options]    algorithms x ranks x sizes x models, in memory\n"
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

typedef int (*command_function)(int argc, char **argv);

static const struct {
  const char *name;
  command_function run;
} commands[] = {
    {"gen", fs_command_gen},         {"run", fs_command_run},           {"best", fs_command_best},
    {"convert", fs_command_convert}, {"merge", fs_command_merge},       {"probe", fs_command_probe},
    {"fit", fs_command_fit},         {"validate", fs_command_validate}, {"sweep", fs_command_sweep},
};
#define COMMAND_COUNT ((int)(sizeof commands / sizeof commands[0]))

static command_function find_command(const char *name) {
  for (int k = 0; k < COMMAND_COUNT; k++)
    if (strcmp(name, commands[k].name) == 0) return commands[k].run;
  return NULL;
}

/* "unknown command 'X'" with the closest commands, or the list of them. */
static int unknown_command(const char *name) {
  const char *names[COMMAND_COUNT + 2];
  for (int k = 0; k < COMMAND_COUNT; k++) names[k] = commands[k].name;
  names[COMMAND_COUNT] = "help", names[COMMAND_COUNT + 1] = "version";
  char mean[200];
  fs_suggest_text(mean, sizeof mean, name, names, COMMAND_COUNT + 2);
  if (mean[0])
    fprintf(stderr, "fennelsim: unknown command '%s'; %s (see fennelsim --help)\n", name, mean);
  else
    fprintf(stderr,
            "fennelsim: unknown command '%s'; the commands: gen, run, best, sweep, convert, "
            "merge, probe, fit, validate, help, version (see fennelsim --help)\n",
            name);
  return FS_EXIT_USAGE;
}

/* `fennelsim help COMMAND` prints what `fennelsim COMMAND --help` does. */
static int help(int argc, char **argv) {
  if (argc < 3) {
    fputs(usage, stdout);
    return FS_EXIT_OK;
  }
  if (argc > 3) {
    fprintf(stderr, "fennelsim: help takes one command (got %s and %s)\n", argv[2], argv[3]);
    return FS_EXIT_USAGE;
  }
  if (strcmp(argv[2], "help") == 0 || strcmp(argv[2], "version") == 0) {
    fputs(usage, stdout);
    return FS_EXIT_OK;
  }
  command_function run = find_command(argv[2]);
  if (!run) return unknown_command(argv[2]);
  char *help_argv[] = {argv[0], argv[2], "--help", NULL};
  return run(3, help_argv);
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return FS_EXIT_USAGE;
  }
  const char *command = argv[1];
  command_function run = find_command(command);
  if (run) return run(argc, argv);
  if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0)
    return help(argc, argv);
  if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0) {
    printf("fennelsim %s\n", FENNELSIM_VERSION);
    return FS_EXIT_OK;
  }
  return unknown_command(command);
}

int main(int argc, char **argv) { return finish_stdout(dispatch(argc, argv)); }
