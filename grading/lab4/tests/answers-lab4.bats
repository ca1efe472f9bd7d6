#!/usr/bin/env bats
# Lab 4's reference answers (grading/lab4/answers.md) quote measurements,
# an example from one run on a named machine that a student's data will not
# match: held to that run (grading/lab4/reference-run/), as the lab's
# closing tables print it, so that the two cannot drift apart.

load ../../../tests/helpers
load ../../tests/answers

@test "answers-lab4: Lab 4 quotes the medians of its reference run, as the closing tables print them" {
	quoted <<-'PY'
	import statistics


	def step4(strategy):
	    """Step 4's median of a strategy, as typed by hand (lab4-step4.txt)."""
	    with open(reference(4, "lab4-step4.txt")) as f:
	        return number(statistics.median(float(line.split()[6]) for line in f if line.split()[0] == strategy))


	w = "lab4-writers.csv"
	want = {
	        "Q4.1": [f"{med(4, w, 'mib_s', fsync=1, files=n, strategy=s)} / {med(4, w, 'cpu_mib_s', fsync=1, files=n, strategy=s)}"
	                        for n in (100, 500) for s in ("seq", "per-file", "io-thread", "pool")],
	        "Q4.2": [f"{med(4, w, 'wall_s', fsync=1, files=500, strategy='seq')} s with fsync",
	                        f"{med(4, w, 'wall_s', fsync=0, files=500, strategy='seq')} s without",
	                        f"{med(4, w, 'cpu_s', fsync=1, files=500, strategy='seq')} s",
	                        f"{med(4, w, 'mib_s', fsync=0, files=500, strategy='seq')} MiB/s",
	                        f"{med(4, 'lab3-membw.csv', 'mib_s', threads=1, op='copy')} MiB/s"],
	        "Q4.3": [f"{med(4, w, 'wall_s', fsync=f, files=500, strategy='per-file')} s against" for f in (1, 0)]
	        + [f"{med(4, w, 'mib_s', fsync=f, files=500, strategy='per-file')} against "
	           f"{med(4, w, 'mib_s', fsync=f, files=500, strategy='seq')} MiB/s" for f in (1, 0)],
	        "Q4.4": [f"(median {step4(s)})" for s in ("seq", "per-file")],
	        "Q4.5": [f"| {k} | " for k in (1, 2, 4, 8, 16, 32)]
	        + [f" | {med(4, 'lab4-step3.csv', 'mib_s', threads=k)} |" for k in (1, 2, 4, 8, 16, 32)],
	        "Q4.7": [f"threaded median {med(4, 'lab4-datagen.csv', 'wall_s', mode='threaded')} s",
	                        f"sequential (-z) median {med(4, 'lab4-datagen.csv', 'wall_s', mode='sequential')} s",
	                        f"fill_s is {med(4, 'lab4-datagen.csv', 'fill_s', mode='sequential')} s",
	                        f"write_s {med(4, 'lab4-datagen.csv', 'write_s', mode='sequential')} s"]

	}
	missing(4, want)
	PY
}
