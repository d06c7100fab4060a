# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Guest side of tests/disk/run.sh (busybox sh, run by vm-run in /vmrun next to
# the static diskpat binary).
#
#   sh guest.sh BYTES NAME:DEV:SEED...
#
# For each device: find the PCI driver behind DEV, then two passes, each
# with its own seed (SEED and SEED+1):
#   buffered  diskpat write (page cache, fsync), diskpat verify (sync,
#             drop caches, buffered read, every byte compared)
#   direct    the same with O_DIRECT requests of varying sizes from buffers
#             at varying offsets inside a page
# Around each pass it records what proves that the data was bounced: the
# swiotlb debugfs io_tlb_used_hiwater (reset to 0 before the pass),
# io_tlb_used, the swiotlb_* events of /proc/vmstat and
# /sys/kernel/debug/mask_alloc/bounce.  At the end it records the DMA-API
# debug error count and the kernel's "DMA-API" lines.
#
# DISK_CORRUPT=flip (diskpat flips a byte it read) or DISK_CORRUPT=dev
# (sector 10 is copied over sector 20 between write and verify) shows
# that the test fails.
#
# Machine-readable lines are "R NAME PASS KEY VALUE" (NAME and PASS are
# "-" for global values); everything else is for the log.
bytes=$1
shift
tlb=/sys/kernel/debug/swiotlb
bounce=/sys/kernel/debug/mask_alloc/bounce
dmainfo='DMA-API: (preallocated [0-9]+ debug entries|debugging enabled by kernel config)$'

val() { # file -> its content, or "none"
	if [ -r "$1" ]; then cat "$1"; else echo none; fi
}
vmstat() { # event -> value, 0 when absent
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat
}
snap() { # name pass when
	echo "R $1 $2 used_$3 $(val $tlb/io_tlb_used)"
	echo "R $1 $2 allocs_$3 $(vmstat swiotlb_num_allocs)"
	echo "R $1 $2 frees_$3 $(vmstat swiotlb_num_frees)"
	if [ -r $bounce ]; then
		awk -v p="R $1 $2" -v w="$3" 'NF == 2 { print p, $1 "_" w, $2 }' $bounce
	fi
}
# driver NODE: the drivers from the block device up to its PCI function
driver() {
	p=$(readlink -f "/sys/block/$1/device")
	chain=""
	while [ -n "$p" ] && [ "$p" != / ] && [ "$p" != /sys/devices ]; do
		[ -L "$p/driver" ] && chain="$chain${chain:+<}$(basename "$(readlink "$p/driver")")"
		case $(basename "$p") in
		0000:*) echo "$chain@$(basename "$p")"; return ;;
		esac
		p=$(dirname "$p")
	done
	echo "${chain:-none}"
}

echo "cmdline: $(cat /proc/cmdline)"
# On a NUMA guest (the distro profile) the page cache comes from the node
# of the CPU that touches it, and only the last node holds memory above
# 4 GiB: run diskpat on that node's CPUs, so that PIIX must bounce.
pin=
if [ -d /sys/devices/system/node/node1 ]; then
	# shellcheck disable=SC2012 # sysfs names: nodeN
	last=$(ls -d /sys/devices/system/node/node[0-9]* | tail -n 1)
	pin="taskset -c $(cat "$last/cpulist")"
	# shellcheck disable=SC2012 # sysfs names: nodeN
	echo "numa: $(ls -d /sys/devices/system/node/node[0-9]* | wc -l) nodes, diskpat on ${last##*/} (CPUs $(cat "$last/cpulist"))"
fi
echo "swiotlb: nslabs $(val $tlb/io_tlb_nslabs), mask_alloc/bounce: $(val $bounce | tr '\n' ' ')"
for spec in "$@"; do
	name=${spec%%:*} rest=${spec#*:}
	dev=${rest%%:*} seed=${rest#*:}
	echo "R $name - driver $(driver "$dev")"
	echo "R $name - size $(($(val "/sys/block/$dev/size") * 512))"
	for pass in buffered direct; do
		opt=""
		[ $pass = direct ] && opt=-d
		sync
		echo 0 >$tlb/io_tlb_used_hiwater 2>/dev/null
		snap "$name" $pass before
		$pin ./diskpat write $opt -n "$bytes" -s "$seed" "/dev/$dev"
		echo "R $name $pass write_status $?"
		flip=""
		case ${DISK_CORRUPT:-} in
		flip) flip=$((bytes / 2 + 3)) ;;
		dev)
			dd if="/dev/$dev" of="/dev/$dev" bs=512 skip=10 seek=20 count=1 \
				conv=notrunc,fsync 2>/dev/null
			echo "DISK_CORRUPT=dev: sector 10 copied over sector 20 of /dev/$dev"
			;;
		esac
		DISKPAT_FLIP=$flip $pin ./diskpat verify $opt -n "$bytes" -s "$seed" "/dev/$dev" >v.out
		echo "R $name $pass verify_status $?"
		cat v.out
		sed -n 's/.* bytes=\([0-9]*\) bad_bytes=\([0-9]*\).*/\1 \2/p' v.out | {
			read -r b bad
			echo "R $name $pass verified ${b:-0}"
			echo "R $name $pass bad_bytes ${bad:-none}"
		}
		echo "R $name $pass hiwater $(val $tlb/io_tlb_used_hiwater)"
		snap "$name" $pass after
		echo "R $name $pass seed $seed"
		seed=$((seed + 1))
	done
done
echo "R - - dma_api_errors $(val /sys/kernel/debug/dma-api/error_count)"
echo "R - - dma_api_disabled $(val /sys/kernel/debug/dma-api/disabled)"
# DMA-API lines other than the two printed at every boot are reports
echo "R - - dmesg_dma_api $(dmesg | grep 'DMA-API' | grep -cvE "$dmainfo")"
# bounce mappings that failed (stock: "swiotlb buffer is full")
echo "R - - bounce_failures $(dmesg | grep -cE 'swiotlb buffer is full|dmatlb: no mask pool memory')"
# streaming mappings still alive now that all I/O is done (leaks)
echo "R - - dma_api_streaming $(grep -cv ' coherent ' /sys/kernel/debug/dma-api/dump 2>/dev/null)"
dmesg | grep -E 'DMA-API|swiotlb|dmatlb|mask_alloc' | sed 's/^/dmesg: /'
grep swiotlb /proc/vmstat | sed 's/^/vmstat: /'
true
