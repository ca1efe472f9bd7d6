"""python3 -m grading.classresults: the command line (see --help)."""

import os
import sys
import time

from . import figures, merge, standing

PROG = "python3 -m grading.classresults"
USAGE = f"""usage: {PROG} merge [-j N] [--out CLASS] SUBMISSIONS
       {PROG} percentile --class-data CLASS SUBMISSION
  merge       every submission in SUBMISSIONS (a folder of .tar.gz files and
              folders, or Gradescope's "download all submissions" zip) into
              CLASS (default: class): a tidy CSV per data file, a figure per
              lab; what does not hold together is left out, a line each
  -j N        submissions read at once (default: the number of cores, at most 8)
  --out CLASS where the class results go; never inside SUBMISSIONS
  percentile  where SUBMISSION (a .tar.gz or a folder) stands in CLASS
  -h, --help  this help"""


def usage_error(message):
    """What is wrong, the synopsis, where the rest is (as the kit's programs)."""
    print(f"{PROG}: {message}", file=sys.stderr)
    print("\n".join(USAGE.splitlines()[:2]), file=sys.stderr)
    print(f"see {PROG} --help for every option", file=sys.stderr)
    sys.exit(2)


def inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def main(argv):
    if not argv:
        usage_error("merge or percentile?")
    if argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    command, args = argv[0], argv[1:]
    options, rest = {}, []
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            print(USAGE)
            return 0
        if arg in ("-j", "--out", "--class-data"):
            if not args:
                usage_error(f"{arg} needs a value")
            options[arg] = args.pop(0)
        elif arg.startswith("-") and arg != "-":
            usage_error(f"unknown option '{arg}'")
        else:
            rest.append(arg)
    if command == "merge":
        if len(rest) != 1 or "--class-data" in options:
            usage_error("merge takes one SUBMISSIONS (a folder or a .zip)")
        jobs = options.get("-j", str(min(os.cpu_count() or 1, 8)))
        if not jobs.isdigit() or not 1 <= int(jobs) <= 64:
            usage_error(f"-j: '{jobs}' is not a count from 1 to 64")
        out = options.get("--out", "class")
        if os.path.isdir(rest[0]) and inside(out, rest[0]):
            usage_error(f"--out: {out} is inside SUBMISSIONS; the class results go elsewhere")
        return run_merge(rest[0], out, int(jobs))
    if command == "percentile":
        if len(rest) != 1 or "--class-data" not in options or set(options) != {"--class-data"}:
            usage_error("percentile takes --class-data CLASS and one SUBMISSION")
        for line in standing.percentile_lines(options["--class-data"], rest[0]):
            print(line)
        return 0
    usage_error(f"unknown command '{command}'")


def run_merge(submissions, out, jobs):
    start = time.monotonic()
    counts = merge.merge(submissions, out, jobs=jobs)
    merged, total = counts["merged"], counts["submissions"]
    print(f"merged {merged} of {total} submissions ({len(counts['machines'])} machines) into "
          f"{out}/ in {time.monotonic() - start:.1f} s; {counts['rejected']} left out entirely")
    print("  left out of each file: " + ", ".join(
        f"{name} {n}" for name, n in counts["left"].items()))
    print(f"  left out of the figures: {counts['runs'][merge.TINY]} lab run(s) at SCALE=tiny, "
          f"{counts['runs'][merge.BUSY]} on a machine the lab called BUSY ({out}/left-out.csv)")
    if counts["copies"]:
        print(f"  {counts['copies']} pair(s) of submissions with the same data: {out}/copies.csv")
    figures.draw(out, counts)
    print(f"the ids are keyed by {out}/.secret: share the CSVs and figures, never that file")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except merge.Usage as e:
        usage_error(str(e))
    except OSError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
