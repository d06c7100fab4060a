# SPDX-License-Identifier: GPL-2.0
# Common settings for the maskalloc build scripts.  Source, do not run.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
TREE=${TREE:-$BUILD/linux}              # extracted 6.12 tree, a git repository
OBJ=${OBJ:-$BUILD/obj}         # out-of-tree kbuild output (O=)
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# shellcheck disable=SC2034 # used by the scripts that source this
PATCHES=$ROOT/patches          # the patch series (git format-patch) + series
JOBS=${JOBS:-$(nproc)}

# Print a stage banner on stderr so it never mixes with command output.
stage() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# --- stages: a banner, a log, a heartbeat, a duration --------------------------
# V=1 (make V=1): a stage streams its output to the terminal as well as to
# its log, kbuild prints its commands, vm-run streams the guest console.
verbose() { [[ ${V:-0} =~ ^[1-9][0-9]*$ ]]; }
# Progress lines go to the stderr the script started with, fd $PFD, so that
# a redirection around one command (run_stage ... 2>file) does not hide them.
exec {PFD}>&2
# With V=1, the outermost script's stderr is MASKALLOC_VFD in every script
# it runs: vm-run streams the console there even when a test keeps vm-run's
# stderr in a file.
if verbose && ! { [[ ${MASKALLOC_VFD:-} =~ ^[0-9]+$ ]] && { true >&"$MASKALLOC_VFD"; } 2>/dev/null; }; then
	export MASKALLOC_VFD=$PFD
fi
_ago() { if (($1 >= 120)); then echo "$(($1 / 60)) min"; else echo "$1 s"; fi; }

# heartbeat_start FILE [LIMIT PGID [SILENT]]: until heartbeat_stop, every
# $STAGE_HEARTBEAT seconds (60) print "    ... still running, N min, <the
# last line of FILE>" on fd $PFD (with SILENT=1, as when the output is
# streamed, only when FILE did not grow meanwhile).  With LIMIT, after
# LIMIT seconds send TERM to process group
# PGID, and KILL 30 s later.  The ticker is a subshell without children (it
# sleeps in read -t) that also ends when the shell that started it is gone.
heartbeat_start() {
	local file=$1 limit=${2:-0} pgid=${3:-} silent=${4:-} parent=$BASHPID
	(
		set +eu
		trap 'exit 0' TERM
		trap - INT EXIT
		exec {s}<> <(:)
		every=${STAGE_HEARTBEAT:-60} t0=$SECONDS next=${STAGE_HEARTBEAT:-60} size=-1 killed=0
		while kill -0 "$parent" 2>/dev/null; do
			read -r -t "$((every < 5 ? every : 5))" -u "$s" _
			el=$((SECONDS - t0))
			if [[ $limit -gt 0 && -n $pgid && $el -ge $limit ]]; then
				if [[ $killed == 0 ]]; then
					printf '    ... still running after %s s, the limit: stopping it (timeout)\n' "$limit" >&"$PFD"
					kill -TERM -- "-$pgid" 2>/dev/null; killed=$el
				elif [[ $el -ge $((killed + 30)) ]]; then
					kill -KILL -- "-$pgid" 2>/dev/null
				fi
			fi
			[[ $el -ge $next ]] || continue
			next=$((next + every))
			now=$(stat -c %s "$file" 2>/dev/null)
			if [[ -n $silent && $now != "$size" ]]; then size=$now; continue; fi
			size=$now last=
			[[ -n $file ]] && last=$(tail -n 1 "$file" 2>/dev/null | tr -d '\r' |
				sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e 's/^[[:space:]]*//' | cut -c 1-100)
			printf '    ... still running, %s%s\n' "$(_ago "$el")" "${last:+, $last}" >&"$PFD"
		done
	) &
	HEARTBEAT_PID=$!
}
heartbeat_stop() {
	[[ -n ${HEARTBEAT_PID:-} ]] || return 0
	kill "$HEARTBEAT_PID" 2>/dev/null || true
	wait "$HEARTBEAT_PID" 2>/dev/null || true
	HEARTBEAT_PID=
}

# run_stage [--log FILE | --watch FILE] [--tee] [--timeout S] WHAT COMMAND...
# Run COMMAND (a program or a shell function) as a stage: print
# "==> WHAT (log: FILE)" when it starts, a heartbeat every minute while it
# runs (see heartbeat_start) and "    WHAT: done in N s" or "    WHAT:
# FAILED after N s (...), see FILE" when it ends, all on fd $PFD; return
# COMMAND's exit status.
#   --log FILE    COMMAND's stdout and stderr go to FILE (truncated first);
#                 with V=1 also to fd $PFD as they come
#   --tee         with --log: also to run_stage's stdout as they come
#   --watch FILE  COMMAND writes FILE itself (a console log); its stdout and
#                 stderr stay where the caller put them
#   --timeout S   after S seconds COMMAND's process group gets TERM (KILL
#                 30 s later): a hang fails the stage, exit status 124
# COMMAND runs in the background in a process group of its own (killed on
# INT and TERM, and at the timeout) with the caller's stdin.  set -e holds
# inside a function COMMAND only when run_stage itself is not called in a
# condition (if, ||, &&): such functions should check their steps.
run_stage() {
	local log='' watch='' tee='' limit=0 what file rc=0 t0=$SECONDS el short to=1
	while [[ $# -gt 0 ]]; do
		case $1 in
		--log) log=$2; shift 2 ;;
		--watch) watch=$2; shift 2 ;;
		--tee) tee=1; shift ;;
		--timeout) limit=$2; shift 2 ;;
		*) break ;;
		esac
	done
	what=$1 file=${log:-$watch}
	shift
	verbose && [[ -z $tee ]] && tee=1 to=$PFD
	printf '\033[1m==> %s\033[0m\n' "$what${file:+ (log: ${file#"$ROOT"/})}" >&"$PFD"
	if [[ -n $log ]]; then mkdir -p "$(dirname "$log")" && : >"$log" || return 1; fi
	_stage_traps=$(trap -p INT TERM)
	trap '_stage_abort INT' INT
	trap '_stage_abort TERM' TERM
	set -m	# a process group of its own, to stop all of it
	if [[ -z $log ]]; then
		"$@" <&0 &
	elif [[ -n $tee ]]; then
		{ "$@" 2>&1 | tee -a "$log" >&"$to"; exit "${PIPESTATUS[0]}"; } <&0 &
	else
		"$@" >>"$log" 2>&1 <&0 &
	fi
	STAGE_PID=$!
	set +m
	heartbeat_start "$file" "$limit" "$STAGE_PID" "$tee"
	wait "$STAGE_PID" || rc=$?
	heartbeat_stop
	trap - INT TERM
	eval "$_stage_traps"
	el=$((SECONDS - t0)) short=${what%% (*}
	if [[ $rc -eq 0 ]]; then
		printf '    %s: done in %d s\n' "$short" "$el" >&"$PFD"
	elif [[ $limit -gt 0 && $el -ge $limit ]]; then
		printf '    %s: FAILED after %d s (timeout: no end after %d s, a hang?)%s\n' \
			"$short" "$el" "$limit" "${file:+, see ${file#"$ROOT"/}}" >&"$PFD"
		rc=124
	else
		printf '    %s: FAILED after %d s (exit %d)%s\n' "$short" "$el" "$rc" \
			"${file:+, see ${file#"$ROOT"/}}" >&"$PFD"
	fi
	return "$rc"
}
# INT or TERM while a stage runs: stop the stage and the ticker, then let
# the caller's own handling of the signal (or the default) take over.
_stage_abort() {
	heartbeat_stop
	kill -s "$1" -- "-$STAGE_PID" 2>/dev/null || true
	wait "$STAGE_PID" 2>/dev/null || true
	trap - INT TERM
	eval "$_stage_traps"
	kill -s "$1" "$BASHPID"
}

# The fragments every test kernel merges on top of tinyconfig, in order.
# shellcheck disable=SC2034 # used by the scripts that source this
TEST_FRAGMENTS="base maskalloc kunit edu iommu"

# kmake ARGS...: make in the kernel tree, out of tree in $OBJ, with ccache.
# KARCH (default x86_64) and CROSS_COMPILE pick another architecture, KCC
# another compiler (clang, with LLVM=1 among ARGS).
kmake() {
	local cc="${KCC:-${CROSS_COMPILE:-}gcc}" hostcc="gcc"
	if command -v ccache >/dev/null; then cc="ccache $cc"; hostcc="ccache gcc"; fi
	# Depend mode: a miss runs no preprocessor pass of ccache's own (the
	# kernel's -Wp,-MMD lists the headers); a cold build costs 22% less CPU
	# than with ccache's default, within 5% of no ccache (mm/, 2026-12).
	CCACHE_DEPEND=1 CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros \
	KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-2024-11-17}" \
	KBUILD_BUILD_USER=maskalloc KBUILD_BUILD_HOST=build \
	make -C "$TREE" O="$OBJ" ARCH="${KARCH:-x86_64}" ${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} \
		CC="$cc" HOSTCC="$hostcc" -j"$JOBS" "$@"
}
