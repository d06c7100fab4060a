#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-run: boot the built kernel under QEMU (TCG) with a busybox initramfs,
# run COMMAND in the guest shell, print its output, exit with its status.
#
# usage: scripts/vm-run.sh [options] -- COMMAND...
#   --append "PARAMS"     extra kernel command line parameters
#   --mem SIZE            guest memory (default 512M)
#   --smp N               guest CPUs (default 1; the default config is UP)
#   --numa N              N NUMA nodes: the memory split evenly into N
#                         memory-backend-ram objects, the CPUs in N
#                         contiguous groups, one socket per node (--smp
#                         is raised to a multiple of N)
#   --qemu-args "ARGS"    extra QEMU arguments, word-split
#   --timeout S           kill the guest after S seconds (default 600)
#   --idle-timeout S      kill the guest when neither the console nor the
#                         command printed anything for S seconds: a hang
#                         (default 600; 0: never)
#   --file HOST[:GUEST]   put a file into the initramfs (default GUEST:
#                         /vmrun/<basename>); the command runs in /vmrun
#   --disk IMG[:TYPE]     attach a raw disk image; TYPE is one of
#                         virtio      virtio-blk, iommu_platform=on (DMA API)
#                         virtio-legacy  virtio-blk without ACCESS_PLATFORM
#                         ahci | nvme | ide (PIIX, 32-bit DMA mask; at
#                         most 4 ide disks, on ide.0 and ide.1 in order)
#   --console FILE        keep the kernel console log (ttyS0) in FILE
#   --qemu-output FILE    keep QEMU's own stdout and stderr in FILE (device
#                         models such as edu print guest errors there)
#   --qemu-cmd FILE       write the QEMU command line to FILE (shell-quoted)
#   --allow-warning RE    a console "WARNING:" line matching RE is expected
#   --kernel BZIMAGE      boot another kernel (default build/obj/.../bzImage)
#   --interactive         a shell on the console instead of COMMAND
#   --show-console        copy the console to stderr while it runs (V=1
#                         does it too: to the terminal of the outermost
#                         script, see MASKALLOC_VFD in scripts/lib.sh)
#
# Exit status: COMMAND's status; 124 on timeout or a hang (the last
# console lines are printed, and where the console log is); 125 when the kernel
# panicked, oopsed, hit a BUG or an unexpected WARNING (the tail of the
# console log is printed); 126 when the guest stopped without reporting
# the status of COMMAND.
#
# Environment: VMRUN_APPEND, parameters added to every boot's command line
# (make test PROFILE=debug boots every test with the debug options);
# VMRUN_TIMEOUT_SCALE=N multiplies --timeout and --idle-timeout (a slower
# debug kernel); VMRUN_MAX_TIMEOUT=S caps both after that (make test: no
# test waits longer than that for a hang);
# VMRUN_SMP and VMRUN_NUMA are the defaults of --smp and --numa (make test
# PROFILE=distro boots everything with 2 CPUs on 2 nodes; an explicit --smp
# that is larger wins); OBJ picks the default kernel (build/obj, see
# scripts/lib.sh).
#
# A test declares a warning it provokes on purpose by printing a line
# containing "vm-run: expect-warning: <regex>" to the console (for example
# with pr_info() in a KUnit case, or `echo ... > /dev/kmsg` in the guest)
# before it warns; see scripts/ktap.py.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

append="${VMRUN_APPEND:+ $VMRUN_APPEND}" mem=512M smp=${VMRUN_SMP:-1} numa=${VMRUN_NUMA:-0} qargs="" timeout=600 idle=600 console="" qout="" qcmd="" interactive="" show=""
kernel=$OBJ/arch/x86/boot/bzImage
files=() disks=() allow=()
usage() { sed -n '3,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
	case $1 in
	--append) append+=" $2"; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) [[ $2 -gt ${VMRUN_SMP:-1} ]] && smp=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--qemu-args) qargs+=" $2"; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--idle-timeout) idle=$2; shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--disk) disks+=("$2"); shift 2 ;;
	--console) console=$2; shift 2 ;;
	--qemu-output) qout=$2; shift 2 ;;
	--qemu-cmd) qcmd=$2; shift 2 ;;
	--allow-warning) allow+=(--allow-warning "$2"); shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--interactive) interactive=1; shift ;;
	--show-console) show=1; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "vm-run: unknown option $1" >&2; usage ;;
	esac
done
[[ -n $interactive || $# -gt 0 ]] || { echo "vm-run: no COMMAND given" >&2; usage; }
[[ -f $kernel ]] || die "no kernel at $kernel (run 'make kernel')"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
[[ $idle =~ ^[0-9]+$ ]] || die "--idle-timeout wants seconds"
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "--smp wants a positive integer"
[[ $numa =~ ^[0-9]+$ ]] || die "--numa wants a number of nodes"
# NUMA nodes: the memory (in MiB) split evenly, the last node takes the
# rest; CPUs in contiguous groups
numa_args=()
if [[ $numa -gt 1 ]]; then
	case $mem in
	*[Gg]) mib=$((${mem%[Gg]} * 1024)) ;;
	*[Mm]) mib=${mem%[Mm]} ;;
	*) die "--numa wants --mem in M or G, not $mem" ;;
	esac
	# one socket per node (a socket split over two nodes makes the
	# scheduler WARN "llc-sibling ... is not on the same node")
	smp=$(((smp + numa - 1) / numa * numa))
	for ((i = 0; i < numa; i++)); do
		sz=$((mib / numa))
		[[ $i -eq $((numa - 1)) ]] && sz=$((mib - sz * (numa - 1)))
		c0=$((i * smp / numa)) c1=$(((i + 1) * smp / numa - 1))
		numa_args+=(-object "memory-backend-ram,id=m$i,size=${sz}M"
			-numa "node,nodeid=$i,cpus=$c0-$c1,memdev=m$i")
	done
fi
[[ ${VMRUN_TIMEOUT_SCALE:-1} =~ ^[1-9][0-9]*$ ]] || die "VMRUN_TIMEOUT_SCALE wants a positive integer"
timeout=$((timeout * ${VMRUN_TIMEOUT_SCALE:-1})) idle=$((idle * ${VMRUN_TIMEOUT_SCALE:-1}))
if [[ -n ${VMRUN_MAX_TIMEOUT:-} ]]; then
	[[ $VMRUN_MAX_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "VMRUN_MAX_TIMEOUT wants seconds"
	[[ $timeout -le $VMRUN_MAX_TIMEOUT ]] || timeout=$VMRUN_MAX_TIMEOUT
	[[ $idle -le $VMRUN_MAX_TIMEOUT ]] || idle=$VMRUN_MAX_TIMEOUT
fi
verbose && show=1
"$ROOT/scripts/mkinitramfs.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/vm-run.XXXXXX")
qpid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	[[ -n $qpid ]] && kill "$qpid" 2>/dev/null
	[[ -n ${wpid:-} ]] && kill "$wpid" 2>/dev/null
	[[ -n $qout && -f $work/qemu.out ]] && cp "$work/qemu.out" "$qout"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Per-run archive: the command and the extra files, appended to the base one.
spec=$work/run.spec
printf '%s\n' "$*" >"$work/cmd.sh"
echo "file /vmrun/cmd.sh $work/cmd.sh 755 0 0" >"$spec"
declare -A dirs=()
for f in "${files[@]}"; do
	host=${f%%:*} guest=${f#*:}
	[[ $f == *:* ]] || guest=/vmrun/$(basename "$host")
	[[ -f $host ]] || die "--file $host: no such file"
	d=$(dirname "$guest")
	while [[ $d != / && -z ${dirs[$d]:-} ]]; do dirs[$d]=1; d=$(dirname "$d"); done
	mode=644; [[ -x $host ]] && mode=755
	echo "file $guest $(realpath "$host") $mode 0 0" >>"$spec.files"
done
for d in $(printf '%s\n' "${!dirs[@]}" | sort); do echo "dir $d 755 0 0"; done >>"$spec"
[[ -f $spec.files ]] && cat "$spec.files" >>"$spec"
"$ROOT/scripts/mkinitramfs.sh" --spec "$spec" "$work/run.cpio.gz"
cat "$BUILD/initramfs.cpio.gz" "$work/run.cpio.gz" >"$work/initrd"

smpopt=$smp
[[ $numa -gt 1 ]] && smpopt="$smp,sockets=$numa,cores=$((smp / numa)),threads=1"
qemu=(qemu-system-x86_64 -machine "${machine:-pc}" -accel tcg -cpu max -m "$mem" -smp "$smpopt"
      -display none -no-reboot -kernel "$kernel" -initrd "$work/initrd" "${numa_args[@]}")
n=0 nide=0
for d in "${disks[@]}"; do
	img=${d%%:*} type=${d#*:}
	[[ $d == *:* ]] || type=virtio
	[[ -f $img ]] || die "--disk $img: no such file"
	id=d$n
	qemu+=(-drive "file=$img,if=none,format=raw,id=$id")
	case $type in
	virtio) qemu+=(-device "virtio-blk-pci,drive=$id,disable-legacy=on,iommu_platform=on") ;;
	virtio-legacy) qemu+=(-device "virtio-blk-pci,drive=$id") ;;
	ahci) qemu+=(-device "ahci,id=ahci$n" -device "ide-hd,drive=$id,bus=ahci$n.0") ;;
	nvme) qemu+=(-device "nvme,drive=$id,serial=vmrun$n") ;;
	ide)
		[[ $nide -lt 4 ]] || die "--disk $img: PIIX has room for 4 ide disks"
		qemu+=(-device "ide-hd,drive=$id,bus=ide.$((nide / 2)),unit=$((nide % 2))")
		nide=$((nide + 1)) ;;
	*) die "--disk $img: unknown type $type" ;;
	esac
	n=$((n + 1))
done
cmdline="console=ttyS0 panic=-1 oops=panic$append"
# shellcheck disable=SC2206
extra=($qargs)

if [[ -n $interactive ]]; then
	stage "boot: $(basename "$kernel"), -m $mem, interactive (Ctrl-A X quits QEMU)"
	exec "${qemu[@]}" -serial mon:stdio -serial null -append "$cmdline vmrun.interactive" "${extra[@]}"
fi

# The console goes straight to --console FILE, so that it can be watched
# while the guest runs (run_stage --watch, tail -f).
con=$work/console.log out=$work/out.log
if [[ -n $console ]]; then
	mkdir -p "$(dirname "$console")"
	con=$(realpath -m "$console")
fi
: >"$con"; : >"$out"
qcon=${con//,/,,}	# QEMU doubles commas in option values
if [[ -n $qcmd ]]; then
	for a in timeout -k 5 "$timeout" "${qemu[@]}" -monitor none \
		-chardev "file,id=s0,path=$qcon" -serial chardev:s0 \
		-chardev "file,id=s1,path=$out" -serial chardev:s1 \
		-append "$cmdline" "${extra[@]}"; do
		if [[ $a =~ ^[][A-Za-z0-9_./=,:@%+-]+$ ]]; then printf '%s ' "$a"; else printf "'%s' " "$a"; fi
	done >"$qcmd"
	echo >>"$qcmd"
fi
where=${console:+, console: ${con#"$ROOT"/}}
stage "boot: $(basename "$kernel"), -m $mem, smp $smp${numa_args:+, $numa NUMA nodes}${append:+, append:$append} (timeout ${timeout} s, $([[ $idle -gt 0 ]] && echo "${idle} s idle" || echo "no idle limit")$where)"
t0=$SECONDS
timeout -k 5 "$timeout" "${qemu[@]}" -monitor none \
	-chardev "file,id=s0,path=$qcon" -serial chardev:s0 \
	-chardev "file,id=s1,path=$out" -serial chardev:s1 \
	-append "$cmdline" "${extra[@]}" >"$work/qemu.out" 2>&1 &
qpid=$!
# V=1: the console on the outermost script's terminal
# shellcheck disable=SC2261 # MASKALLOC_VFD is a number: >& duplicates it, stderr stays on /dev/null
if [[ -n $show ]]; then tail -n +1 -F --pid="$qpid" "$con" 2>/dev/null >&"${MASKALLOC_VFD:-2}" & fi
tail -n +1 -F --pid="$qpid" "$out" 2>/dev/null | sed -u -e 's/\r$//' -e '/^VMRUN-EXIT: [0-9]*$/d' -e 's/VMRUN-EXIT: [0-9]*$//' &
tpid=$!
# The hang watchdog: when neither the console nor the command's output
# grew for $idle seconds, stop the guest (it has no children: read -t).
wpid=
if [[ $idle -gt 0 ]]; then
	(
		set +eu
		trap 'exit 0' TERM
		exec {s}<> <(:)
		last='' quiet=0
		while kill -0 "$qpid" 2>/dev/null; do
			read -r -t 5 -u "$s" _
			now="$(stat -c %s "$con" "$out" 2>/dev/null)"
			if [[ $now == "$last" ]]; then quiet=$((quiet + 5)); else quiet=0 last=$now; fi
			if [[ $quiet -ge $idle ]]; then
				: >"$work/hung"
				kill -TERM "$qpid" 2>/dev/null
				exit 0
			fi
		done
	) &
	wpid=$!
fi
qrc=0
wait "$qpid" || qrc=$?
qpid=""
[[ -z $wpid ]] || { kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; wpid=; } || true
wait "$tpid" 2>/dev/null || true
el=$((SECONDS - t0))

tail_console() { echo "---- last 40 console lines${console:+ (all of them: ${con#"$ROOT"/})} ----" >&2; tail -n 40 "$con" >&2; }
if [[ -f $work/hung ]]; then
	echo "vm-run: hang: no console or command output for ${idle} s, guest stopped after ${el} s" >&2
	tail_console
	exit 124
fi
if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
	echo "vm-run: timeout after ${timeout}s: the guest did not finish (a hang, or too slow)" >&2
	tail_console
	exit 124
fi
if ! problems=$(python3 "$ROOT/scripts/ktap.py" scan "${allow[@]}" "$con"); then
	echo "vm-run: kernel problem:" >&2
	printf '%s\n' "$problems" | sed -n '1,10s/^/  /p' >&2
	tail_console
	exit 125
fi
# The marker may follow output that did not end with a newline.
rc=$(sed -n 's/.*VMRUN-EXIT: \([0-9]*\).*/\1/p' "$out" | tail -n 1)
if [[ -z $rc ]]; then
	echo "vm-run: guest stopped without reporting the command's status (qemu exit $qrc)" >&2
	cat "$work/qemu.out" >&2
	tail_console
	exit 126
fi
info "boot: done in $el s (command exit $rc)"
exit "$rc"
