#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the base initramfs (static busybox + scripts/guest/init) with the
# kernel's own gen_init_cpio, so no root or mknod is needed.
#   mkinitramfs                    -> build/initramfs.cpio.gz (if out of date)
#   mkinitramfs --spec SPEC OUT    -> an extra archive from a gen_init_cpio spec
set -euo pipefail
. "$(dirname "$0")/lib.sh"

gic=$BUILD/tools/gen_init_cpio
if [[ ! -x $gic || $TREE/usr/gen_init_cpio.c -nt $gic ]]; then
	mkdir -p "$BUILD/tools"
	gcc -O2 -o "$gic" "$TREE/usr/gen_init_cpio.c"
fi

if [[ ${1:-} == --spec ]]; then
	"$gic" "$2" | gzip -1 >"$3"
	exit 0
fi

out=$BUILD/initramfs.cpio.gz
init=$ROOT/scripts/guest/init
bb=$(command -v busybox || echo /bin/busybox)
if [[ -f $out && $out -nt $init && $out -nt $bb && $out -nt $0 ]]; then
	exit 0
fi
spec=$BUILD/initramfs.spec
cat >"$spec" <<SPEC
dir /dev 755 0 0
nod /dev/console 600 0 0 c 5 1
nod /dev/null 666 0 0 c 1 3
dir /proc 755 0 0
dir /sys 755 0 0
dir /tmp 1777 0 0
dir /bin 755 0 0
dir /sbin 755 0 0
dir /usr 755 0 0
dir /usr/bin 755 0 0
dir /usr/sbin 755 0 0
dir /root 700 0 0
dir /mnt 755 0 0
dir /vmrun 755 0 0
file /bin/busybox $bb 755 0 0
slink /bin/sh busybox 777 0 0
file /init $init 755 0 0
SPEC
pack() { "$gic" "$spec" | gzip -9 >"$out.tmp" && mv "$out.tmp" "$out"; }
run_stage --log "$BUILD/initramfs.log" "initramfs: busybox ($bb) + scripts/guest/init" pack ||
	die "the initramfs failed"
