#!/usr/bin/env bash
# Installs the OS packages one of pagelab's commands needs, and only those that are missing.
#
#   install-os-packages.sh build   what installing pagelab into the venv needs (compiler, headers, venv)
#   install-os-packages.sh demo    and what `make demo` runs ($DEMO_PACKAGES)
#   install-os-packages.sh test    and what only `make test` runs besides ($TEST_PACKAGES)
#
# Called by make (the Makefile declares both lists); safe to run again: with nothing missing it asks
# dpkg only. A user who cannot install (not root, no password-free sudo) is told which packages an
# administrator must install for which command, so the venv can still be built where its own
# packages are there.
set -euo pipefail

command_name=${1:-}
case $command_name in
  build|demo|test) ;;
  *) echo "usage: $0 build|demo|test   (the packages for the venv, for make demo, or for make test)" >&2; exit 2 ;;
esac
read -r -a demo_packages <<< "${DEMO_PACKAGES:?DEMO_PACKAGES is not set: run this through make}"
read -r -a test_packages <<< "${TEST_PACKAGES:?TEST_PACKAGES is not set: run this through make}"
python=${PYTHON:-python3}
# Which system this is decides one package name (the browser). The tests point it at another
# system's os-release file, as they replay that system's apt answers.
os_release=${OS_RELEASE_FILE:-/etc/os-release}

build_packages=()
# A fresh Debian/Ubuntu python3 has no venv module until python3-venv is installed.
if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  build_packages+=(python3-venv)
fi
# Installing pagelab into the venv (install-venv.sh) compiles its three C pieces: the storage prototype's
# (lib/pagelab/storage/_cellsearch.c), the TPC-C terminal's client (lib/pagelab/tpcc/_tpccclient.c),
# which links MariaDB Connector/C (libmariadb-dev gives its headers and mariadb_config), and
# the SQLite benchmarks' timer (lib/pagelab/workloads/sqlite/_sqlitetimer.c), which links the
# system's libsqlite3 (libsqlite3-dev gives its header).
build_packages+=(gcc libc6-dev libmariadb-dev libsqlite3-dev)
if ! "$python" -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' >/dev/null 2>&1; then
  build_packages+=(python3-dev)
fi

installed() {
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]
}
# Prints the packages of "$@" that are not installed. Debian's browser package is `chromium`;
# Ubuntu's is `chromium-browser` (pagelab's PDF step looks for either binary): either one counts.
missing_of() {
  local pkg
  for pkg in "$@"; do
    installed "$pkg" && continue
    [[ $pkg == chromium ]] && installed chromium-browser && continue
    echo "$pkg"
  done
}
mapfile -t missing_build < <(missing_of "${build_packages[@]}")
mapfile -t missing_demo < <(missing_of "${demo_packages[@]}")
mapfile -t missing_test < <(missing_of "${test_packages[@]}")
# What this command lacks, in `missing`.
gather() {
  missing=("${missing_build[@]}")
  [[ $command_name == build ]] || missing+=("${missing_demo[@]}")
  [[ $command_name == test ]] && missing+=("${missing_test[@]}")
  return 0
}
gather
[[ ${#missing[@]} -eq 0 ]] && exit 0

# This system's name and release, for the messages, and whether it is Ubuntu or built on it.
os_name="this system" os_id="" os_like=""
if [[ -r $os_release ]]; then
  while IFS='=' read -r key value; do
    value=${value#\"}; value=${value%\"}
    case $key in
      PRETTY_NAME) os_name=$value ;;
      ID) os_id=$value ;;
      ID_LIKE) os_like=$value ;;
    esac
  done < "$os_release"
fi
ubuntu_like=false
[[ " $os_id $os_like " == *" ubuntu "* ]] && ubuntu_like=true

# Reads apt's candidates for the packages in `missing` and sets `unavailable` to those that have
# none. Ubuntu's browser is `chromium-browser`: `chromium` is swapped for it only on an Ubuntu-like
# system whose sources have it, never elsewhere (Debian has no installable chromium-browser).
# apt-cache's whole answer is read before it is searched: under pipefail a `| grep -q` that leaves
# at its first match kills apt-cache with SIGPIPE, and the pipeline then reads as "no candidate".
candidates_known() {
  local policy pkg line current="" i
  local -A candidate=()
  policy=$(apt-cache policy "${missing[@]}" chromium-browser 2>/dev/null) || policy=""
  while IFS= read -r line; do
    if [[ $line =~ ^([^[:space:]]+):$ ]]; then
      current=${BASH_REMATCH[1]}
    elif [[ -n $current && $line =~ ^[[:space:]]+Candidate:\ (.+)$ ]]; then
      [[ ${BASH_REMATCH[1]} != "(none)" ]] && candidate[$current]=${BASH_REMATCH[1]}
    fi
  done <<< "$policy"
  if [[ -z ${candidate[chromium]:-} && $ubuntu_like == true && -n ${candidate[chromium-browser]:-} ]]; then
    for i in "${!missing_demo[@]}"; do
      [[ ${missing_demo[$i]} == chromium ]] && missing_demo[$i]=chromium-browser
    done
    candidate[chromium-browser]=yes
    gather
  fi
  unavailable=()
  for pkg in "${missing[@]}"; do
    [[ -n ${candidate[$pkg]:-} ]] || unavailable+=("$pkg")
  done
}

# Says which packages each command still lacks, and how an administrator installs them.
tell_what_to_install() {
  local demo=("${missing_build[@]}" "${missing_demo[@]}")
  local all=("${demo[@]}" "${missing_test[@]}")
  echo "setup: these OS packages are missing, and $1:" >&2
  [[ ${#missing_build[@]} -gt 0 ]] && echo "setup:   for make setup (to build the venv): ${missing_build[*]}" >&2
  [[ ${#demo[@]} -gt 0 ]] && echo "setup:   for make demo: ${demo[*]}" >&2
  [[ ${#all[@]} -gt 0 ]] && echo "setup:   for make test: ${all[*]}" >&2
  echo "setup: $2  ${all[*]}" >&2
  if [[ ${#missing_build[@]} -gt 0 ]]; then
    echo "setup: the venv cannot be built before the packages for make setup are installed; then rerun make." >&2
  else
    echo "setup: the venv (.venv) is built; rerun make once they are installed." >&2
  fi
}

if ! command -v apt-get >/dev/null 2>&1; then
  tell_what_to_install "this system has no apt-get" "install them with your package manager (Debian names):"
  exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  # apt-cache needs no root: Ubuntu's browser name is found in the lists already on the machine.
  candidates_known
  tell_what_to_install "this user cannot install them (not root, and no sudo without a password)" \
    "an administrator can install them with:  sudo apt-get install -y"
  exit 1
fi

echo "setup: installing OS packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
candidates_known
if [[ ${#unavailable[@]} -gt 0 ]]; then
  echo "setup: this system's package sources have no installation candidate for: ${unavailable[*]}" >&2
  echo "setup: pagelab expected them in the archive of $os_name (Debian 12 or later: main; Ubuntu 22.04 or later: main and universe)." >&2
  echo "setup: add that release's archive to /etc/apt/sources.list or /etc/apt/sources.list.d/, then rerun." >&2
  exit 1
fi
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: OS packages installed"
