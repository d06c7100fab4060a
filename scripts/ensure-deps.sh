#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install, through apt, whatever the build and the tests need and is missing.
# Does nothing (and needs no network) when everything is present.
# Arguments add more package:probe pairs (e.g. a benchmark's plotting tool).
# The callers that pass extras, installed only when they run: the harness
# under make test (clang-14, libclang-rt-14-dev: libFuzzer and TSan, via
# ENSURE_DEPS), make check (python3-ply, python3-git, sparse; with
# ARCHES=1 gcc-aarch64-linux-gnu; shellcheck and pyflakes3 for its lint
# parts) and make bench's parts (gnuplot-nox for their plots; alloc also
# valgrind).  Uses sudo when not run as root.
#
# Quiet: apt-get's output goes to build/deps.log (appended, a "===" line
# before each run), and one line on stderr says what was installed, how
# many packages that took with their dependencies, and how long; a
# heartbeat every minute while apt runs.  On a failure, the end of this
# run's log and apt-get's exit status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# package:probe  (probe = a file or command that shows the package is there)
want=(
	linux-source-6.12:/usr/src/linux-source-6.12.tar.xz
	linux-config-6.12:/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
	qemu-system-x86:qemu-system-x86_64
	busybox-static:/bin/busybox
	cpio:cpio
	ccache:ccache
	build-essential:gcc
	make:make
	bc:bc
	bison:bison
	flex:flex
	libelf-dev:/usr/include/libelf.h
	libssl-dev:/usr/include/openssl/ssl.h
	python3:python3
	perl:perl
	xz-utils:xz
	git:git
	kmod:depmod
	rsync:rsync
	"$@"
)
missing=()
for w in "${want[@]}"; do
	pkg=${w%%:*} probe=${w#*:}
	if [[ $probe == /* ]]; then [[ -e $probe ]] && continue
	else command -v "$probe" >/dev/null && continue; fi
	missing+=("$pkg")
done
# busybox-static: make sure the busybox we find is really static.
if [[ -e /bin/busybox ]] && command -v file >/dev/null && ! file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
	dpkg -s busybox-static >/dev/null 2>&1 || missing+=(busybox-static)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

[[ $(id -u) -eq 0 ]] || SUDO=sudo
log=$BUILD/deps.log
mkdir -p "$BUILD"
start=1	# the first line of this run in the log
[[ -f $log ]] && start=$(($(wc -l <"$log") + 1))
echo "=== $(date '+%F %T') ensure-deps: ${missing[*]}" >>"$log"
aptget() { ${SUDO:-} env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }
t0=$SECONDS rc=0
heartbeat_start "$log"
{ aptget update -q && aptget install -y -q --no-install-recommends "${missing[@]}"; } >>"$log" 2>&1 || rc=$?
heartbeat_stop
if [[ $rc -ne 0 ]]; then
	printf 'deps: installing %s FAILED after %d s (apt-get exit %d); the end of %s:\n' \
		"${missing[*]}" "$((SECONDS - t0))" "$rc" "${log#"$ROOT"/}" >&2
	tail -n +"$start" "$log" | tail -n 25 | sed 's/^/    /' >&2
	exit "$rc"
fi
n=$(tail -n +"$start" "$log" | grep -c '^Setting up ' || true)
printf 'deps: installed %s (%d package%s with their dependencies) in %d s (log: %s)\n' \
	"${missing[*]}" "$n" "$([[ $n == 1 ]] || echo s)" "$((SECONDS - t0))" "${log#"$ROOT"/}" >&2
