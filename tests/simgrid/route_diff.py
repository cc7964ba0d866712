#!/usr/bin/env python3
"""route_diff.py: every host pair's route of each platform given, as
fennelsim reads it (network_routes) and as SimGrid 3.32 computes it
(routes_reference, Host::route_to): the same links in the same order and
the same latency, bit for bit (both print %.17g).

Two differences are SimGrid's, not routes, and are accepted:
- A pair SimGrid cannot route ("error": its route_to throws) is skipped
  and counted; none of the platforms here has one.
- An empty route (a torus host to itself without loopback or limiter),
  which SimGrid returns and then aborts on in a communication, matches
  fennelsim's refusal of it.
Usage: route_diff.py NETWORK_ROUTES ROUTES_REFERENCE PLATFORM.xml..."""
import subprocess
import sys


def lines(program, platform):
    out = subprocess.run([program, platform], capture_output=True, text=True)
    table = {}
    for line in out.stdout.splitlines():
        words = line.split()
        table[(words[0], words[1])] = words[2:]
    return table, out


def main():
    ours_program, reference, platforms = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = compared = skipped = 0
    for platform in platforms:
        ours, run = lines(ours_program, platform)
        theirs, _ = lines(reference, platform)
        if not theirs or not ours:
            print(f"{platform}: no routes read ({run.stderr.strip()})")
            failures += 1
            continue
        for pair, want in sorted(theirs.items()):
            got = ours.get(pair)
            if want == ["error"]:
                skipped += 1
                continue
            compared += 1
            if got == want:
                continue
            if len(want) == 1 and float(want[0]) == 0 and got is not None:
                if got[:1] == ["error"]:
                    continue
            failures += 1
            if failures <= 10:
                print(f"{platform}: {pair[0]} -> {pair[1]}: SimGrid {' '.join(want)}; "
                      f"fennelsim {' '.join(got or ['nothing'])}")
    print(f"route_diff: {compared} routes compared on {len(platforms)} platforms, "
          f"{skipped} pairs SimGrid cannot route skipped, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
