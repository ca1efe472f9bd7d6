#!/usr/bin/env bash
# deps.sh - make sure the tools the kit needs are installed.
#
#   deps.sh TOOL...        install the missing ones if we can, else say how
#   deps.sh --install-all  the same for every tool `make labs` and `make test` need
#   deps.sh --package apt|dnf|brew TOOL   prints TOOL's package name there
#
# We can install when we are root, or when sudo works without a password,
# and the system has apt-get. Otherwise (or with IOLAB_NO_INSTALL=1) we
# print the exact command and exit 1.
set -euo pipefail

# tool -> Debian/Ubuntu package, Fedora package, Homebrew formula. liburing
# is a C library (iopattern --iodepth, Lab 5), not a command. shellcheck,
# pyflakes3, pycodestyle and cppcheck serve make lint.
declare -A APT=([gnuplot]=gnuplot-nox [bats]=bats [fio]=fio [bwrap]=bubblewrap [python3]=python3 [strace]=strace [liburing]=liburing-dev [shellcheck]=shellcheck [pyflakes3]=python3-pyflakes [pycodestyle]=pycodestyle [cppcheck]=cppcheck)
declare -A DNF=([gnuplot]=gnuplot-minimal [bats]=bats [fio]=fio [bwrap]=bubblewrap [python3]=python3 [strace]=strace [liburing]=liburing-devel [shellcheck]=ShellCheck [pyflakes3]=python3-pyflakes [pycodestyle]=python3-pycodestyle [cppcheck]=cppcheck)
declare -A BREW=([gnuplot]=gnuplot [bats]=bats-core [fio]=fio [bwrap]="(not available)" [python3]=python3 [strace]="(not available)" [liburing]="(not available: Linux only)" [shellcheck]=shellcheck [pyflakes3]=pyflakes [pycodestyle]=pycodestyle [cppcheck]=cppcheck)

# installed TOOL: the command is there, or for liburing, its header compiles
# (with CC, split into words as make does: CC="ccache gcc").
installed() {
	local cc
	if [ "$1" = liburing ]; then
		read -ra cc <<<"${CC:-cc}"
		printf '#include <liburing.h>\n' | "${cc[@]}" -E -x c - >/dev/null 2>&1
	else
		command -v "$1" >/dev/null 2>&1
	fi
}

if [ "${1:-}" = --package ] && [ $# -eq 3 ]; then
	case $2 in
	apt) echo "${APT[$3]:?unknown tool}" ;;
	dnf) echo "${DNF[$3]:?unknown tool}" ;;
	brew) echo "${BREW[$3]:?unknown tool}" ;;
	*) echo "deps.sh: --package apt, dnf or brew, not '$2'" >&2; exit 2 ;;
	esac
	exit 0
fi

# apt_get ARG...: apt-get, waiting for another apt to finish first. A new
# machine is often still running its own (unattended upgrades):
# DPkg::Lock::Timeout waits for dpkg's lock, but apt-get update takes the
# package lists' lock, for which apt (2.6 too) does not wait; so while the
# error is about a lock, try again, for 5 minutes at most.
apt_get() {
	local out status tries=0
	while :; do
		status=0
		out=$("${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 -q "$@" 2>&1) || status=$?
		[ $status -ne 0 ] && grep -q 'Could not get lock' <<<"$out" && [ $tries -lt 100 ] || break
		[ $tries -gt 0 ] || echo "Waiting for another apt-get to finish (its lock is held) ..."
		tries=$((tries + 1))
		sleep 3
	done
	[ $status -eq 0 ] || echo "$out" >&2
	return $status
}

if [ "${1:-}" = --install-all ]; then
	set -- gnuplot bats liburing strace
	all=1
fi
[ $# -gt 0 ] || { echo "usage: deps.sh --install-all | TOOL..." >&2; exit 2; }

missing=()
for tool in "$@"; do
	[ -n "${APT[$tool]:-}" ] || { echo "deps.sh: unknown tool '$tool'" >&2; exit 2; }
	installed "$tool" || missing+=("$tool")
done

if [ ${#missing[@]} -gt 0 ]; then
	packages=()
	for tool in "${missing[@]}"; do packages+=("${APT[$tool]}"); done
	if [ "$(id -u)" -eq 0 ]; then
		sudo=()
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo)
	else
		sudo=(none)
	fi
	if command -v apt-get >/dev/null 2>&1 && [ "${sudo[0]:-}" != none ] && [ -z "${IOLAB_NO_INSTALL:-}" ]; then
		echo "Installing ${missing[*]} (apt-get install ${packages[*]}) ..."
		export DEBIAN_FRONTEND=noninteractive
		apt_get update && apt_get install -y "${packages[@]}" || exit 1
	else
		echo "Missing: ${missing[*]}. Install with one of:" >&2
		echo "  sudo apt-get install ${packages[*]}        # Debian, Ubuntu" >&2
		echo "  sudo dnf install $(for t in "${missing[@]}"; do printf '%s ' "${DNF[$t]}"; done)  # Fedora" >&2
		echo "  brew install $(for t in "${missing[@]}"; do printf '%s ' "${BREW[$t]}"; done)  # macOS (the labs themselves need Linux)" >&2
		exit 1
	fi
fi

# bats before 1.4 has no BATS_TEST_TMPDIR, the folder each test runs in:
# the tests would run in the kit's own folder and overwrite data/. Where
# the system's package is that old (Ubuntu 22.04's 1.2.1) it is no fix:
# bats-core's own installer is.
if [[ " $* " == *" bats "* ]]; then
	version=$(bats --version | sed -n 's/^Bats \([0-9][0-9.]*\).*/\1/p')
	IFS=. read -r major minor _ <<<"${version:-0.0}"
	if [ "${major:-0}" -lt 1 ] || { [ "$major" -eq 1 ] && [ "${minor:-0}" -lt 4 ]; }; then
		echo "bats ${version:-of an unknown version} is older than 1.4, which the tests need. Fix: git clone --depth 1 https://github.com/bats-core/bats-core /tmp/bats-core && sudo /tmp/bats-core/install.sh /usr/local" >&2
		exit 1
	fi
fi

if [ -n "${all:-}" ]; then
	echo "gnuplot, bats and liburing are installed. On other systems:"
	echo "  Fedora: sudo dnf install ${DNF[gnuplot]} ${DNF[bats]} ${DNF[liburing]}"
	echo "  macOS:  brew install ${BREW[gnuplot]} ${BREW[bats]} (liburing and the labs need Linux)"
	echo "Optional: fio (make validate, Lab 5)."
	[ ! -e "$(dirname "$0")/../grade.sh" ] || echo "The grader's containment wants bubblewrap (optional as root)."
fi
