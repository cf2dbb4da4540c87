# The project's checks. `make test` is the README's test command and what CI runs.
GO ?= go

.PHONY: test fmt vet race beam bench

test: fmt vet race beam

fmt:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

# The Beam module (its own go.mod): vet and tests on Prism in-process.
# No -race: the race build of the Beam SDK takes several more minutes.
# A change to the root go.mod needs `cd beam && go mod tidy` (the module
# replaces ours with ../, so it lists our requirements too).
beam:
	cd beam && $(GO) vet ./... && $(GO) test -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 5x ./sparse ./lowrank ./pipeline/...
