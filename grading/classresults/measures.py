"""What a lab's class results (grading/labN/class_results.py) compute
with: medians and ratios of a submission's rows, whether a rate agrees
with the amount and the time a row gives, and the kinds of storage
common/machine.sh tells apart. Nothing here knows a lab."""

from common.columns import median  # noqa: F401  the kit's one median, the labs' class_results use it

MIB = 1 << 20
GIB = 1 << 30

# The kinds of storage common/machine.sh tells apart (scratch_dir_storage's
# first word), in the order the class figures draw them: memory, local
# disks, virtual ones, then across a network. A machine.txt from before it
# told them, or a word not among them, reads as "unknown".
STORAGE_KINDS = ("memory", "nvme", "ssd", "hdd", "mmc", "loop", "vm-disk", "host-share",
                 "network", "unknown")

# The myths the labs' predictions (predictions.md) test, in the order
# grading/classresults/predictions.gp draws a panel for each.
MYTHS = ("threads and one disk", "fflush and durability", "clock() as a stopwatch")


def ratio(a, b):
    """a / b, or None without two positive times or rates (a figure's log
    axis cannot draw 0, nor a measurement of nothing mean anything)."""
    return a / b if a is not None and b is not None and a > 0 and b > 0 else None


def med_of(rows, value, **where):
    """The median of value(row) over the rows whose columns have these values."""
    return median(value(v) for v in rows if all(v.get(k) == x for k, x in where.items()))


def med_wall(rows, **where):
    """The median wall_s of the rows whose columns have these values."""
    return med_of(rows, lambda v: v["wall_s"], **where)


def rate_agrees(rate, amount, wall, half, rel=0.02, absolute=0.06):
    """rate agrees with amount / the true time, which lies within half of
    the printed wall: at any duration, even one printed as 0 (then the rate
    must be at least amount / half). rel and absolute allow for the
    rounding of the rate itself."""
    low = amount / (wall + half) if wall + half > 0 else 0.0
    high = amount / (wall - half) if wall > half else float("inf")
    return low * (1 - rel) - absolute <= rate <= high * (1 + rel) + absolute


def lines_add_up(v, half):
    """A row's check for a file that counts lines: the lines found and lost
    are the lines written."""
    if v["lost_lines"] + v["lines_found"] != v["lines_written"]:
        return "lines_found + lost_lines is not lines_written"
    return None
