#!/bin/sh
# grade.sh - grades iolab submissions: ./grade.sh --help says how.
# The grader is a small Python package in grading/ (standard library only),
# run isolated (-I: no PYTHON* variables, user site-packages or current
# directory on the path), so that nothing of a student's environment can
# steer it. Its entry file puts the kit's root on the path, the one root the
# package is imported from (grading/grade.py says why a file, not -m).
exec python3 -I -B "$(dirname "$0")/grading/grade.py" "$@"
