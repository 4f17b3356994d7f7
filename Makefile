# pagelab — the two commands a newcomer needs are `make demo` and `make test`.
# Both run `make setup` first, which installs only what is missing.

SHELL       := /bin/bash
VENV        := .venv
PYTHON      ?= python3
VPY         := $(VENV)/bin/python
PAGELAB     := $(VENV)/bin/pagelab
# OS packages `make demo` needs: the database server, iostat (sysstat), fio; for the PDF report a
# browser to print HTML (nbconvert's webpdf cannot use a system browser; Playwright's own download is
# not reachable; on Ubuntu the install script takes chromium-browser) and pdftoppm (poppler-utils) to
# check the pages render.
DEMO_PACKAGES := mariadb-server sysstat fio chromium poppler-utils
# And those only `make test` (and `make bench`) needs besides: ss (iproute2) for the test that servers
# listen on the loopback address only; Slurm's client and daemons with munge for the tests' private
# two-node cluster (and `pagelab sweep --executor slurm`); strace for the fault suite (tests/faults),
# which kills a process at a write through strace's fault injection; mmdebstrap for the rehearsal
# of a first install on a bare Debian 12 that CI runs before the tests (`make rehearse`). The
# compilers and headers of pagelab's C pieces, which the venv needs, are named by the install
# script itself (runbooks/setup/install-os-packages.sh), next to the check for Python's headers.
TEST_PACKAGES := iproute2 slurm-wlm munge strace mmdebstrap
INSTALL_OS_PACKAGES = @DEMO_PACKAGES="$(DEMO_PACKAGES)" TEST_PACKAGES="$(TEST_PACKAGES)" PYTHON="$(PYTHON)" \
  bash runbooks/setup/install-os-packages.sh
# The venv is rebuilt when the dependency list or a C piece changes; the stamp records the last good install.
VENV_STAMP  := $(VENV)/.pagelab-installed
# Three workers on the 2-core machine: the suite waits on servers, disks and sleeps much of the time
# (at -n 3, 41% of the CPU stayed idle; 1,640 tests in 5 min 58 s on a fresh clone). Tests
# that share a server, a cluster or a bundle are kept on one worker as one scope (tests/conftest.py,
# XDIST_GROUPS), which are handed out in the order listed there. `make test TEST_ARGS="-n 0 tests/x.py"` runs some tests in one process.
TEST_ARGS   ?= -n 3 --dist loadscope --no-loadscope-reorder

.PHONY: setup os-packages build-packages test-packages venv demo lab test rehearse bench doctor clean help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  %-8s %s\n", $$1, $$2 }'

# The venv first: a user who cannot install OS packages still gets it, where its own packages are
# there, and is then told which packages an administrator must install for which command.
setup: venv os-packages  ## install what make demo needs and is missing (.venv, OS packages via apt-get)

build-packages:  # what the venv's build needs: a compiler, headers, python3-venv
	$(INSTALL_OS_PACKAGES) build
os-packages:  # and what make demo runs
	$(INSTALL_OS_PACKAGES) demo
test-packages:  # and what only the tests and benches run
	$(INSTALL_OS_PACKAGES) test

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml setup.py runbooks/setup/install-venv.sh lib/pagelab/storage/_cellsearch.c lib/pagelab/tpcc/_tpccclient.c lib/pagelab/tpcc/tpcc_transactions.c lib/pagelab/tpcc/tpcc_transactions.h lib/pagelab/workloads/sqlite/_sqlitetimer.c lib/pagelab/workloads/sqlite/sqlite_iterations.c lib/pagelab/workloads/sqlite/sqlite_iterations.h | build-packages
	@echo "setup: creating $(VENV) and installing pagelab with its dependencies (uv pip install -e .[dev])"
	@bash runbooks/setup/install-venv.sh $(VENV) $(PYTHON)
	@touch $@

PROFILE ?= quick

demo: setup  ## a preview of the Week 4 lab, the quick page-size sweep (4k/8k/16k x 15 runs, ~10 min), with verdicts and a PDF report; make demo PROFILE=course is the lab itself (README.md)
	$(PAGELAB) doctor
	$(PAGELAB) sweep --profile $(PROFILE)

lab: setup  ## open JupyterLab on notebooks/ (every experiment's notebook) with the project's kernel
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --ip=127.0.0.1 --no-browser \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

test: setup test-packages  ## run the whole test suite on real MariaDB, on three workers
	$(VPY) -m pytest $(TEST_ARGS)

# A first install on a machine that has nothing: runbooks/setup/rehearse-bare-machine.sh says how.
rehearse: test-packages  ## for developers, as root: make setup, doctor and a smoke sweep on a bare Debian 12 root (CI runs it before make test)
	bash runbooks/setup/rehearse-bare-machine.sh

bench: setup test-packages  ## run the benchmarks in bench/ and print their figures
	@for b in bench/bench_*.py; do echo "== $$b"; $(VPY) $$b || exit 1; done

doctor: setup  ## check what an experiment depends on (a failed check stops make demo; a warning does not)
	$(PAGELAB) doctor

clean:  ## remove the venv and generated data, your sweeps in data/runs included (keeps data/reference and the PDFs in reports/)
	rm -rf $(VENV) data/runs data/cache data/instances
