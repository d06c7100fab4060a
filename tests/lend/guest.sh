# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/lend/run (busybox sh, in /vmrun next to ./filler).
# The guest has 2 GiB and "maskzone=512M,force maskzone_lend=on": every mask
# allocation comes from the pool, which lends what it does not need.
#
# Prints "M <label> key=value..." figures, "A ..." lines of ./filler alloc,
# and "ok - name" / "not ok - name (detail)" for each check.
d=/sys/kernel/debug/mask_alloc
echo 1 >/proc/sys/kernel/printk
mi() { sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo; }
lv() { sed -n "s/^$1 //p" $d/lend; }
snap() {
	echo "M $1 pool_kb=$(mi MaskPoolTotal) free_kb=$(mi MaskPoolFree) lent_kb=$(mi MaskPoolLent) cma_kb=$(mi CmaTotal) cmafree_kb=$(mi CmaFree) avail_kb=$(mi MemAvailable) taken=$(lv taken_back) busy=$(lv take_back_busy) max_us=$(lv take_back_max_us)"
}
ok() { if [ "$1" = 1 ]; then echo "ok - $2"; else echo "not ok - $2${3:+ ($3)}"; fi; }
t() { [ "$@" ] && echo 1 || echo 0; }

snap boot
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

# Memory offline of the block with the highest lent pageblock is refused.
bs=$(cat /sys/devices/system/memory/block_size_bytes)
top=$(sed -n 's/^highest_addr: //p' $d/summary)
blk=$(( (top - 0x100000) / 0x$bs ))
if [ -e /sys/devices/system/memory/memory$blk/state ]; then
	lb=$(mi MaskPoolLent)
	echo offline >/sys/devices/system/memory/memory$blk/state 2>/dev/null
	rc=$?
	ok "$(t $rc -ne 0 -a "$(cat /sys/devices/system/memory/memory$blk/state)" = online)" "memory$blk (lent pool memory) refuses to go offline" "status $rc"
	ok "$(t "$(mi MaskPoolLent)" -eq "$lb")" "the refused offline left the lent memory alone"
else
	ok 0 "memory$blk exists (block size 0x$bs, pool top $top)"
fi

# The off switch takes everything back once the page cache is gone.
rm -f /mnt/fill
echo 0 >/proc/sys/vm/mask_alloc_lend
ok "$(t $? -eq 0)" "vm.mask_alloc_lend=0 is accepted"
snap off
ok "$(t "$(mi MaskPoolLent)" -eq 0 -a "$(mi CmaTotal)" -eq 0)" "switched off, nothing stays lent" "lent $(mi MaskPoolLent) KiB"
ok "$(t "$(mi MaskPoolFree)" -eq "$pool")" "the whole pool is free again ($(mi MaskPoolFree) of $pool KiB)"
echo 2 >/proc/sys/vm/mask_alloc_lend 2>/dev/null
ok "$(t $? -ne 0 -a "$(cat /proc/sys/vm/mask_alloc_lend)" = 0)" "vm.mask_alloc_lend refuses 2"
echo 1 >/proc/sys/vm/mask_alloc_lend
snap on-again
ok "$(t "$(mi MaskPoolLent)" -gt 0)" "switched on again, the pool lends again"
touch /tmp/go
wait $anon
rc=$?
ok "$(t $rc -eq 0)" "the anonymous memory is intact at the end" "$(tail -n1 /tmp/anon.out)"
