#!/usr/bin/env bash
# run-labs.sh FIGURES LAB...: what `make labs` and `make labN` do, run by
# the Makefile (FIGURES: the make target that draws the labs' figures,
# plot or plot-labN).
#
# python3 is checked (the lab scripts need it; deps.sh installs it or says
# how), every program is built that builds (make -k), then every LAB runs,
# even after one has failed, then the figures (each that can be drawn:
# make -k) and the summary, which ends with what is missing and the
# command that fixes it. The exit status says whether every lab finished
# and every figure was drawn. A lab that exits 3 stopped at a program that
# is still to be written (not_written() in common/iolab.h); one that exits
# 4 did not start, a program it runs not built (lab_begin in
# common/lab.sh): a program that does not build (a new compiler's
# warning) stops only the labs that run it. Without gnuplot no figure is
# tried (deps.sh says how to install it, once), and the summary says so
# again at the end.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ $# -ge 2 ] || { echo "usage: run-labs.sh FIGURES LAB..." >&2; exit 2; }
figures=$1
shift
make=${MAKE:-make}	# MAKEFLAGS, in the environment, hands it make's options

bash common/deps.sh python3 || exit 1
"$make" -k --no-print-directory all ||
	echo "(some programs did not build, above: the labs that run them will not run)"
failed='' unwritten='' unbuilt=''
for lab in "$@"; do
	bash labs/*/"$lab".sh
	case $? in
	0) ;;
	3) unwritten+=" $lab" ;;
	4) unbuilt+=" $lab" ;;
	*) failed+=" $lab" ;;
	esac
done
if bash common/deps.sh gnuplot; then "$make" -k --no-print-directory "$figures"; fi
exec bash common/summary.sh --failed "$failed" --unwritten "$unwritten" --unbuilt "$unbuilt" "$@"
