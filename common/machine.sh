#!/usr/bin/env bash
# machine.sh DIR OUT - describes this machine and the file system of DIR
# (where a lab writes its files) into OUT, as "key: value" lines.
# Results mean little without it: the same program is 100x apart on a
# laptop SSD, a network disk and a tmpfs.
set -euo pipefail
dir=$1 out=$2

probe="$dir/.blksize-probe.$$"
: >"$probe"
blksize=$(stat -c %o "$probe")
rm -f "$probe"

tmp="$out.tmp"
trap 'rm -f "$tmp"' EXIT
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel: $(uname -srm)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "cores: $(getconf _NPROCESSORS_ONLN)"
	echo "memory: $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	# the bracketed word is the setting: always, madvise or never (Lab 3)
	echo "transparent_hugepage: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "none in this kernel")"
	echo "scratch_dir_fs: $(findmnt -n -o FSTYPE --target "$dir" 2>/dev/null || stat -f -c %T "$dir")"
	echo "scratch_dir_st_blksize: $blksize"
	echo "compiler: $(${CC:-cc} --version | head -1)"
	echo "libc: $(getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>&1 | head -1)"
} >"$tmp"
mv "$tmp" "$out"
