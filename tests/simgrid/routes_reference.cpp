/* routes_reference.cpp: prints every host pair's route as SimGrid 3.32 computes it
 * (Host::route_to): "SRC DST LATENCY LINK..." with %.17g, hosts sorted by
 * name, "SRC DST error" where SimGrid throws. The route differential test
 * (route_diff.py) compares it with fennelsim's network_routes. */
#include <simgrid/s4u.hpp>
#include <cstdio>
#include <vector>
int main(int argc, char **argv) {
  simgrid::s4u::Engine e(&argc, argv);
  e.load_platform(argv[1]);
  e.seal_platform(); /* before sealing, Floyd and Dijkstra zones route nothing */
  std::vector<simgrid::s4u::Host*> hosts = e.get_all_hosts();
  std::sort(hosts.begin(), hosts.end(), [](auto a, auto b){ return a->get_name() < b->get_name(); });
  for (auto *s : hosts) for (auto *d : hosts) {
    std::vector<simgrid::s4u::Link*> links; double lat = 0;
    try { s->route_to(d, links, &lat); } catch (std::exception &e) { printf("%s %s error\n", s->get_cname(), d->get_cname()); continue; }
    printf("%s %s %.17g", s->get_cname(), d->get_cname(), lat);
    for (auto *l : links) printf(" %s", l->get_cname());
    printf("\n");
  }
}
