#!/usr/bin/env bash
# page-commands.sh PAGE: PAGE's ```sh blocks (a lab page's commands, as a
# student types them) as a bash script that runs them in order, each
# command followed by a check of its exit status that names the page's
# line and stops the script. A command is the lines bash reads as a whole
# (a continued line, a for loop). Run by tests/pages.bats, and by CI's
# .ci/as-student, which runs every page as a student.
#
# The pages' convention: every ```sh block of labs/N-topic/README.md holds
# commands a student types, in order, in one shell that starts in the kit
# (a `cd` carries over to the next command). Each command must exit 0; one
# that is meant to fail ends with `; echo "exit $?"`, so that the student
# sees its status. Blocks that show output, or a template with parts to
# fill in, are ```text, and are not run.
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: page-commands.sh PAGE.md" >&2; exit 2; }
page=$1 cmd='' first=0
while IFS= read -r line; do
	n=${line%%:*} line=${line#*:}
	[ -n "$cmd" ] || first=$n
	cmd+=$line$'\n'
	[[ $line != *\\ ]] && bash -n <<<"$cmd" 2>/dev/null || continue
	printf '%s' "$cmd"
	# shellcheck disable=SC2016 # expanded when the script runs
	printf 's=$?; [ "$s" -eq 0 ] || { echo "%s:%s: exit $s: %s" >&2; exit 1; }\n' \
		"$page" "$first" "$(head -1 <<<"$cmd" | sed 's/[%\\"$`]/./g')"
	cmd=''
done < <(awk '
	/^ *```sh *$/ { match($0, /^ */); indent = RLENGTH; inb = 1; next }
	inb && /^ *```/ { inb = 0; next }
	inb && NF { print NR ":" substr($0, indent + 1) }' "$page")
[ -z "$cmd" ] || { echo "$page:$first: a command that never ends: $cmd" >&2; exit 1; }
