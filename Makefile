# The project's checks. `make test` is the README's test command and what CI runs.
GO ?= go

.PHONY: test fmt vet race bench

test: fmt vet race

fmt:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 5x ./sparse ./lowrank ./pipeline/...
