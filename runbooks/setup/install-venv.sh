#!/usr/bin/env bash
# Builds pagelab's virtual environment: creates it if needed and installs pagelab in it, editable,
# with its dependencies and test tools (the `dev` extra), then registers its Jupyter kernel.
#
#   install-venv.sh VENV PYTHON
#
# Called by make (the venv's stamp recipe), after the build packages are in. The installer is uv,
# taken from PyPI into the venv itself: it resolves and installs the same packages as pip in about a
# tenth of the time (12 s against 95-150 s for this set, measured on a fresh venv here), which is
# most of what a newcomer's first `make setup` waits for. Should uv not be had or fail, pip does the
# install instead, as it did before, and the line above the fallback says why.
#
# uv does not read pip's configuration, so the settings a machine gives pip (its files and PIP_*
# variables, as `pip config list` shows them) are handed to uv: the index and extra indexes,
# find-links, constraints and the CA bundle. A local index or folder that does not exist is left out
# (pip skips it too, with a warning). Proxies reach uv through the same *_proxy variables as pip.
set -euo pipefail

venv=${1:?usage: install-venv.sh VENV PYTHON}
python=${2:?usage: install-venv.sh VENV PYTHON}
vpy=$venv/bin/python

[[ -x $vpy ]] || "$python" -m venv "$venv"

# Whether a local index, folder or file named in pip's configuration exists (remote ones are kept).
local_target_exists() {
  case $1 in
    file://*) [[ -e ${1#file://} ]] ;;
    http://*|https://*) return 0 ;;
    *) [[ -e $1 ]] ;;
  esac
}

uv_args=()
uv_env=(UV_NATIVE_TLS=1)   # the system's CA store, as pip uses certifi's or the configured bundle
extra_indexes=false
# `pip config list` prints key='value' lines: global.index-url='…', :env:.find-links='…'.
while IFS= read -r line; do
  key=${line%%=*}; key=${key##*.}
  value=${line#*=}; value=${value#\'}; value=${value%\'}
  read -r -a items <<< "$value"
  for item in "${items[@]}"; do
    case $key in
      index-url) local_target_exists "$item" && uv_args+=(--index-url "$item") ;;
      extra-index-url) local_target_exists "$item" && { uv_args+=(--extra-index-url "$item"); extra_indexes=true; } ;;
      find-links) local_target_exists "$item" && uv_args+=(--find-links "$item") ;;
      constraint) local_target_exists "$item" && uv_args+=(--constraint "$item") ;;
      cert) [[ -r $item ]] && uv_env+=(SSL_CERT_FILE="$item") ;;
    esac
  done
done < <("$vpy" -m pip config list 2>/dev/null || true)
# pip takes the newest release from all its indexes together; uv, by default, only from the first
# index that has the package. Told to look at all, it chooses as pip does.
$extra_indexes && uv_args+=(--index-strategy unsafe-best-match)

install_with_uv() {
  "$vpy" -m pip install --quiet --disable-pip-version-check uv || return 1
  [[ -x $venv/bin/uv ]] || return 1
  # pip compiles each module to bytecode as it installs; uv does so only when asked.
  env "${uv_env[@]}" "$venv/bin/uv" pip install --quiet --python "$vpy" --compile-bytecode \
    "${uv_args[@]}" -e '.[dev]'
}

install_with_pip() {
  "$vpy" -m pip install --quiet --upgrade pip
  "$vpy" -m pip install --quiet -e '.[dev]'
}

if ! install_with_uv; then
  echo "setup: uv could not install pagelab's dependencies (see above); installing them with pip instead, which takes a few minutes" >&2
  install_with_pip
fi
"$vpy" -m ipykernel install --sys-prefix --name pagelab --display-name "pagelab (.venv)" >/dev/null
