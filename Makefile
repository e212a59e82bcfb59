# The two commands of the README: `make demo` and `make test`.
.PHONY: demo test pkg bench tools

SHELL := /bin/bash

demo:
	scripts/demo.sh

test:
	scripts/test.sh

pkg:
	scripts/ensure-tools.sh wasm
	scripts/build-pkg.sh

bench:
	scripts/bench.sh

tools:
	scripts/ensure-tools.sh
