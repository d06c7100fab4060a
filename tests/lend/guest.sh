# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Guest side of tests/lend/run.sh (busybox sh, in /vmrun next to ./filler).
# The guest has 2 GiB and "maskzone=512M,force", lending on by default: every mask
# allocation comes from the pool, which lends what it does not need.
#
# Prints "M <label> key=value..." figures, "A ..." lines of ./filler alloc,
# and KTAP (tests/ktap_helpers.sh, next to this script): a result line for
# each check, the plan and "lend: N passed, N failed" last.
d=/sys/kernel/debug/mask_alloc
echo 1 >/proc/sys/kernel/printk
mi() { sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo; }
lv() { sed -n "s/^$1 //p" $d/lend; }
snap() {
	echo "M $1 pool_kb=$(mi MaskPoolTotal) free_kb=$(mi MaskPoolFree) lent_kb=$(mi MaskPoolLent) cma_kb=$(mi CmaTotal) cmafree_kb=$(mi CmaFree) avail_kb=$(mi MemAvailable) taken=$(lv taken_back) busy=$(lv take_back_busy) max_us=$(lv take_back_max_us)"
}
# shellcheck source=tests/ktap_helpers.sh # vm-run --file puts it next to guest.sh
. ./ktap_helpers.sh
ok() { ktap_check "$@"; } # ok(1/0) name [detail]
t() { [ "$@" ] && echo 1 || echo 0; }

ktap_header lend
snap boot
# The lend and take-back events from here on, and the vmstat counters.
t=/sys/kernel/tracing
mount -t tracefs nodev $t 2>/dev/null
echo 2048 >$t/buffer_size_kb
echo >$t/trace
echo 1 >$t/events/mask_alloc/mask_alloc_lend/enable
echo 1 >$t/events/mask_alloc/mask_alloc_take_back/enable
vs() { sed -n "s/^$1 //p" /proc/vmstat; }
lends0=$(lv lends) taken00=$(lv taken_back) busy00=$(lv take_back_busy)
lent=$(mi MaskPoolLent) pool=$(mi MaskPoolTotal)
ok "$(t "$lent" -gt 0)" "lending is on at boot: $lent of $pool KiB lent" "MaskPoolLent $lent"
ok "$(t "$(mi CmaTotal)" -eq "$lent")" "CmaTotal is the lent memory ($(mi CmaTotal) KiB)"

# Fill memory: anonymous memory held by one process, then a tmpfs file,
# leaving about 300 MiB for the migrations of the take-backs.
mkdir -p /mnt && mount -t tmpfs -o size=95% tmpfs /mnt
./filler anon 400 /tmp/go >/tmp/anon.out 2>&1 &
anon=$!
i=0
while ! grep -q ready /tmp/anon.out 2>/dev/null && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
fmib=$(( $(mi MemAvailable) / 1024 - 300 ))
./filler file /mnt/fill $fmib
ok "$(t $? -eq 0)" "the filler wrote $fmib MiB of page cache and holds 400 MiB of anonymous memory"
snap filled
cma=$(mi CmaTotal) cmafree=$(mi CmaFree)
echo "M borrowed borrowed_kb=$((cma - cmafree)) lent_kb=$cma pct=$(( (cma - cmafree) * 100 / (cma ? cma : 1) ))"
ok "$(t $((cma - cmafree)) -gt 0)" "the filler borrowed lent memory: $((cma - cmafree)) of $cma KiB"

# Sleeping 1 MiB allocations below 2^32, 2^30 and 2^24 while the borrowers
# sit in lent memory: each freed at once (a steady user), then 64 held at
# once below 2^32 (more than the hot part: lent blocks must come back).
for m in 0xffffffff 0x3fffffff 0xffffff; do
	r=$(./filler alloc 200 1048576 $m 0 | grep "^A")
	echo "$r mask=$m hold=0"
	ok "$(t "$(echo "$r" | sed -n 's/.* fail=\([0-9]*\).*/\1/p')" = 0)" "200 sleeping 1 MiB allocations below $m, each freed: all succeed" "$r"
done
before=$(lv taken_back)
r=$(./filler alloc 64 1048576 0xffffffff 64 | grep "^A")
echo "$r mask=0xffffffff hold=1"
ok "$(t "$(echo "$r" | sed -n 's/.* fail=\([0-9]*\).*/\1/p')" = 0)" "64 sleeping 1 MiB allocations below 2^32 held at once: all succeed" "$r"
ok "$(t "$(lv taken_back)" -gt "$before")" "they took lent memory back ($before, then $(lv taken_back) blocks taken back)"
snap allocs

# Every borrower's byte survived the migrations.
./filler verify /mnt/fill
ok "$(t $? -eq 0)" "the page cache reads back byte for byte after the take-backs"
touch /tmp/go.check
i=0
while [ -e /tmp/go.check ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
ok "$(t "$(grep -c '^anon check 1: 0 bad' /tmp/anon.out)" = 1)" "the anonymous memory is intact after the take-backs" "$(tail -n1 /tmp/anon.out)"

# Short-term pins and writeback while take-backs run: a process writes
# and reads 16 MiB of its anonymous memory to /dev/vda with O_DIRECT in a
# loop (each I/O pins its pages), and another writes 96 MiB to a file on
# ext2 on /dev/vdb with background writeback from the first dirty page,
# while 200 sleeping 1 MiB allocations below 2^32, held 32 at a time, take
# lent blocks back.  A block with a pinned or busy page must make the
# take-back try another, not hang; every byte must survive.
echo 1 >/proc/sys/vm/dirty_background_ratio
echo 80 >/proc/sys/vm/dirty_ratio
busy0=$(lv take_back_busy) taken0=$(lv taken_back)
./filler pin /dev/vda 16 /tmp/stop.pin >/tmp/pin.out 2>&1 &
pinner=$!
mkdir -p /wb
if mke2fs -q /dev/vdb >/tmp/mkfs.out 2>&1 && mount -t ext2 /dev/vdb /wb; then
	./filler file /wb/f 96 &
	writer=$!
	i=0
	while ! grep -q pinning /tmp/pin.out && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
	r=$(./filler alloc 200 1048576 0xffffffff 32 | grep "^A")
	echo "$r mask=0xffffffff hold=32 pins+writeback"
	ok "$(t "$(echo "$r" | sed -n 's/.* fail=\([0-9]*\).*/\1/p')" = 0)" "200 sleeping 1 MiB allocations held 32 at a time beside pins and writeback: all succeed" "$r"
	wait $writer
	ok "$(t $? -eq 0)" "the file on ext2 was written beside the take-backs"
	touch /tmp/stop.pin
	wait $pinner
	rc=$?
	ok "$(t $rc -eq 0)" "O_DIRECT I/O through pinned pages kept every byte: $(grep '^P' /tmp/pin.out)" "status $rc: $(tail -n2 /tmp/pin.out | tr '\n' ' ')"
	echo "M pins busy=$(( $(lv take_back_busy) - busy0 )) taken=$(( $(lv taken_back) - taken0 ))"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	./filler verify /wb/f
	ok "$(t $? -eq 0)" "the ext2 file reads back from the disk byte for byte after writeback and take-backs"
	umount /wb
else
	touch /tmp/stop.pin
	wait $pinner
	ok 0 "an ext2 file system on /dev/vdb" "$(cat /tmp/mkfs.out)"
fi

# Memory offline of the block with the highest lent pageblock is refused.
bs=$(cat /sys/devices/system/memory/block_size_bytes)
top=$(sed -n 's/^highest_addr: //p' $d/summary)
blk=$(( (top - 0x100000) / 0x$bs ))
if [ -e /sys/devices/system/memory/memory$blk/state ]; then
	lb=$(mi MaskPoolLent)
	echo offline >/sys/devices/system/memory/memory$blk/state 2>/dev/null
	# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
	rc=$?
	ok "$(t $rc -ne 0 -a "$(cat /sys/devices/system/memory/memory$blk/state)" = online)" "memory$blk (lent pool memory) refuses to go offline" "status $rc"
	ok "$(t "$(mi MaskPoolLent)" -eq "$lb")" "the refused offline left the lent memory alone"
else
	ok 0 "memory$blk exists (block size 0x$bs, pool top $top)"
fi

# The off switch takes everything back once the page cache is gone.
rm -f /mnt/fill
echo 0 >/proc/sys/vm/mask_alloc_lend
# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
ok "$(t $? -eq 0)" "vm.mask_alloc_lend=0 is accepted"
snap off
ok "$(t "$(mi MaskPoolLent)" -eq 0 -a "$(mi CmaTotal)" -eq 0)" "switched off, nothing stays lent" "lent $(mi MaskPoolLent) KiB"
ok "$(t "$(mi MaskPoolFree)" -eq "$pool")" "the whole pool is free again ($(mi MaskPoolFree) of $pool KiB)"
echo 2 >/proc/sys/vm/mask_alloc_lend 2>/dev/null
# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
ok "$(t $? -ne 0 -a "$(cat /proc/sys/vm/mask_alloc_lend)" = 0)" "vm.mask_alloc_lend refuses 2"
echo 1 >/proc/sys/vm/mask_alloc_lend
snap on-again
ok "$(t "$(mi MaskPoolLent)" -gt 0)" "switched on again, the pool lends again"
# Every lend and take-back since the start is one event and one count.
echo 0 >$t/events/mask_alloc/enable
tok=$(grep -c 'mask_alloc_take_back: .* err=0 us=' $t/trace)
tbusy=$(grep -c 'mask_alloc_take_back: .* err=-16 us=' $t/trace)
tlend=$(grep -c 'mask_alloc_lend: pfn=' $t/trace)
echo "M trace take_back_ok=$tok take_back_busy=$tbusy lend=$tlend lost=$(grep -c LOST $t/trace)"
ok "$(t "$tok" -eq $(( $(lv taken_back) - taken00 )) -a "$tok" -gt 0)" "one mask_alloc_take_back event with err=0 per block taken back ($tok)"
ok "$(t "$tbusy" -eq $(( $(lv take_back_busy) - busy00 )))" "one mask_alloc_take_back event with err=-EBUSY per busy block ($tbusy)"
ok "$(t "$tlend" -eq $(( $(lv lends) - lends0 )) -a "$tlend" -gt 0)" "one mask_alloc_lend event per block lent ($tlend)"
ok "$(t "$(vs mask_lend)" -eq "$(lv lends)" -a "$(vs mask_take_back)" -eq "$(lv taken_back)" -a "$(vs mask_take_back_busy)" -eq "$(lv take_back_busy)")" \
	"/proc/vmstat mask_lend, mask_take_back, mask_take_back_busy count as debugfs lend does" \
	"vmstat $(vs mask_lend)/$(vs mask_take_back)/$(vs mask_take_back_busy), debugfs $(lv lends)/$(lv taken_back)/$(lv take_back_busy)"
touch /tmp/go
wait $anon
rc=$?
ok "$(t $rc -eq 0)" "the anonymous memory is intact at the end" "$(tail -n1 /tmp/anon.out)"
# the host counts the cases (ktap_relay): the status stays 0, as vm-run's
ktap_finish || :
