#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, part "dma-map": streaming DMA map+unmap cost with dmatlb on
# against dmatlb off (stock swiotlb), side by side in one run, with
# alternating boots of the same kernel.  Three sections:
#
#   nobounce  no swiotlb=force, 64-bit mask: nothing bounces, so dmatlb
#             must cost nothing (target: on/off <= 1.02).  Timed with
#             dma_map_benchmark (steps of 0.1 us) and with the ns
#             instrument /sys/kernel/debug/mask_alloc/dma_bench
#             (mm/mask_alloc/bench.c: many map+unmap pairs timed as a
#             whole in the kernel), which also runs on a third kernel built
#             without the option, build/obj-bench-nodmatlb
#             (configs/bench-nodmatlb.config): on/off and on/nodmatlb.
#   force     swiotlb=force, 32-bit mask: every map bounces (target:
#             on/off <= 1.00).
#   low       the same boots, a 28-bit mask (BENCH_LOW_BITS): stock
#             swiotlb fails every map (recorded as "fails"), dmatlb must map
#             with the latencies of the 32-bit rows.
#
# Builds build/obj-bench (configs/bench.config on top of the test
# configuration: SMP, the benchmark driver, no DMA-API debugging), and for
# the nobounce section build/obj-bench-nodmatlb, and the static userspace
# tool from the prepared tree.  Boots with QEMU's pci-testdev, binds the
# benchmark driver to it (driver_override) and runs
# scripts/bench/dma-map/guest.sh.  The boots of a section alternate between
# the modes, BENCH_PAIRS times (off on [nodmatlb] off on ...), so that a
# change in the host's load hits every mode alike.  scripts/bench/dma-map/
# report.py prints one table, with ratios and PASS/FAIL against the
# targets, writes build/bench/dma-map.json and draws build/bench/dma-map.png
# from it (gnuplot; report.py --replot build/bench/dma-map.json redraws it).
# A missed target is a FAIL row, not an error; a broken boot or tool is.
#
# Variables (defaults):
#   BENCH_SECTIONS ("nobounce force"; "low" rides on the force boots)
#   BENCH_SECONDS (5)  BENCH_REPS (2)  BENCH_PAIRS (2) seconds per
#       dma_map_benchmark run, rounds per boot, boots per mode
#   BENCH_NB_GRANULES ("1 16") BENCH_NB_THREADS ("1 2") BENCH_NB_SMP (2)
#   BENCH_NB_PAIRS (BENCH_PAIRS+1) nobounce boots per mode
#   BENCH_NB_MODES ("BENCH_MODES nodm") nobounce boot order; without
#       nodm the kernel without the option is neither built nor booted
#   BENCH_KNOB_ROUNDS (9) BENCH_KNOB_PAIRS (200000) the ns instrument:
#       rounds per nobounce boot, map+unmap pairs per thread and round
#   BENCH_GRANULES ("1 4 16") BENCH_THREADS ("1 2 4") BENCH_SMP (4)
#   BENCH_BITS (32) BENCH_LOW_BITS (28; empty: no low rows)
#   BENCH_LOW_GRANULES, BENCH_LOW_THREADS (those of force)
#   BENCH_DIR (0 bidirectional, 1 to device, 2 from device) BENCH_MEM (1G)
#   BENCH_MODES ("off on": boot order)
#   BENCH_ON_APPEND ("dmatlb=on": parameters of the dmatlb column;
#       "dmatlb=off" measures stock twice, to see the noise)
#   BENCH_OFF_APPEND ("dmatlb=off": parameters of the stock column)
#   BENCH_OBJ (build/obj-bench) the kernel of both columns, built here
#   BENCH_OBJ_OFF (BENCH_OBJ) an already built kernel for the "off"
#       column instead: a before/after of two kernels (scripts/bench/
#       dma-map/ab sets it, with dmatlb=on in both columns)
#   BENCH_TAG (dma-map) the prefix of the output files: build/bench/
#       TAG-*.{out,err,console}, TAG.json and TAG.png
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"

secs=${BENCH_SECONDS:-5} reps=${BENCH_REPS:-2} pairs=${BENCH_PAIRS:-2}
sections=${BENCH_SECTIONS:-nobounce force}
nb_granules=${BENCH_NB_GRANULES:-1 16} nb_threads=${BENCH_NB_THREADS:-1 2}
nb_smp=${BENCH_NB_SMP:-2} nb_pairs=${BENCH_NB_PAIRS:-$((pairs + 1))}
knob_rounds=${BENCH_KNOB_ROUNDS:-9} knob_pairs=${BENCH_KNOB_PAIRS:-200000}
granules=${BENCH_GRANULES:-1 4 16} threads=${BENCH_THREADS:-1 2 4}
smp=${BENCH_SMP:-4} bits=${BENCH_BITS:-32} low_bits=${BENCH_LOW_BITS-28}
low_granules=${BENCH_LOW_GRANULES:-$granules}
low_threads=${BENCH_LOW_THREADS:-$threads}
dir=${BENCH_DIR:-0} mem=${BENCH_MEM:-1G}
modes=${BENCH_MODES:-off on}
tag=${BENCH_TAG:-dma-map}
declare -A params=([off]="${BENCH_OFF_APPEND:-dmatlb=off}" [on]="${BENCH_ON_APPEND:-dmatlb=on}" [nodm]="")
nb_modes=${BENCH_NB_MODES:-$modes nodm}
for m in $modes; do
	[[ $m == off || $m == on ]] || die "BENCH_MODES: unknown mode $m (off, on)"
done
for m in $nb_modes; do
	[[ -v "params[$m]" ]] || die "BENCH_NB_MODES: unknown mode $m (off, on, nodm)"
done
for s in $sections; do
	[[ $s == nobounce || $s == force || $s == low ]] ||
		die "BENCH_SECTIONS: unknown section $s (nobounce, force, low)"
done
want() { [[ " $sections " == *" $1 "* ]]; }
if want low && ! want force; then
	granules='' threads=''	# the low rows alone, on force boots
fi
[[ -n $low_bits ]] || low_granules=
out=$BUILD/bench
mkdir -p "$out"
start=$(date +%s)

# build OBJ EXTRA_FRAGMENTS: configure and build one kernel
build() {
	local obj=$1 frags=$2 s
	s=$(date +%s)
	stage "bench dma-map: kernel ${obj#"$ROOT"/} (${frags})"
	OBJ=$obj EXTRA_CONFIG="$frags ${EXTRA_CONFIG:-}" "$ROOT/scripts/configure.sh" ||
		die "configure of ${obj#"$ROOT"/} failed"
	OBJ=$obj "$ROOT/scripts/build-kernel.sh" || die "kernel build of ${obj#"$ROOT"/} failed"
	info "${obj#"$ROOT"/}: ready in $(( $(date +%s) - s )) s"
}
"$ROOT/scripts/ensure-deps.sh" gnuplot-nox:gnuplot || die "ensure-deps failed"
"$ROOT/scripts/prepare-tree.sh" || die "prepare-tree failed"
OBJ_ON=${BENCH_OBJ:-$BUILD/obj-bench}
OBJ_NODM=${BENCH_OBJ_NODMATLB:-$BUILD/obj-bench-nodmatlb}
OBJ_OFF=${BENCH_OBJ_OFF:-$OBJ_ON}
build "$OBJ_ON" configs/bench.config
if [[ $OBJ_OFF != "$OBJ_ON" ]]; then
	[[ -f $OBJ_OFF/arch/x86/boot/bzImage ]] || die "BENCH_OBJ_OFF=$OBJ_OFF: no bzImage"
	grep -q '^CONFIG_DMA_MAP_BENCHMARK=y' "$OBJ_OFF/.config" ||
		die "BENCH_OBJ_OFF=$OBJ_OFF: not built with configs/bench.config"
fi
if want nobounce && [[ " $nb_modes " == *" nodm "* ]]; then
	build "$OBJ_NODM" "configs/bench.config configs/bench-nodmatlb.config"
	grep -q '^CONFIG_SWIOTLB_MASK_ALLOC=y' "$OBJ_NODM/.config" &&
		die "${OBJ_NODM#"$ROOT"/} still has CONFIG_SWIOTLB_MASK_ALLOC"
fi
grep -q '^CONFIG_SWIOTLB_MASK_ALLOC=y' "$OBJ_ON/.config" ||
	die "${OBJ_ON#"$ROOT"/} has no CONFIG_SWIOTLB_MASK_ALLOC: nothing to compare"

# The tool includes <linux/map_benchmark.h>, which 6.12 keeps in the
# kernel's include/linux (not uapi).  -idirafter finds it there while
# <linux/types.h> still comes from the host's uapi headers.
tool=$out/dma_map_benchmark
src=$TREE/tools/testing/selftests/dma/dma_map_benchmark.c
hdr=$TREE/include/linux/map_benchmark.h
if [[ ! -x $tool || $src -nt $tool || $hdr -nt $tool ]]; then
	info "building ${tool#"$ROOT"/} (static)"
	gcc -static -O2 -Wall -idirafter "$TREE/include" -o "$tool" "$src" ||
		die "cannot build $src"
fi

# rows BITS "GRANULES" "THREADS": BITS:GRANULE:THREADS words
rows() {
	local g t
	for g in $2; do for t in $3; do printf '%s:%s:%s ' "$1" "$g" "$t"; done; done
}
nb_rows=$(rows 64 "$nb_granules" "$nb_threads")
knob_rows=$(for g in $nb_granules; do for t in $nb_threads; do
	printf '%s:%s ' $((g * 4096)) "$t"; done; done)
f_rows="$(rows "$bits" "$granules" "$threads")"
[[ -n $low_bits ]] && f_rows+="$(rows "$low_bits" "$low_granules" "$low_threads")"
count() { wc -w <<<"$1"; }

# boot SECTION MODE N SMP APPEND GUEST_ARGS...: one boot, output in
# build/bench/TAG-SECTION-MODE-N.{out,err,console}
results=()
boot() {
	local section=$1 mode=$2 n=$3 cpus=$4 append=$5 name kernel rc s
	shift 5
	name=$tag-$section-$mode-$n
	kernel=$OBJ_ON/arch/x86/boot/bzImage
	[[ $mode == off ]] && kernel=$OBJ_OFF/arch/x86/boot/bzImage
	[[ $mode == nodm ]] && kernel=$OBJ_NODM/arch/x86/boot/bzImage
	s=$(date +%s)
	# Stock swiotlb warns once when a bounce slot lies above a 28-bit mask.
	"$ROOT/scripts/vm-run.sh" --kernel "$kernel" --mem "$mem" --smp "$cpus" \
		--timeout "$timeout" --allow-warning 'kernel/dma/swiotlb\.c' \
		--append "kunit.enable=0 tsc=reliable $append" \
		--qemu-args "-device pci-testdev" --console "$out/$name.console" \
		--file "$tool" --file "$here/guest.sh" -- sh guest.sh "$@" \
		>"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	if [[ $rc -ne 0 ]] || ! grep -q '^done: ok' "$out/$name.out"; then
		tail -30 "$out/$name.out" "$out/$name.err" >&2
		die "boot $name failed (vm-run exit $rc; ${out#"$ROOT"/}/$name.*)"
	fi
	# why maps failed, from the kernel log, for the record
	echo "console_map_failures: $(grep -c 'dma_map_single failed' "$out/$name.console")" >>"$out/$name.out"
	echo "console_swiotlb_overflow: $(grep -c 'swiotlb addr .* overflow' "$out/$name.console")" >>"$out/$name.out"
	info "$name: $(( $(date +%s) - s )) s"
	results+=("$section:$mode=$out/$name.out")
}

rm -f "$out/$tag"-*
if want nobounce; then
	t_run=$(( $(count "$nb_rows") * reps * (secs + 2) + $(count "$knob_rows") * knob_rounds * 5 ))
	timeout=$(( t_run * 3 + 300 ))
	for n in $(seq "$nb_pairs"); do
		for mode in $nb_modes; do
			stage "bench dma-map: nobounce boot $n/$nb_pairs, ${mode/nodm/kernel without dmatlb} (${params[$mode]:-no option}), -smp $nb_smp: $(count "$nb_rows") rows x $reps x ${secs}s, ns instrument $(count "$knob_rows") rows x $knob_rounds x $knob_pairs pairs"
			boot nobounce "$mode" "$n" "$nb_smp" "${params[$mode]}" \
				"secs=$secs" "reps=$reps" "dir=$dir" "'rows=$nb_rows'" \
				"knob_rounds=$knob_rounds" "knob_pairs=$knob_pairs" \
				"'knob_rows=$knob_rows'"
		done
	done
fi
if [[ -n ${f_rows// /} ]] && { want force || want low; }; then
	t_run=$(( $(count "$f_rows") * reps * (secs + 2) ))
	timeout=$(( t_run * 3 + 300 ))
	for n in $(seq "$pairs"); do
		for mode in $modes; do
			stage "bench dma-map: swiotlb=force boot $n/$pairs, ${params[$mode]}, -smp $smp: $(count "$f_rows") rows x $reps x ${secs}s (~$(( t_run / 60 + 1 )) min)"
			boot force "$mode" "$n" "$smp" "swiotlb=force ${params[$mode]}" \
				"secs=$secs" "reps=$reps" "dir=$dir" "'rows=$f_rows'"
		done
	done
fi
[[ ${#results[@]} -gt 0 ]] || die "nothing to run (BENCH_SECTIONS=$sections)"

python3 "$here/report.py" --json "$out/$tag.json" \
	--seconds "$secs" --reps "$reps" --knob-rounds "$knob_rounds" \
	--knob-pairs "$knob_pairs" --dir "$dir" --bits "$bits" \
	--low-bits "${low_bits:-0}" --mem "$mem" --smp "$smp" --nb-smp "$nb_smp" \
	--elapsed $(( $(date +%s) - start )) \
	--loadavg "$(cut -d' ' -f1-3 /proc/loadavg)" \
	--kernel "$(cat "$OBJ_ON/include/config/kernel.release" 2>/dev/null)" \
	--tree "$(git -C "$TREE" log -1 --format='%h %s' 2>/dev/null)${BENCH_OBJ_OFF:+; column off: ${OBJ_OFF#"$ROOT"/}}" \
	"${results[@]}" || die "report.py failed"
