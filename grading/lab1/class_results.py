"""Lab 1 in the class results (make class, grading/classresults): how its
data are read, what each submission adds to the class figure lab1-lost.png
(drawn by lab1-lost.gp beside this file) and the measure a student is
placed by."""

from grading.classresults.measures import lines_add_up, med_wall, ratio
from grading.classresults.plotdata import caption, rows, write

# A row's check. What makes a configuration, which column a trial measures
# and the trials rule: labs/1-interleave/trials.csv.
READING = {"lab1.csv": dict(check=lines_add_up)}


def summary(rows):
    points = [100.0 * v["lost_lines"] / v["lines_written"] for v in rows
              if v["mode"] == "overwrite" and v["lines_written"] > 0]
    slowdown = ratio(med_wall(rows, experiment="buffer", buffer_bytes=0),
                     med_wall(rows, experiment="default"))
    return {"lab1_unbuffered_x": slowdown}, {"lab1-lost": [(p,) for p in points]}


SUMMARIES = {"lab1.csv": summary}
POINTS = {"lab1-lost": ["lost_pct"]}
METRICS = [("lab1_unbuffered_x", "unbuffered writes (-b 0) against stdio's default buffer", " slower", "x")]


def lost(out, counts):
    lost = [float(r["lost_pct"]) for r in rows(out, "lab1-lost")]
    bins = [0] * 20
    for p in lost:
        bins[min(int(p // 5), 19)] += 1
    write(out, "lab1-lost-bins.dat", ["pct", "count"],
          [[5 * i + 2.5, n] for i, n in enumerate(bins)])
    return [caption(counts, "lab1-lost", "lab1.csv", f", {len(lost)} writer-trials")]


FIGURES = [("lab1-lost", ["lab1-lost"], lost)]
