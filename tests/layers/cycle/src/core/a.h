/* a.h: fixture for tools/check_layers.py: nothing (a.c includes io/b.h, going up). */
