# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC3043 # busybox sh, dash and bash all have local
# KTAP output for the project's tests, modelled on the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh.  POSIX sh: sourced by
# the bash scripts tests/*/run on the host (". tests/ktap_helpers.sh")
# and by busybox sh in the guest (each run passes it to scripts/vm-run.sh
# with --file, next to guest.sh in /vmrun: ". ./ktap_helpers.sh").
#
# No test knows its number of cases up front, so the plan comes last
# (TAP allows a trailing plan):
#
#   TAP version 13
#   # NAME
#   ok 1 DESC
#   not ok 2 DESC # DETAIL          (more lines of DETAIL: "# " lines)
#   ok 3 DESC # SKIP REASON
#   1..3
#   # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
#   NAME: 1 passed, 1 failed, 1 skipped
#
# The last line is the one scripts/run-tests.sh used to read (", N skipped"
# only when some were skipped); scripts/ktap.py tap validates the whole.
#
#   ktap_header NAME           start the stream (and reset the counts)
#   ktap_check OK DESC [DETAIL]  one case: OK 1 passes, anything else fails
#   ktap_skip DESC REASON      one skipped case
#   ktap_diag TEXT...          "# " diagnostic lines
#   ktap_relay FILE            the KTAP output of a guest (or any other
#                              stream) into this one: its cases become cases
#                              here, renumbered, every other line a "# "
#                              line; fails when FILE's stream has no plan
#                              that matches its cases (it stopped midway)
#   ktap_finish                the plan, the Totals line and the summary
#                              line; fails on any failed case or on none
#
# The counts are in KTAP_TESTNO (cases so far), KTAP_CNT_PASS,
# KTAP_CNT_FAIL and KTAP_CNT_SKIP.
KTAP_NAME=test KTAP_TESTNO=0 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
KTAP_NL='
'

ktap_header() { # NAME
	KTAP_NAME=$1 KTAP_TESTNO=0 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
	echo "TAP version 13"
	echo "# $1"
}

ktap_diag() { # TEXT...: every line of it as a "# " line
	printf '%s\n' "$*" | sed 's/^/# /'
}

# __ktap_line RESULT DESC [DIRECTIVE]: a result line; a description is kept
# on one line, a directive's first line on it, the rest as "# " lines
__ktap_line() {
	local desc="$2" dir="${3:-}"
	case $desc in *"$KTAP_NL"*) desc=$(printf '%s' "$desc" | tr '\n' ' ') ;; esac
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	echo "$1 $KTAP_TESTNO $desc${dir:+ # ${dir%%"$KTAP_NL"*}}"
	case $dir in *"$KTAP_NL"*) ktap_diag "${dir#*"$KTAP_NL"}" ;; esac
}

ktap_check() { # OK(1: pass) DESC [DETAIL]
	if [ "$1" = 1 ]; then
		KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
		__ktap_line ok "$2"
	else
		KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
		__ktap_line "not ok" "$2" "${3:-}"
	fi
}

ktap_skip() { # DESC REASON
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
	__ktap_line ok "$1" "SKIP${2:+ $2}"
}

ktap_relay() { # FILE
	local line rest desc dir plan='' cases=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"ok "[0-9]* | "not ok "[0-9]*)
			cases=$((cases + 1))
			rest=${line#ok }
			rest=${rest#not ok }
			# the number, then the description and a directive
			case $rest in *" "*) rest=${rest#* } ;; *) rest= ;; esac
			desc=$rest dir=
			case $rest in *" # "*) desc=${rest%% # *} dir=${rest#* # } ;; esac
			case $line:$dir in
			ok*:SKIP* | ok*:skip*)
				dir=${dir#[Ss][Kk][Ii][Pp]}
				ktap_skip "$desc" "${dir# }" ;;
			ok*) ktap_check 1 "$rest" ;;
			*) ktap_check 0 "$desc" "$dir" ;;
			esac
			;;
		"1.."[0-9]*)
			plan=${line#1..}
			plan=${plan%%[!0-9]*}
			echo "# $line"
			;;
		*) echo "# $line" ;;
		esac
	done <"$1"
	[ -n "$plan" ] && [ "$plan" = "$cases" ]
}

ktap_finish() {
	echo "1..$KTAP_TESTNO"
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:0 xpass:0 skip:$KTAP_CNT_SKIP error:0"
	if [ "$KTAP_CNT_SKIP" -gt 0 ]; then
		echo "$KTAP_NAME: $KTAP_CNT_PASS passed, $KTAP_CNT_FAIL failed, $KTAP_CNT_SKIP skipped"
	else
		echo "$KTAP_NAME: $KTAP_CNT_PASS passed, $KTAP_CNT_FAIL failed"
	fi
	[ "$KTAP_CNT_FAIL" -eq 0 ] && [ "$KTAP_TESTNO" -gt 0 ]
}
