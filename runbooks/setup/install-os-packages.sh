#!/usr/bin/env bash
# Installs the OS packages pagelab needs, and only those that are missing.
# Called by `make setup`; safe to run again (a run with nothing to do takes well under a second).
set -euo pipefail

read -r -a wanted <<< "${OS_PACKAGES:-mariadb-server sysstat fio}"
python=${PYTHON:-python3}

# A fresh Debian/Ubuntu python3 has no venv module until python3-venv is installed.
if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  wanted+=(python3-venv)
fi

# `pip install -e .` compiles pagelab's three C pieces: the storage prototype's
# (lib/pagelab/storage/_cellsearch.c), the TPC-C terminal's client (lib/pagelab/tpcc/_tpccclient.c),
# which links MariaDB Connector/C (libmariadb-dev gives its headers and mariadb_config), and
# the SQLite benchmarks' timer (lib/pagelab/workloads/sqlite/_sqlitetimer.c), which links the
# system's libsqlite3 (libsqlite3-dev gives its header).
wanted+=(gcc libc6-dev libmariadb-dev libsqlite3-dev)
if ! "$python" -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' >/dev/null 2>&1; then
  wanted+=(python3-dev)
fi

installed() {
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]
}
# Debian's browser package is `chromium`; Ubuntu has none of that name, only `chromium-browser`
# (pagelab's PDF step looks for either binary). Either one installed counts.
missing=()
for pkg in "${wanted[@]}"; do
  installed "$pkg" && continue
  [[ $pkg == chromium ]] && installed chromium-browser && continue
  missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: these OS packages are missing: ${missing[*]}" >&2
  echo "setup: this system has no apt-get; install them with your package manager, then rerun." >&2
  exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "setup: these OS packages are missing: ${missing[*]}" >&2
  echo "setup: run as root, or install them first:  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "setup: installing OS packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
# apt-cache's whole answer is read before it is searched: under pipefail a `| grep -q` that leaves at
# its first match kills apt-cache with SIGPIPE, and the pipeline then reads as "no candidate".
for i in "${!missing[@]}"; do
  if [[ ${missing[$i]} == chromium ]]; then
    policy=$(apt-cache policy chromium 2>/dev/null || true)
    [[ $policy =~ Candidate:\ [0-9] ]] || missing[$i]=chromium-browser
  fi
done
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: OS packages installed"
