/* best_command.c: `fennelsim best` (being built). */
#include <stdio.h>

int fs_command_best(int argc, char **argv);
int fs_command_best(int argc, char **argv) {
  (void)argc, (void)argv;
  fputs("fennelsim best: not built yet\n", stderr);
  return 2;
}
