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

# storage FS: the kind of storage under DIR (file system FS), and the
# device or file system it was told by, e.g. "nvme nvme0n1": what an fsync
# there waits for (Lab 6's cost per save). Read from findmnt and /sys, as
# any user may; every probe that fails gives "unknown" (a container's
# overlay, a device /sys does not show), never an error. The kinds:
#   memory      tmpfs, ramfs, zram: an fsync has nothing to wait for
#   network     NFS, SMB, sshfs, Ceph, ...: a round trip to a server
#   host-share  a virtual machine's view of its host's files (9p, virtiofs,
#               vboxsf: WSL's /mnt/c)
#   vm-disk     a virtual machine's disk (virtio, Xen, Hyper-V and WSL,
#               VMware, QEMU, VirtualBox, a cloud volume): the host's cache
#               and disk behind it
#   nvme, ssd, hdd  a local disk (ssd or hdd from its queue/rotational)
#   mmc         an SD card or eMMC (a Raspberry Pi)
#   loop        a file mounted as a disk (a snap, a disk image)
storage() {
	local fs=$1 source name sys under id _
	case $fs in
	tmpfs | ramfs) echo "memory $fs"; return ;;
	nfs* | cifs | smb* | fuse.sshfs | ceph | fuse.ceph* | glusterfs | fuse.glusterfs | lustre | afs | \
		beegfs | gpfs | fuse.s3fs | fuse.rclone) echo "network $fs"; return ;;
	9p | virtiofs | vboxsf | drvfs | fuse.vmhgfs-fuse | prl_fs) echo "host-share $fs"; return ;;
	esac
	# the block device: the mount's source (btrfs adds [/subvolume]), else
	# its device number in /sys (a container sees no /dev/sda1, but /sys)
	source=$(findmnt -n -o SOURCE --target "$dir" 2>/dev/null | tail -1) || source=
	source=${source%%[[]*}
	if [ -b "$source" ]; then
		name=$(basename "$(readlink -f "$source")")
	else
		name=$(findmnt -n -o MAJ:MIN --target "$dir" 2>/dev/null | tail -1) ||
			name=$(stat -c %Hd:%Ld "$dir" 2>/dev/null) || name=
		name=$(basename "$(readlink -f "/sys/dev/block/${name// /}" 2>/dev/null)" 2>/dev/null) || name=
	fi
	if [ -z "$name" ] || [ ! -e "/sys/class/block/$name" ]; then
		echo "unknown $fs"
		return
	fi
	# a partition -> its disk; LVM, LUKS, RAID -> the first device under them
	for _ in 1 2 3 4; do
		if [ -e "/sys/class/block/$name/partition" ]; then
			name=$(basename "$(dirname "$(readlink -f "/sys/class/block/$name")")")
		elif under=$(ls "/sys/class/block/$name/slaves" 2>/dev/null) && [ -n "$under" ]; then
			name=${under%%$'\n'*}
		else
			break
		fi
	done
	sys=/sys/class/block/$name
	id=$(cat "$sys/device/vendor" 2>/dev/null; cat "$sys/device/model" 2>/dev/null) || true
	case $name in
	zram* | ram*) echo "memory $name" ;;
	loop*) echo "loop $name" ;;
	mmcblk*) echo "mmc $name" ;;
	vd* | xvd*) echo "vm-disk $name" ;;
	*)	# virtual disks often say rotational 1 whatever is behind them
		if [[ $(readlink -f "$sys/device" 2>/dev/null) == */virtio* ||
			$id =~ QEMU|VBOX|VMware|Msft|Virtual|Xen|PersistentDisk|Elastic.Block ]]; then
			echo "vm-disk $name"
		elif [[ $name == nvme* ]]; then
			echo "nvme $name"
		else
			case $(cat "$sys/queue/rotational" 2>/dev/null) in
			0) echo "ssd $name" ;;
			1) echo "hdd $name" ;;
			*) echo "unknown $name" ;;
			esac
		fi ;;
	esac
}
# (the last line: the mount on top, where several are stacked at one place)
# Where findmnt cannot see the mount (a chroot: no /proc, or the mount is
# outside its root), statfs names the file system by its magic number,
# which ext2, ext3 and ext4 share ("ext2/ext3"): the ext4 driver, which
# mounts all three on today's kernels, lists its devices in /sys/fs/ext4;
# without /sys to ask, it is taken for ext4.
fs=$(findmnt -n -o FSTYPE --target "$dir" 2>/dev/null | tail -1) || fs=$(stat -f -c %T "$dir")
if [ "$fs" = ext2/ext3 ]; then
	dev=$(basename "$(readlink -f "/sys/dev/block/$(stat -c %Hd:%Ld "$dir")" 2>/dev/null)" 2>/dev/null) || dev=
	if [ -n "$dev" ] && [ -d /sys/fs/ext4 ] && [ ! -e "/sys/fs/ext4/$dev" ]; then
		fs="ext2/ext3 (not the ext4 driver)"
	else
		fs=ext4
	fi
fi
# The mount's options: what the file system does with an fsync or O_DIRECT
# (ext4's data=journal refuses O_DIRECT: Lab 5 leaves those curves out).
options=$(findmnt -n -o OPTIONS --target "$dir" 2>/dev/null | tail -1) ||
	options="unknown (findmnt cannot see the mount here: a chroot?)"

tmp="$out.tmp"
trap 'rm -f "$tmp"' EXIT
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel: $(uname -srm)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "cores: $(getconf _NPROCESSORS_ONLN)"
	echo "memory: $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	# the bracketed word is the setting: always, madvise or never (Lab 3);
	# without /sys/kernel/mm, sysfs is not mounted (a chroot): no telling
	echo "transparent_hugepage: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
		{ [ -d /sys/kernel/mm ] && echo "none in this kernel"; } ||
		echo "unknown (/sys is not mounted here: a chroot?)")"
	echo "scratch_dir_fs: $fs"
	echo "scratch_dir_mount_options: $options"
	echo "scratch_dir_storage: $(storage "$fs" || echo unknown)"
	echo "scratch_dir_st_blksize: $blksize"
	echo "compiler: $(${CC:-cc} --version | head -1)"
	echo "libc: $(getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>&1 | head -1)"
} >"$tmp"
mv "$tmp" "$out"
