#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure build/obj: `make ARCH=x86_64 tinyconfig` + configs/*.config
# (+ EXTRA_CONFIG fragments), merged with scripts/kconfig/merge_config.sh,
# then olddefconfig.  Fails, naming them, if symbols a fragment asks for did
# not survive.
#
# KCONFIG_BASE=distro (the distro profile) starts from Debian's amd64
# configuration instead (linux-config-6.12, config.amd64_none_amd64.xz):
# `make localyesconfig` with LSMOD=configs/distro.lsmod first drops every
# module the guest does not need and builds the rest in, then the same
# fragments plus configs/distro.config are merged.  It also fails, naming
# them, if an option of configs/distro-keep.list (Debian's memory
# management, DMA, IOMMU, preemption, SMP and NUMA options) was lost.  build/obj/.config is only rewritten when it really changes,
# so an unchanged configuration never triggers a rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frags=()
for f in $TEST_FRAGMENTS; do frags+=("$ROOT/configs/$f.config"); done
base=${KCONFIG_BASE:-tinyconfig}
inputs=()
case $base in
tinyconfig) ;;
distro)
	debconf=${DISTRO_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
	lsmod=$ROOT/configs/distro.lsmod keep=$ROOT/configs/distro-keep.list
	[[ -r $debconf ]] || die "$debconf missing (run scripts/ensure-deps.sh: package linux-config-6.12)"
	frags+=("$ROOT/configs/distro.config")
	inputs=("$debconf" "$lsmod" "$keep")
	;;
*) die "KCONFIG_BASE=$base: want tinyconfig or distro" ;;
esac
for f in ${EXTRA_CONFIG:-}; do
	[[ $f = /* ]] || f=$ROOT/$f
	[[ -f $f ]] || die "EXTRA_CONFIG fragment $f not found"
	frags+=("$f")
done
# A fragment may build on one of the kernel's own ("# upstream-base:
# kernel/configs/debug.config"): that one is merged first, right after the
# base configuration, and is not checked symbol by symbol (it names options
# of every architecture and configuration); the fragment that names it
# overrides and checks what matters.  How many of its symbols olddefconfig
# dropped goes to the configure log.
upstream=()
while read -r u; do
	[[ -f $TREE/$u ]] || die "upstream-base $u (named in a fragment): no such file in ${TREE#"$ROOT"/}"
	upstream+=("$TREE/$u")
done < <(sed -n 's/^# upstream-base: *\([^ ]*\).*/\1/p' "${frags[@]}" | awk '!seen[$0]++')

head=$(git -C "$TREE" rev-parse HEAD)
want=$( { echo "$head $base"; cat "${upstream[@]}" "${frags[@]}" "${inputs[@]}"; sha1sum <"$0"; } | sha1sum | cut -d' ' -f1)
if [[ -f $OBJ/.config && $(cat "$OBJ/.config.stamp" 2>/dev/null) == "$want" ]]; then
	info "config up to date"
	exit 0
fi

tmp=$OBJ.cfgtmp
mkdir -p "$tmp" "$OBJ"
# the configuration in $tmp, every step's output in the stage log
make_config() {
	if [[ $base == distro ]]; then
		# shellcheck disable=SC2015 # the echo runs when any step fails, as meant
		xz -dc "$debconf" >"$tmp/.config" &&
		OBJ=$tmp kmake -s olddefconfig &&
		# only the modules the guest needs, built in (the guest has no modules)
		OBJ=$tmp kmake -s LSMOD="$lsmod" localyesconfig || { echo "error: localyesconfig failed"; return 1; }
	else
		OBJ=$tmp kmake -s tinyconfig || return 1
	fi
	(cd "$tmp" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/.config" "${upstream[@]}" "${frags[@]}") ||
		{ echo "error: merge_config.sh failed"; return 1; }
	OBJ=$tmp kmake -s olddefconfig
}
log=$OBJ.configure.log
if ! run_stage --log "$log" "configure: $base + ${frags[*]##*/}" make_config; then
	tail -n 30 "$log" >&2
	die "configure failed (full log: ${log#"$ROOT"/})"
fi

# Every fragment symbol must have survived olddefconfig.  When fragments
# disagree the later one wins, as in merge_config.sh.
declare -A last=()
order=()
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= || $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
		sym=${BASH_REMATCH[1]}
		[[ -n ${last[$sym]:-} ]] || order+=("$sym")
		last[$sym]=$line
	fi
done < <(cat "${frags[@]}")
lost=()
for sym in "${order[@]}"; do
	line=${last[$sym]}
	if [[ $line == CONFIG_* ]]; then
		grep -qxF -- "$line" "$tmp/.config" ||
			lost+=("$sym (wanted ${line#*=}, got $(grep -E "^(# )?${sym}[= ]" "$tmp/.config" || echo 'absent'))")
	else
		! grep -qE "^$sym=" "$tmp/.config" ||
			lost+=("$sym (wanted n, got $(grep -E "^$sym=" "$tmp/.config"))")
	fi
done
for u in "${upstream[@]}"; do
	n=0 d=0
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] || continue
		n=$((n + 1))
		grep -qxF -- "$line" "$tmp/.config" || d=$((d + 1))
	done <"$u"
	echo "upstream-base ${u#"$TREE"/}: $((n - d)) of its $n options set as it asks, the rest overridden or not available" >>"$log"
done
if [[ ${#lost[@]} -gt 0 ]]; then
	printf 'error: fragment symbols that did not survive olddefconfig:\n' >&2
	printf '  %s\n' "${lost[@]}" >&2
	exit 1
fi
# distro: Debian's options of configs/distro-keep.list must be kept ("=m"
# is met by =m or =y, "is not set" by absence).
if [[ $base == distro ]]; then
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
			got=$(grep -E "^$sym=" "$tmp/.config" || true)
			[[ $got == "$line" || ($val == m && $got == "$sym=y") ]] ||
				lost+=("$sym (Debian has ${val}, got ${got:-not set})")
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			sym=${BASH_REMATCH[1]}
			! grep -qE "^$sym=" "$tmp/.config" ||
				lost+=("$sym (Debian has it off, got $(grep -E "^$sym=" "$tmp/.config"))")
		fi
	done <"$keep"
	if [[ ${#lost[@]} -gt 0 ]]; then
		printf 'error: Debian options of %s that the distro config lost:\n' "${keep#"$ROOT"/}" >&2
		printf '  %s\n' "${lost[@]}" >&2
		exit 1
	fi
fi

if cmp -s "$tmp/.config" "$OBJ/.config"; then
	info "config unchanged"
else
	cp "$tmp/.config" "$OBJ/.config"
	info "wrote ${OBJ#"$ROOT"/}/.config"
fi
echo "$want" >"$OBJ/.config.stamp"
