# Two commands for a fresh machine: `make demo` (set up and start the app) and `make test` (set up and run all tests).
.PHONY: setup setup-dev demo test test-fast bench kb

setup:
	bash scripts/setup.sh

setup-dev:
	bash scripts/setup.sh --dev
	bash scripts/ensure_chromium.sh

demo: setup
	.venv/bin/python app.py

test: setup-dev
	.venv/bin/python -m pytest

test-fast: setup-dev
	.venv/bin/python -m pytest -m "not offline and not browser"

bench: setup
	.venv/bin/python bench/foundation.py

kb:
	bash scripts/setup.sh --build
	.venv/bin/python -m studio build kb
	.venv/bin/python -m studio build antonyms
