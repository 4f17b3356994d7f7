#!/usr/bin/env bash
# Rehearses the README's set-up on a machine that has nothing: a minimal Debian 12 (bookworm) root
# with only git, make and python3 added, into which a clean clone of this repository's committed
# HEAD is copied; inside it, as the README says, `make setup`, then `.venv/bin/pagelab doctor`, then
# `make demo PROFILE=smoke` to its PDF. Each part's time is printed at the end. `make rehearse` runs
# it, and CI runs that before `make test`.
#
# Needs root (it builds a system root, mounts /proc, /dev and /sys into it and chroots there) and
# mmdebstrap, which, unlike debootstrap, takes this machine's apt sources in either format. The
# root runs in mount and PID namespaces of its own, so its mounts and every process started in it
# (servers included) go when it ends, on success, failure or Ctrl-C. A policy-rc.d keeps package
# scripts from starting services.
#
# The package sources, the Python package index and the CA certificates come from this machine's own
# configuration, read at run time: apt's sources and its apt.conf.d files that set only Acquire::
# options (proxies, TLS, index validity), pip's configuration files and PIP_* variables (and the
# local files and folders they name), the *_proxy variables, /etc/ssl/certs and /etc/resolv.conf.
#
# Cached between runs on one machine, under $REHEARSAL_CACHE (default /var/cache/pagelab-rehearsal):
# the bare root's tarball (rebuilt when this machine's apt configuration changes or after a week),
# the downloaded .debs and pip's download cache. Never the venv, the OS packages' installation or
# anything else the set-up under test does.
set -euo pipefail

cache=${REHEARSAL_CACHE:-/var/cache/pagelab-rehearsal}
suite=bookworm
base_packages=make,python3,git   # what the README asks of a machine before its two commands
base_max_age_days=7
repo=$(cd "$(dirname "$0")/../.." && pwd)

fail() { echo "rehearse: $*" >&2; exit 1; }

# What it needs, said before anything is done.
[[ $(id -u) -eq 0 ]] || fail "needs root: it builds a Debian root, mounts /proc, /dev and /sys into it and chroots there (run it as root, as CI does)"
for program in mmdebstrap git unshare chroot mount tar sha256sum; do
  command -v "$program" >/dev/null 2>&1 || fail "needs $program: apt-get install $program (make rehearse installs it)"
done
head_commit=$(git -C "$repo" rev-parse --verify HEAD 2>/dev/null) || fail "$repo is not a git checkout with a commit"

work=$(mktemp -d /var/tmp/pagelab-rehearsal.XXXXXX)
root=$work/root
inside_pid=""
# Always: end the namespaces (their mounts and processes go with them), then remove the root.
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n $inside_pid ]] && kill -0 "$inside_pid" 2>/dev/null; then
    # Ctrl-C for the steps inside (pagelab stops its servers), then the namespace's end for all.
    kill -INT -- "-$inside_pid" 2>/dev/null || true
    for _ in {1..30}; do kill -0 "$inside_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL "$inside_pid" 2>/dev/null || true   # --kill-child takes every process inside with it
    wait "$inside_pid" 2>/dev/null || true
  fi
  # The mounts live only in the namespace; should one be seen here all the same, it is undone
  # before anything is removed, so rm never reaches through it into this machine's /dev or /sys.
  local mounts=()
  mapfile -t mounts < <(awk -v root="$root" 'index($5, root) == 1 { print $5 }' /proc/self/mountinfo)
  local mount_point
  for mount_point in "${mounts[@]}"; do umount -R -l "$mount_point" 2>/dev/null || true; done
  rm -rf --one-file-system "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# This machine's apt configuration, as the root gets it: the sources, and the apt.conf.d files that
# set nothing but Acquire:: options (proxies, certificates, validity); others (hooks, cleaners that
# delete downloaded .debs) belong to this machine alone.
apt_config=$work/apt
mkdir -p "$apt_config/sources.list.d" "$apt_config/apt.conf.d"
[[ -f /etc/apt/sources.list ]] && cp /etc/apt/sources.list "$apt_config/"
for file in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -f $file ]] && cp "$file" "$apt_config/sources.list.d/"
done
for file in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
  [[ -f $file ]] || continue
  settings=$(sed -e 's#//.*##' -e '/^[[:space:]]*$/d' "$file")
  [[ -n $settings ]] || continue
  others=$(grep -v -E '^[[:space:]]*(Acquire::|[}{;"[:space:]])' <<< "$settings" || true)
  [[ -z $others ]] && cp "$file" "$apt_config/apt.conf.d/$(basename "$file")"
done
[[ -n $(ls -A "$apt_config/sources.list.d") || -f $apt_config/sources.list ]] \
  || fail "this machine has no apt sources (/etc/apt/sources.list, /etc/apt/sources.list.d/) to give the root"

mkdir -p "$cache/archives/partial" "$cache/pip"
key=$( (echo "mmdebstrap $suite $base_packages"; find "$apt_config" -type f -print0 | sort -z | xargs -0 cat) \
  | sha256sum | cut -c1-16)
base=$cache/$suite-minbase-$key.tar

say_time() { printf '%s' "$(( $(date +%s) - $1 ))"; }
timings=()

started=$(date +%s)
if [[ -f $base ]] && [[ -z $(find "$base" -mtime +"$base_max_age_days") ]]; then
  echo "rehearse: the bare $suite root from the cache ($base)"
  base_how="from the cache"
else
  echo "rehearse: building a bare $suite root with mmdebstrap (minbase, with $base_packages)"
  rm -f "$cache"/"$suite"-minbase-*.tar
  # No mirror of its own (an empty list on stdin): this machine's sources, put in place before
  # apt's first update.
  mmdebstrap --quiet --variant=minbase --format=tar --include="$base_packages" \
    --setup-hook="cp -a '$apt_config/.' \"\$1/etc/apt/\"" \
    "$suite" "$base.partial.$$" - < /dev/null
  mv "$base.partial.$$" "$base"
  base_how="built"
fi
timings+=("bare $suite root ($base_how): $(say_time "$started") s")

mkdir -p "$root"
tar -C "$root" -xf "$base"
# A clean clone of the committed HEAD, never the work tree.
git clone --quiet --no-checkout "$repo" "$root/root/pagelab"
git -C "$root/root/pagelab" checkout --quiet --detach "$head_commit"
# No service starts inside (mariadb-server's postinst would try).
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# This machine's resolver and CA certificates, for apt and pip inside. No /etc/hosts is added: a
# bare root has none, and pagelab must not need one.
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$root/etc/ssl/certs"
cp -a /etc/ssl/certs/. "$root/etc/ssl/certs/"
# The certificates this machine adds to the system's, too: a package that brings ca-certificates
# (python3-venv does) rebuilds the bundle from them, and pip would no longer trust this machine's way out.
if [[ -d /usr/local/share/ca-certificates ]]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
# pip's configuration: the files pip reads (global, XDG, root's own) and the PIP_* variables.
for file in /etc/pip.conf /etc/xdg/pip/pip.conf "$HOME/.config/pip/pip.conf" "$HOME/.pip/pip.conf"; do
  [[ -f $file ]] || continue
  case $file in
    "$HOME"/*) target=/root/${file#"$HOME"/} ;;
    *) target=$file ;;
  esac
  mkdir -p "$root$(dirname "$target")"
  cp "$file" "$root$target"
done
pip_environment=()
while IFS= read -r -d '' assignment; do
  pip_environment+=("$assignment")
done < <(env -0 | grep -z -E '^(PIP_[A-Z_]+|https?_proxy|no_proxy|HTTPS?_PROXY|NO_PROXY)=' || true)
# The local files and folders that configuration names (a find-links folder, a local index, a
# constraints file) are bound into the root read-only at the same paths: from the shallowest folder
# on the way that the root lacks, so that a local index's files beside its pages come too. What the
# root has already (the CA certificates copied above) stays its own.
lacking_ancestor() {
  local prefix="" part parts
  IFS=/ read -r -a parts <<< "${1#/}"
  for part in "${parts[@]}"; do
    prefix+=/$part
    if [[ ! -e $root$prefix && ! -L $root$prefix ]]; then
      echo "$prefix"
      return
    fi
  done
}
local_paths=()
while IFS= read -r path; do
  path=${path#file://}
  [[ -e $path ]] || continue
  lacking=$(lacking_ancestor "$path")
  [[ -n $lacking && " ${local_paths[*]} " != *" $lacking "* ]] && local_paths+=("$lacking")
done < <( { cat /etc/pip.conf /etc/xdg/pip/pip.conf "$HOME/.config/pip/pip.conf" "$HOME/.pip/pip.conf" 2>/dev/null || true
            printf '%s\n' "${pip_environment[@]}"; } \
          | grep -o -P '(?<![:/\w])(file://)?/[^\s"'"'"',;]+' | sort -u || true)

# Inside: the namespaces' first process mounts what a system has, binds the caches and the local
# paths, and runs the README's steps in the root, timing each.
inside=$(cat <<'INSIDE'
set -euo pipefail
trap 'exit 130' INT
trap 'exit 143' TERM
root=$1 cache=$2; shift 2
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
mkdir -p "$root/root/.cache/pip"
mount --bind "$cache/pip" "$root/root/.cache/pip"
while [[ $1 != -- ]]; do
  if [[ -d $1 ]]; then mkdir -p "$root$1"; else mkdir -p "$root$(dirname "$1")"; touch "$root$1"; fi
  mount --bind "$1" "$root$1"
  mount -o remount,bind,ro "$root$1"
  shift
done
shift
step() {
  local name=$1 started
  shift
  started=$(date +%s)
  echo "rehearse: $name"
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb "${environment[@]}" /bin/bash -c "cd /root/pagelab && $*"
  echo "rehearse: $name: $(( $(date +%s) - started )) s" >> "$root/root/rehearsal-times"
}
environment=("$@")
step "make setup" make setup
step "pagelab doctor" .venv/bin/pagelab doctor
step "make demo PROFILE=smoke" make demo PROFILE=smoke
pdf=$(find "$root/root/pagelab/data/runs" -name report.pdf -size +0 -print -quit)
[[ -n $pdf ]] || { echo "rehearse: the smoke sweep left no report.pdf under data/runs" >&2; exit 1; }
echo "rehearse: its PDF: ${pdf#"$root"}"
INSIDE
)
# A job of its own (set -m), so that Ctrl-C reaches it only through cleanup, which can then wait.
set -m
unshare --mount --pid --fork --kill-child --propagation private -- \
  /bin/bash -c "$inside" rehearse "$root" "$cache" "${local_paths[@]}" -- "${pip_environment[@]}" &
inside_pid=$!
status=0
wait "$inside_pid" || status=$?
inside_pid=""
if [[ -f $root/root/rehearsal-times ]]; then
  mapfile -t -O "${#timings[@]}" timings < <(sed 's/^rehearse: //' "$root/root/rehearsal-times")
fi
echo "rehearse: times on this machine (commit $head_commit):"
printf 'rehearse:   %s\n' "${timings[@]}"
echo "rehearse:   in all: $(say_time "$started") s"
[[ $status -eq 0 ]] || fail "the set-up on a bare $suite root failed (status $status); its output is above"
echo "rehearse: the README's set-up works on a bare $suite root"
