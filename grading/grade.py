"""grade.py - grades iolab submissions (run through ./grade.sh).

A submission (a directory, or the .tar.gz that `make handin` makes) holds
the student's labs/ sources, data/*.csv, data/machine.txt, plot/*.png and
answers.md.  The grader unpacks it into a directory of its own, builds the
student's programs as the students' uid in a copy of the kit's Makefile and
common/, runs every check of the labs (grading/labN/checks.py), and prints one
line per check and `Score: X/Y`.  Written answers are listed for grading
by hand.  See gradelib.py for how a check is written.

This file is only the command's entry; the grader is the package grading,
one job a module: cli (the command line), discover (the labs, their
checks in rubric order), standard (the checks every lab has), png, one
(one submission's grading), run (its checks under their time limits),
report (the report and results.json), batch (a class).
"""

import os
import sys

if __name__ == "__main__":
    # The kit's root is the one folder the grader is imported from: every
    # module as grading.X, common's Python as common.X. grade.sh runs this
    # file with python3 -I, so that nothing of the environment (PYTHONPATH,
    # the user's site-packages, the current directory) can steer the
    # grader; -I puts no folder of ours on sys.path. Without -I, python3
    # puts this file's folder first, where the modules would load a second
    # time under bare names (gradelib beside grading.gradelib): that entry
    # is replaced. This is the only edit of sys.path the grader makes; the
    # other commands of grading/ make it the same way (their first lines).
    # Run as a file, not with -m from the kit's root: the paths on the
    # command line stay relative to the directory the user is in.
    HERE = os.path.dirname(os.path.realpath(__file__))
    sys.path[0:1 if sys.path and os.path.realpath(sys.path[0]) == HERE else 0] = [os.path.dirname(HERE)]
    from grading.cli import main
    sys.exit(main(sys.argv[1:]))
