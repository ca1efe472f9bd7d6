#!/bin/sh
# git-check.sh MESSAGE during|after - Lab 6's checker of a crash state of
# the repository in the current directory: git fsck finds every object
# whole and reachable from what refers to it, and, once git had ended
# ("after"), the last commit is the one with MESSAGE. Exit 1 with one
# line saying why, else 0.
if ! out=$(git fsck --full --no-progress 2>&1); then
	echo "git fsck: $(printf '%s\n' "$out" | grep -m1 -i 'error\|missing\|broken\|corrupt\|fatal' || printf '%s\n' "$out" | head -1)"
	exit 1
fi
if ! last=$(git log -1 --format=%s 2>&1); then
	echo "git log: $(printf '%s\n' "$last" | head -1)"
	exit 1
fi
if [ "$2" = after ] && [ "$last" != "$1" ]; then
	echo "the last commit is '$last', not '$1': the commit was lost"
	exit 1
fi
exit 0
