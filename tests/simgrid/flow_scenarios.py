"""tests/simgrid/flow_scenarios.py: random SimGrid platforms and flows for the
differential test (tests/simgrid/flow_diff.py) and the flow benchmark
(tools/bench/flow/a). Python 3 standard library only.

A scenario is a SimGrid platform (XML 4.1), its hosts in the order fennelsim's
`--mapping seq` puts ranks on them (document order, a cluster's hosts in
radical order) and flows (src, dst, bytes, start in integer picoseconds).
It writes three files: the platform, the flows for tests/simgrid/flow_reference
("SRC DST BYTES START", START in seconds) and the same flows as a fennelsim
.dag program for fennelsim's default sequential mapping (rank r on host
r div C when every host has C cores): each flow is a start task with
skew=START, then a concurrent put to the destination host's first rank,
both on a rank of the source host of its own (the host's k-th flow on its
k-th rank). Every host gets C cores, as many as the busiest host sends
flows, so that no put waits for a CPU or a core whatever CPU time the model
gives it (SimGrid's network ignores cores). With one_core_per_flow=False,
C = 1: one rank per host, every flow a concurrent put of that rank.

scenario(seed) is a pure function of the seed: the seed also picks the kind
(KINDS[seed % len(KINDS)]), so one seed replays one scenario.
"""

import random

KINDS = ["full", "floyd", "dijkstra", "flat", "fat_tree", "torus", "dragonfly", "nested"]

CORES = "@CORES@"  # replaced by the core count once the flows are known
HEADER = ('<?xml version="1.0"?>\n'
          '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
          '<platform version="4.1">\n')

BW_UNITS = [("Bps", 1.0), ("kBps", 1e3), ("MBps", 1e6), ("GBps", 1e9), ("bps", 0.125),
            ("Mbps", 125000.0), ("Gbps", 1.25e8), ("MiBps", 1048576.0), ("GiBps", 1073741824.0)]
LAT_UNITS = [("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)]


class Scenario:
    """A platform's XML, its hosts in rank order, cores per host, and flows."""

    def __init__(self, seed, kind, xml, hosts, flows, cores):
        self.seed, self.kind, self.xml, self.hosts = seed, kind, xml, hosts
        self.flows, self.cores = flows, cores

    def flows_text(self):
        return "".join("%s %s %d %s\n" % (s, d, b, seconds(t)) for s, d, b, t in self.flows)

    def dag_text(self, concurrent=True):
        first = {h: i * self.cores for i, h in enumerate(self.hosts)}
        used = dict.fromkeys(self.hosts, 0)
        lines = ["fennel-dag 1", "# scenario seed %d (%s)" % (self.seed, self.kind),
                 "ranks %d" % (len(self.hosts) * self.cores)]
        for i, (s, d, b, t) in enumerate(self.flows):
            # the k-th flow a host sends runs on its k-th rank (one per core)
            rank = first[s] + (used[s] if self.cores > 1 else 0)
            used[s] += 1
            lines.append("s%d start %d skew=%dps" % (i, rank, t))
            lines.append("f%d put %d to=%d size=%dB%s after=s%d"
                         % (i, rank, first[d], b, " concurrent=1" if concurrent else "", i))
        return "\n".join(lines) + "\n"

    def write(self, prefix, concurrent=True):
        """Writes PREFIX.xml, PREFIX.flows and PREFIX.dag; returns their paths."""
        paths = (prefix + ".xml", prefix + ".flows", prefix + ".dag")
        for path, text in zip(paths, (self.xml, self.flows_text(), self.dag_text(concurrent))):
            with open(path, "w") as f:
                f.write(text)
        return paths


def seconds(ps):
    """Integer picoseconds as an exact decimal number of seconds."""
    whole, frac = divmod(ps, 10**12)
    return str(whole) if frac == 0 else ("%d.%012d" % (whole, frac)).rstrip("0")


def bandwidth(rng, low=1e5, high=2e10):
    """A bandwidth as SimGrid writes it, between LOW and HIGH B/s."""
    while True:
        unit, factor = rng.choice(BW_UNITS)
        number = rng.choice([1, 2, 3, 5, 8, 10, 12.5, 25, 40, 100, 125, 250, 333, 500, 999])
        if low <= number * factor <= high:
            return "%g%s" % (number, unit)


def latency(rng, zero=0.15):
    """A latency as SimGrid writes it, 0 (now and then) to 100 ms."""
    if rng.random() < zero:
        return rng.choice(["0", "0s", "0ms"])
    while True:
        unit, factor = rng.choice(LAT_UNITS)
        number = rng.choice([1, 2, 5, 10, 20, 25, 50, 100, 250, 500])
        if number * factor <= 0.1:
            return "%g%s" % (number, unit)


def link_xml(name, rng, policy):
    attr = "" if policy == "SHARED" and rng.random() < 0.5 else ' sharing_policy="%s"' % policy
    return '<link id="%s" bandwidth="%s" latency="%s"%s/>' % (name, bandwidth(rng), latency(rng), attr)


def link_ctn(name, policy, rng):
    if policy == "SPLITDUPLEX":
        return '<link_ctn id="%s" direction="%s"/>' % (name, rng.choice(["UP", "DOWN"]))
    return '<link_ctn id="%s"/>' % name


def random_links(rng, prefix, count):
    """COUNT links NAME -> policy (SHARED, FATPIPE or SPLITDUPLEX) and their XML."""
    links, xml = {}, []
    for i in range(count):
        name = "%s%d" % (prefix, i)
        links[name] = rng.choice(["SHARED", "SHARED", "FATPIPE", "SPLITDUPLEX"])
        xml.append(link_xml(name, rng, links[name]))
    return links, xml


def route_xml(rng, src, dst, names, links, symmetrical):
    sym = "" if symmetrical and rng.random() < 0.5 else ' symmetrical="%s"' % ("YES" if symmetrical else "NO")
    ctns = "".join(link_ctn(n, links[n], rng) for n in names)
    return '<route src="%s" dst="%s"%s>%s</route>' % (src, dst, sym, ctns)


def full_zone(rng, zid, hosts, cores, extra=()):
    """A Full zone over HOSTS (+ EXTRA routers): a route for every pair, 1 to 4
    links drawn with replacement (so links repeat), symmetrical or not."""
    links, xml = random_links(rng, zid + "_l", rng.randint(1, 8))
    body = ['<zone id="%s" routing="Full">' % zid]
    body += ['<host id="%s" speed="1Gf" core="%s"/>' % (h, cores) for h in hosts]
    body += ['<router id="%s"/>' % r for r in extra]
    body += xml
    nodes = list(hosts) + list(extra)
    names = list(links)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            path = [rng.choice(names) for _ in range(rng.randint(1, 4))]
            if rng.random() < 0.7:
                body.append(route_xml(rng, a, b, path, links, True))
            else:
                body.append(route_xml(rng, a, b, path, links, False))
                back = [rng.choice(names) for _ in range(rng.randint(1, 4))]
                body.append(route_xml(rng, b, a, back, links, False))
    body.append("</zone>")
    return body


def graph_zone(rng, zid, routing, hosts, cores):
    """A Floyd or Dijkstra zone: hosts and routers joined by a random connected
    graph whose edges are routes of 1 or 2 links (route cost = link count)."""
    routers = ["%s_r%d" % (zid, i) for i in range(rng.randint(0, 3))]
    nodes = list(hosts) + routers
    rng.shuffle(nodes)
    edges = [(nodes[i], nodes[rng.randrange(i)]) for i in range(1, len(nodes))]
    for _ in range(rng.randint(0, len(nodes))):
        a, b = rng.sample(nodes, 2)
        if (a, b) not in edges and (b, a) not in edges:
            edges.append((a, b))
    links, xml = random_links(rng, zid + "_l", len(edges) + rng.randint(0, 2))
    names = list(links)
    body = ['<zone id="%s" routing="%s">' % (zid, routing)]
    body += ['<host id="%s" speed="1Gf" core="%s"/>' % (h, cores) for h in hosts]
    body += ['<router id="%s"/>' % r for r in routers]
    body += xml
    for i, (a, b) in enumerate(edges):
        path = [names[i]] + ([rng.choice(names)] if rng.random() < 0.3 else [])
        body.append(route_xml(rng, a, b, path, links, True))
    body.append("</zone>")
    return body


def radical(rng, n):
    """A radical list of N ids, now and then with gaps (0-3,5,7-9)."""
    if rng.random() < 0.6:
        return "0-%d" % (n - 1), list(range(n))
    ids, parts, i = [], [], rng.randint(0, 2)
    while len(ids) < n:
        run = min(rng.randint(1, 4), n - len(ids))
        ids += list(range(i, i + run))
        parts.append(str(i) if run == 1 else "%d-%d" % (i, i + run - 1))
        i += run + rng.randint(1, 2)
    return ",".join(parts), ids


def cluster(rng, cid, topology, params, n, cores, limiter=True, loopback=True, backbone=False):
    """A <cluster> of N hosts; returns its XML line and host names in radical order."""
    prefix, suffix = rng.choice([("%s-" % cid, ""), ("n", ".%s" % cid), ("%s_h" % cid, ".org")])
    rad, ids = radical(rng, n) if topology == "FLAT" else ("0-%d" % (n - 1), list(range(n)))
    attrs = ['id="%s"' % cid, 'prefix="%s"' % prefix, 'suffix="%s"' % suffix, 'radical="%s"' % rad,
             'speed="1Gf"', 'core="%s"' % cores, 'bw="%s"' % bandwidth(rng, 1e6), 'lat="%s"' % latency(rng, 0.1)]
    if topology != "FLAT":
        attrs += ['topology="%s"' % topology, 'topo_parameters="%s"' % params]
    policy = rng.choice(["default", "SPLITDUPLEX", "SHARED", "FATPIPE"])
    if policy != "default":
        attrs.append('sharing_policy="%s"' % policy)
    if backbone and rng.random() < 0.7:
        attrs += ['bb_bw="%s"' % bandwidth(rng, 1e6), 'bb_lat="%s"' % latency(rng, 0.3)]
        if rng.random() < 0.5:
            attrs.append('bb_sharing_policy="%s"' % rng.choice(["SHARED", "FATPIPE"]))
    if limiter and rng.random() < 0.3:
        attrs.append('limiter_link="%s"' % bandwidth(rng, 1e6))
    if loopback and rng.random() < 0.3:
        attrs += ['loopback_bw="%s"' % bandwidth(rng, 1e6), 'loopback_lat="%s"' % latency(rng, 0.3)]
    xml = "<cluster %s/>" % " ".join(attrs)
    return xml, ["%s%d%s" % (prefix, i, suffix) for i in ids]


def fat_tree_params(rng):
    """topo_parameters of a 1- to 3-level fat tree of at most 64 hosts, and
    whether a limiter is safe (SimGrid needs no more switches than hosts)."""
    while True:
        levels = rng.randint(1, 3)
        down = [rng.randint(2, 4) for _ in range(levels)]
        up = [rng.choice([1, 1, 2])] + [rng.randint(1, 3) for _ in range(levels - 1)]
        count = [rng.choice([1, 1, 2]) for _ in range(levels)]
        hosts = 1
        for d in down:
            hosts *= d
        if hosts > 64:
            continue
        switches = 0
        for i in range(1, levels + 1):
            s = 1
            for j in range(levels):
                s *= up[j] if j < i else down[j]
            switches += s
        text = "%d;%s;%s;%s" % (levels, ",".join(map(str, down)), ",".join(map(str, up)),
                                ",".join(map(str, count)))
        return text, hosts, switches <= hosts


def platform_of(rng, kind, cores):
    """(XML body lines, hosts in rank order, whether same-host flows may run)."""
    if kind == "full":
        hosts = ["h%d" % i for i in range(rng.randint(2, 6))]
        return full_zone(rng, "z", hosts, cores), hosts, True
    if kind in ("floyd", "dijkstra"):
        hosts = ["h%d" % i for i in range(rng.randint(2, 6))]
        routing = "Floyd" if kind == "floyd" else rng.choice(["Dijkstra", "DijkstraCache"])
        return graph_zone(rng, "z", routing, hosts, cores), hosts, True
    if kind == "flat":
        xml, hosts = cluster(rng, "c", "FLAT", "", rng.randint(2, 16), cores, backbone=True)
        return [xml], hosts, True
    if kind == "fat_tree":
        params, n, limiter_ok = fat_tree_params(rng)
        xml, hosts = cluster(rng, "ft", "FAT_TREE", params, n, cores, limiter=limiter_ok)
        return [xml], hosts, True
    if kind == "torus":
        while True:
            dims = [rng.randint(2, 4) for _ in range(rng.randint(1, 3))]
            n = 1
            for d in dims:
                n *= d
            if n <= 64:
                break
        xml, hosts = cluster(rng, "t", "TORUS", ",".join(map(str, dims)), n, cores)
        # a torus routes a host to itself through its limiter or loopback only
        return [xml], hosts, "limiter_link" in xml or "loopback_bw" in xml
    if kind == "dragonfly":
        while True:
            g, c, b, nn = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)
            if g <= b and g * c * b * nn <= 64 and g * c * b * nn >= 2:
                break
        params = "%d,%d;%d,%d;%d,%d;%d" % (g, rng.randint(1, 2), c, rng.randint(1, 2), b, rng.randint(1, 2), nn)
        xml, hosts = cluster(rng, "d", "DRAGONFLY", params, g * c * b * nn, cores)
        return [xml], hosts, True
    return nested(rng, cores)


def nested(rng, cores):
    """A Full zone holding 2 or 3 children (Full zones with a gateway router, or
    flat clusters with their router), joined by zoneRoutes over their own links."""
    body, hosts, gateways = ['<zone id="top" routing="Full">'], [], []
    for k in range(rng.randint(2, 3)):
        if rng.random() < 0.5:
            zhosts = ["z%dh%d" % (k, i) for i in range(rng.randint(1, 3))]
            body += full_zone(rng, "z%d" % k, zhosts, cores, extra=["z%d_gw" % k])
            gateways.append(("z%d" % k, "z%d_gw" % k))
        else:
            xml, chosts = cluster(rng, "c%d" % k, "FLAT", "", rng.randint(2, 6), cores, backbone=True)
            zid = "c%d" % k
            prefix = xml.split('prefix="')[1].split('"')[0]
            suffix = xml.split('suffix="')[1].split('"')[0]
            body.append(xml)
            zhosts = chosts
            gateways.append((zid, "%s%s_router%s" % (prefix, zid, suffix)))
        hosts += zhosts
    links, xml = random_links(rng, "top_l", rng.randint(1, 4))
    body += xml
    names = list(links)
    for i, (za, ga) in enumerate(gateways):
        for zb, gb in gateways[i + 1:]:
            path = [rng.choice(names) for _ in range(rng.randint(1, 2))]
            ctns = "".join(link_ctn(n, links[n], rng) for n in path)
            body.append('<zoneRoute src="%s" dst="%s" gw_src="%s" gw_dst="%s">%s</zoneRoute>'
                        % (za, zb, ga, gb, ctns))
    body.append("</zone>")
    return body, hosts, True


def random_flows(rng, hosts, self_ok, count):
    """COUNT flows: sizes log-uniform over 1 B to 100 MB, starts all at 0 or on
    a grid of 0.1 ms, 1 ms or 10 ms (so starts tie), some hot destinations
    (shared bottlenecks) and some flows from a host to itself."""
    grid = rng.choice([0, 10**8, 10**9, 10**10])
    steps = rng.choice([3, 10, 30])
    hot = rng.sample(hosts, min(len(hosts), rng.randint(1, 2))) if rng.random() < 0.4 else None
    flows = []
    for _ in range(count):
        src = rng.choice(hosts)
        if self_ok and rng.random() < 0.1:
            dst = src
        else:
            dst = rng.choice(hot) if hot and rng.random() < 0.7 else rng.choice(hosts)
            if dst == src and not self_ok:
                dst = hosts[(hosts.index(src) + 1) % len(hosts)]
        size = int(round(10 ** rng.uniform(0, 8)))
        start = grid * rng.randint(0, steps) if grid else 0
        flows.append((src, dst, size, start))
    return flows


def scenario(seed, flows=None, one_core_per_flow=True):
    """The scenario of SEED: kind KINDS[seed % len(KINDS)], 1 to 30 flows
    (or FLOWS). ONE_CORE_PER_FLOW gives every host as many cores as the most
    flows a host sends (fennelsim's concurrent tasks take a core each on a
    platform; SimGrid's network ignores cores)."""
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    count = flows if flows is not None else rng.randint(1, 30)
    body, hosts, self_ok = platform_of(rng, kind, CORES)
    flow_list = random_flows(rng, hosts, self_ok, count)
    cores = 1
    if one_core_per_flow:
        cores = max(sum(1 for f in flow_list if f[0] == h) for h in hosts) or 1
    xml = (HEADER + "\n".join(body) + "\n</platform>\n").replace(CORES, str(cores))
    return Scenario(seed, kind, xml, hosts, flow_list, cores)
