"""Lab 2 in the class results (make class, grading/classresults): how its
data are read, what each submission adds to the class figure
lab2-fflush.png (lab2-fflush.gp beside this file) and the measure a
student is placed by."""

from grading.classresults.measures import MYTHS, lines_add_up, med_wall, ratio
from grading.classresults.plotdata import caption, categories

READING = {"lab2.csv": dict(config=("experiment", "lines_per_lock", "flush", "lock", "sync"),
                            check=lines_add_up)}


def summary(rows):
    points = []
    for k in sorted({v["lines_per_lock"] for v in rows if v["experiment"] == "sweep"}):
        r = ratio(med_wall(rows, experiment="sweep", lines_per_lock=k, flush=1),
                  med_wall(rows, experiment="sweep", lines_per_lock=k, flush=0))
        if r is not None:
            points.append((k, r))
    return {"lab2_fflush_k1_x": dict(points).get(1)}, {"lab2-fflush": points}


SUMMARIES = {"lab2.csv": summary}
POINTS = {"lab2-fflush": ["lines_per_lock", "fflush_x"]}
METRICS = [("lab2_fflush_k1_x", "fflush before every unlock at K = 1", " the time without", "x")]


def fflush(out, counts):
    categories(out, "lab2-fflush", lambda r: r["lines_per_lock"], "fflush_x",
               order=lambda k: int(k))
    return [caption(counts, "lab2-fflush", "lab2.csv")]


FIGURES = [("lab2-fflush", ["lab2-fflush"], fflush)]

# The line of predictions.md that the class figure predictions.png sets
# against the measurement, as the lab's closing lines compute it:
# (key, myth, data file, unit, the measurement from its rows).
PREDICTIONS = [("P2.4", MYTHS[1], "lab2.csv", "s",
                lambda rows: med_wall(rows, experiment="sync", lines_per_lock=100, sync="fsync"))]
