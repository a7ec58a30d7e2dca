# Two commands for a fresh machine: `make demo` (set up and start the app) and `make test` (set up and run all tests).
.PHONY: setup setup-dev demo test test-fast test-avx2 bench kb

setup:
	bash scripts/setup.sh

setup-dev:
	bash scripts/setup.sh --dev
	bash scripts/ensure_chromium.sh

demo: setup
	.venv/bin/python app.py

# two pytest-xdist workers (tests/conftest.py gives each its share of the cores), each test file on one worker: its
# module fixtures (models, pages) are made once
PYTEST_XDIST = -n 2 --dist loadfile

test: setup-dev
	.venv/bin/python -m pytest $(PYTEST_XDIST)

test-fast: setup-dev
	.venv/bin/python -m pytest $(PYTEST_XDIST) -m "not offline and not browser"

# the tests marked `portability` as a CPU with AVX2 but no AVX-512 runs them: held to AVX2 kernels, then under QEMU
test-avx2: setup-dev
	bash scripts/test_avx2.sh

bench: setup
	.venv/bin/python bench/foundation.py

kb:
	bash scripts/setup.sh --build
	.venv/bin/python -m studio build kb
	.venv/bin/python -m studio --profile offline build antonyms
