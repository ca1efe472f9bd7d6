#!/usr/bin/env bash
# grading/autograder/build.sh - writes Gradescope's autograder.zip: at its
# top, setup.sh and run_autograder (from this folder) and the reference kit
# with its grader (grade.sh, grading/), as Gradescope unpacks it into
# /autograder/source. With --platform prairielearn, a zip to unpack at the
# top of a PrairieLearn course: the same kit and scripts in
# serverFilesCourse/iolab/ (PrairieLearn copies it to
# /grade/serverFilesCourse/iolab; run_prairielearn is the entrypoint) and
# a question, questions/iolab/, whose students upload their handin.
# Built in a temporary directory and renamed into place. Needs zip, or
# else python3; says how to install zip otherwise.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KIT=$(cd "$HERE/../.." && pwd)
PROG=autograder

usage() {
	cat <<-USAGE
	usage: grading/autograder/build.sh [--platform P] [-o FILE] [--labs LIST] [--timeout SECONDS]
	                                   [--visibility TEXT=V;...]
	  --platform P gradescope (the default) or prairielearn
	  -o FILE      the zip to write (default dist/autograder.zip, or
	               dist/prairielearn.zip, in the kit)
	  --labs LIST  grade only these labs, e.g. 1,2 (default: every lab), for
	               a Gradescope assignment that covers only some labs
	  --timeout S  stop grading after S seconds (default 540: under
	               Gradescope's default limit of 10 minutes; raise both
	               together; PrairieLearn's question gets S + 30, at
	               most 600, so S at most 570 there): the
	               checks finished keep their points, the result names
	               those that did not run
	  --visibility TEXT=V;...
	               Gradescope: a check whose name holds TEXT is shown to
	               students as V says (visible, hidden, after_due_date or
	               after_published; the first rule that matches, else
	               visible), e.g. 'speed=after_due_date'
	  -h, --help   this help
	USAGE
}
die() { echo "$PROG: $*" >&2; exit 1; }
usage_error() { echo "$PROG: $*" >&2; usage >&2; exit 2; }

out="" labs="" timeout=540 platform=gradescope visibility=""
while [ $# -gt 0 ]; do
	case $1 in
	--platform)
		[[ ${2:-} =~ ^(gradescope|prairielearn)$ ]] || usage_error "--platform: '${2:-}' is neither gradescope nor prairielearn"
		platform=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage_error "-o needs a FILE"; out=$2; shift 2 ;;
	--labs)
		[[ ${2:-} =~ ^[1-9](,[1-9])*$ ]] || usage_error "--labs: '${2:-}' is not a list like 1,2"
		labs=$2; shift 2 ;;
	--timeout)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_error "--timeout: '${2:-}' is not a number of seconds"
		timeout=$2; shift 2 ;;
	--visibility) [ $# -ge 2 ] || usage_error "--visibility needs TEXT=V;..."; visibility=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
done
# PrairieLearn's question gets the grading's time and 30 s to write its
# results; PrairieLearn refuses a question timeout over 600 s.
if [ "$platform" = prairielearn ] && [ "$timeout" -gt 570 ]; then
	usage_error "--timeout: $timeout s is over PrairieLearn's limit: its question's timeout (the grading's + 30 s) may be at most 600 s, so at most 570"
fi
[ "$platform" = gradescope ] && out=${out:-$KIT/dist/autograder.zip} || out=${out:-$KIT/dist/prairielearn.zip}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
# Every lab named must be one the kit grades (labs/N-* and grading/labN/checks.py):
# a zip that would give every student 0 is not built, nor one whose grader
# stops at a lab folder it has no module or page for.
missing=$(python3 -I -c 'import sys; sys.path.insert(0, sys.argv[1]); from grading import discover; print(discover.kit_missing() or "")' "$KIT") ||
	die "the grader (grading/) does not load"
[ -z "$missing" ] || die "$missing"
if [ -n "$labs" ]; then
	have=$(cd "$KIT/labs" && for d in [1-9]-*; do [ -f "../grading/lab${d%%-*}/checks.py" ] && echo "${d%%-*}"; done | paste -sd,)
	for lab in ${labs//,/ }; do
		[[ ,$have, == *",$lab,"* ]] || usage_error "--labs: this kit has no lab $lab (it has $have)"
	done
fi

# Each rule well formed and naming a check of the labs graded: a typo
# would leave a speed check shown before the due date.
if [ -n "$visibility" ]; then
	[ "$platform" = gradescope ] || usage_error "--visibility: PrairieLearn has no per-check visibility"
	problem=$(python3 -I - "$KIT" "$visibility" "$labs" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[1])
	from grading import discover, report
	try:
	    rules = report.visibility_rules(sys.argv[2])
	except ValueError as e:
	    print(e)
	    sys.exit(1)
	names = [c.name for c in discover.load([int(n) for n in sys.argv[3].split(",")] if sys.argv[3] else discover.kit_labs())[0]]
	for text in (t for t, _ in rules if not any(t in n for n in names)):
	    print(f"'{text}' is in the name of no check of the labs graded (./grade.sh --list)")
	    sys.exit(1)
	PY
	) || usage_error "--visibility: ${problem:-the grader (grading/) does not load}"
fi

if command -v zip >/dev/null 2>&1; then
	zipper=zip
elif command -v python3 >/dev/null 2>&1; then
	zipper=python3
else
	die "neither zip nor python3 is installed: install zip (sudo apt-get install zip, sudo dnf install zip, brew install zip)"
fi

cd "$KIT"
for f in "$HERE/setup.sh" "$HERE/run_autograder" "$HERE/run_prairielearn" grade.sh Makefile; do
	[ -f "$f" ] || die "$f is missing"
done
mkdir -p "$(dirname "$out")"
stage=$(mktemp -d "${TMPDIR:-/tmp}/iolab-autograder.XXXXXX")
tmpzip="$out.tmp.$$"
trap 'rm -rf "$stage" "$tmpzip"' EXIT

# The kit: sources, grader, reference tables; no build outputs, no results.
top=$stage
if [ "$platform" = prairielearn ]; then
	stage=$stage/serverFilesCourse/iolab
	mkdir -p "$stage"
fi
cp -R Makefile README.md handout.md grade.sh common labs tests grading "$stage/"
rm -rf "$stage/grading/autograder" "$stage/grading/tests" "$stage"/grading/lab*/tests
mkdir -p "$stage/plot" "$stage/data"
cp plot/*.gp "$stage/plot/"
[ ! -d data/reference ] || cp -R data/reference "$stage/data/"
find "$stage" \( -name '*.tmp' -o -name '*~' -o -name '.*.swp' -o -name '*.o' \) -type f -delete
find "$stage" -name __pycache__ -type d -prune -exec rm -rf {} +
cat >"$stage/autograder.conf" <<-CONF
	# Written by make autograder; read by run_autograder (the environment overrides it).
	# IOLAB_LABS: the labs graded (empty: every lab in this zip's labs/, whatever a
	# student's labs.txt says). IOLAB_TIMEOUT: seconds for the whole grading.
	# IOLAB_VISIBILITY: Gradescope's visibility of some checks (TEXT=V;...).
	IOLAB_LABS=$labs
	IOLAB_TIMEOUT=$timeout
	IOLAB_VISIBILITY=$visibility
	CONF
cp "$HERE/setup.sh" "$HERE/run_autograder" "$stage/"
chmod 755 "$stage/setup.sh" "$stage/run_autograder" "$stage/grade.sh"
if [ "$platform" = prairielearn ]; then
	cp "$HERE/run_prairielearn" "$stage/"
	chmod 755 "$stage/run_prairielearn"
	# The question: students upload the handin; the external grader (an
	# image with gcc, make and python3; setup.sh lists the packages) runs
	# the kit's run_prairielearn on it. Its uuid is new for every zip; its
	# topic, iolab, must be one of infoCourse.json's topics (said below).
	# gradingMethod "External" is what turns external grading on
	# (externalGradingOptions' "enabled" is deprecated).
	stage=$top
	mkdir -p "$stage/questions/iolab"
	cat >"$stage/questions/iolab/info.json" <<-JSON
	{
	  "uuid": "$(python3 -c 'import uuid; print(uuid.uuid4())')",
	  "title": "iolab handin (labs ${labs:-all})",
	  "topic": "iolab",
	  "type": "v3",
	  "singleVariant": true,
	  "gradingMethod": "External",
	  "externalGradingOptions": {
	    "image": "prairielearn/grader-c",
	    "serverFilesCourse": ["iolab/"],
	    "entrypoint": "/grade/serverFilesCourse/iolab/run_prairielearn",
	    "timeout": $((timeout + 30))
	  }
	}
	JSON
	cat >"$stage/questions/iolab/question.html" <<-'HTML'
	<pl-question-panel>
	  <p>Upload the <code>iolab-handin.tar.gz</code> that <code>make handin</code> wrote.</p>
	</pl-question-panel>
	<pl-file-upload file-names="iolab-handin.tar.gz"></pl-file-upload>
	<pl-submission-panel>
	  <pl-external-grader-results></pl-external-grader-results>
	  <pl-file-preview></pl-file-preview>
	</pl-submission-panel>
	HTML
fi

if [ "$zipper" = zip ]; then
	(cd "$stage" && zip -q -r -X "$tmpzip" .)
else
	python3 - "$stage" "$tmpzip" <<-'PY'
	import os, sys, zipfile
	stage, out = sys.argv[1], sys.argv[2]
	with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
	    for top, dirs, files in os.walk(stage):
	        dirs.sort()
	        for name in sorted(dirs) + sorted(files):
	            path = os.path.join(top, name)
	            z.write(path, os.path.relpath(path, stage))  # keeps the modes
	PY
fi
mv "$tmpzip" "$out"
if [ "$platform" = gradescope ]; then
	echo "wrote $out ($(find "$stage" -type f | wc -l) files; labs ${labs:-all}, timeout $timeout s): upload it as the assignment's autograder on Gradescope (Ubuntu base image)"
else
	echo "wrote $out ($(find "$stage" -type f | wc -l) files; labs ${labs:-all}, timeout $timeout s): unzip it at the top of the PrairieLearn course (serverFilesCourse/iolab/, questions/iolab/)"
	echo "and add the question's topic to the course's infoCourse.json \"topics\": {\"name\": \"iolab\", \"color\": \"blue1\", \"description\": \"iolab handins\"}"
fi
