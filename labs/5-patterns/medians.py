#!/usr/bin/env python3
"""medians.py LAB5_CSV DEPTH_CSV - the table that ends Lab 5: the median of
each point's trials for its headline figures.

From data/lab5.csv, 4 KiB reads in three cache states; from
data/lab5-depth.csv, 4 KiB random O_DIRECT reads with I/Os in flight, with
IOPS x mean latency (Little's law: the number of I/Os in flight on average).
"""
import csv
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def median(group, column):
    return statistics.median(float(r[column]) for r in group)


def main(lab5, depth):
    points = {}
    for r in rows(lab5):
        if r["io_bytes"] == "4096" and r["experiment"] in ("read-size", "random-read"):
            points.setdefault((r["experiment"], r["series"]), []).append(r)
    print("== Lab 5: medians of each point's trials")
    print(f"  4 KiB reads            {'bytes/ns':>9} {'IOPS':>9} {'p50_us':>8}")
    for (experiment, series), group in sorted(points.items()):
        print(f"  {experiment:<11} {series:<10} {median(group, 'bytes_per_ns'):9.4f}"
              f" {median(group, 'iops'):9.0f} {median(group, 'lat_p50_us'):8.1f}")

    points = {}
    for r in rows(depth):
        x = r["iodepth"] if r["experiment"] == "depth" else r["jobs"]
        points.setdefault((r["experiment"], int(x)), []).append(r)
    print("  4 KiB random O_DIRECT reads, several in flight")
    print(f"  {'':<14} {'IOPS':>9} {'p50_us':>8} {'p99_us':>8} {'mean_us':>8}"
          f"  IOPS x mean latency")
    for (experiment, x), group in sorted(points.items()):
        # Little's law per trial: I/Os per second times seconds per I/O.
        little = statistics.median(float(r["iops"]) * float(r["lat_mean_us"]) / 1e6
                                   for r in group)
        name = f"depth {x}" if experiment == "depth" else f"{x} thread{'s' * (x > 1)}"
        print(f"  {name:<14} {median(group, 'iops'):9.0f} {median(group, 'lat_p50_us'):8.1f}"
              f" {median(group, 'lat_p99_us'):8.1f} {median(group, 'lat_mean_us'):8.1f}"
              f"  {little:8.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: medians.py LAB5_CSV DEPTH_CSV")
    main(sys.argv[1], sys.argv[2])
