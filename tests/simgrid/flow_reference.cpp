/* tests/simgrid/flow_reference.cpp: the SimGrid side of the differential test
 * (tests/simgrid/flow_diff.py) and of tools/bench/flow/a. Runs point-to-point
 * flows on a SimGrid platform and prints when each one ends.
 *
 *   flow_reference PLATFORM.xml FLOWS.txt [--sendto] [--cfg=KEY:VALUE]... [--log=...]
 *
 * FLOWS.txt holds one flow per line, "SRC DST BYTES START" (host names, a byte
 * count, a start time in seconds; '#' starts a comment). Each flow gets its own
 * actor on SRC: sleep_until(START), then Comm::sendto_async(SRC, DST, BYTES)
 * and wait (--sendto: the blocking Comm::sendto, which gives the same times).
 * After the run it prints "INDEX END" per flow in file order (INDEX from 0,
 * END in seconds with %.17g, so strtod reads back the exact double).
 * SimGrid's own logging is quiet below warnings unless --log= says otherwise.
 * Exit 2 on a bad argument or flow file. */
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Flow {
  std::string src;
  std::string dst;
  uint64_t bytes;
  double start;
  double end;
};

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "flow_reference: %s\n", message.c_str());
  std::exit(2);
}

/* A whole decimal field or die naming file:line. */
double parse_number(const std::string &text, const std::string &where) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !(v >= 0))
    fail(where + ": bad number '" + text + "'");
  return v;
}

std::vector<Flow> read_flows(const std::string &path) {
  std::ifstream in(path);
  if (!in) fail("cannot open " + path);
  std::vector<Flow> flows;
  std::string line;
  for (int number = 1; std::getline(in, line); number++) {
    std::string where = path + ":" + std::to_string(number);
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string src, dst, bytes, start, extra;
    if (!(fields >> src)) continue;
    if (!(fields >> dst >> bytes >> start) || (fields >> extra))
      fail(where + ": expected 'SRC DST BYTES START'");
    double size = parse_number(bytes, where);
    if (size > 1e18) fail(where + ": too many bytes '" + bytes + "'");
    flows.push_back({src, dst, static_cast<uint64_t>(size), parse_number(start, where), -1});
  }
  return flows;
}

void run_flow(Flow *flow, sg4::Host *src, sg4::Host *dst, bool blocking) {
  sg4::this_actor::sleep_until(flow->start);
  if (blocking)
    sg4::Comm::sendto(src, dst, flow->bytes);
  else
    sg4::Comm::sendto_async(src, dst, flow->bytes)->wait();
  flow->end = sg4::Engine::get_clock();
}

} // namespace

int main(int argc, char **argv) {
  bool quiet = true;
  for (int i = 1; i < argc; i++)
    if (std::strncmp(argv[i], "--log=", 6) == 0) quiet = false;
  if (quiet) xbt_log_control_set("root.thres:warning");
  sg4::Engine engine(&argc, argv); /* consumes --cfg= and --log= */
  bool blocking = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--sendto") == 0)
      blocking = true;
    else if (argv[i][0] == '-' && argv[i][1] == '-')
      fail(std::string("unknown option ") + argv[i]);
    else
      args.emplace_back(argv[i]);
  }
  if (args.size() != 2)
    fail("usage: flow_reference PLATFORM.xml FLOWS.txt [--sendto] [--cfg=KEY:VALUE]...");
  std::vector<Flow> flows = read_flows(args[1]);
  engine.load_platform(args[0]);
  for (Flow &flow : flows) {
    sg4::Host *src = engine.host_by_name_or_null(flow.src);
    sg4::Host *dst = engine.host_by_name_or_null(flow.dst);
    if (src == nullptr || dst == nullptr)
      fail("no host named " + (src == nullptr ? flow.src : flow.dst) + " in " + args[0]);
    sg4::Actor::create("flow", src, run_flow, &flow, src, dst, blocking);
  }
  engine.run();
  for (size_t i = 0; i < flows.size(); i++) {
    if (flows[i].end < 0) fail("flow " + std::to_string(i) + " did not end");
    std::printf("%zu %.17g\n", i, flows[i].end);
  }
  return 0;
}
