#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, on its Ubuntu base image,
# from /autograder/source (where autograder.zip is unpacked: this file,
# run_autograder and the iolab kit). It installs what grade.sh needs and
# builds the kit's reference programs, so that each grading run starts
# from a ready image.
set -euo pipefail
cd "$(dirname "$0")"

export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -q
# gcc, make: build the students' programs and the kit's. bubblewrap: the
# sandbox grade.sh runs them in (it falls back to limits alone when the
# container cannot start one). util-linux: prlimit, setpriv. procps: ps.
# strace: the grader's tracer (grading/tracer.py), which sees from outside
# the threads and calls of the students' programs; Lab 2's step 4 too.
# python3: the grader (grade.sh runs grading/grade.py, standard library only).
# gnuplot-nox, bats: the kit's own make plot and make test, for checking
# the image by hand. (bash, awk, tar, gzip, coreutils: in every image.)
apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends \
	gcc libc6-dev make util-linux procps bubblewrap strace python3 gnuplot-nox bats liburing-dev
# setpriv is in util-linux on current releases, its own package on older ones.
command -v setpriv >/dev/null || apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends setpriv

chmod +x grade.sh run_autograder
# Students' programs run as uids of their own: the kit (reference answers
# and solutions included) must be unreadable to them. grade.sh also does
# this when it starts; here it holds from the first grading on.
chmod -R go-rwx "$PWD"
# The kit's programs are the reference every check compares against.
make -s all
echo "setup.sh: iolab autograder ready in $PWD"
