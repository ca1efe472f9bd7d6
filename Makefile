# iolab - build the programs, run the labs, plot, test.   `make help` lists the targets.
#
# Every labs/N-topic/NAME.c is one program, built into bin/NAME. Every
# labs/N-topic/labN.sh is a lab, run by `make labN`. Every plot/*.gp is a
# figure, rendered into plot/*.png. Adding a file is enough: no rule to edit.

# The labs measure Linux (its page cache, fsync, O_DIRECT, io_uring). On
# macOS or Windows, one sentence saying what to use instead, before bash
# 3.2 or the compiler stop in a wall of errors (GNU make 3.81, macOS's,
# reads this far).
SYSTEM := $(shell uname -s 2>/dev/null)
ifneq ($(SYSTEM),Linux)
$(error iolab's labs need Linux, and this is $(or $(SYSTEM),not Linux): on Windows use WSL2 (with the kit in the Linux home, not under /mnt/c), on macOS a Linux virtual machine or the kit's dev container (.devcontainer/), as README.md's "Not on Linux?" says)
endif

CC       ?= cc
# What every build needs, whatever CFLAGS says. -Wno-unused-parameter: in
# the students' kit a function still to be written has a stub for a body,
# which leaves its parameters unused; every other warning stays an error.
KIT_CFLAGS := -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror -pthread
# CFLAGS=-O0 replaces the optimisation only; EXTRA_CFLAGS=-g adds to both.
CFLAGS   ?= -O2
EXTRA_CFLAGS ?=
CPPFLAGS += -Icommon
LDLIBS   += -lm

# SCALE=tiny (tests, seconds), quick (default, minutes), full (the source articles' sizes)
SCALE    ?= quick
# Where the labs put their scratch files; its file system shapes the results.
SCRATCH  ?= scratch
export SCALE SCRATCH

SOURCES  := $(sort $(wildcard labs/*/*.c))
PROGRAMS := $(notdir $(SOURCES:.c=))
# lab1, lab2, ..., one per labs/*/labN.sh. (LABS is not used here: it is the
# student's list of labs for make handin, LABS=1,2.)
LAB_TARGETS := $(sort $(notdir $(basename $(wildcard labs/*/lab[0-9].sh))))
FIGURES  := $(patsubst %.gp,%.png,$(wildcard plot/*.gp))
# Programs that start threads are also tested under ThreadSanitizer.
THREADED := $(notdir $(basename $(shell grep -l pthread_create $(SOURCES) /dev/null)))

vpath %.c $(sort $(dir $(SOURCES))) tests/unit

# Sanitizer builds for `make check`.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fsanitize=thread

.PHONY: all labs $(LAB_TARGETS) lab6-real plot test test-all check lint bench validate deps handin starter autograder class rubric clean help
.DELETE_ON_ERROR:

# Python tools a lab runs as bin/NAME (labs/N-topic/NAME.py), by name: a
# course without the lab (its folder gone) simply has no such tool.
PY_TOOLS := $(filter crashstates fsrecord,$(notdir $(basename $(wildcard labs/*/*.py))))
vpath %.py $(sort $(dir $(wildcard labs/*/*.py)))

all: $(addprefix bin/,$(PROGRAMS) $(PY_TOOLS)) build/test-common

# One rule per build flavour; -MMD keeps header dependencies in build/.
compile = $(CC) $(CPPFLAGS) $(KIT_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) $(1) -MMD -MP -MF build/$(subst /,-,$@).d -o $@ $< $(LDLIBS)
bin/%: %.c | build
	@mkdir -p $(@D)
	$(call compile)
bin-asan/%: %.c | build
	@mkdir -p $(@D)
	$(call compile,$(ASAN_FLAGS))
bin-tsan/%: %.c | build
	@mkdir -p $(@D)
	$(call compile,$(TSAN_FLAGS))
# What Lab 4's race check builds (grading/lab4/checks.py): build/pp/NAME.i,
# NAME.c preprocessed with bin/NAME's flags; build/pp/NAME.tsan.i, with
# bin-tsan/NAME's, which must be the same text; build/pp/NAME-tsan, built
# with ThreadSanitizer from build/pp/NAME.i: the text bin/NAME compiled,
# whatever the source tests.
build/pp/%.i: %.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -E -o $@ $<
build/pp/%.tsan.i: %.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TSAN_FLAGS) -E -o $@ $<
build/pp/%-tsan: build/pp/%.i
	$(CC) $(CFLAGS) $(TSAN_FLAGS) -o $@ $< $(LDLIBS)
build/test-common: test-common.c | build
	$(call compile)
build/asan/test-common: test-common.c | build
	@mkdir -p $(@D)
	$(call compile,$(ASAN_FLAGS))
build:
	@mkdir -p $@
# The Python tools (Lab 6's recorder and crash-state builder), run from the kit.
$(addprefix bin/,$(PY_TOOLS)): bin/%: %.py
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec python3 -B "%s" "$$@"\n' "$(abspath $<)" >$@ && chmod +x $@
-include $(wildcard build/*.d)

# iopattern --iodepth uses io_uring through liburing (Debian: liburing-dev),
# installed first when it is missing and we can, as gnuplot is for the plots.
# Where it still is not (no root, no package; or IOLAB_NO_URING=1),
# iopattern is built without it: --iodepth then says so, and Lab 5 leaves
# that experiment out. The probe, a tiny program linked with -luring, runs
# when iopattern is built, after the install: a recipe's variables are
# expanded only then. Features newer than the installed headers (liburing
# 2.1 on Ubuntu 22.04) are tested in iopattern.c with #ifdef.
uring_probe = $(if $(IOLAB_NO_URING),,$(shell printf '\043include <liburing.h>\nint main(void) { struct io_uring r; return io_uring_queue_init(1, &r, 0); }\n' | \
	$(CC) -x c - -o /dev/null -luring >/dev/null 2>&1 && echo yes))
bin/iopattern bin-asan/iopattern bin-tsan/iopattern build/pp/iopattern.i build/pp/iopattern.tsan.i: \
	CPPFLAGS += $(if $(uring_probe),-DIOLAB_HAVE_URING)
bin/iopattern bin-asan/iopattern bin-tsan/iopattern build/pp/iopattern-tsan: LDLIBS += $(if $(uring_probe),-luring)
# build/uring holds the probe's answer, rewritten only when it changes:
# iopattern is rebuilt when liburing comes (or goes). Its recipe, after
# the install, keeps the answer for the rest of this make (the $(eval)):
# the flags above and the comparison here compiled the probe once each,
# and the grader runs make for every grading.
bin/iopattern bin-asan/iopattern bin-tsan/iopattern: build/uring
build/uring: FORCE | liburing build
	@$(eval uring_probe := $(uring_probe))echo "$(uring_probe)" | cmp -s - $@ || echo "$(uring_probe)" >$@
.PHONY: liburing FORCE
liburing:
	@[ -n "$(IOLAB_NO_URING)" ] || bash common/deps.sh liburing || \
	  echo "(iopattern is built without io_uring: --iodepth will say so, and Lab 5 leaves it out)"

# make labs and make labN: common/run-labs.sh builds what builds, runs each
# lab even after one has failed, draws the figures and prints the summary.
labs:
	@bash common/run-labs.sh plot $(LAB_TARGETS)

# A lab redraws its own figures only: plot-labN.
$(LAB_TARGETS):
	@bash common/run-labs.sh plot-$@ $@

# Lab 6, step 7: the crash states of programs students have (sqlite3, git,
# a Python save), into data/lab6-real/.
lab6-real: all
	@bash labs/6-fsync/real.sh

# PREVIEW=1 also draws each figure as text in the terminal (for SSH sessions).
# plot-labN: only that lab's figures.
preview = $(if $(PREVIEW),@for gp in $(sort $(1)); do bash common/plot.sh --preview $$gp; done)
plot: $(FIGURES)
	$(call preview,$(wildcard plot/*.gp))
PLOT_LABS := $(addprefix plot-,$(LAB_TARGETS))
.PHONY: $(PLOT_LABS)
$(PLOT_LABS): plot-%:
	@$(MAKE) -s --no-print-directory $(filter plot/$*-%,$(FIGURES))
	$(call preview,$(wildcard plot/$*-*.gp))

# A figure is redrawn when its script or any result changes; one without its
# data yet (a lab not run) is skipped with a note instead of failing.
plot/%.png: plot/%.gp $(wildcard data/*.csv) common/plot.sh
	@bash common/plot.sh $< $@

# Tests: tests/*.bats (the kit's own), labs/*/tests/*.bats (each lab's),
# grading/tests/*.bats and grading/labN/tests/*.bats (the grader's).
# make test leaves out the grader's suites that grade submissions (most of
# the time: make test-all runs them too); T=launch runs launch.bats only
# (T="launch runs": those two), whichever they are.
test: all
	@bash tests/run.sh $(T)

# The sanitizer builds run the tests of the kit's C: common.bats (common/'s
# helpers) and each program's own file, labs/*/tests/PROG.bats; not the lab
# scripts' (shell over the same programs), nor the Python and shell tools'.
KIT_C_TESTS := tests/common.bats $(wildcard $(foreach p,$(PROGRAMS),labs/*/tests/$(p).bats))
# T=writer: that file only, as make test takes it (and ThreadSanitizer's
# run of the threaded programs among T).
CHECK_TSAN := $(if $(T),$(filter $(T),$(THREADED)),$(THREADED))
check: $(addprefix bin-asan/,$(PROGRAMS)) build/asan/test-common $(addprefix bin-tsan/,$(THREADED))
	@echo "== AddressSanitizer + UndefinedBehaviorSanitizer: $(or $(T),$(notdir $(KIT_C_TESTS:.bats=)))"
	@BIN=bin-asan UNIT=build/asan/test-common bash tests/run.sh $(or $(T),$(KIT_C_TESTS))
	@if [ -n "$(CHECK_TSAN)" ]; then echo "== ThreadSanitizer: $(CHECK_TSAN)"; \
	  BIN=bin-tsan bash tests/run.sh $(CHECK_TSAN); fi

# Instructors: shellcheck, pyflakes, pycodestyle and cppcheck over the kit's
# own files (grading/lint.sh).
ifneq ($(wildcard grading/lint.sh),)
lint:
	@bash grading/lint.sh
else
lint:
	@echo "make lint: the kit's own lint runs in the instructor's kit" >&2; exit 2
endif

# Every benchmark runs; the exit status says whether any goal was missed.
bench: all
	@status=0; for b in $(sort $(wildcard labs/*/bench-*.sh)); do bash $$b || status=1; done; exit $$status

# Lab 5: iopattern side by side with fio on the same patterns (needs fio).
validate: all
	@status=0; for v in $(sort $(wildcard labs/*/validate.sh)); do bash $$v || status=1; done; exit $$status

deps:
	@bash common/deps.sh --install-all

# LABS=1,2, in the environment or on the command line (make exports both),
# packs only those labs and writes the list into the handin as labs.txt.
handin:
	@bash common/handin.sh

# Instructors: the students' starter kit (every solution region replaced by
# its stub, no grader) and Gradescope's autograder.zip (PLATFORM=prairielearn:
# a PrairieLearn course's prairielearn.zip), both into $(DIST).
# LABS=1,2,3,4: a course of only those labs, the same list for both (the
# starter leaves the others out; GRADE_LABS=, older, is the autograder's
# alone); GRADE_TIMEOUT=SECONDS:
# its time limit (default 540, under Gradescope's default 10 minutes);
# GRADE_VISIBILITY='speed=after_due_date;...': Gradescope's visibility of
# the checks whose names hold each text (build.sh --visibility). The
# starter kit has no grading/, and so neither target.
DIST ?= dist
INSTRUCTOR := $(wildcard grading/starter.sh)
# Class results: SUBMISSIONS=DIR (a folder of handins, or Gradescope's
# "download all submissions" zip) merged into CLASS (default class/): a
# tidy CSV per data file, anonymous ids, a figure per lab, left-out
# submissions named with their reason (grading/classresults).
CLASS ?= class
ifneq ($(INSTRUCTOR),)
test-all: all
	@bash tests/run.sh --all $(T)
starter:
	@bash grading/starter.sh -o $(DIST)/starter $(if $(LABS),--labs $(LABS))
autograder:
	@bash grading/autograder/build.sh --platform $(or $(PLATFORM),gradescope) -o $(DIST)/$(if $(filter prairielearn,$(PLATFORM)),prairielearn,autograder).zip $(if $(or $(GRADE_LABS),$(LABS)),--labs $(or $(GRADE_LABS),$(LABS))) $(if $(GRADE_TIMEOUT),--timeout $(GRADE_TIMEOUT)) $(if $(GRADE_VISIBILITY),--visibility '$(GRADE_VISIBILITY)')
rubric:
	@python3 -B grading/rubric.py --write
class:
	@if [ -z "$(SUBMISSIONS)" ]; then echo "make class: say where the submissions are: make class SUBMISSIONS=DIR (or the Gradescope zip) [CLASS=OUT]" >&2; exit 2; fi
	@bash common/deps.sh gnuplot
	@python3 -B -m grading.classresults merge --out "$(CLASS)" "$(SUBMISSIONS)"
else
test-all:
	@echo "make test-all: this is the students' kit, without the grader: make test runs every test it has" >&2; exit 2
starter autograder class rubric:
	@echo "make $@: this is the students' kit; $@ is made from the instructor's kit" >&2; exit 2
endif

# Removes build outputs and scratch files; your results in data/ and plot/ stay.
clean:
	rm -rf bin bin-asan bin-tsan build dist $(SCRATCH)

help:
	@echo "make            build every program into bin/"
	@echo "make labs       run every lab (SCALE=$(SCALE)), write data/, draw plot/, print a summary"
	@echo "make labN       run one lab: $(LAB_TARGETS)"
	@echo "make lab6-real  Lab 6: the crash states of sqlite3, git and a Python save (data/lab6-real/)"
	@echo "make plot       draw plot/*.png from data/ (PREVIEW=1: also as text in the terminal)"
	@echo "make plot-labN  draw only lab N's figures"
	@echo "make test       run the test suite, then a tally per test file (T=launch: only launch.bats)"
	@echo "make check      the test suite on sanitizer builds (ASan+UBSan; TSan for threaded programs)"
	@echo "make bench      speed benchmarks, as ratios against a reference run alongside"
	@echo "make validate   Lab 5: iopattern against fio on the same patterns (fio is optional)"
	@echo "make deps       install gnuplot, bats and liburing (and say how on other systems)"
	@echo "make handin     pack your submission into iolab-handin.tar.gz (LABS=1,2: only those)"
	@echo "make clean      remove build outputs and scratch files (keeps data/ and plot/)"
ifneq ($(INSTRUCTOR),)
	@echo "make test-all   instructors: make test with the grader's suites that grade submissions (what CI runs)"
	@echo "make lint       instructors: shellcheck, pyflakes, pycodestyle and cppcheck over the kit's own files"
	@echo "make starter    instructors: the students' starter kit, stubs for solutions, in $(DIST)/starter (LABS=1,2: only those labs)"
	@echo "make autograder instructors: Gradescope's $(DIST)/autograder.zip (LABS=1,2: only those labs; PLATFORM=prairielearn: $(DIST)/prairielearn.zip)"
	@echo "make rubric     instructors: each lab page's table \"How Lab N is graded\" written from grading/labN/checks.py"
	@echo "make class      instructors: SUBMISSIONS=DIR (or Gradescope's zip) merged into class figures in $(CLASS)/"
endif
	@echo "Variables: SCALE=tiny|quick|full  SCRATCH=dir (default scratch)  CC=  CFLAGS= (default -O2)  EXTRA_CFLAGS= (added)"
