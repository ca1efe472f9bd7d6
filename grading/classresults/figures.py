"""The class figures: OUT/plot/*.csv (a few numbers per submission) turned
into what their gnuplot scripts draw, with captions that say how many
submissions and machines each draws and how many were left out. A lab's
figures are its own (grading/labN/class_results.py and the scripts beside
it, made with plotdata's box statistics); the predictions figure, across
the labs, is here (predictions.gp beside this file).

Nothing read from a submission ever becomes gnuplot code: labels (a CPU
model, a file system) reach gnuplot only as data, and the captions, made
here from counts, as arguments (gnuplot -c).
"""

import os
import shutil
import subprocess

from . import measures, spec
from .plotdata import rows

HERE = os.path.dirname(os.path.abspath(__file__))


def predictions(out, counts):
    """The class's predictions against its measurements, a panel per myth
    (measures.MYTHS): the points as plot/predictions.csv has them (key,
    predicted, measured), and a caption per panel counting, a line per key,
    the predictions drawn and those left out (missing, with no number, or
    without the measurement to set them against)."""
    drawn = {}
    for r in rows(out, "predictions"):
        drawn[r["key"]] = drawn.get(r["key"], 0) + 1
    captions = []
    for myth in measures.MYTHS:
        parts = []
        for key, of, *_ in spec.PREDICTIONS:
            if of == myth:
                left = counts["predicted"][key]
                parts.append(f"{key} {drawn.get(key, 0)} drawn" + "".join(
                    f", {left[why]} {why}" for why in ("missing", "unparseable", "not measured")
                    if left.get(why)))
        captions.append("\n".join(parts))
    return captions


# (figure, its inputs: drawn when one has points, prepare: the captions,
# its gnuplot script): each lab's (spec.FIGURES), then the predictions'.
FIGURES = spec.FIGURES + [("predictions", ["predictions"], predictions, os.path.join(HERE, "predictions.gp"))]


def draw(out, counts, log=print):
    """Draws every figure that has data; returns the PNGs written."""
    if not shutil.which("gnuplot"):
        raise OSError("gnuplot is not installed (make deps installs it): no figures drawn")
    drawn = []
    out = os.path.abspath(out)	# gnuplot runs in OUT/plot and writes OUT/FIG.png
    for fig, needs, prepare, script in FIGURES:
        png = os.path.join(out, fig + ".png")
        if not any(counts["drawn"][n] for n in needs):
            log(f"no figure {fig}.png: no submission has its data")
            if os.path.exists(png):
                os.unlink(png)
            continue
        captions = prepare(out, counts)
        tmp = png + ".tmp"
        run = subprocess.run(["gnuplot", "-c", script, tmp, *captions],
                             cwd=os.path.join(out, "plot"), capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(tmp):
            raise OSError(f"gnuplot failed on {fig}.gp: {run.stderr.strip()[-400:]}")
        os.replace(tmp, png)
        drawn.append(png)
        log(f"drew {png}: {' / '.join(c.replace(chr(10), '; ') for c in captions if c)}")
    return drawn
