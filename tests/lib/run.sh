#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-tests of run_stage and the heartbeat (scripts/lib.sh), no kernel
# needed: exit statuses pass through, also under set -e and pipefail, a
# failing command fails its stage, output lands in the log (and on the
# terminal with V=1), the heartbeat shows the log's last line, a timeout
# stops the whole process group and says so, and no ticker or stage
# process outlives its stage.  Prints KTAP (tests/ktap_helpers.sh) and,
# last, "lib: N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header lib
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# sh SCRIPT: a script that sources lib.sh, its stderr (the progress) in
# $tmp/err, stdout in $tmp/out; prints the exit status
sh_() {
	printf '%s\n' ". '$ROOT/scripts/lib.sh'" "$1" >"$tmp/s.sh"
	env -u MASKALLOC_VFD STAGE_HEARTBEAT="${HB:-60}" V="${V_:-0}" bash "$tmp/s.sh" >"$tmp/out" 2>"$tmp/err"
	echo $?
}

rc=$(sh_ 'set -e; run_stage --log "'"$tmp"'/l" "one" sh -c "echo to-log; echo err-to-log >&2"; echo after')
check "success: exit 0, banner with the log, done line, output in the log only" \
	"$([[ $rc == 0 && $(cat "$tmp/out") == after && $(grep -c . "$tmp/err") == 2 &&
		$(head -n1 "$tmp/err") == *"==> one (log: $tmp/l)"* &&
		$(tail -n1 "$tmp/err") =~ ^\ \ \ \ one:\ done\ in\ [0-9]+\ s$ &&
		$(cat "$tmp/l") == $'to-log\nerr-to-log' ]] && echo 1)" "rc $rc, $(cat "$tmp/err")"

rc=$(sh_ 'set -euo pipefail; run_stage --log "'"$tmp"'/l" "two" sh -c "exit 3"; echo not-reached')
check "set -e: a failing stage stops the caller with its status, FAILED line names the log" \
	"$([[ $rc == 3 && ! -s $tmp/out && $(tail -n1 "$tmp/err") == "    two: FAILED after "*" s (exit 3), see $tmp/l" ]] && echo 1)" \
	"rc $rc, $(tail -n1 "$tmp/err")"

rc=$(sh_ 'set -euo pipefail; run_stage "three" false || echo "status $?"; if run_stage "x" true; then echo fine; fi')
check "a failing stage in a condition: status seen, caller goes on" \
	"$([[ $rc == 0 && $(cat "$tmp/out") == $'status 1\nfine' ]] && echo 1)" "rc $rc, $(cat "$tmp/out")"

rc=$(sh_ 'set -euo pipefail
f() { false; echo "f went on"; }
run_stage --log "'"$tmp"'/l" "four" f; echo not-reached')
check "set -e holds inside a function stage" \
	"$([[ $rc == 1 && ! -s $tmp/out && $(cat "$tmp/l") != *'went on'* ]] && echo 1)" "rc $rc"

# shellcheck disable=SC2016 # a script for sh_, expanded there
rc=$(sh_ 'r=$(run_stage --log "'"$tmp"'/l" "five" sh -c "exit 0" | wc -l); echo "lines $r"
run_stage --watch "'"$tmp"'/l" "six" sh -c "echo stdout-kept; exit 5"; echo "status $?"
echo in-stdin | run_stage "seven" cat')
check "--watch keeps stdout and the status, stdin reaches the command, progress never on stdout" \
	"$([[ $rc == 0 && $(cat "$tmp/out") == $'lines 0\nstdout-kept\nstatus 5\nin-stdin' ]] && echo 1)" "$(cat "$tmp/out")"

# shellcheck disable=SC2016 # a script for sh_, expanded there
HB=1 rc=$(sh_ 'run_stage --log "'"$tmp"'/l" "hb" sh -c "echo first; sleep 3; echo a-long-line-\$(printf %0200d 0); sleep 3"')
check "heartbeat: every STAGE_HEARTBEAT s, the last log line trimmed to 100 characters" \
	"$([[ $rc == 0 && $(grep -c '^    \.\.\. still running, [0-9]* s, ' "$tmp/err") -ge 3 &&
		$(grep -c '^    \.\.\. still running, [0-9]* s, first$' "$tmp/err") -ge 1 &&
		$(grep -m1 'a-long-line' "$tmp/err" | sed 's/.*, //' | wc -c) == 101 ]] && echo 1)" "$(cat "$tmp/err")"

V_=1 HB=1 rc=$(sh_ 'run_stage --log "'"$tmp"'/l" "verbose" sh -c "echo streamed; sleep 4; echo late"')
check "V=1: output streamed and logged; heartbeat only while the log is silent" \
	"$([[ $rc == 0 && $(grep -c '^streamed$' "$tmp/err") == 1 && $(grep -c '^late$' "$tmp/err") == 1 &&
		$(cat "$tmp/l") == $'streamed\nlate' && $(grep -c 'still running' "$tmp/err") -ge 1 &&
		$(grep -c 'still running' "$tmp/err") -le 3 ]] && echo 1)" "$(cat "$tmp/err")"

HB=1 rc=$(sh_ 'run_stage --tee --log "'"$tmp"'/l" "tee" sh -c "echo on-stdout; sleep 4; echo err >&2"')
check "--tee: output on stdout and in the log; heartbeat only while the log is silent" \
	"$([[ $rc == 0 && $(cat "$tmp/out") == $'on-stdout\nerr' && $(cat "$tmp/l") == $'on-stdout\nerr' &&
		$(grep -c 'still running' "$tmp/err") -ge 1 && $(grep -c 'still running' "$tmp/err") -le 3 ]] && echo 1)" \
	"$(cat "$tmp/out") $(cat "$tmp/err")"

rc=$(sh_ 'run_stage --log "'"$tmp"'/l" --timeout 3 "hang" sh -c "sleep 600 & echo \$! >'"$tmp"'/child; sleep 600"; echo "status $?"')
child=$(cat "$tmp/child" 2>/dev/null)
# gone: no such process, or a zombie that nobody reaped yet (the orphan's
# new parent, init or a subreaper, may be slow on a loaded machine)
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null && [[ $(ps -o stat= -p "$1" 2>/dev/null) != Z* ]]; }
for _ in $(seq 50); do alive "$child" || break; sleep 0.1; done
check "timeout: the stage fails with 124 naming the log, its children are gone" \
	"$([[ $rc == 0 && $(cat "$tmp/out") == 'status 124' && -n $child ]] && ! alive "$child" &&
		grep -q "    hang: FAILED after [0-9]* s (timeout: no end after 3 s, a hang?), see $tmp/l" "$tmp/err" && echo 1)" \
	"$(cat "$tmp/out") $(cat "$tmp/err")"

# TERM to the caller: the stage and the ticker are stopped, the caller's
# trap runs
printf '%s\n' ". '$ROOT/scripts/lib.sh'" "trap 'echo caller-trap; exit 9' TERM" \
	"run_stage --log '$tmp/l' 'term' sh -c 'echo \$\$ >$tmp/stagepid; sleep 600'" >"$tmp/s.sh"
bash "$tmp/s.sh" >"$tmp/out" 2>"$tmp/err" &
caller=$!
for _ in $(seq 50); do [[ -s $tmp/stagepid ]] && break; sleep 0.1; done
sleep 0.5
kill -TERM "$caller"; wait "$caller"; rc=$?
spid=$(cat "$tmp/stagepid")
sleep 0.5
left=$(ps -o pid=,args= --ppid "$caller" 2>/dev/null; ps -o pid= -p "$spid" 2>/dev/null)
check "TERM: caller's trap runs (exit 9), the stage and the ticker are gone" \
	"$([[ $rc == 9 && $(cat "$tmp/out") == caller-trap && -z $left ]] && echo 1)" "rc $rc, left: $left"

# no ticker outlives a stage: a finished script leaves no process behind
rc=$(sh_ 'echo $$ >'"$tmp"'/pid; run_stage --log "'"$tmp"'/l" "quick" true; run_stage "fail" false; exit 0')
sleep 0.5
left=$(ps -e -o pid=,ppid=,args= | awk -v p="$(cat "$tmp/pid")" '$2 == p')
check "no process left behind by finished stages" "$([[ $rc == 0 && -z $left ]] && echo 1)" "$left"

ktap_finish
