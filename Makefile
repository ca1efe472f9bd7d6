# iolab - build the programs, run the labs, plot, test.   `make help` lists the targets.
#
# Every labs/N-topic/NAME.c is one program, built into bin/NAME. Every
# labs/N-topic/labN.sh is a lab, run by `make labN`. Every plot/*.gp is a
# figure, rendered into plot/*.png. Adding a file is enough: no rule to edit.

CC       ?= cc
CFLAGS   ?= -std=c11 -Wall -Wextra -Werror -O2 -pthread
CPPFLAGS += -Icommon
LDLIBS   += -lm

# SCALE=tiny (tests, seconds), quick (default, minutes), full (the source articles' sizes)
SCALE    ?= quick
# Where the labs put their scratch files; its file system shapes the results.
SCRATCH  ?= scratch
export SCALE SCRATCH

SOURCES  := $(sort $(wildcard labs/*/*.c))
PROGRAMS := $(notdir $(SOURCES:.c=))
LABS     := $(sort $(notdir $(basename $(wildcard labs/*/lab[0-9].sh))))
FIGURES  := $(patsubst %.gp,%.png,$(wildcard plot/*.gp))
# Programs that start threads are also tested under ThreadSanitizer.
THREADED := $(notdir $(basename $(shell grep -l pthread_create $(SOURCES) /dev/null)))

vpath %.c $(sort $(dir $(SOURCES))) tests/unit

# Sanitizer builds for `make check`.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fsanitize=thread

.PHONY: all labs $(LABS) plot test check bench validate deps handin clean help
.DELETE_ON_ERROR:

all: $(addprefix bin/,$(PROGRAMS)) build/test-common

# One rule per build flavour; -MMD keeps header dependencies in build/.
compile = $(CC) $(CPPFLAGS) $(CFLAGS) $(1) -MMD -MP -MF build/$(subst /,-,$@).d -o $@ $< $(LDLIBS)
bin/%: %.c | build
	@mkdir -p $(@D)
	$(call compile)
bin-asan/%: %.c | build
	@mkdir -p $(@D)
	$(call compile,$(ASAN_FLAGS))
bin-tsan/%: %.c | build
	@mkdir -p $(@D)
	$(call compile,$(TSAN_FLAGS))
build/test-common: test-common.c | build
	$(call compile)
build/asan/test-common: test-common.c | build
	@mkdir -p $(@D)
	$(call compile,$(ASAN_FLAGS))
build:
	@mkdir -p $@
-include $(wildcard build/*.d)

labs: all
	@for lab in $(LABS); do bash labs/*/$$lab.sh || exit 1; done
	@$(MAKE) --no-print-directory plot
	@bash common/summary.sh

$(LABS): all
	@bash labs/*/$@.sh
	@$(MAKE) --no-print-directory plot

# PREVIEW=1 also draws each figure as text in the terminal (for SSH sessions).
plot: $(FIGURES)
ifdef PREVIEW
	@for gp in $(sort $(wildcard plot/*.gp)); do \
	  gnuplot -e "set terminal dumb size 100,30" $$gp 2>/dev/null || true; done
endif

# A figure is redrawn when its script or any result changes; one without its
# data yet (a lab not run) is skipped with a note instead of failing.
plot/%.png: plot/%.gp $(wildcard data/*.csv) common/plot.sh
	@bash common/plot.sh $< $@

test: all
	@bash tests/run.sh

check: $(addprefix bin-asan/,$(PROGRAMS)) build/asan/test-common $(addprefix bin-tsan/,$(THREADED))
	@echo "== AddressSanitizer + UndefinedBehaviorSanitizer: the suite but the grader's (shell, no C of its own)"
	@BIN=bin-asan UNIT=build/asan/test-common bash tests/run.sh $(filter-out tests/grade.bats,$(wildcard tests/*.bats))
	@if [ -n "$(THREADED)" ]; then echo "== ThreadSanitizer: $(THREADED)"; \
	  BIN=bin-tsan bash tests/run.sh $(addprefix tests/,$(addsuffix .bats,$(THREADED))); fi

# Every benchmark runs; the exit status says whether any goal was missed.
bench: all
	@status=0; for b in $(sort $(wildcard labs/*/bench-*.sh)); do bash $$b || status=1; done; exit $$status

# Lab 5: iopattern side by side with fio on the same patterns (needs fio).
validate: all
	@bash labs/5-patterns/validate.sh

deps:
	@bash common/deps.sh --install-all

# LABS=1,2 packs only those labs.
handin:
	@bash common/handin.sh

# Removes build outputs and scratch files; your results in data/ and plot/ stay.
clean:
	rm -rf bin bin-asan bin-tsan build dist $(SCRATCH)

help:
	@echo "make            build every program into bin/"
	@echo "make labs       run every lab (SCALE=$(SCALE)), write data/, draw plot/, print a summary"
	@echo "make labN       run one lab: $(LABS)"
	@echo "make plot       draw plot/*.png from data/ (PREVIEW=1: also as text in the terminal)"
	@echo "make test       run the test suite"
	@echo "make check      the test suite on sanitizer builds (ASan+UBSan; TSan for threaded programs)"
	@echo "make bench      speed benchmarks, as ratios against a reference run alongside"
	@echo "make validate   Lab 5: iopattern against fio on the same patterns (fio is optional)"
	@echo "make deps       install gnuplot and bats (and say how on other systems)"
	@echo "make handin     pack your submission into iolab-handin.tar.gz (LABS=1,2: only those)"
	@echo "make clean      remove build outputs and scratch files (keeps data/ and plot/)"
	@echo "Variables: SCALE=tiny|quick|full  SCRATCH=dir (default scratch)  CC=  CFLAGS="
