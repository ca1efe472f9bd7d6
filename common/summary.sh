#!/usr/bin/env bash
# summary.sh - what `make labs` or `make labN` produced, and what it did not.
#
#   summary.sh [--failed "LAB..."] [--unwritten "LAB..."] [--unbuilt "LAB..."] LAB...
#
# Lists the LABs' results and figures and the machine; then, last, so that
# it is the end of the output and not lost in it, every lab that did not
# finish and every figure that was not drawn, each with the command that
# fixes it (for a lab that did not start, --unbuilt, the source of each
# program it runs that is not built). Exits 1 when anything is missing: a
# lab never claims what it did not do.
set -euo pipefail
# DATA, where the labs wrote their results, is relative to where the
# caller stands; the default is the kit's data/.
case ${DATA:=data} in /*) ;; *) DATA=$PWD/$DATA ;; esac
cd "$(dirname "$0")/.."
[ -d "$DATA" ] || DATA=data
failed='' unwritten='' unbuilt=''
while [ $# -gt 0 ]; do
	case $1 in
	--failed) failed=$2; shift 2 ;;
	--unwritten) unwritten=$2; shift 2 ;;
	--unbuilt) unbuilt=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: summary.sh [--failed LABS] [--unwritten LABS] [--unbuilt LABS] LAB..." >&2; exit 2; }

echo
echo "== Summary"
for lab in "$@"; do
	for csv in "$DATA/$lab".csv "$DATA/$lab"-*.csv; do
		[ -e "$csv" ] || continue
		printf '  %-22s %6d rows\n' "$csv" $(($(wc -l <"$csv") - 1))
	done
done

# A figure is drawn when its PNG is newer than its script and every CSV it
# reads; one whose CSV is missing waits for its lab.
drawn=() undrawn=() nodata=()
for lab in "$@"; do
	for gp in plot/"$lab"-*.gp; do
		[ -e "$gp" ] || continue
		png=${gp%.gp}.png
		fresh=1 csvs=1
		[ "$png" -nt "$gp" ] || fresh=
		for csv in $(grep -o "data/[A-Za-z0-9_./-]*\.csv" "$gp" | sort -u); do
			csv=${csv/#data/$DATA}
			if [ -z "$(sed -n 2p "$csv" 2>/dev/null)" ]; then csvs=; elif [ ! "$png" -nt "$csv" ]; then fresh=; fi
		done
		if [ -z "$csvs" ]; then nodata+=("$png")
		elif [ -n "$fresh" ]; then drawn+=("$png")
		else undrawn+=("$png"); fi
	done
done
for png in "${drawn[@]}"; do printf '  %s\n' "$png"; done
if [ -e "$DATA/machine.txt" ]; then sed "s/^/  /" "$DATA/machine.txt"; fi

# Nothing missing: the figures are there to open.
if [ -z "$failed$unwritten$unbuilt" ] && [ ${#undrawn[@]} -eq 0 ] && [ ${#nodata[@]} -eq 0 ]; then
	echo "Next: open the figures, then answer the questions on each lab's page (labs/N-topic/README.md)."
	exit 0
fi

# install_command TOOL: the one command that installs TOOL on this system.
install_command() {
	local apt dnf
	apt=$(bash common/deps.sh --package apt "$1") dnf=$(bash common/deps.sh --package dnf "$1")
	if command -v apt-get >/dev/null; then echo "sudo apt-get install $apt"
	elif command -v dnf >/dev/null; then echo "sudo dnf install $dnf"
	else echo "brew install $(bash common/deps.sh --package brew "$1")"; fi
}

echo
echo "== Not done: the results above are incomplete"
[ -z "$failed$unwritten$unbuilt" ] || echo "  Labs that did not finish:$unbuilt$unwritten$failed"
for lab in $unbuilt; do
	# lab_begin "TITLE" PROG...: the programs the lab runs; a source
	# labs/*/PROG.c (or .py) for each that is not in bin/
	sources=
	for prog in $(sed -n 's/^lab_begin "[^"]*" //p' labs/*/"$lab".sh); do
		[ ! -x "${BIN:-bin}/$prog" ] || continue
		for src in labs/*/"$prog".c labs/*/"$prog".py; do
			[ ! -e "$src" ] || sources="$sources $src"
		done
	done
	echo "  $lab did not start: a program it runs did not build (the compiler's errors are above). Fix:$sources, then: make $lab"
done
if [ -n "$unwritten" ]; then
	echo "  stopped at a program not written yet:$unwritten (its message above says which part)"
	# Sources that still call not_written() (with solution markers: the
	# reference's, where it only appears in stubs).
	todo=
	for src in $(grep -l 'not_written(' labs/*/*.c /dev/null); do
		grep -q 'BEGIN[[:space:]]SOLUTION' "$src" || todo="$todo $src"
	done
	[ -z "$todo" ] || echo "  still to write (not_written() is still called in):$todo"
	for lab in $unwritten; do echo "    then: make $lab"; done
fi
for lab in $failed; do
	echo "  $lab failed (its error is above); once it is fixed: make $lab"
done
if [ ${#undrawn[@]} -gt 0 ]; then
	echo "  figures not drawn: ${undrawn[*]}"
	if ! command -v gnuplot >/dev/null; then
		echo "    gnuplot is not installed. Fix: $(install_command gnuplot) && make plot"
	else
		echo "    gnuplot failed on them (its error is above). Fix it, then: make plot"
	fi
fi
if [ ${#nodata[@]} -gt 0 ]; then
	echo "  figures without their data yet (their lab did not write it, or left it out, saying why): ${nodata[*]}"
fi
exit 1
