#!/bin/sh
# grade.sh - grades iolab submissions: ./grade.sh --help says how.
# The grader is a small Python package in grading/ (standard library only).
exec python3 -I -B "$(dirname "$0")/grading/grade.py" "$@"
