#!/usr/bin/env bash
# lint.sh - make lint: the kit's own files, found from the tree (the
# fixtures under grading/tests/ are test data, some hostile on purpose):
# every shell script (by extension, or an extensionless file with a
# sh/bash shebang) through shellcheck, pyflakes and pycodestyle (setup.cfg) on the
# Python, cppcheck on the C. One line per tool; any finding fails. A
# missing tool: deps.sh installs it or names its package.
#
# No formatter runs as a check: clang-format cannot reproduce the kit's C
# layout without moving the students' marked regions and the text the
# mutants in grading/ edit; .clang-format only tells editors the style.
# Instructors only: setup.cfg is not in the starter, and a student's stubs
# are not the kit's code to hold to this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash common/deps.sh shellcheck pyflakes3 pycodestyle cppcheck >&2

# files NAME-TEST...: the kit's files that pass find's tests, sorted, one a line
files() {
	find . \( -path ./.git -o -path ./grading/tests/fixtures -o -path ./bin -o -path ./bin-asan \
		-o -path ./bin-tsan -o -path ./build -o -path ./dist -o -path "./${SCRATCH:-scratch}" \) -prune \
		-o -type f "$@" -print | sort
}

echo "== shellcheck -S warning"
{
	files \( -name '*.sh' -o -name '*.bash' \)
	files ! -name '*.*' | while read -r f; do head -n1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f"; done
} | sort | xargs -r shellcheck -S warning
echo "== pyflakes"
files -name '*.py' | xargs -r pyflakes3
echo "== pycodestyle (setup.cfg)"
files -name '*.py' | xargs -r pycodestyle
echo "== cppcheck"
files -name '*.c' | xargs -r cppcheck --error-exitcode=1 --enable=warning,portability --std=c11 -Icommon \
	--quiet --inline-suppr
