# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2320 # $? after an echo: the status of its write to a kernel file, what is checked
# Guest side of tests/holders/run.sh (busybox sh).  Reads the pool's holders
# listing (debugfs mask_alloc/holders) and summary around:
#   - a debugfs allocation (mask_alloc/alloc, 20 KiB below 16 MiB) and its
#     free: its call site must show 20480 bytes in 1 allocation, then go;
#   - a coherent buffer of QEMU's edu device (maskalloc_edu/hold, 12 KiB
#     below its 28-bit mask): the device must show as a holder, then go;
# and prints the "below" table and a largest_free query.
# Output: "H<k> <holders line>", "S<k> <summary line>" for k = 0..3,
# "A <allocations line>", "D <edu hold line>", "B <below line>",
# "L <largest_free>", "E <step> <status>".
d=/sys/kernel/debug/mask_alloc
e=/sys/kernel/debug/maskalloc_edu
snap() {
	sed "s/^/H$1 /" $d/holders
	sed "s/^/S$1 /" $d/summary
}
[ -r $d/holders ] || { echo "error: no $d/holders"; exit 1; }
snap 0
echo "20480 0xffffff" >$d/alloc; echo "E alloc $?"
sed 's/^/A /' $d/allocations
snap 1
if [ -e $e/hold ]; then
	echo 12288 >$e/hold; echo "E hold $?"
	sed 's/^/D /' $e/hold
else
	echo "error: no $e/hold"
fi
snap 2
echo 0 >$e/hold 2>/dev/null; echo "E unhold $?"
echo all >$d/free; echo "E free $?"
snap 3
sed 's/^/B /' $d/below
echo 0xfffffff >$d/largest_free; echo "E largest_free_set $?"
echo "L $(cat $d/largest_free)"
