"""Class results: every submission's data/*.csv and machine.txt merged into
one tidy CSV per data file and a figure per lab, with anonymous ids, and
each student's place in the class; and the class's predictions
(predictions.md) against its measurements (predictions.png).

    make class SUBMISSIONS=DIR [CLASS=OUT]
    python3 -m grading.classresults merge [-j N] [--out OUT] SUBMISSIONS
    python3 -m grading.classresults percentile --class-data OUT SUBMISSION

From Python (the kit's root on sys.path):

    from grading.classresults import percentile_lines
    for line in percentile_lines("class", "submissions/alice.tar.gz"):
        print(line)

Modules: reader (submissions read as hostile input), values (a
submission's CSVs and machine.txt, parsed by the labs' declarations with
common/columns.py, as the grader parses them), spec (how
each declared file is read, gathered from every lab's
grading/labN/class_results.py), measures and plotdata (what those compute
with), merge, figures, standing (the percentile lines).
"""

__all__ = ["percentile_lines"]


def percentile_lines(class_data, submission):
    """standing.percentile_lines, imported when first asked for: the
    grader imports the merge's modules only with --class-data."""
    from .standing import percentile_lines as lines
    return lines(class_data, submission)
