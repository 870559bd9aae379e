#!/usr/bin/env python3
"""The Pareto front of a sweep's points: most throughput for least cost.

    pareto.py COST,THROUGHPUT [COST,THROUGHPUT ...]

Prints the indices (from 0, in the order given) of the points on the front,
cheapest first, one line. Standard library only (no matplotlib), so the
front can be tested where charts cannot be drawn; sweep_pareto.py imports
pareto_front from here.
"""

import sys


def dominates(a, b):
    """Point a = (cost, throughput) is at least as cheap and as fast as b,
    and strictly better in one of the two."""
    return a[0] <= b[0] and a[1] >= b[1] and (a[0] < b[0] or a[1] > b[1])


def pareto_front(points):
    """Indices of the points no other point dominates, by cost then by
    throughput (highest first), then index. Equal points are all on it:
    neither dominates the other. Sweeps are small (thousands of points at
    most), so the quadratic test is plenty and obviously right."""
    front = [i for i, p in enumerate(points) if not any(dominates(q, p) for q in points)]
    return sorted(front, key=lambda i: (points[i][0], -points[i][1], i))


def main(argv):
    try:
        points = [tuple(float(v) for v in arg.split(",")) for arg in argv]
        if not points or any(len(p) != 2 for p in points):
            raise ValueError
    except ValueError:
        print("pareto.py: error: give points as COST,THROUGHPUT (numbers)", file=sys.stderr)
        return 1
    print(" ".join(str(i) for i in pareto_front(points)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
