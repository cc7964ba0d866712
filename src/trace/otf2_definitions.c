/* otf2_definitions.c: the global definitions of an OTF2 archive (strings,
 * regions, locations, groups, communicators, clock properties) and what
 * the reader settles from them: the ranks (the MPI locations group, or
 * every location), the communicators' members and which regions are MPI
 * calls of which kind. */
#ifdef FS_HAVE_OTF2

#include <stdlib.h>
#include <string.h>

#include "trace/otf2_reader.h"

static OTF2_CallbackCode on_string(void *data, OTF2_StringRef self, const char *string) {
  otf2_reader *r = data;
  size_t n = strlen(string) + 1;
  while (r->text_used + n > r->text_capacity) {
    size_t capacity = r->text_capacity ? r->text_capacity * 2 : 4096;
    char *text = realloc(r->text, capacity);
    if (!text) return otf2_fail(r, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    r->text = text;
    r->text_capacity = capacity;
  }
  memcpy(r->text + r->text_used, string, n);
  int status =
      otf2_add_named(r, &r->strings, &r->string_count, &r->string_capacity, self, r->text_used);
  r->text_used += n;
  return status ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *data, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canonical, OTF2_StringRef description,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                   uint32_t end) {
  (void)canonical, (void)description, (void)role, (void)paradigm, (void)flags, (void)file,
      (void)begin, (void)end;
  otf2_reader *r = data;
  return otf2_add_named(r, &r->regions, &r->region_count, &r->region_capacity, self, name)
             ? OTF2_CALLBACK_INTERRUPT
             : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *data, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group) {
  (void)name, (void)type, (void)group;
  otf2_reader *r = data;
  return otf2_add_named(r, &r->locations, &r->location_count, &r->location_capacity, self, events)
             ? OTF2_CALLBACK_INTERRUPT
             : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *data, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                  uint32_t count, const uint64_t *members) {
  (void)name, (void)flags;
  otf2_reader *r = data;
  if (otf2_grow(r, (void **)&r->groups, &r->group_capacity, r->group_count, sizeof *r->groups))
    return OTF2_CALLBACK_INTERRUPT;
  while (r->member_count + count > r->member_capacity) {
    size_t capacity = r->member_capacity ? r->member_capacity * 2 : 256;
    uint64_t *bigger = realloc(r->members, capacity * sizeof *bigger);
    if (!bigger) return otf2_fail(r, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    r->members = bigger;
    r->member_capacity = capacity;
  }
  if (count) memcpy(r->members + r->member_count, members, count * sizeof *members);
  r->groups[r->group_count++] = (group_def){self, type, paradigm, r->member_count, count};
  r->member_count += count;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *data, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags) {
  (void)name, (void)parent, (void)flags;
  otf2_reader *r = data;
  return otf2_add_named(r, &r->comms, &r->comm_count, &r->comm_capacity, self, group)
             ? OTF2_CALLBACK_INTERRUPT
             : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *data, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime) {
  (void)length, (void)realtime;
  otf2_reader *r = data;
  r->resolution = resolution;
  r->offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}

static int compare_groups(const void *x, const void *y) {
  const group_def *a = x, *b = y;
  return (a->ref > b->ref) - (a->ref < b->ref);
}

/* Groups are sorted by ref once the definitions are read: a search per
 * communicator, not a walk (many communicators x many groups). */
static const group_def *find_group(const otf2_reader *r, uint64_t ref) {
  group_def key = {.ref = ref};
  return r->group_count ? bsearch(&key, r->groups, r->group_count, sizeof key, compare_groups)
                        : NULL;
}

/* Each member of the ranks group must be a defined location with events,
 * checked before the OTF2 library is asked for them (it selects locations
 * in time linear in those already selected). */
static int check_rank_locations(otf2_reader *r, const group_def *ranks) {
  for (uint32_t i = 0; ranks && i < ranks->count; i++) {
    uint64_t location = r->members[ranks->at + i];
    const named *defined = otf2_find_named(r->locations, r->location_count, location);
    if (!defined)
      return otf2_fail(r,
                       "expected each member of the MPI locations group to be a defined location "
                       "(member %u is location %llu, which is not)",
                       i, (unsigned long long)location);
  }
  size_t n = ranks ? ranks->count : r->location_count;
  for (size_t i = 0; i < n; i++) {
    uint64_t location = ranks ? r->members[ranks->at + i] : r->locations[i].ref;
    if (otf2_find_named(r->locations, r->location_count, location)->value == 0)
      return otf2_fail(r, "expected events for every rank (location %llu, rank %zu, has none)",
                       (unsigned long long)location, i);
  }
  return 0;
}

/* MPI function names to kinds, without the "MPI_" prefix. */
static fs_call_kind kind_of_name(const char *name) {
  static const struct {
    const char *name;
    fs_call_kind kind;
  } kinds[] = {{"Init", FS_CALL_INIT},
               {"Init_thread", FS_CALL_INIT},
               {"Finalize", FS_CALL_FINALIZE},
               {"Send", FS_CALL_SEND},
               {"Ssend", FS_CALL_SSEND},
               {"Bsend", FS_CALL_BSEND},
               {"Rsend", FS_CALL_RSEND},
               {"Recv", FS_CALL_RECV},
               {"Isend", FS_CALL_ISEND},
               {"Issend", FS_CALL_ISSEND},
               {"Ibsend", FS_CALL_IBSEND},
               {"Irsend", FS_CALL_IRSEND},
               {"Irecv", FS_CALL_IRECV},
               {"Sendrecv", FS_CALL_SENDRECV},
               {"Sendrecv_replace", FS_CALL_SENDRECV_REPLACE},
               {"Probe", FS_CALL_PROBE},
               {"Iprobe", FS_CALL_IPROBE},
               {"Wait", FS_CALL_WAIT},
               {"Waitall", FS_CALL_WAITALL},
               {"Waitany", FS_CALL_WAITANY},
               {"Waitsome", FS_CALL_WAITSOME},
               {"Test", FS_CALL_TEST},
               {"Testall", FS_CALL_TESTALL},
               {"Testany", FS_CALL_TESTANY},
               {"Testsome", FS_CALL_TESTSOME},
               {"Barrier", FS_CALL_BARRIER},
               {"Bcast", FS_CALL_BCAST},
               {"Reduce", FS_CALL_REDUCE},
               {"Allreduce", FS_CALL_ALLREDUCE},
               {"Gather", FS_CALL_GATHER},
               {"Scatter", FS_CALL_SCATTER},
               {"Allgather", FS_CALL_ALLGATHER},
               {"Alltoall", FS_CALL_ALLTOALL},
               {"Reduce_scatter", FS_CALL_REDUCE_SCATTER},
               {"Reduce_scatter_block", FS_CALL_REDUCE_SCATTER_BLOCK},
               {"Scan", FS_CALL_SCAN},
               {"Exscan", FS_CALL_EXSCAN},
               {"Gatherv", FS_CALL_GATHERV},
               {"Scatterv", FS_CALL_SCATTERV},
               {"Allgatherv", FS_CALL_ALLGATHERV},
               {"Alltoallv", FS_CALL_ALLTOALLV},
               {"Comm_split", FS_CALL_COMM_SPLIT},
               {"Comm_dup", FS_CALL_COMM_DUP},
               {"Comm_create", FS_CALL_COMM_CREATE},
               {"Comm_free", FS_CALL_COMM_FREE}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(name, kinds[i].name) == 0) return kinds[i].kind;
  return FS_CALL_OTHER;
}

/* Ranks, communicators and region kinds from the definitions. */
static int settle_definitions(otf2_reader *r) {
  qsort(r->strings, r->string_count, sizeof *r->strings, otf2_compare_named);
  qsort(r->regions, r->region_count, sizeof *r->regions, otf2_compare_named);
  qsort(r->locations, r->location_count, sizeof *r->locations, otf2_compare_named);
  if (r->resolution == 0)
    return otf2_fail(r, "expected clock properties with a timer resolution above 0");
  group_def ranks_group, *ranks = NULL; /* the first MPI locations group defined */
  for (size_t i = 0; i < r->group_count && !ranks; i++)
    if (r->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
        r->groups[i].paradigm == OTF2_PARADIGM_MPI)
      ranks_group = r->groups[i], ranks = &ranks_group;
  qsort(r->groups, r->group_count, sizeof *r->groups, compare_groups);
  size_t n = ranks ? ranks->count : r->location_count;
  if (n == 0 || n > INT32_MAX) return otf2_fail(r, "expected at least one MPI rank (a location)");
  if (check_rank_locations(r, ranks)) return -1;
  if (!(r->rank_of = malloc(n * sizeof *r->rank_of))) return otf2_fail(r, "out of memory");
  for (size_t i = 0; i < n; i++)
    r->rank_of[i] = (named){ranks ? r->members[ranks->at + i] : r->locations[i].ref, i};
  r->rank_count = n;
  qsort(r->rank_of, n, sizeof *r->rank_of, otf2_compare_named);
  for (size_t i = 1; i < n; i++)
    if (r->rank_of[i].ref == r->rank_of[i - 1].ref)
      return otf2_fail(r, "expected each rank at one location");
  if (!(r->t = fs_trace_new((int32_t)n)) || !(r->state = calloc(n, sizeof *r->state)))
    return otf2_fail(r, "out of memory");
  r->t->format = "otf2";
  for (size_t i = 0; i < n; i++) {
    r->state[i].call = -1;
    r->t->rank[i].location = ranks ? r->members[ranks->at + i] : r->locations[i].ref;
    if (fs_trace_set_file(r->t, (int32_t)i, r->anchor)) return otf2_fail(r, "out of memory");
  }
  if (!(r->region_kind = calloc(r->region_count ? r->region_count : 1, 1)))
    return otf2_fail(r, "out of memory");
  for (size_t i = 0; i < r->region_count; i++) {
    const named *s = otf2_find_named(r->strings, r->string_count, r->regions[i].value);
    const char *name = s ? r->text + s->value : "";
    if (strncmp(name, "MPI_", 4) == 0) r->region_kind[i] = (uint8_t)(kind_of_name(name + 4) + 1);
  }
  if (r->comm_count && !(r->comm_index = malloc(r->comm_count * sizeof *r->comm_index)))
    return otf2_fail(r, "out of memory");
  int32_t *members = malloc(n * sizeof *members);
  if (!members) return otf2_fail(r, "out of memory");
  int world_taken = 0;
  for (size_t i = 0; i < r->comm_count && !r->failed; i++) {
    const group_def *g = find_group(r, r->comms[i].value);
    int32_t index = FS_COMM_SELF;
    if (!g) {
      otf2_fail(r, "expected the group %llu of communicator %llu to be defined",
                (unsigned long long)r->comms[i].value, (unsigned long long)r->comms[i].ref);
      break;
    }
    if (g->type != OTF2_GROUP_TYPE_COMM_SELF) {
      int identity = g->count == n;
      for (uint32_t k = 0; k < g->count && !r->failed; k++) {
        if (g->count > n || r->members[g->at + k] >= n)
          otf2_fail(r, "expected the members of communicator %llu to be ranks below %zu",
                    (unsigned long long)r->comms[i].ref, n);
        else
          members[k] = (int32_t)r->members[g->at + k];
        identity &= members[k] == (int32_t)k;
      }
      if (r->failed) break;
      if (g->count == 0)
        index = -3;
      else if (identity && !world_taken)
        index = FS_COMM_WORLD, world_taken = 1;
      else
        index = fs_trace_define_comm(r->t, (int64_t)r->comms[i].ref, members, (int32_t)g->count);
      if (index == -1) otf2_fail(r, "out of memory");
      if (index < -1)
        otf2_fail(r, "expected communicator %llu to have members",
                  (unsigned long long)r->comms[i].ref);
    }
    r->comm_index[r->comm_index_count++] = (named){r->comms[i].ref, (uint64_t)index};
  }
  free(members);
  qsort(r->comm_index, r->comm_index_count, sizeof *r->comm_index, otf2_compare_named);
  return r->failed ? -1 : 0;
}

int otf2_read_definitions(otf2_reader *r, OTF2_Reader *in) {
  OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader(in);
  OTF2_GlobalDefReaderCallbacks *callbacks = OTF2_GlobalDefReaderCallbacks_New();
  if (!defs || !callbacks) {
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    return otf2_fail(r, "expected an OTF2 archive with global definitions");
  }
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
  OTF2_ErrorCode code = OTF2_Reader_RegisterGlobalDefCallbacks(in, defs, callbacks, r);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  uint64_t read = 0;
  if (otf2_failed(r, code, "cannot read the definitions") ||
      otf2_failed(r, OTF2_Reader_ReadAllGlobalDefinitions(in, defs, &read),
                  "cannot read the definitions"))
    return -1;
  OTF2_Reader_CloseGlobalDefReader(in, defs);
  return settle_definitions(r);
}

#endif
