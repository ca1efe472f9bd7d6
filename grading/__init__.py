"""The grader of iolab, one package imported from the kit's root: its
modules as grading.X, each lab's rubric as grading.labN.checks (./grade.sh
runs grading/grade.py; grading/README.md lists the modules)."""
